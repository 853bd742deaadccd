"""The ``search`` agent's targets: its strength against the shipped bot and ``pimc``, and its cost.

    nice -n 19 python benchmarks/search_strength.py                  # 4,000 deals each (long)
    nice -n 19 python benchmarks/search_strength.py --deals 200 --hands 20   # a quick look
    nice -n 19 python benchmarks/search_strength.py --spec search:leaf=rollout,worlds=16

**Strength** (4-player ``spar``): the duplicate-deal tournament of ``spar bench``
(:func:`train.tournament.run_tournament`, seats rotated) with ``--spec`` in
one seat against three copies of the shipped bot, then of ``pimc``; the mean
payoff per hand with its 95% interval. The same figures come from

    spar bench SPEC onnx:spar4 onnx:spar4 onnx:spar4 --deals 4000 --seed 0
    spar bench SPEC pimc pimc pimc --deals 4000 --seed 0

Targets: at least +0.08 against the shipped bot and +0.20 against ``pimc``,
each interval above 0.

**Cost**: seconds per decision of one agent holding every seat over whole
hands (:func:`pimc_speed.time_decisions`: every decision, forced ones too),
``pimc`` and ``--spec`` in alternating rounds on the same deals, in one run,
on one thread. Target: a median of at most 20 ms.
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402
from pimc_speed import time_decisions  # noqa: E402  (beside this script)

from agents import make_agent  # noqa: E402
from spar_env.rules import make_rules  # noqa: E402
from train.tournament import run_tournament  # noqa: E402

DEFAULT_SPEC = "search:policy=onnx:spar4,worlds=32"
OPPONENTS = ("onnx:spar4", "pimc")


def strength(spec: str, opponent: str, deals: int, seed: int, players: int) -> str:
    rules = make_rules("spar", players=players)
    begin = time.perf_counter()
    result = run_tournament([spec] + [opponent] * (players - 1), rules, deals, seed, chunk=50)
    mine = result.agents[0]
    return (
        f"{spec} vs {opponent} x{players - 1}, {deals} deals ({time.perf_counter() - begin:.0f} s): "
        f"{mine.mean_payoff:+.3f} ± {mine.ci95:.3f} per hand"
    )


def cost(spec: str, hands: int, rounds: int, seed: int, players: int) -> str:
    """Median ms per decision of ``pimc`` and ``spec``, alternating rounds on the same deals."""
    rules = make_rules("spar", players=players)
    agents = {"pimc": make_agent("pimc", rules), spec: make_agent(spec, rules)}
    ms: dict[str, list[float]] = {name: [] for name in agents}
    for r in range(rounds):
        for name, agent in agents.items():
            warm = 1 if r == 0 else 0  # the first decisions compile the solver
            times = time_decisions(rules, agent, hands, warm, seed + r)
            ms[name] += [1e3 * t for ts in times.values() for t in ts]
    p, s = (np.median(ms[name]) for name in agents)
    return (
        f"cost per decision over {rounds} x {hands} hands, alternating: pimc median {p:.2f} ms "
        f"(90% {np.quantile(ms['pimc'], 0.9):.2f}), {spec} median {s:.2f} ms "
        f"(90% {np.quantile(ms[spec], 0.9):.2f}); ratio {s / p:.2f}x"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.partition("\n\n")[0])
    parser.add_argument("--spec", default=DEFAULT_SPEC, help="the search agent's spec")
    parser.add_argument("--deals", type=int, default=4000, help="deals per strength bench")
    parser.add_argument("--hands", type=int, default=50, help="timed hands per round per agent")
    parser.add_argument("--rounds", type=int, default=4, help="alternating rounds of timing")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--skip", choices=("strength", "cost"), help="leave one part out")
    args = parser.parse_args(argv)
    print(
        "$ python benchmarks/search_strength.py "
        + shlex.join(sys.argv[1:] if argv is None else argv)
    )
    if args.skip != "cost":
        print(cost(args.spec, args.hands, args.rounds, args.seed, args.players), flush=True)
    if args.skip != "strength":
        for opponent in OPPONENTS:
            print(strength(args.spec, opponent, args.deals, args.seed, args.players), flush=True)


if __name__ == "__main__":
    main()
