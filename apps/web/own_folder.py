"""A folder the server keeps its files in, used through one open descriptor: no link is
followed, no file but a regular one is read or replaced, and a file is written whole or
not at all.

:class:`OwnFolder` opens a folder once and does everything inside it relative to that
descriptor (``openat``, ``renameat``, ``unlinkat``): a link planted later, at a file's name
or in place of a folder inside it, leads nowhere.

====================================  ==================================================
what a name holds                     what :class:`OwnFolder` does with it
====================================  ==================================================
a regular file                        read (past a size limit: refused), replaced
                                      atomically, removed or renamed
nothing                               written (a temporary file beside it, flushed,
                                      renamed over it)
a symbolic link                       never followed, read, replaced, removed or renamed:
                                      refused
a FIFO, a device, a socket, a folder  never opened (a FIFO would block the reader): refused
====================================  ==================================================

Every name it is given must be a plain file name (letters, digits, ``_``, ``-``, ``.``, no
``/``, no NUL, not ``.`` or ``..``): a name made from data that went wrong is refused as an
:class:`OSError`, which every caller of a save already handles, never followed as a path.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import secrets
import stat
from collections.abc import Iterator
from pathlib import Path

from spar_env.limits import LimitError
from spar_env.printable import printable

NAME = re.compile(r"[A-Za-z0-9_.-]{1,128}")
_DIRECTORY = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC


class FolderError(ValueError):
    """A folder that cannot be used as the server's own (a link, a file in its place); the
    message is one line that names it."""


def kind_of(mode: int | None) -> str:
    """What a file's mode says it is, in words ("a regular file", "a symbolic link", ...)."""
    if mode is None:
        return "nothing"
    for test, words in (
        (stat.S_ISREG, "a regular file"),
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISLNK, "a symbolic link"),
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
    ):
        if test(mode):
            return words
    return "not a regular file"


