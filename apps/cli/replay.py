"""``spar replay FILE.jsonl``: check game records and print each one's result.

Reads one record per line (- reads stdin; blank lines are skipped) and prints
one JSON object per record, in order: the replay's result (winner, points,
payoffs, tricks, ...) or {"error": "line N: ..."} for a line that is not
UTF-8, not JSON, or a record that breaks a rule. A file and stdin are read
alike. Records are replayed in batches through the core. Exit status: 0 if
every record replays, 1 if any fails (with a line on stderr naming the file
and the first failed line), 2 if the file cannot be opened.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
from collections.abc import Iterable, Iterator
from typing import BinaryIO, NamedTuple, TextIO

from spar_apps.cli.arguments import add_command
from spar_env.limits import MAX_LINE_BYTES, LimitError
from spar_env.records import RecordError, replay_many

CHUNK = 4096  # lines read, replayed and printed together


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = add_command(
        subparsers, "replay", "check game records and print each one's result", __doc__
    )
    parser.add_argument("file", help="a .jsonl file of records, or - for stdin")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.file == "-":
        # Bytes, as from a file; a replaced sys.stdin (tests) may give text.
        return _replay_source(getattr(sys.stdin, "buffer", sys.stdin), "stdin")
    try:
        # Bytes: each line is decoded, and fails, on its own. Not `with open(...)` inside the
        # try: only opening may fail as "cannot read"; a closed stdout is not this file's fault.
        stream = open(args.file, "rb")  # noqa: SIM115
    except OSError as e:
        print(f"spar replay: error: cannot read {args.file}: {e.strerror}", file=sys.stderr)
        return 2
    with stream:
        return _replay_source(stream, args.file)


class Tally(NamedTuple):
    """What a replay found: records read, records failed, and the line of the first failure."""

    records: int = 0
    failed: int = 0
    first_failed: int | None = None


def _replay_source(lines: BinaryIO | TextIO, name: str) -> int:
    """Replay a source to stdout; on failures, say on stderr how many and where the first is."""
    try:
        tally = replay_lines(bounded_lines(lines), sys.stdout)
    except LimitError as e:
        print(f"spar replay: error: {name}: {e}; stopped reading", file=sys.stderr)
        return 1
    if tally.failed:
        print(
            f"spar replay: error: {name}: {tally.failed} of {tally.records} records failed, "
            f"the first at line {tally.first_failed}",
            file=sys.stderr,
        )
        return 1
    return 0


def replay_lines(lines: Iterable[bytes | str], out: TextIO) -> Tally:
    """Replay JSON lines (bytes or text), writing one result or error per record, in order."""
    tally = Tally()
    for chunk in _chunks(lines):
        decoded = [_decode(number, line) for number, line in chunk]
        results = iter(replay_many([d for d in decoded if not isinstance(d, RecordError)]))
        written = []
        for (number, _), item in zip(chunk, decoded, strict=True):
            outcome = item if isinstance(item, RecordError) else next(results)
            if isinstance(outcome, RecordError):
                tally = tally._replace(
                    failed=tally.failed + 1, first_failed=tally.first_failed or number
                )
                outcome = {"error": f"line {number}: {outcome}"}
            written.append(json.dumps(outcome) + "\n")
        out.write("".join(written))
        out.flush()
        tally = tally._replace(records=tally.records + len(chunk))
    return tally


def bounded_lines(stream: BinaryIO | TextIO) -> Iterator[bytes | str]:
    """The lines of ``stream``, each read up to ``MAX_LINE_BYTES``: a longer one (``/dev/zero``
    has no end of line) is a :class:`LimitError` instead of all the memory there is."""
    for number in itertools.count(1):
        line = stream.readline(MAX_LINE_BYTES + 1)
        if not line:
            return
        if len(line) > MAX_LINE_BYTES:
            raise LimitError(
                f"line {number} is longer than {MAX_LINE_BYTES:,} bytes, and no record is"
            )
        yield line


def _decode(number: int, line: bytes | str) -> object:
    """The JSON value of one line, or the RecordError that says why there is none."""
    if isinstance(line, bytes):
        try:
            line = line.decode("utf-8")
        except UnicodeDecodeError as e:
            return RecordError(f"not UTF-8: byte {e.start + 1} is 0x{line[e.start]:02x}")
    if number == 1:
        line = line.removeprefix("\ufeff")  # a byte-order mark, as some editors write
    try:
        return json.loads(line)
    except RecursionError:
        return RecordError("not a record: the JSON is nested too deeply")
    except ValueError as e:  # JSONDecodeError, or a number too long for int()
        return RecordError(f"not JSON: {e}")


def _chunks(lines: Iterable[bytes | str]) -> Iterator[list[tuple[int, bytes | str]]]:
    """Non-blank lines with their 1-based numbers, ``CHUNK`` at a time."""
    chunk: list[tuple[int, bytes | str]] = []
    for number, line in enumerate(lines, start=1):
        if line.strip():
            chunk.append((number, line))
            if len(chunk) == CHUNK:
                yield chunk
                chunk = []
    if chunk:
        yield chunk
