"""The state folder of ``spar serve --state DIR``: the games, the tables of friends and their
hands' records, kept on disk so that a restart loses none, in a folder that is the server's
alone (:class:`GameFolder`).

==========================  ==============================================================
in ``DIR``                  what it is
==========================  ==============================================================
``.spar-serve``             the mark that ``DIR`` is a server's state folder (JSON)
``.lock``                   held by the server using the folder (one at a time)
``games/ID.json``           a game against the bots (``ID``: 24 letters, digits, ``-``, ``_``)
``tables/ID.json``          a table of friends (``ID``: 16 of them)
``records/ID-M.jsonl``      the finished hands of match ``M`` (0, 1, ...) of table ``ID``
==========================  ==============================================================

**The folder is ours alone.** The server reads and writes nothing of ``DIR`` but the names
above: it never lists ``DIR`` for "every ``*.json``", and never renames or removes a file it
did not name. A folder without the mark is taken only if it is empty, new, or a folder of an
earlier ``spar serve`` (its games at ``DIR/ID.json``, which move to ``games/``); any other
file there refuses the folder in one line that names it, so ``--state .`` in a project
folder touches nothing. Everything inside is used through
:class:`~spar_apps.web.own_folder.OwnFolder`: a link (to a folder or a file), a FIFO, a
device is never followed, opened, replaced or removed; a link or a file where one of the
three folders belongs refuses the folder at start, in one line.

**Each file is a whole game.** A game is fully described by its form, its seed, every action
applied to its table (the bots' and the people's, and each next hand) and the state of the
bots' random generators: :meth:`SavedFiles.save` writes it as one JSON file, atomically,
after every change. On start :meth:`SavedFiles.load` reads each file of a name of ours
through the same checks as the HTTP form (the file's id must be its name; a table's match
is named after the table) and plays its actions again through the engine, so a restored
game is the game it was, records and all. A file older than the time to live is removed;
a file of ours that is broken, hostile or no longer playable is renamed ``*.broken``, said
in one line of the log, and the rest of the folder still loads. JSON only: nothing on disk
is ever unpickled.
"""

from __future__ import annotations

import contextlib
import json
import logging
import math
import os
import re
import stat
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from spar_apps.web.own_folder import FolderError, OwnFolder, kind_of
from spar_env.limits import LimitError, load_json
from spar_env.lockfile import LockFileError, LockHeld, take_lock
from spar_env.printable import printable

LOG = logging.getLogger("spar.serve")
VERSION = 1  # of a saved game's or table's file
LAYOUT = 2  # of the folder (1: an earlier spar serve's, without the mark)
MARK, LOCK = ".spar-serve", ".lock"
MARK_DATA = {"format": "spar serve state", "version": LAYOUT}
MAX_FILE_BYTES = 4_000_000  # a long open session logs a few thousand actions
MAX_LEVELS = 16  # a saved table nests 5 deep
GAME_ID = re.compile(r"[A-Za-z0-9_-]{24}")  # secrets.token_urlsafe(18)
TABLE_ID = re.compile(r"[A-Za-z0-9_-]{16}")  # secrets.token_urlsafe(12)
FOLDERS = {"games": "games", "tables": "tables of friends", "records": "hands' records"}


def _files_of(ids: str, suffix: str) -> re.Pattern:
    """The names a folder of ours holds: ``ID.suffix``, one set aside, a temporary one."""
    name = rf"{ids}\.{suffix}"
    return re.compile(rf"{name}(\.broken)?|\.{name}\.[a-z0-9_]{{8}}\.tmp")


# An earlier server's folder, recognised name by name before it is taken (module docstring).
EARLIER = {
    "": re.compile(rf"\.lock|{_files_of('[A-Za-z0-9_-]{24}', 'json').pattern}"),
    "games": _files_of("[A-Za-z0-9_-]{24}", "json"),
    "tables": _files_of("[A-Za-z0-9_-]{16}", "json"),
    "records": _files_of(r"[A-Za-z0-9_-]{16}-[0-9]{1,9}", "jsonl"),
}


