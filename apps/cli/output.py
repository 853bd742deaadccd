"""Output files of the commands, checked before a run starts and written as the path allows;
and tables on stdout, drawn for a terminal or as plain lines for a pipe (:func:`print_table`).

A run can take minutes, so a path that cannot be written (a directory, a
socket, a missing or read-only directory, a wrong suffix) is refused before it
starts, with the option's name. A regular file (or a link's target) is
written to a temporary file beside it and renamed over it, so it is either
complete or untouched; a FIFO or a device such as ``/dev/null`` is written as
a stream and stays what it is (:mod:`spar_env.atomic`).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from spar_env.atomic import OutputPathError, atomic_output, output_kind

if TYPE_CHECKING:
    from rich.table import Table

__all__ = ["atomic_output", "check_output_path", "print_table"]


def print_table(table: Table) -> None:
    """``table`` on stdout: drawn by rich on a terminal; for a file or a pipe, plain lines
    (the title, the header and each row with their cells separated by tabs, the caption),
    never padded to a width nor folded in the middle of a phrase."""
    import sys

    from rich.console import Console

    console = Console()
    if console.is_terminal:
        console.print(table)
        return
    lines = [str(table.title)] if table.title else []
    lines.append("\t".join(str(c.header) for c in table.columns))
    for row in zip(*(c.cells for c in table.columns), strict=True):
        lines.append("\t".join(str(cell) for cell in row))
    if table.caption:
        lines.append(str(table.caption))
    sys.stdout.write("\n".join(lines) + "\n")


def check_output_path(path: Path, option: str, suffixes: Sequence[str] | None = None) -> None:
    """Refuse an output path that the run could not write, naming ``option``.

    Args:
        path: where the output will go.
        option: the option that gave it (``--out``), for the message.
        suffixes: allowed file name endings (``.png``), or None for any.

    Raises:
        ValueError: for a directory, a socket or a block device, a wrong suffix, a FIFO
            or device that cannot be written, or a directory where no file can be created.
    """
    where = f"{option} {path}"
    try:
        kind, target = output_kind(path)
    except OutputPathError as e:
        raise ValueError(f"{option} {e}") from None
    if suffixes is not None and path.suffix.lower() not in suffixes:
        *others, last = suffixes
        allowed = f"{', '.join(others)} or {last}" if others else last
        raise ValueError(f"{where}: the file name must end in {allowed}")
    if kind == "stream":  # a FIFO or a device: written in place, so it must be writable
        if not os.access(path, os.W_OK):
            raise ValueError(f"{where}: cannot write to it (permission denied)")
        return
    parent = target.parent
    if not parent.is_dir():
        why = f"{parent} is not a directory" if parent.exists() else f"no such directory {parent}"
        raise ValueError(f"{where}: cannot write there: {why}")
    try:  # the only sure test on every file system (and as root) is to create a file
        with tempfile.NamedTemporaryFile(dir=parent, prefix=f".{path.name}.", suffix=".tmp"):
            pass
    except OSError as e:
        raise ValueError(f"{where}: cannot create a file in {parent}: {e.strerror or e}") from None
