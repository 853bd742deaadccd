"""Writing an output without ever damaging what its path is.

Every output of the toolkit (records, bench figures, checkpoints, policies,
bots, configs) goes through :func:`atomic_output`, which writes according to
what the path is:

=====================================  ==================================================
the path                               how it is written
=====================================  ==================================================
a regular file, or nothing yet         a temporary file beside it, flushed to disk, then
                                       renamed over it: the file is whole or untouched,
                                       even when a run is killed while it writes
a symbolic link                        followed: its target is written as above, and the
                                       link stays a link
a FIFO or a character device           written directly, as a stream (``/dev/null``, a
(``/dev/null``, ``/dev/stdout``)       named pipe's reader, the terminal): never replaced
a directory, a socket, a block device  refused with one line (:class:`OutputPathError`)
=====================================  ==================================================

``/dev/stdout`` and the other links to this process's descriptors are written
through the descriptor itself, whatever it leads to, so that ``--csv
/dev/stdout > out.csv`` writes into the file the shell opened, after what the
command printed before, rather than renaming a new file over it; other
streams are opened to append, never truncated.
"""

from __future__ import annotations

import contextlib
import os
import stat
import sys
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO


class OutputPathError(ValueError):
    """A path that no output may be written to (a directory, a socket, a block device)."""


def output_kind(path: str | os.PathLike) -> tuple[str, Path]:
    """How :func:`atomic_output` writes ``path``, and the path it writes.

    Returns:
        ``("replace", file)`` for a regular file or a new one (``file`` is a link's
        target), or ``("stream", path)`` for a FIFO, a character device or a descriptor
        link under ``/proc``.

    Raises:
        OutputPathError: for a directory, a socket or a block device, naming it.
    """
    path = Path(path)
    target = path
    if path.is_symlink():
        if _through_proc(path):  # /dev/stdout -> /proc/self/fd/1: a descriptor, not a place
            return "stream", path
        target = Path(os.path.realpath(path))
    try:
        mode = os.stat(target).st_mode
    except FileNotFoundError:
        return "replace", target
    if stat.S_ISREG(mode):
        return "replace", target
    if stat.S_ISFIFO(mode) or stat.S_ISCHR(mode):
        return "stream", path
    what = "a directory" if stat.S_ISDIR(mode) else (
        "a socket" if stat.S_ISSOCK(mode) else "a block device" if stat.S_ISBLK(mode)
        else "not a regular file")  # fmt: skip
    raise OutputPathError(
        f"{path} is {what}: give a file (or a FIFO, or a character device such as /dev/null)"
    )


@contextlib.contextmanager
def atomic_output(path: str | os.PathLike, mode: str = "w") -> Iterator[IO]:
    """A file to write (``mode`` ``"w"`` or ``"wb"``) that becomes ``path`` when the block ends.

    A regular file is replaced atomically, a FIFO or a device is written as a stream
    (see the module docstring). If the block raises, a regular file is left as it was
    and the temporary file is removed.

    Raises:
        OutputPathError: for a directory, a socket or a block device.
    """
    kind, target = output_kind(path)
    encoding = None if "b" in mode else "utf-8"
    newline = "" if encoding else None
    if kind == "stream":
        own = _own_descriptor(target)
        if own is not None:  # /dev/stdout: the very file description, at its own offset
            sys.stdout.flush()
            sys.stderr.flush()
            opened: int | Path = os.dup(own)
        else:  # appended: never truncate what the path is
            opened, mode = target, mode.replace("w", "a")
        with open(opened, mode, encoding=encoding, newline=newline) as out:
            yield out
        return
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        os.fchmod(fd, 0o666 & ~_umask())  # mkstemp makes the file private; write a normal one
        with os.fdopen(fd, mode, encoding=encoding, newline=newline) as out:
            yield out
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def refuse_links(folder: str | os.PathLike, names: Iterable[str] | None = None) -> None:
    """Refuse a folder the toolkit keeps and writes into (a league, a run) that holds a
    symbolic link: its ``names``, or every entry at any depth when None.

    A link is followed when written (above), which is right for an output the user names,
    but a folder handed to us could point its files anywhere: a league's ``league.json`` at
    another league, a run's ``checkpoints/`` at another run's, whose old checkpoints it would
    then remove.

    Raises:
        OutputPathError: naming the first link.
    """
    folder = Path(folder)
    entries = (folder / n for n in names) if names is not None else folder.rglob("*")
    for entry in entries:
        if entry.is_symlink():
            raise OutputPathError(
                f"{entry} is a symbolic link: a file of {folder} must be its own, not a link "
                f"to {os.readlink(entry)} (a folder handed to you could point it anywhere)"
            )


def _chain(link: Path, hops: int = 40) -> Iterator[Path]:
    """The paths a chain of links passes through, from ``link`` on."""
    at = Path(os.path.abspath(link))
    for _ in range(hops):
        yield at
        if not at.is_symlink():
            return
        at = Path(os.path.normpath(at.parent / os.readlink(at)))


def _through_proc(link: Path) -> bool:
    """Whether a chain of links passes through ``/proc`` (a process's descriptors)."""
    return any(at.parts[1:2] == ("proc",) for at in _chain(link))


def _own_descriptor(path: Path) -> int | None:
    """The descriptor of this process that ``path`` names (``/dev/stdout``: 1), if any."""
    for at in _chain(path):
        _, proc, pid, fd, number, *rest = (*at.parts, "", "", "", "", "")
        mine = pid in ("self", str(os.getpid()))
        if proc == "proc" and mine and fd == "fd" and number.isdecimal() and not any(rest):
            return int(number)
    return None


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
