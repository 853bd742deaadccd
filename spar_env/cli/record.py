"""``spar record``: play hands with uniformly random legal actions and write their records.

Writes one game record per line (RULES.md, "Game records") to stdout, or to
``--out FILE`` (written to a temporary file first, then renamed, so the file
is either complete or untouched). ``--set key=value`` changes any ruleset
field (see :mod:`spar_env.cli.overrides` for how values are read). The same
arguments always write the same records.

    spar record --variant sipa --players 3 --hands 1000 --seed 0 > games.jsonl
    spar record --variant essilfy --set last_two=bonus --set end=stones:30 --out g.jsonl
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from spar_env.cli.overrides import add_rules_arguments, rules_from_args
from spar_env.records import record_hands

PROGRESS_MIN_HANDS = 10_000  # show a progress bar (on a terminal) from this many hands


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "record",
        help="play hands with random legal moves and write them as game records",
        description=__doc__.split("\n\n", 1)[1],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_rules_arguments(parser)
    parser.add_argument("--hands", type=_positive, default=1000, help="hands to play")
    parser.add_argument("--seed", type=int, default=0, help="random seed")
    parser.add_argument("--out", type=Path, help="write to this file instead of stdout")
    parser.add_argument("--stock", action="store_true", help="always write the stock")
    parser.add_argument("--batch", type=_positive, default=1024, help="hands played together")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        rules = rules_from_args(args)
    except (ValueError, TypeError) as e:
        print(f"spar record: error: {e}", file=sys.stderr)
        return 2
    if args.out is not None and not (args.out.parent.is_dir() and not args.out.is_dir()):
        print(f"spar record: error: cannot write {args.out}", file=sys.stderr)
        return 2
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
            _write_atomically(shown, args.out)
    return 0


def _write(records: Iterator[dict[str, Any]], out: TextIO) -> None:
    for record in records:
        out.write(json.dumps(record) + "\n")
    out.flush()


def _write_atomically(records: Iterator[dict[str, Any]], path: Path) -> None:
    """Write to a temporary file beside ``path``, then rename it over ``path``."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.fchmod(fd, 0o666 & ~_umask())  # mkstemp makes the file private; write a normal one
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            _write(records, out)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


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


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1; got {value}")
    return value