class GameFolder:
    """The state folder of a server (module docstring), locked for this server; its games
    in :attr:`games`, its tables of friends in :attr:`tables` and their hands' records in
    :attr:`records`.

    Raises:
        ValueError: in one line, if the folder cannot be made, is not ours (a file of
            another, a link, a file where a folder belongs), or another server holds it.
    """

    def __init__(self, folder: str | os.PathLike) -> None:
        self.folder = Path(folder)
        self._lock: int | None = None
        self._open: list[OwnFolder] = []
        try:
            root = self._keep(OwnFolder.open(self.folder))
            marked = _marked(root)
            earlier = [] if marked else _earlier_games(root)
            self._lock = take_lock(self.folder / LOCK)
            self.games = SavedFiles(self._keep(root.folder("games")), GAME_ID, "saved game")
            self.tables = SavedFiles(self._keep(root.folder("tables")), TABLE_ID, "saved table")
            self.records = self._keep(root.folder("records"))
            for name in earlier:  # an earlier server's game: ours, to its new place
                root.rename(name, name, into=self.games.folder)
            if not marked:
                root.write(MARK, json.dumps(MARK_DATA).encode(), 0o644)
        except LockHeld:
            self.close()
            raise ValueError(
                f"--state {folder}: another spar serve keeps its games there; give each server "
                "a folder of its own"
            ) from None
        except (FolderError, LockFileError) as e:
            self.close()
            raise ValueError(f"--state {printable(folder)}: {e}") from None
        except OSError as e:
            self.close()
            raise ValueError(f"--state {printable(folder)}: cannot use it ({e.strerror})") from None

    def _keep(self, folder: OwnFolder) -> OwnFolder:
        self._open.append(folder)
        return folder

    def close(self) -> None:
        for folder in self._open:
            folder.close()
        self._open = []
        if self._lock is not None:
            os.close(self._lock)  # and with it the lock
            self._lock = None


class SavedFiles:
    """The saved games (or tables) of a state folder: ``ID.json`` in one folder of ours.

    Args:
        folder: the folder.
        ids: the ids of its files (a name of another shape is not ours: left alone).
        what: what a file is, for messages ("saved game").
    """

    def __init__(self, folder: OwnFolder, ids: re.Pattern, what: str) -> None:
        self.folder, self.ids, self.what = folder, ids, what

    def name(self, item_id: object) -> str:
        """The file name of an id.

        Raises:
            OSError: for an id that is not one of ours (it never becomes a path).
        """
        if not isinstance(item_id, str) or not self.ids.fullmatch(item_id):
            raise OSError(f"{printable(repr(item_id))[:80]} is not the id of a {self.what}")
        return f"{item_id}.json"

    def save(self, item_id: str, data: dict[str, Any]) -> None:
        """Write a file atomically, stamped with the wall-clock time of its last use.

        Raises:
            OSError: if it cannot be written (a full disk, a link or a FIFO at its name).
        """
        text = json.dumps({"version": VERSION, "saved": time.time(), **data})
        self.folder.write(self.name(item_id), text.encode())

    def remove(self, item_id: str) -> None:
        with contextlib.suppress(OSError):
            self.folder.remove(self.name(item_id))

    def load(self, ttl: float, restore: Callable[[dict[str, Any]], Any]) -> list[tuple[Any, float]]:
        """Every file of ours younger than ``ttl`` seconds, as ``(restore(data), age)``.

        ``restore`` rebuilds a game from its file's data, raising ``ValueError`` (or
        ``KeyError``/``TypeError``) for data it cannot play; such a file is set aside as
        ``*.broken``. A name of ours that holds a link, a FIFO or a folder is left alone.
        """
        out = []
        now = time.time()
        for name, mode in sorted(self.folder.entries()):
            item_id, dot, suffix = name.partition(".")
            if (dot, suffix) != (".", "json") or not self.ids.fullmatch(item_id):
                continue  # not a name of ours: not ours to read
            where = printable(self.folder.path / name)
            if not stat.S_ISREG(mode):
                LOG.warning("spar serve: %s left alone: it is %s, not a %s", where,
                            kind_of(mode), self.what)  # fmt: skip
                continue
            try:
                data = load_json(self.folder.read(name, MAX_FILE_BYTES, self.what),
                                 MAX_LEVELS, self.what)  # fmt: skip
                age = now - _stamp(data, item_id, self.what)
                if age > ttl:
                    self.folder.remove(name)  # expired while the server was down, as it would have
                    continue
                out.append((restore(data), max(0.0, age)))
            except (OSError, LimitError, ValueError, KeyError, TypeError, OverflowError,
                    RecursionError, IndexError) as e:  # fmt: skip
                LOG.warning("spar serve: %s set aside as %s.broken: %s", where, printable(name),
                            printable(e))  # fmt: skip  # names from the file
                with contextlib.suppress(OSError):
                    self.folder.rename(name, f"{name}.broken")
        return out


