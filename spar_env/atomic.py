"""Atomic file writes: a temporary file beside the target, renamed over it when complete.

Every output of the toolkit (records, bench figures, checkpoints, policies,
bots, configs) goes through :func:`atomic_output`, so a file is either whole
or untouched, even when a run is killed while it writes.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO


@contextlib.contextmanager
def atomic_output(path: str | os.PathLike, mode: str = "w") -> Iterator[IO]:
    """A file to write (``mode`` ``"w"`` or ``"wb"``) that replaces ``path`` when the block ends.

    The file is flushed to disk before the rename. If the block raises,
    ``path`` is left as it was and the temporary file is removed.
    """
    path = Path(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.fchmod(fd, 0o666 & ~_umask())  # mkstemp makes the file private; write a normal one
        encoding = None if "b" in mode else "utf-8"
        with os.fdopen(fd, mode, encoding=encoding, newline="" if encoding else None) as out:
            yield out
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
