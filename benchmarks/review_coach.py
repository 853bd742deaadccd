"""How well the hand review tells cards apart and says why, and how long it takes a hand.

Records ``--hands`` hands of random legal play (``spar record``'s hands, the same ``--seed``
giving the same hands), reviews seat 0 of each with ``spar review``'s defaults (the first
shipped bot that plays the game, 64 worlds a decision, more where a gap is not yet decided,
up to ``--max-worlds``), and prints:

- the mistakes, and the share of them that give a reason (the target: all of them);
- the decisions whose card played is worth 0.25 or more below the best, and the share of
  them left undecided, "too little to tell apart" (the target: at most 5%);
- seconds a hand (the target: at most 2), on one thread.

Runs on the plain install (no extra needed).

    python benchmarks/review_coach.py --hands 30 --players 4
    python benchmarks/review_coach.py --hands 30 --players 4 --record review.undecided_4p

``--record NAME`` writes the share undecided to that entry of ``benchmarks/results/``
(:mod:`figures`), with the other figures in its ``what``.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")  # one core: before numpy and torch load

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))

from figures import add_record_option, record  # noqa: E402

from spar_agents import make_agent  # noqa: E402
from spar_agents.registry.for_game import first_that_plays  # noqa: E402
from spar_agents.shipped import default_bot_specs  # noqa: E402
from spar_apps.table.review import MISTAKE_MARGIN, review_hand, reviewer  # noqa: E402
from spar_env.records import record_hands  # noqa: E402
from spar_env.rules import make_rules  # noqa: E402


def main(argv: list[str] | None = None) -> dict[str, float]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variant", default="spar")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--hands", type=int, default=30)
    parser.add_argument("--seed", type=int, default=0, help="seed of the recorded hands")
    parser.add_argument("--worlds", type=int, default=64, help="worlds a decision, at first")
    parser.add_argument("--max-worlds", type=int, default=1024, help="worlds a decision at most")
    add_record_option(parser)
    args = parser.parse_args(argv)
    rules = make_rules(args.variant, players=args.players)
    records = list(record_hands(rules, args.hands, np.random.default_rng(args.seed)))
    spec = first_that_plays(default_bot_specs(), rules)
    search = reviewer(rules, make_agent(spec, rules), spec, worlds=args.worlds)
    review_hand(records[0], 0, search, max_worlds=args.worlds)  # warm up (compiles, loads)
    begin = time.perf_counter()
    reviews = [review_hand(r, 0, search, max_worlds=args.max_worlds) for r in records]
    seconds = (time.perf_counter() - begin) / len(records)
    decisions = [d for review in reviews for d in review.decisions]
    mistakes = [d for d in decisions if d.mistake]
    explained = [d for d in mistakes if d.reasons]
    gaps = [d for d in decisions if not d.forced and d.gap >= MISTAKE_MARGIN]
    undecided = [d for d in gaps if not d.mistake]
    share = len(undecided) / max(len(gaps), 1)
    figures = {
        "mistakes": len(mistakes),
        "explained": len(explained) / max(len(mistakes), 1),
        "gaps": len(gaps),
        "undecided": share,
        "seconds_a_hand": seconds,
        "worlds_a_decision": float(np.mean([d.worlds for d in decisions if not d.forced])),
    }
    print(f"{args.hands} hands of {args.variant} at {args.players} players (seed {args.seed}), "
          f"seat 0, {spec}, {args.worlds} to {args.max_worlds} worlds a decision")  # fmt: skip
    print(f"mistakes: {len(mistakes)}, with a reason: {len(explained)} "
          f"({100 * figures['explained']:.0f}%)")  # fmt: skip
    print(f"gaps of {MISTAKE_MARGIN} or more: {len(gaps)}, left undecided: {len(undecided)} "
          f"({100 * share:.1f}%)")  # fmt: skip
    print(f"seconds a hand: {seconds:.2f}; worlds a searched decision on average: "
          f"{figures['worlds_a_decision']:.0f}")  # fmt: skip
    if args.record:
        record(args.record, 100 * share, None, decimals=1, unit="%",
               what=f"gaps of {MISTAKE_MARGIN} or more left undecided by the review, seat 0 of "
               f"{args.hands} recorded {args.players}-player hands; {len(mistakes)} mistakes, "
               f"{100 * figures['explained']:.0f}% with a reason; {seconds:.2f} s a hand on one "
               "thread")  # fmt: skip
    return figures


if __name__ == "__main__":
    main()