def _stamp(data: object, item_id: str, what: str) -> float:
    """When a file's data was saved (wall clock), once it is of our version and its id is its
    name.

    Raises:
        ValueError: for anything else.
    """
    version = data.get("version") if isinstance(data, dict) else None
    if type(version) is not int or version != VERSION:  # true == 1 in Python
        raise ValueError(f"not a {what} of version {VERSION}")
    if data.get("id") != item_id:
        raise ValueError("its id is not its file's name")
    saved = data.get("saved")
    if isinstance(saved, bool) or not isinstance(saved, int | float) or not math.isfinite(saved):
        raise ValueError(f"its time saved {saved!r:.40} is no time")
    return float(saved)


def _marked(root: OwnFolder) -> bool:
    """Whether the folder bears the mark of a state folder of this layout.

    Raises:
        FolderError: for a mark that is not ours (a link, another file, another layout).
    """
    mode = root.mode(MARK)
    if mode is None:
        return False
    where = root.path / MARK
    if not stat.S_ISREG(mode):
        raise FolderError(f"{where} is {kind_of(mode)}, not the mark of a spar serve folder")
    try:
        data = load_json(root.read(MARK, 1024, "mark"), 4, "mark")
    except (OSError, ValueError) as e:
        raise FolderError(f"{where} is not the mark of a spar serve folder ({e})") from None
    if data != MARK_DATA or type(data.get("version")) is not int:
        raise FolderError(f"{where} is not the mark of a spar serve folder of layout {LAYOUT} "
                          f"({printable(data)!s:.80}); remove it if it is yours to remove")  # fmt: skip
    return True


def _earlier_games(root: OwnFolder) -> list[str]:
    """For a folder without the mark: the games to move into ``games/``, once every name in
    it is one an earlier server made (none in an empty folder).

    Raises:
        FolderError: naming the first entry that is not (the folder is not taken).
    """
    games = []
    for name, mode in sorted(root.entries(), key=lambda e: (not stat.S_ISLNK(e[1]), e[0])):
        folder = FOLDERS.get(name)
        if folder is not None:
            if not stat.S_ISDIR(mode):
                raise FolderError(f"{root.path / name} is {kind_of(mode)}, not a folder: the "
                                  f"server keeps its {folder} there; move it away")  # fmt: skip
            inner = root.folder(name)
            try:
                for inside, inner_mode in inner.entries():
                    _earlier_file(inner, inside, inner_mode, EARLIER[name])
            finally:
                inner.close()
            continue
        _earlier_file(root, name, mode, EARLIER[""])
        if name.endswith(".json") and name != LOCK:
            games.append(name)
    return games


def _earlier_file(folder: OwnFolder, name: str, mode: int, names: re.Pattern) -> None:
    """Refuse an entry of an unmarked folder that no earlier server made."""
    where = folder.path / name
    if stat.S_ISLNK(mode):
        raise FolderError(f"{printable(where)} is a symbolic link: a state folder holds none; "
                          "give a new or empty folder")  # fmt: skip
    if not stat.S_ISREG(mode) or not names.fullmatch(name):
        raise FolderError(f"{printable(where)} is not a file of spar serve: give a new or empty "
                          "folder, which the server keeps as its own")  # fmt: skip
