"""Tournament benchmark: how long ``spar bench`` takes, and where the time goes.

    python benchmarks/bench_speed.py [--deals 100000] [--json] [AGENT ...]

Runs the duplicate-deal tournament (default lineup: ``heuristic random random
random`` in 4-player ``spar``, the issue's target: 100,000 deals, 400,000
games, under a minute) and reports the wall time, games per second, and each
agent's share of the time spent deciding, with its microseconds per decision.
"""

from __future__ import annotations

import argparse
import json
import time

from spar_agents import make_agent
from spar_agents.registry import AGENTS
from spar_env.rules import make_rules
from spar_train.tournament import run_tournament


class _Timed:
    """Wraps an agent; counts its decisions and the time it takes."""

    def __init__(self, agent) -> None:
        self.agent = agent
        self.seconds = 0.0
        self.decisions = 0

    def act(self, situation, rng):
        start = time.perf_counter()
        decision = self.agent.act(situation, rng)
        self.seconds += time.perf_counter() - start
        self.decisions += situation.size
        return decision


def measure(lineup: list[str], variant: str, players: int, deals: int, seed: int) -> dict:
    """Run the tournament with every agent timed (by swapping timed factories into the registry)."""
    rules = make_rules(variant, players=players)
    make_agent("random", rules)  # load the built-in agents before wrapping them
    names = {spec.partition(":")[0] for spec in lineup}
    saved = {name: AGENTS[name] for name in names}
    timers: list[tuple[str, _Timed]] = []

    def timed(name: str):
        def factory(rules, **params):
            timers.append((name, _Timed(saved[name](rules, **params))))
            return timers[-1][1]

        return factory

    AGENTS.update({name: timed(name) for name in names})
    try:
        start = time.perf_counter()
        result = run_tournament(lineup, rules, deals, seed)
        seconds = time.perf_counter() - start
    finally:
        AGENTS.update(saved)
    return {
        "lineup": lineup,
        "variant": variant,
        "players": players,
        "deals": deals,
        "games": result.games,
        "seconds": seconds,
        "games_per_second": result.games / seconds,
        "agents": [
            {
                "agent": name,
                "seconds": t.seconds,
                "decisions": t.decisions,
                "us_per_decision": 1e6 * t.seconds / max(t.decisions, 1),
            }
            for name, t in timers
        ],
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("agents", nargs="*", default=["heuristic", "random", "random", "random"])
    p.add_argument("--variant", default="spar")
    p.add_argument("--players", type=int, default=4)
    p.add_argument("--deals", type=int, default=100_000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", action="store_true")
    args = p.parse_args()
    report = measure(args.agents, args.variant, args.players, args.deals, args.seed)
    if args.json:
        print(json.dumps(report))
        return
    print(
        f"{' '.join(report['lineup'])}: {report['variant']}, {report['players']} players, "
        f"{report['deals']:,} deals = {report['games']:,} games in {report['seconds']:.1f} s "
        f"({report['games_per_second']:,.0f} games/s)"
    )
    for t in report["agents"]:
        print(
            f"  {t['agent']:>10}: {t['seconds']:6.1f} s deciding, {t['decisions']:,} decisions, "
            f"{t['us_per_decision']:.2f} us each"
        )


if __name__ == "__main__":
    main()
