"""``spar speed``: card plays and hands per second of the batch core under random legal play."""

from __future__ import annotations

import argparse
import json

from spar_env.cli.overrides import add_rules_arguments, rules_from_args
from spar_env.speed import measure_core

DEFAULT_BATCHES = (1, 64, 1024, 8192)


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "speed",
        help="measure the core's card plays and hands per second",
        description="Random legal play through the batch core, dealing and scoring included.",
    )
    add_rules_arguments(p)
    p.add_argument(
        "--batch",
        type=int,
        nargs="+",
        default=list(DEFAULT_BATCHES),
        help="batch sizes to measure (default: 1 64 1024 8192)",
    )
    p.add_argument("--seconds", type=float, default=2.0, help="time per batch size (default: 2)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", action="store_true", help="print JSON lines instead of a table")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.table import Table

    rules = rules_from_args(args)
    if any(b < 1 for b in args.batch):
        raise ValueError(f"batch sizes must be positive; got {args.batch}")
    console = Console(stderr=True)
    results = []
    for batch in args.batch:
        with console.status(f"{rules.variant}, {rules.players} players, batch {batch} ..."):
            results.append(measure_core(rules, batch, args.seconds, args.seed))
    if args.json:
        for r in results:
            print(json.dumps(r.to_dict()))
        return 0
    table = Table(title=f"spar speed: {rules.variant}, {rules.players} players, random legal play")
    for col in ("batch", "card plays/s", "hands/s"):
        table.add_column(col, justify="right")
    for r in results:
        table.add_row(f"{r.batch:,}", f"{r.plays_per_second:,.0f}", f"{r.hands_per_second:,.0f}")
    Console().print(table)
    return 0
