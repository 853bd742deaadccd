"""The ``search`` agent's targets: its strength against the shipped bot and ``pimc``, and its cost.

    python benchmarks/search_strength.py                  # 4,000 deals each (long)
    python benchmarks/search_strength.py --deals 200 --hands 20   # a quick look
    python benchmarks/search_strength.py --spec search:policy=onnx:spar4 --opponents onnx:spar4

**Strength** (4-player ``spar``): the duplicate-deal tournament of ``spar bench``
(:func:`spar_train.tournament.run_tournament`, seats rotated) with ``--spec`` in
one seat against three copies of each of ``--opponents`` (by default the
shipped universal bot, then ``pimc``); the mean payoff per hand with its 95%
interval. The same figures come from

    spar bench SPEC onnx:universal onnx:universal onnx:universal --deals 4000 --seed 0
    spar bench SPEC pimc pimc pimc --deals 4000 --seed 0

Targets: at least +0.08 against the shipped bot and +0.20 against ``pimc``,
each interval above 0.

**Cost**: seconds per decision of one agent holding every seat over whole
hands (:func:`pimc_speed.time_decisions`), ``pimc`` and ``--spec`` in
alternating rounds on the same deals, in one run, on one thread: the median
over every decision (a forced one, a single legal card, costs next to
nothing), and over the decisions with a choice (the ones searched). Target:
a median of at most 20 ms.
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

from spar_agents import make_agent  # noqa: E402
from spar_env.rules import make_rules  # noqa: E402
from spar_train.tournament import run_tournament  # noqa: E402

DEFAULT_SPEC = "search"  # its defaults: the universal bot as the policy
OPPONENTS = "onnx:universal,pimc"


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
    """Median ms per decision of ``pimc`` and ``spec``, alternating rounds on the same deals:
    over every decision, then over the decisions with a choice."""
    rules = make_rules("spar", players=players)
    agents = {"pimc": make_agent("pimc", rules), spec: make_agent(spec, rules)}
    lines = []
    for choices_only in (False, True):
        ms: dict[str, list[float]] = {name: [] for name in agents}
        for r in range(rounds):
            for name, agent in agents.items():
                warm = 1 if r == 0 and not choices_only else 0  # the first solves compile
                times = time_decisions(rules, agent, hands, warm, seed + r, choices_only)
                ms[name] += [1e3 * t for ts in times.values() for t in ts]
        p, s = (np.median(ms[name]) for name in agents)
        lines.append(
            f"cost per decision{' with a choice' if choices_only else ''} over {rounds} x "
            f"{hands} hands, alternating: pimc median {p:.2f} ms "
            f"(90% {np.quantile(ms['pimc'], 0.9):.2f}), {spec} median {s:.2f} ms "
            f"(90% {np.quantile(ms[spec], 0.9):.2f}); ratio {s / p:.2f}x"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.partition("\n\n")[0])
    parser.add_argument("--spec", default=DEFAULT_SPEC, help="the search agent's spec")
    parser.add_argument("--opponents", default=OPPONENTS, help="comma list, each x3")
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
        for opponent in args.opponents.split(","):
            print(strength(args.spec, opponent, args.deals, args.seed, args.players), flush=True)


if __name__ == "__main__":
    main()
