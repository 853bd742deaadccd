"""Decision time of the ``pimc`` search bot over whole hands, and a check of its play.

    python benchmarks/pimc_speed.py                       # 200 hands of 4-player spar, 32 worlds
    python benchmarks/pimc_speed.py --hands 50 --worlds 16 --variant sipa
    python benchmarks/pimc_speed.py --strength 400        # also: pimc vs random / heuristic

**Speed.** Every seat is played by one ``pimc`` agent; each hand is dealt and
played one decision at a time, and every decision of every seat is timed,
from trick 1 to the last (a seat with one legal card decides without
searching, and that counts too). It prints the median and the 90th percentile,
the figures per trick, and the search profile: nodes per searched decision.
The first decisions pay for compiling the search (Numba, cached on disk
after the first run), so a few warm-up hands are played untimed.

**Strength** (``--strength K``): ``K`` hands with ``pimc`` in seat 0 and the
same opponent in every other seat (``random``, then ``heuristic`` when it is
registered), played in one batch through ``History``, ``Situation`` and
``core.step``. It prints each side's mean payoff per hand with a 95%
interval. This is a quick check, not the duplicate-deal benchmark
(``spar bench``).
"""

from __future__ import annotations

import argparse
import shlex
import sys
import time

import numpy as np

from spar_agents import AGENTS, Situation, make_agent
from spar_agents.pimc import PimcAgent
from spar_env.core import reset, step
from spar_env.history import History
from spar_env.rules import Ruleset, make_rules


def time_decisions(
    rules: Ruleset,
    agent: PimcAgent,
    hands: int,
    warmup: int,
    seed: int,
    choices_only: bool = False,
) -> dict[int, list[float]]:
    """Seconds per decision, by trick, over ``hands`` whole hands (after ``warmup`` untimed ones);
    with ``choices_only``, only the decisions with more than one legal card."""
    rng = np.random.default_rng(seed)
    times: dict[int, list[float]] = {}
    for hand in range(warmup + hands):
        state = reset(rules, 1, rng)
        history = History(state)
        while not state.terminated[0]:
            situation = Situation(state, history, np.array([0]))
            begin = time.perf_counter()
            actions = agent.act(situation).actions
            spent = time.perf_counter() - begin
            if hand >= warmup and not (choices_only and int(state.legal[0]).bit_count() < 2):
                times.setdefault(int(state.trick[0]), []).append(spent)
            history.record(state, actions)
            step(state, actions)
            history.settle(state)
    return times


def play_batch(rules: Ruleset, seats: list, hands: int, seed: int) -> np.ndarray:
    """``float [hands, N]`` payoffs of ``hands`` hands, seat ``s`` played by ``seats[s]``."""
    rng = np.random.default_rng(seed)
    state = reset(rules, hands, rng)
    history = History(state)
    payoffs = np.zeros((hands, rules.players))
    while not state.terminated.all():
        actions = np.zeros(hands, dtype=np.int64)
        live = ~state.terminated
        for seat, agent in enumerate(seats):
            games = np.flatnonzero(live & (state.current_player == seat))
            if games.size:
                actions[games] = agent.act(Situation(state, history, games), rng).actions
        history.record(state, actions)
        rewards = step(state, actions)
        history.settle(state)
        ended = live & state.terminated
        payoffs[ended] = rewards[ended]
    return payoffs


def interval(x: np.ndarray) -> str:
    half = 1.96 * x.std(ddof=1) / np.sqrt(len(x))
    return f"{x.mean():+.3f} ± {half:.3f}"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variant", default="spar")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--worlds", type=int, default=32)
    parser.add_argument("--hands", type=int, default=200, help="timed hands")
    parser.add_argument("--warmup", type=int, default=3, help="untimed hands first")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--strength", type=int, default=0, help="hands per strength check")
    args = parser.parse_args(argv)
    print("$ python benchmarks/pimc_speed.py " + shlex.join(sys.argv[1:] if argv is None else argv))
    rules = make_rules(args.variant, players=args.players)
    agent = PimcAgent(rules, worlds=args.worlds, seed=args.seed)

    times = time_decisions(rules, agent, args.hands, args.warmup, args.seed)
    every = np.array([t for ts in times.values() for t in ts]) * 1e3
    nodes = int(agent.solver.stats[0])
    searched = agent.searched
    print(
        f"{args.variant} N={args.players} worlds={args.worlds}: {every.size} decisions "
        f"over {args.hands} hands: median {np.median(every):.2f} ms, "
        f"90th percentile {np.quantile(every, 0.9):.2f} ms, mean {every.mean():.2f} ms"
    )
    for trick in sorted(times):
        ms = np.array(times[trick]) * 1e3
        print(
            f"  trick {trick + 1}: {ms.size:5d} decisions  median {np.median(ms):7.2f} ms  "
            f"90% {np.quantile(ms, 0.9):7.2f} ms  max {ms.max():8.2f} ms"
        )
    print(
        f"  search: {searched} searched decisions (warm-up included), {nodes / max(searched, 1):,.0f} nodes each"
    )

    if args.strength:
        make_agent("random", rules)  # loads the registry
        for name in [a for a in ("random", "heuristic") if a in AGENTS]:
            other = make_agent(name, rules)
            seats = [agent] + [other] * (rules.players - 1)
            begin = time.perf_counter()
            pay = play_batch(rules, seats, args.strength, args.seed + 1)
            spent = time.perf_counter() - begin
            print(
                f"pimc vs {name} x{rules.players - 1}, {args.strength} hands ({spent:.0f} s): "
                f"pimc {interval(pay[:, 0])} per hand, each {name} "
                f"{interval(pay[:, 1:].mean(axis=1))}"
            )


if __name__ == "__main__":
    main()
