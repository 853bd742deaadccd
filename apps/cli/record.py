"""``spar record``: play hands with uniformly random legal actions and write their records.

Writes one game record per line (the game-record format of docs/rules.md) to
stdout, or to ``--out FILE`` (written to a temporary file first, then renamed,
so the file is either complete or untouched). ``--set key=value`` changes any
ruleset field. The same ``--seed`` and ruleset always write the same records,
whatever ``--batch`` is: hands are drawn in fixed blocks of 1024, each from
its own generator, and ``--batch`` only sets how many blocks are played at
once (the speed).

    spar record --variant sipa --players 3 --hands 1000 --seed 0 > games.jsonl
    spar record --variant essilfy --set last_two=bonus --set end=stones:30 --out g.jsonl
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from collections.abc import Iterator
from typing import Any, TextIO

import numpy as np

from spar_apps.cli.arguments import (
    add_command,
    nonempty_path,
    positive_int_at_most,
    seed,
)
from spar_apps.cli.output import atomic_output, check_output_path
from spar_apps.cli.overrides import add_rules_arguments, rules_from_args
from spar_env.limits import MAX_DEALS, MAX_GAMES
from spar_env.records import record_hands
from spar_env.records.recorder import BATCH, BLOCK

PROGRESS_MIN_HANDS = 10_000  # show a progress bar (on a terminal) from this many hands


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = add_command(
        subparsers, "record", "play hands with random legal moves and write them as game records",
        __doc__,
    )  # fmt: skip
    add_rules_arguments(parser)
    parser.add_argument(
        "--hands", type=positive_int_at_most(MAX_DEALS, "hands"), default=1000,
        help="hands to play",
    )  # fmt: skip
    parser.add_argument("--seed", type=seed, default=0, help="random seed, 0 or more")
    parser.add_argument(
        "--out", type=nonempty_path, metavar="FILE", help="write to this file instead of stdout"
    )
    parser.add_argument("--stock", action="store_true", help="always write the stock")
    parser.add_argument(
        "--batch",
        type=positive_int_at_most(MAX_GAMES, "hands at once"),
        default=BATCH,
        help=f"hands played together, in whole blocks of {BLOCK}; changes the speed, "
        "never the records",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    rules = rules_from_args(args)
    if args.out is not None:
        check_output_path(args.out, "--out")
    records = record_hands(
        rules,
        args.hands,
        np.random.default_rng(args.seed),
        batch=args.batch,
        with_stock=args.stock,
    )
    with _progress(records, args.hands) as shown:
        if args.out is None:
            _write(shown, sys.stdout)
        else:
            with atomic_output(args.out) as out:
                _write(shown, out)
    return 0


def _write(records: Iterator[dict[str, Any]], out: TextIO) -> None:
    for record in records:
        out.write(json.dumps(record) + "\n")
    out.flush()


@contextlib.contextmanager
def _progress(records: Iterator[dict[str, Any]], total: int) -> Iterator[Iterator[dict[str, Any]]]:
    """The records, counted by a rich progress bar on stderr for large runs on a terminal."""
    if total < PROGRESS_MIN_HANDS or not sys.stderr.isatty():
        yield records
        return
    from rich.console import Console
    from rich.progress import Progress

    with Progress(console=Console(stderr=True), transient=True) as progress:
        task = progress.add_task("recording", total=total)

        def counted() -> Iterator[dict[str, Any]]:
            for record in records:
                yield record
                progress.advance(task)

        yield counted()
