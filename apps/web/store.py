"""The games a web server holds, by id (:class:`GameStore`), dealt from the seeds of
:class:`~spar_apps.web.seeds.Seeds`.

A :class:`GameStore` holds the games by id: random, unguessable ids
(:func:`secrets.token_urlsafe`), a game forgotten after ``ttl`` seconds
without a request, and at most ``capacity`` games at once. With a
:class:`~spar_apps.web.saved.GameFolder` it keeps each game on disk after
every change and takes the games up again when the server starts.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from typing import Any

from spar_apps.web.game_store import GameError, WebGame
from spar_apps.web.kept import Kept
from spar_apps.web.lobby import Setup
from spar_apps.web.saved import GameFolder
from spar_apps.web.seeds import Seeds


class GameStore:
    """Games by id, each forgotten ``ttl`` seconds after its last request.

    Args:
        capacity: games held at once; a new game past it is refused (after the
            expired ones are forgotten).
        ttl: seconds a game is kept without a request.
        clock: the time in seconds (``time.monotonic``; tests pass their own).
        folder: the state folder, whose games are kept on disk to survive a restart
            (None: memory only).
    """

    def __init__(
        self,
        capacity: int,
        ttl: float,
        clock: Callable[[], float] = time.monotonic,
        folder: GameFolder | None = None,
    ) -> None:
        self.capacity = capacity
        self.ttl = ttl
        self.clock = clock
        self.folder = None if folder is None else folder.games
        # The store's clock read at each use: whoever holds the store may set another.
        self._games: Kept[WebGame] = Kept(ttl, self._forget, lambda: self.clock())
        self.seeds = Seeds()
        self._pending = 0  # games being made off the event loop

    def __len__(self) -> int:
        return len(self._games)

    def seed_with(self, seed: int) -> None:
        """Make the deals of the games from now on follow ``seed`` (game k: seed, k)."""
        self.seeds = Seeds(seed)

    def reserve(self) -> tuple[str, int]:
        """A place for a new game: its id and seed. Make the game (off the event loop, as its
        bots may move first), then :meth:`add` it, or :meth:`cancel` the place.

        Raises:
            GameError: (503) if the store is full.
        """
        self._games.expire()
        if len(self._games) + self._pending >= self.capacity:
            raise GameError.said("error.full", 503, n=self.capacity)
        seed = self.seeds.next()
        self._pending += 1
        return secrets.token_urlsafe(18), seed

    def add(self, game: WebGame) -> None:
        self._pending -= 1
        self._games.put(game.id, game)

    def cancel(self) -> None:
        self._pending -= 1

    def new(self, setup: Setup, form: dict[str, Any] | None = None) -> WebGame:
        """A new game of ``setup``, made here and now (the app makes its games off the loop).

        Raises:
            GameError: (503) if the store is full.
        """
        game_id, seed = self.reserve()
        try:
            game = WebGame(game_id, setup, seed, form)
        except BaseException:
            self.cancel()
            raise
        self.add(game)
        self.save(game)
        return game

    def save(self, game: WebGame) -> None:
        """Keep the game on disk, if this store has a folder (after every change)."""
        if self.folder is not None:
            self.folder.save(game.id, game.saved())

    def restore(self, setup: Callable[[object, object], Setup]) -> int:
        """Take up the games of the folder (``setup`` reads their forms and the server-wide
        fields each was made with, as :meth:`Lobby.setup` does); returns how many. A file
        written before the fields were kept is read with this server's."""
        if self.folder is None:
            return 0

        def rebuild(data: dict[str, Any]) -> WebGame:
            return WebGame.restore(data, setup(data["form"], data.get("overrides")), data["id"])

        games = self.folder.load(self.ttl, rebuild)
        for game, age in games:
            self._games.put(game.id, game, age)
        return len(games)

    def get(self, game_id: str) -> WebGame:
        """The game of an id (and its clock restarted).

        Raises:
            GameError: (404) for an id that is unknown, forged or expired.
        """
        game = self._games.get(game_id)
        if game is None:
            raise GameError.said("error.unknown_game", 404, minutes=f"{self.ttl / 60:g}")
        return game

    def _forget(self, game_id: str) -> None:
        if self.folder is not None:
            self.folder.remove(game_id)
