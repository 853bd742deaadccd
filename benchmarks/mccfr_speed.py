"""How fast sampled CFR walks two-player Spar: hands and decisions per second.

    python benchmarks/mccfr_speed.py [--batches 10] [--deals 1024]

The recipe of ``configs/mccfr_spar2.toml`` (the other seat plays
``heuristic`` in half the hands); two warm-up batches are not timed.
"""

from __future__ import annotations

import argparse
import time

from spar_agents.cfr.mccfr import ExternalSampling
from spar_agents.heuristic import HeuristicAgent
from spar_env.rules import make_rules


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--batches", type=int, default=10)
    ap.add_argument("--deals", type=int, default=1024)
    args = ap.parse_args()
    rules = make_rules("spar", players=2)
    solver = ExternalSampling(rules, deals=args.deals, model=HeuristicAgent(rules), model_share=0.5)
    solver.step(2)
    start, nodes = time.perf_counter(), solver.nodes
    solver.step(args.batches)
    seconds = time.perf_counter() - start
    hands = args.batches * args.deals
    print(
        f"{hands:,} hands in {seconds:.1f} s: {hands / seconds:,.0f} hands/s, "
        f"{(solver.nodes - nodes) / seconds:,.0f} decisions visited/s"
    )


if __name__ == "__main__":
    main()
