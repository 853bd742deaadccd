"""What the two shortcuts of an ONNX bot's ``act`` save, each against its plain path, in one run.

    taskset -c 0 python benchmarks/act_speed.py [--matches 2000] [--rounds 2]

The match bench of 4-player spar to 10 between ``onnx:match`` and ``onnx:universal``
(every rotation), played in alternating rounds by the same bots made three ways:

- ``shipped``: as they play (forced moves answered without the graph, the match bot's
  score inputs folded into its game's own graph);
- ``graph on every move``: every decision through the graph, forced ones too;
- ``match bot through v2``: the match bot without its game's graph (observation v2).

A forced move's answer is the graph's answer, and v2 and the game's graph agree to
1e-5, so the three play the same matches (the script checks the match shares agree);
only the time differs. It prints matches per second and each plain path's time over the
shipped one.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from spar_agents import make_agent
from spar_agents.base import Decision
from spar_agents.export.bot import OnnxAgent, _sample
from spar_env.rules import make_rules
from spar_train.match.bench import run_match_bench

LINEUP = ("onnx:match", "onnx:universal")


class EveryMove(OnnxAgent):
    """An ONNX bot that runs its graph on every decision, forced ones too."""

    def act(self, situation, rng: np.random.Generator) -> Decision:
        probs = self.game_probs(situation.obs, situation.mask)
        actions = probs.argmax(axis=1) if self.greedy else _sample(probs, rng)
        return Decision(actions.astype(np.int64), probs)


def agents(how: str, rules) -> dict[str, OnnxAgent]:
    built = {spec: make_agent(spec, rules) for spec in LINEUP}
    if how == "graph on every move":
        for agent in built.values():
            agent.__class__ = EveryMove
    elif how == "match bot through v2":
        built["onnx:match"].game_session = None
    return built


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.partition("\n\n")[0])
    parser.add_argument("--matches", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rules = make_rules("spar")
    ways = ("shipped", "graph on every move", "match bot through v2")
    built = {how: agents(how, rules) for how in ways}
    for how in ways:  # compile the engine and warm every session first
        run_match_bench(list(LINEUP), rules, 20, args.seed, agents=built[how])
    seconds = dict.fromkeys(ways, 0.0)
    shares = {}
    for _ in range(args.rounds):
        for how in ways:
            start = time.perf_counter()
            result = run_match_bench(list(LINEUP), rules, args.matches, args.seed,
                                     agents=built[how])  # fmt: skip
            seconds[how] += time.perf_counter() - start
            shares[how] = result.agents[0].match_share
            games = result.games
    for how in ways:
        rate = games * args.rounds / seconds[how]
        print(
            f"{how:<22} {rate:8.1f} matches/s   time / shipped's "
            f"{seconds[how] / seconds['shipped']:.2f}   match bot's share {shares[how]:.4f}"
        )
    if len(set(shares.values())) != 1:
        raise SystemExit(f"the three ways played different matches: {shares}")


if __name__ == "__main__":
    main()
