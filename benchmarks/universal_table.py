"""The per-game table of a universal bot: its mean payoff per hand against ``heuristic``.

One cell per play preset at every player count it allows (2 to 7), plus
4-player ``spar`` with each option of the bench table (``ace_of_spades=true``,
``last_two=sum``, ``weak_hand_exchange=true``, ``end=target:5``,
``end=target:15``). Each cell is the duplicate-deal tournament of ``spar bench``
with the bot in one seat and ``heuristic`` in every other (rotated seats, every
deal once per rotation), the 95% interval over deals, and the command that
gives the same figure::

    python benchmarks/universal_table.py --bot checkpoints/universal.onnx --deals 20000
    python benchmarks/universal_table.py --bot checkpoints/universal.onnx --deals 2000 \\
        --markdown table.md --json table.json --only spar sipa

``--markdown`` writes the table (the README and the bot's card show it),
``--json`` the figures; both atomically.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from spar_env.atomic import atomic_output
from spar_env.rules import PRESETS, make_rules

PLAY_PRESETS = tuple(name for name in PRESETS if name not in ("mini", "micro"))
SPAR_OPTIONS = (
    ("ace_of_spades", "true"),
    ("last_two", "sum"),
    ("weak_hand_exchange", "true"),
    ("end", "target:5"),
    ("end", "target:15"),
)
MAX_PLAYERS = 7
OPPONENT = "heuristic"


def cells(only: list[str] | None = None) -> list[tuple[str, int, tuple[str, ...]]]:
    """``(variant, players, --set options)`` of every cell, in table order."""
    out: list[tuple[str, int, tuple[str, ...]]] = []
    for variant in PLAY_PRESETS:
        if only and variant not in only:
            continue
        most = min(make_rules(variant, players=2).max_players, MAX_PLAYERS)
        out += [(variant, n, ()) for n in range(2, most + 1)]
        if variant == "spar":
            out += [(variant, 4, (f"{k}={v}",)) for k, v in SPAR_OPTIONS]
    return out


def command(bot: str, variant: str, players: int, sets: tuple[str, ...], deals: int) -> str:
    lineup = " ".join([bot] + [OPPONENT] * (players - 1))
    extra = "".join(f" --set {s}" for s in sets)
    return f"spar bench {lineup} --variant {variant} --players {players}{extra} --deals {deals} --seed 0"


def run(bot: str, deals: int, todo: list[tuple[str, int, tuple[str, ...]]]) -> list[dict[str, Any]]:
    """The figures of each cell of ``todo`` (see :func:`cells`)."""
    from rich.progress import Progress

    from spar_agents import make_agent
    from spar_apps.cli.overrides import ruleset_overrides
    from spar_train.tournament import run_tournament

    rows = []
    with Progress(transient=True) as bar:
        task = bar.add_task("cells", total=len(todo))
        for variant, players, sets in todo:
            rules = make_rules(variant, players=players, **ruleset_overrides(list(sets)))
            agent = make_agent(bot, rules)
            begin = time.perf_counter()
            result = run_tournament([bot] + [OPPONENT] * (players - 1), rules, deals, 0,
                                    agents={bot: agent})  # fmt: skip
            mine = result.agents[0]
            rows.append({
                "variant": variant, "players": players, "options": list(sets),
                "deals": deals, "mean_payoff": mine.mean_payoff, "ci95": mine.ci95,
                "above_zero": mine.mean_payoff - mine.ci95 > 0,
                "seconds": time.perf_counter() - begin,
                "command": command(bot, variant, players, sets, deals),
            })  # fmt: skip
            bar.advance(task)
    return rows


def markdown(rows: list[dict[str, Any]]) -> str:
    lines = [
        "| game | players | mean payoff per hand vs heuristic | 95% interval | above 0 | command |",
        "|---|---|---|---|---|---|",
    ]
    for r in rows:
        game = r["variant"] + "".join(f" {o}" for o in r["options"])
        low, high = r["mean_payoff"] - r["ci95"], r["mean_payoff"] + r["ci95"]
        lines.append(
            f"| {game} | {r['players']} | {r['mean_payoff']:+.3f} ± {r['ci95']:.3f} | "
            f"[{low:+.3f}, {high:+.3f}] | {'yes' if r['above_zero'] else 'no'} | "
            f"`{r['command']}` |"
        )
    above = sum(r["above_zero"] for r in rows)
    lines.append(f"\n{above} of {len(rows)} games above 0 with the 95% interval.")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bot", default="onnx:checkpoints/universal.onnx",
                        help="the bot's spec (onnx:FILE or ppo:RUN)")  # fmt: skip
    parser.add_argument("--deals", type=int, default=20000, help="duplicate deals per cell")
    parser.add_argument("--only", nargs="+", metavar="VARIANT", help="these presets only")
    parser.add_argument("--markdown", type=Path, help="write the table here")
    parser.add_argument("--json", type=Path, help="write the figures here")
    args = parser.parse_args(argv)
    bot = args.bot if ":" in args.bot else f"onnx:{args.bot}"
    try:
        rows = run(bot, args.deals, cells(args.only))
    except ValueError as e:
        print(f"universal_table: error: {e}", file=sys.stderr)
        return 2
    table = markdown(rows)
    print(table)
    if args.markdown is not None:
        with atomic_output(args.markdown) as f:
            f.write(table)
    if args.json is not None:
        with atomic_output(args.json) as f:
            f.write(json.dumps(rows, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
