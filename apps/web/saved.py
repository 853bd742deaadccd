"""Games kept on disk, so that a restart of ``spar serve`` loses none (``--state DIR``).

A game is fully described by its form, its seed, every action applied to its
table (the bots' and the person's, and each next hand) and the state of the
bots' random generator: :meth:`GameFolder.save` writes that as one JSON file
per game, atomically (a temporary file renamed over the old one) after every
change. On start, :meth:`GameFolder.load` plays each file's actions again
through the engine, so a restored game is the game it was, records and all,
and goes on as it would have. A file older than the games' time to live is
removed; a file that is broken, hostile or no longer playable (a form the
lobby refuses, an illegal action) is renamed ``*.broken``, kept for a look
and never loaded again. JSON only: nothing on disk is ever unpickled.

One server at a time may use a folder: a second one is refused, as two
servers would each restore and then overwrite the other's games.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from spar_env.atomic import atomic_output
from spar_env.limits import LimitError, read_bounded
from spar_env.lockfile import LockFileError, LockHeld, take_lock
from spar_env.printable import printable

LOG = logging.getLogger("spar.serve")
VERSION = 1
MAX_FILE_BYTES = 4_000_000  # a long open session logs a few thousand actions
GAME_ID = re.compile(r"[A-Za-z0-9_-]{8,64}")


class GameFolder:
    """The folder a server keeps its games in, locked for this server.

    Raises:
        ValueError: if the folder cannot be made, or another server holds it.
    """

    def __init__(self, folder: str | os.PathLike) -> None:
        self.folder = Path(folder)
        self._lock: int | None
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            self._lock = take_lock(self.folder / ".lock")
        except LockHeld:
            raise ValueError(
                f"--state {folder}: another spar serve keeps its games there; give each server "
                "a folder of its own"
            ) from None
        except LockFileError as e:
            raise ValueError(f"--state {folder}: {e}") from None
        except OSError as e:
            raise ValueError(f"--state {folder}: cannot use it ({e.strerror})") from None

    def part(self, name: str) -> GameFolder:
        """A folder inside this one (the tables of friends'), under this folder's lock."""
        part = object.__new__(GameFolder)
        part.folder, part._lock = self.folder / name, None
        part.folder.mkdir(exist_ok=True)
        return part

    def close(self) -> None:
        if self._lock is not None:
            os.close(self._lock)  # and with it the lock

    def path(self, game_id: str) -> Path:
        return self.folder / f"{game_id}.json"

    def save(self, game_id: str, data: dict[str, Any]) -> None:
        """Write a game's file atomically, stamped with the wall-clock time of its last use."""
        with atomic_output(self.path(game_id)) as f:
            json.dump({"version": VERSION, "saved": time.time(), **data}, f)

    def remove(self, game_id: str) -> None:
        with contextlib.suppress(FileNotFoundError):
            self.path(game_id).unlink()

    def load(self, ttl: float, restore: Callable[[dict[str, Any]], Any]) -> list[tuple[Any, float]]:
        """Every game of the folder younger than ``ttl`` seconds, as ``(restore(data), age)``.

        ``restore`` rebuilds a game from its file's data, raising ``ValueError`` (or
        ``KeyError``/``TypeError``) for data it cannot play; such a file is set aside.
        """
        out = []
        now = time.time()
        for path in sorted(self.folder.glob("*.json")):
            try:
                if path.is_symlink():  # saved after every change: never through a link
                    raise ValueError(f"it is a symbolic link to {os.readlink(path)}")
                data = json.loads(read_bounded(path, MAX_FILE_BYTES, "saved game"))
                version = data.get("version") if isinstance(data, dict) else None
                if type(version) is not int or version != VERSION:  # true == 1 in Python
                    raise ValueError(f"not a saved game of version {VERSION}")
                if data.get("id") != path.stem or not GAME_ID.fullmatch(path.stem):
                    raise ValueError("its id is not its file's name")
                age = now - float(data["saved"])
                if age > ttl:
                    path.unlink()  # expired while the server was down, as it would have
                    continue
                out.append((restore(data), max(0.0, age)))
            except (OSError, LimitError, ValueError, KeyError, TypeError, OverflowError,
                    RecursionError) as e:  # fmt: skip
                LOG.warning("spar serve: %s set aside as %s.broken: %s",  # names from the file
                            *map(printable, (path, path.name, e)))  # fmt: skip
                with contextlib.suppress(OSError):
                    path.rename(path.with_name(path.name + ".broken"))
        return out
