"""How many decisions a second ``search`` values on one core: decision by decision, and many
decisions at once (:meth:`spar_agents.search.SearchAgent.card_values`, whose rollouts run every
decision's worlds in one batch), in alternating rounds of one run.

The decisions are those of ``--decisions`` games of the game, each at a point drawn at random
(the bench's position mix: any trick, any seat), the model of the seats the universal bot.
One torch/onnxruntime thread (``--threads``): the figure is per core.

    python benchmarks/search_speed.py --players 4 --worlds 16 --candidates 2
    python benchmarks/search_speed.py --players 4 --record search_loop.speed_4p

``--record NAME`` writes the batched figure (decisions a second a core) to that entry of
``benchmarks/results/`` (:mod:`figures`), with the ratio in its ``what``.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from figures import add_record_option, record  # noqa: E402


def main(argv: list[str] | None = None) -> dict[str, float]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--worlds", type=int, default=16)
    parser.add_argument("--candidates", type=int, default=2)
    parser.add_argument("--decisions", type=int, default=64, help="decisions a round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    add_record_option(parser)
    args = parser.parse_args(argv)
    os.environ["OMP_NUM_THREADS"] = str(args.threads)
    import torch

    torch.set_num_threads(args.threads)
    from spar_agents import make_agent
    from spar_agents.belief import public_facts
    from spar_agents.positions import random_situation
    from spar_agents.search import SearchAgent, policy_of
    from spar_agents.worlds import seat_views
    from spar_env import make_rules

    rules = make_rules("spar", players=args.players)
    policy = policy_of(make_agent("onnx:universal", rules), "onnx:universal")
    agent = SearchAgent(rules, policy, worlds=args.worlds, candidates=args.candidates,
                        prior=0.0, seed=args.seed)  # fmt: skip
    rng = np.random.default_rng(args.seed)

    def alone(situation) -> None:
        for game, view in zip(situation.games, seat_views(situation), strict=True):
            agent.search_values(view, public_facts(situation.state, int(game)))

    ways = {"one at a time": alone, "batched": agent.card_values}
    seconds = dict.fromkeys(ways, 0.0)
    done = 0
    warm = random_situation(rules, 8, rng)
    for way in ways.values():  # compile the kernels first
        way(warm)
    for _ in range(args.rounds):
        situation = random_situation(rules, args.decisions, rng)
        for name, way in ways.items():
            began = time.perf_counter()
            way(situation)
            seconds[name] += time.perf_counter() - began
        done += situation.size
    rates = {name: done / s for name, s in seconds.items()}
    for name, rate in rates.items():
        print(f"{name:>14}: {rate:7.0f} decisions/s on {args.threads} thread(s)")
    ratio = rates["batched"] / rates["one at a time"]
    print(f"{'batched':>14}: {ratio:.2f}x one at a time")
    if args.record:
        record(args.record, rates["batched"], None, decimals=0,
               what=f"decisions a second a core that search (worlds={args.worlds}, "
               f"candidates={args.candidates}, the universal bot's policy) values in "
               f"{args.players}-player spar, batched: {ratio:.2f}x one at a time in the same run")  # fmt: skip
    return {**rates, "ratio": ratio}


if __name__ == "__main__":
    main()
