"""Output files of the commands: checked before a run starts, written atomically.

A run can take minutes, so a path that cannot be written (a directory, a
missing or read-only directory, a wrong suffix) is refused before it starts,
with the option's name. Files are written to a temporary file beside the
target and renamed over it, so a file is either complete or untouched.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import IO


def check_output_path(path: Path, option: str, suffixes: Sequence[str] | None = None) -> None:
    """Refuse an output path that the run could not write, naming ``option``.

    Args:
        path: where the output will go.
        option: the option that gave it (``--out``), for the message.
        suffixes: allowed file name endings (``.png``), or None for any.

    Raises:
        ValueError: for a directory, a wrong suffix, or a directory where no
            file can be created.
    """
    where = f"{option} {path}"
    if path.is_dir():
        raise ValueError(f"{where}: is a directory; give the name of a file")
    if suffixes is not None and path.suffix.lower() not in suffixes:
        *others, last = suffixes
        allowed = f"{', '.join(others)} or {last}" if others else last
        raise ValueError(f"{where}: the file name must end in {allowed}")
    parent = path.parent
    if not parent.is_dir():
        why = f"{parent} is not a directory" if parent.exists() else f"no such directory {parent}"
        raise ValueError(f"{where}: cannot write there: {why}")
    try:  # the only sure test on every file system (and as root) is to create a file
        with tempfile.NamedTemporaryFile(dir=parent, prefix=f".{path.name}.", suffix=".tmp"):
            pass
    except OSError as e:
        raise ValueError(f"{where}: cannot create a file in {parent}: {e.strerror or e}") from None


@contextlib.contextmanager
def atomic_output(path: Path, mode: str = "w") -> Iterator[IO]:
    """A file to write (``mode`` ``"w"`` or ``"wb"``) that replaces ``path`` when the block ends.

    If the block raises, ``path`` is left as it was and the temporary file is removed.
    """
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.fchmod(fd, 0o666 & ~_umask())  # mkstemp makes the file private; write a normal one
        encoding = None if "b" in mode else "utf-8"
        with os.fdopen(fd, mode, encoding=encoding, newline="" if encoding else None) as out:
            yield out
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
