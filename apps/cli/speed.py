"""``spar speed``: agent steps and hands per second under random legal play.

Modes: core (the batch core alone, the default), vector (the native Gymnasium
vector env), selfplay (the self-play batch API) and aec (the PettingZoo AEC
env, one game). Each batch size plays for --seconds; dealing, scoring and
re-dealing are inside the timed loop.
"""

from __future__ import annotations

import argparse

from spar_apps.cli.arguments import add_command, positive_int_at_most, positive_seconds, seed
from spar_apps.cli.overrides import add_rules_arguments, rules_from_args
from spar_env import strict_json
from spar_env.limits import MAX_GAMES
from spar_env.speed import MODES, measure

DEFAULT_BATCHES = {"core": [1, 64, 1024, 8192], "vector": [4096], "selfplay": [4096], "aec": [1]}


def register(subparsers: argparse._SubParsersAction) -> None:
    p = add_command(
        subparsers, "speed", "measure agent steps and hands per second under random legal play",
        __doc__,
    )  # fmt: skip
    add_rules_arguments(p)
    p.add_argument("--mode", choices=MODES, default="core", help="what to measure")
    p.add_argument(
        "--batch",
        type=positive_int_at_most(MAX_GAMES, "games"),
        nargs="+",
        default=None,
        help="batch sizes (default: 1 64 1024 8192 for core, 4096 for vector/selfplay)",
    )
    p.add_argument(
        "--seconds", type=positive_seconds, default=2.0, help="time per batch size, above 0"
    )
    p.add_argument("--seed", type=seed, default=0, help="random seed, 0 or more")
    p.add_argument("--json", action="store_true", help="print JSON lines instead of a table")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.table import Table

    rules = rules_from_args(args)
    batches = args.batch or DEFAULT_BATCHES[args.mode]
    if args.mode == "aec" and batches != [1]:  # found now, not after the other batches' runs
        raise ValueError(
            f"--batch {' '.join(map(str, batches))}: the aec mode plays one game; use --batch 1"
        )
    console = Console(stderr=True)
    results = []
    for batch in batches:
        with console.status(
            f"{args.mode}: {rules.variant}, {rules.players} players, batch {batch}"
        ):
            results.append(measure(args.mode, rules, batch, args.seconds, args.seed))
    if args.json:
        for r in results:
            print(strict_json.dumps(r.to_dict()))
        return 0
    steps = "card plays/s" if args.mode == "core" else "agent steps/s"
    table = Table(title=f"spar speed ({args.mode}): {rules.variant}, {rules.players} players")
    columns = ["batch", steps] + (["env steps/s"] if args.mode == "vector" else []) + ["hands/s"]
    for col in columns:
        table.add_column(col, justify="right")
    for r in results:
        row = [f"{r.batch:,}", f"{r.agent_steps_per_second:,.0f}"]
        if args.mode == "vector":
            row.append(f"{r.env_steps_per_second:,.0f}")
        table.add_row(*row, f"{r.hands_per_second:,.0f}")
    Console().print(table)
    return 0