class OwnFolder:
    """A folder opened once (see the module docstring).

    Args:
        fd: its open descriptor (this object closes it).
        path: its path, for messages only.
        parent: the folder it was opened in (to notice it moved), or None.
    """

    def __init__(self, fd: int, path: Path, parent: OwnFolder | None = None) -> None:
        self.fd, self.path, self._parent = fd, path, parent
        self._identity = _identity(os.fstat(fd))

    @classmethod
    def open(cls, path: str | os.PathLike) -> OwnFolder:
        """The folder at ``path``, made if missing. ``path`` is the user's to name: a link
        there is followed (every name inside never is).

        Raises:
            FolderError: for a path that is not a folder, or cannot be made or opened.
        """
        path = Path(path)
        try:
            path.mkdir(parents=True, exist_ok=True)
        except FileExistsError:
            pass  # a file, or a link to nothing: said below
        except OSError as e:
            raise FolderError(f"{path}: cannot make it ({e.strerror})") from None
        try:
            return cls(os.open(path, _DIRECTORY), path)
        except NotADirectoryError:
            raise FolderError(f"{path} is {_kind_at(path)}, not a folder") from None
        except OSError as e:
            raise FolderError(f"{path}: cannot open it ({e.strerror})") from None

    def folder(self, name: str) -> OwnFolder:
        """The folder ``name`` inside this one, made if missing.

        Raises:
            FolderError: if ``name`` is a link, a file or anything but a folder of its own.
        """
        _check(name)
        with contextlib.suppress(FileExistsError):
            os.mkdir(name, 0o777, dir_fd=self.fd)
        what = kind_of(self.mode(name))
        if what != "a folder":
            raise FolderError(f"{self.path / name} is {what}, not a folder")
        try:
            fd = os.open(name, _DIRECTORY | os.O_NOFOLLOW, dir_fd=self.fd)
        except OSError as e:  # it changed since: a link now (ELOOP), or gone
            raise FolderError(f"{self.path / name}: cannot open it ({e.strerror})") from None
        return OwnFolder(fd, self.path / name, self)

    def close(self) -> None:
        with contextlib.suppress(OSError):
            os.close(self.fd)

    # ----- what is there -------------------------------------------------------------------
    def names(self) -> list[str]:
        """The names in the folder, sorted (whatever each holds)."""
        with os.scandir(self.fd) as entries:
            return sorted(entry.name for entry in entries)

    def entries(self) -> Iterator[tuple[str, int]]:
        """Each name in the folder with its mode (links not followed), as the folder lists
        them."""
        with os.scandir(self.fd) as listing:
            for entry in listing:
                with contextlib.suppress(FileNotFoundError):
                    yield entry.name, entry.stat(follow_symlinks=False).st_mode

    def mode(self, name: str) -> int | None:
        """The mode of what ``name`` holds (a link's own, never its target's), None if
        nothing."""
        _check(name)
        try:
            return os.stat(name, dir_fd=self.fd, follow_symlinks=False).st_mode
        except FileNotFoundError:
            return None

    # ----- reading and writing -------------------------------------------------------------
    def read(self, name: str, limit: int, what: str) -> bytes:
        """The bytes of the regular file ``name``.

        Raises:
            OSError: if ``name`` is missing, or holds anything but a regular file (a link
                or a FIFO is refused unopened).
            spar_env.limits.LimitError: for a file larger than ``limit`` bytes.
        """
        self._regular_or_nothing(name, "read")
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC,
                     dir_fd=self.fd)  # fmt: skip  # non-blocking: a FIFO swapped in never waits
        with os.fdopen(fd, "rb") as f:
            info = os.fstat(f.fileno())
            if not stat.S_ISREG(info.st_mode):
                raise _refused(self.path / name, kind_of(info.st_mode), "read")
            if info.st_size > limit:
                raise LimitError(f"{printable(self.path / name)}: larger than any {what} "
                                 f"(at most {limit:,} bytes)")  # fmt: skip
            data = f.read(limit + 1)
        if len(data) > limit:
            raise LimitError(f"{printable(self.path / name)}: larger than any {what}")
        return data

    def write(self, name: str, data: bytes, mode: int = 0o600) -> None:
        """Make ``name`` hold ``data``: a temporary file beside it, flushed, then renamed over
        it, so the file is whole or as it was.

        Raises:
            OSError: if ``name`` holds anything but a regular file, the folder was moved or
                replaced since it was opened, or the disk refuses.
        """
        self._regular_or_nothing(name, "replace")
        self.check_in_place()
        temporary = f".{name}.{secrets.token_hex(4)}.tmp"
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
                     | os.O_CLOEXEC, mode, dir_fd=self.fd)  # fmt: skip
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(data)
                out.flush()
                os.fsync(out.fileno())
            self._regular_or_nothing(name, "replace")  # once more, just before
            os.replace(temporary, name, src_dir_fd=self.fd, dst_dir_fd=self.fd)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temporary, dir_fd=self.fd)
            raise

    def remove(self, name: str) -> None:
        """Remove the regular file ``name`` (nothing there: nothing to do).

        Raises:
            OSError: if ``name`` holds anything but a regular file.
        """
        self._regular_or_nothing(name, "remove")
        with contextlib.suppress(FileNotFoundError):
            os.unlink(name, dir_fd=self.fd)

    def rename(self, name: str, new: str, into: OwnFolder | None = None) -> None:
        """Rename the regular file ``name`` to ``new`` (in ``into``, default this folder),
        never over anything but a regular file.

        Raises:
            OSError: if either name holds anything but a regular file.
        """
        into = into or self
        self._regular_or_nothing(name, "rename")
        into._regular_or_nothing(new, "replace")
        os.replace(name, new, src_dir_fd=self.fd, dst_dir_fd=into.fd)

    def check_in_place(self) -> None:
        """Refuse (``OSError``) once this folder is no longer at its name in its parent (moved,
        removed or replaced by something else while the server ran)."""
        if self._parent is None:
            return
        try:
            now = os.stat(self.path.name, dir_fd=self._parent.fd, follow_symlinks=False)
        except FileNotFoundError:
            now = None
        if now is None or _identity(now) != self._identity:
            raise OSError(errno.ENOENT, f"{printable(self.path)} was moved, removed or replaced "
                          "while the server ran")  # fmt: skip

    def _regular_or_nothing(self, name: str, doing: str) -> None:
        mode = self.mode(name)
        if mode is not None and not stat.S_ISREG(mode):
            raise _refused(self.path / name, kind_of(mode), doing)


def _check(name: str) -> None:
    """Refuse a name that is no plain file name (``OSError``: a save reports it, never
    follows it)."""
    if not isinstance(name, str) or not NAME.fullmatch(name) or name in (".", ".."):
        raise OSError(errno.EINVAL, f"{printable(repr(name))[:80]} is not a file name of ours")


def _refused(path: Path, what: str, doing: str) -> OSError:
    return OSError(errno.EPERM, f"{printable(path)} is {what}: not ours to {doing}, left alone")


def _identity(info: os.stat_result) -> tuple[int, int]:
    return info.st_dev, info.st_ino


def _kind_at(path: Path) -> str:
    try:
        return kind_of(os.lstat(path).st_mode)
    except OSError:
        return "nothing"
