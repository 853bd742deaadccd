"""Output files of the commands: checked before a run starts, written atomically.

A run can take minutes, so a path that cannot be written (a directory, a
missing or read-only directory, a wrong suffix) is refused before it starts,
with the option's name. Files are written to a temporary file beside the
target and renamed over it, so a file is either complete or untouched.
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from pathlib import Path

from spar_env.atomic import atomic_output

__all__ = ["atomic_output", "check_output_path"]


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
