"""``spar replay FILE.jsonl``: check game records and print each one's result.

Reads one record per line (``-`` reads stdin; blank lines are skipped) and
prints one JSON object per record, in order: the replay's result
(``winner``, ``points``, ``payoffs``, ``tricks``, ...) or ``{"error": "line
N: ..."}`` for a line that is not JSON or a record that breaks a rule.
Records are replayed in batches through the core. Exit status: 0 if every
record replays, 1 if any fails, 2 if the file cannot be read.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Iterator
from typing import TextIO

from spar_env.records import RecordError, replay_many

CHUNK = 4096  # lines read, replayed and printed together


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "replay",
        help="check game records and print each one's result",
        description=__doc__.split("\n\n", 1)[1],
    )
    parser.add_argument("file", help="a .jsonl file of records, or - for stdin")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.file == "-":
        return replay_lines(sys.stdin, sys.stdout)
    try:
        with open(args.file, encoding="utf-8") as stream:
            return replay_lines(stream, sys.stdout)
    except OSError as e:
        print(f"spar replay: error: cannot read {args.file}: {e.strerror}", file=sys.stderr)
        return 2


def replay_lines(lines: Iterable[str], out: TextIO) -> int:
    """Replay JSON lines and write one result or error per record; 1 if any failed, else 0."""
    failed = False
    for chunk in _chunks(lines):
        decoded: list[object] = []
        for _, line in chunk:
            try:
                decoded.append(json.loads(line))
            except json.JSONDecodeError as e:
                decoded.append(RecordError(f"not JSON: {e}"))
        results = replay_many([d for d in decoded if not isinstance(d, RecordError)])
        replayed = iter(results)
        written = []
        for (number, _), item in zip(chunk, decoded, strict=True):
            outcome = item if isinstance(item, RecordError) else next(replayed)
            if isinstance(outcome, RecordError):
                failed = True
                outcome = {"error": f"line {number}: {outcome}"}
            written.append(json.dumps(outcome) + "\n")
        out.write("".join(written))
        out.flush()
    return 1 if failed else 0


def _chunks(lines: Iterable[str]) -> Iterator[list[tuple[int, str]]]:
    """Non-blank lines with their 1-based numbers, ``CHUNK`` at a time."""
    chunk: list[tuple[int, str]] = []
    for number, line in enumerate(lines, start=1):
        if line.strip():
            chunk.append((number, line))
            if len(chunk) == CHUNK:
                yield chunk
                chunk = []
    if chunk:
        yield chunk
