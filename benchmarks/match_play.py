"""Match play benchmarks: the equity table against simulation, the match bench's speed, and
the shipped bots' coverage of every session end.

    python benchmarks/match_play.py equity   [--cells 40] [--matches 40000]
    python benchmarks/match_play.py speed    [--matches 20000] [--deals 20000] [--lineup SPEC ...]
    python benchmarks/match_play.py coverage [--matches 2000] [--players 4] [--bot onnx:match]
                                             [--variant spar]

``equity``: 4-player spar to 10, the hand model of ``onnx:universal`` self-play; at
randomly drawn cells (scores and dealer) the exact table must lie inside the 95%
interval of a Monte-Carlo simulation of the same hand model (about 1 cell in 20
may not, by chance; the count is reported).

``speed``: on one core (pin it with ``taskset -c 0``), whole matches of 4-player
spar to 10 between shipped ONNX bots (``--lineup``; ``onnx:universal onnx:spar4`` by
default, every rotation), and in the same run the hand bench of the same lineup, so the two
figures are compared on one machine: matches per second beside hands per second.

``coverage``: for every play preset (or the ``--variant`` ones), at targets 5, 6, 10,
12, 15, 20, 24, 30 and stones 10 and 30, a bot (``--bot``: the shipped universal bot by
default; ``seated``: the one ``spar play`` seats in each game) against ``heuristic`` (one
bot seat, the rest heuristic, every rotation) on the match bench: its share of matches
and whether its 95% interval lies above the fair share.
"""

from __future__ import annotations

import argparse
import json
import os
import time

import numpy as np

from spar_agents.registry.for_game import first_that_plays
from spar_agents.shipped import default_bot_specs
from spar_env.rules import PRESETS, make_rules
from spar_train.match.bench import run_match_bench
from spar_train.match.equity import equity_table, simulate_equity
from spar_train.match.model import estimate_hand_model
from spar_train.tournament import run_tournament

ENDS = [f"target:{t}" for t in (5, 6, 10, 12, 15, 20, 24, 30)] + ["stones:10", "stones:30"]
PLAY_PRESETS = [name for name in PRESETS if make_rules(name).end_kind != "one_hand"]
SEATED = "seated"  # --bot seated: in each game, the shipped bot that spar play seats


def equity(cells: int, matches: int, seed: int) -> dict:
    rules = make_rules("spar")
    model = estimate_hand_model(["onnx:universal"], rules, 4000, seed)
    table = equity_table(model, 10)
    rng = np.random.default_rng(seed)
    outside, worst = 0, 0.0
    for k in range(cells):
        scores = rng.integers(0, 10, rules.players).tolist()
        dealer = int(rng.integers(0, rules.players))
        exact = table.at(scores, dealer)
        sampled = simulate_equity(model, rules, scores, dealer, matches=matches, seed=k)
        outside += int((np.abs(sampled.win - exact) > sampled.ci95).sum())
        worst = max(worst, float((np.abs(sampled.win - exact) / sampled.ci95).max()))
    return {
        "game": "spar, 4 players, target:10",
        "hand_model": "onnx:universal self-play, 4,000 deals x 4 dealers",
        "cells": cells,
        "seat_figures": cells * rules.players,
        "outside_95": outside,
        "expected_outside": 0.05 * cells * rules.players,
        "worst_in_halfwidths": worst,
        "matches_per_cell": matches,
    }


def speed(matches: int, deals: int, seed: int, lineup: list[str] | None = None) -> dict:
    rules = make_rules("spar")
    lineup = lineup or ["onnx:universal", "onnx:spar4"]
    run_match_bench(lineup, rules, 50, seed)  # load the bots and compile the engine first
    start = time.perf_counter()
    result = run_match_bench(lineup, rules, matches, seed)
    match_seconds = time.perf_counter() - start
    start = time.perf_counter()
    hands = run_tournament(lineup, rules, deals, seed)
    hand_seconds = time.perf_counter() - start
    return {
        "lineup": lineup,
        "cpus": len(os.sched_getaffinity(0)),
        "matches": result.games,
        "mean_hands": result.mean_hands,
        "matches_per_second": result.games / match_seconds,
        "match_hands_per_second": result.hands / match_seconds,
        "hand_bench_hands_per_second": hands.games / hand_seconds,
    }


def seated_bot(rules) -> str:
    """The shipped bot ``spar play`` and ``spar serve`` seat in this game."""
    spec = first_that_plays(default_bot_specs(), rules)
    if spec is None:
        raise SystemExit(f"no shipped bot plays {rules.variant} with {rules.players} players")
    return spec


def coverage(
    matches: int, players: int, seed: int, bot: str = "onnx:universal",
    variants: list[str] | None = None,
) -> list[dict]:  # fmt: skip
    rows = []
    for variant in variants or PLAY_PRESETS:
        for end in ENDS:
            rules = make_rules(variant, players=players, end=end)
            spec = seated_bot(rules) if bot == SEATED else bot
            result = run_match_bench([spec] + ["heuristic"] * (players - 1), rules, matches, seed)
            figures = result.agents[0]
            rows.append({
                "bot": spec, "variant": variant, "players": players, "end": end,
                "match_share": figures.match_share, "ci95": figures.match_ci95,
                "fair": figures.fair_share,
                "above": figures.match_share - figures.match_ci95 > figures.fair_share,
                "payoff_per_hand": figures.mean_payoff, "mean_hands": result.mean_hands,
            })  # fmt: skip
            print(json.dumps(rows[-1]), flush=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.partition("\n\n")[0])
    parser.add_argument("what", choices=["equity", "speed", "coverage"])
    parser.add_argument("--cells", type=int, default=40)
    parser.add_argument("--matches", type=int)
    parser.add_argument("--deals", type=int, default=20_000)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--bot", default="onnx:universal",
                        help=f"coverage: the bot measured ({SEATED!r}: in each game, the "
                        "shipped bot spar play seats there)")  # fmt: skip
    parser.add_argument("--lineup", nargs="+", metavar="SPEC",
                        help="speed: the bots (default: onnx:universal onnx:spar4)")  # fmt: skip
    parser.add_argument("--variant", action="append", choices=PLAY_PRESETS,
                        help="coverage: this play preset only (repeatable; default: all)")  # fmt: skip
    args = parser.parse_args()
    if args.what == "equity":
        out = equity(args.cells, args.matches or 40_000, args.seed)
    elif args.what == "speed":
        out = speed(args.matches or 20_000, args.deals, args.seed, args.lineup)
    else:
        rows = coverage(args.matches or 2000, args.players, args.seed, args.bot, args.variant)
        out = {"cells": len(rows), "above": sum(r["above"] for r in rows), "rows": rows}
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
