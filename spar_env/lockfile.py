"""The advisory lock of a folder (a league, a run, a server's saved games), safe in a folder
somebody else made.

A lock is a small file holding the process id of its holder, locked with ``flock``; the
kernel lets go of it when the holder dies, so a lock left by a killed process never blocks
the next one. Folders are handed around (a league or a run folder sent by a colleague), so
the lock file in one is data we did not write, and it is opened as such:

- a symbolic link is refused, never followed (``O_NOFOLLOW``): a link planted as the lock
  would otherwise have its target truncated;
- so is anything that is not a regular file, a file with other hard links, and a file
  whose content is not a process id: the lock is truncated and rewritten only when it is
  one this toolkit could have made.

Each refusal is one line that names the file and says to remove it.
"""

from __future__ import annotations

import errno
import fcntl
import os
import stat
from pathlib import Path

MAX_LOCK_BYTES = 32  # a process id and a newline; anything longer is not a lock of ours


class LockFileError(ValueError):
    """The lock's path holds something that is not a lock this toolkit made."""


class LockHeld(Exception):
    """Another process holds the lock.

    Attributes:
        holder: the holder's process id as the file gives it ("" if it gives none).
    """

    def __init__(self, path: Path, holder: str) -> None:
        super().__init__(f"{path} is held by process {holder or 'unknown'}")
        self.holder = holder


def take_lock(path: str | os.PathLike) -> int:
    """Lock ``path`` (creating it) and write this process's id into it.

    Returns:
        The open descriptor; closing it lets go of the lock.

    Raises:
        LockHeld: another process holds the lock.
        LockFileError: ``path`` is a link, not a regular file, hard-linked elsewhere, or holds
            something other than a process id (module docstring).
    """
    path = Path(path)
    _refuse_foreign(path, os.lstat(path) if os.path.lexists(path) else None)
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    except OSError as e:
        if e.errno == errno.ELOOP:  # it became a link since the check above
            raise LockFileError(_link_message(path)) from None
        raise LockFileError(f"{path}: cannot open the lock ({e.strerror})") from None
    try:
        _refuse_foreign(path, os.fstat(fd))
        content = os.pread(fd, MAX_LOCK_BYTES + 1, 0)
        if not _is_process_id(content):
            raise LockFileError(
                f"{path} is not a lock file (it holds something other than a process id); "
                "remove it if it is yours to remove"
            )
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise LockHeld(path, content.decode("ascii").strip()) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
    except BaseException:
        os.close(fd)
        raise
    return fd


def lock_holder(path: str | os.PathLike) -> str | None:
    """The process id that holds the lock at ``path``, or None if nobody does (or there is
    no lock there). Takes and lets go of the lock to find out.

    Raises:
        LockFileError: as :func:`take_lock`.
    """
    if not os.path.lexists(path):
        return None
    try:
        os.close(take_lock(path))
    except LockHeld as held:
        return held.holder or "unknown"
    return None


def _refuse_foreign(path: Path, info: os.stat_result | None) -> None:
    if info is None:
        return
    if stat.S_ISLNK(info.st_mode):
        raise LockFileError(_link_message(path))
    if not stat.S_ISREG(info.st_mode):
        raise LockFileError(f"{path} is not a regular file, so it is not a lock; remove it")
    if info.st_nlink != 1:
        raise LockFileError(
            f"{path} has other hard links, so it is not a lock this toolkit made; remove it"
        )


def _link_message(path: Path) -> str:
    return f"{path} is a symbolic link; a lock is never written through a link: remove it"


def _is_process_id(content: bytes) -> bool:
    text = content.strip()
    return len(content) <= MAX_LOCK_BYTES and (not text or text.isdigit())
