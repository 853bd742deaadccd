"""Core benchmark: spar-rl's batch core against OpenSpiel's hearts, in one run.

    python benchmarks/core_speed.py [--seconds 5] [--json]

Both play random legal moves. OpenSpiel is driven move by move from Python,
the way an RL loop drives it; its chance nodes (the deal) are sampled with
NumPy and not counted as moves. Also reports the memory held by the state of
65,536 four-player games. Needs the ``bench`` extra (``pip install -e .[bench]``).
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from spar_env.core import reset
from spar_env.rules import make_rules
from spar_env.speed import measure_core


def openspiel_moves_per_second(game_name: str, seconds: float, seed: int = 0) -> float:
    import pyspiel

    game = pyspiel.load_game(game_name)
    rng = np.random.default_rng(seed)
    moves = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[rng.integers(len(outcomes))][0])
            else:
                legal = state.legal_actions()
                state.apply_action(legal[rng.integers(len(legal))])
                moves += 1
    return moves / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--batch", type=int, default=8192)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    rules = make_rules("spar", players=4)
    ours = measure_core(rules, args.batch, args.seconds)
    hearts = openspiel_moves_per_second("hearts", args.seconds)
    state_mib = reset(rules, 65536, np.random.default_rng(0)).nbytes / 2**20
    figures = {
        "spar_plays_per_second": round(ours.agent_steps_per_second),
        "spar_hands_per_second": round(ours.hands_per_second),
        "batch": args.batch,
        "openspiel_hearts_moves_per_second": round(hearts),
        "ratio": round(ours.agent_steps_per_second / hearts, 1),
        "state_mib_65536_games_4_players": round(state_mib, 1),
    }
    if args.json:
        print(json.dumps(figures))
        return
    for key, value in figures.items():
        print(f"{key:36s} {value:>14,}")


if __name__ == "__main__":
    main()
