"""The tables of friends a server holds, by id (:class:`FriendsTables`), as
:class:`~spar_apps.web.store.GameStore` holds games: at most ``capacity``, each forgotten
``ttl`` seconds after its last action and never while a seat is connected
(:class:`~spar_apps.web.kept.Kept`), kept on disk
after every change when the server has a state folder (``spar serve --state DIR``,
:mod:`spar_apps.web.saved`: the tables in ``DIR/tables/``, every finished hand's record in
``DIR/records/TABLE-MATCH.jsonl``, a file a match, written whole and atomically).

A table that cannot be kept raises (its caller logs it); records that cannot be written do
not: the table was kept, so the log says the records are lost, and every seat's view says
so too (:attr:`~spar_apps.web.friends.FriendsTable.records_lost`)."""

from __future__ import annotations

import logging
import secrets
import time
from collections.abc import Callable
from typing import Any

from spar_apps.web.friends import SHORTEST_TIMER, FriendsTable
from spar_apps.web.game_store import GameError
from spar_apps.web.kept import Kept
from spar_apps.web.lobby import Setup
from spar_apps.web.saved import GameFolder
from spar_apps.web.seeds import Seeds
from spar_env.printable import printable

LOG = logging.getLogger("spar.serve")


class FriendsTables:
    """Tables of friends by id, each forgotten ``ttl`` seconds after its last action, never
    while a seat is connected.

    Args:
        capacity: tables held at once; past it a new one is refused (503).
        ttl: seconds a table is kept after its last action, once no seat is connected.
        folder: the state folder, where the tables are kept (``tables/``) and their hands'
            records written (``records/``); None: memory only, and no records kept.
        clock: the time in seconds.
        shortest_timer: the shortest turn timer of a table, of a saved one too.
    """

    def __init__(
        self,
        capacity: int,
        ttl: float,
        folder: GameFolder | None = None,
        clock: Callable[[], float] = time.monotonic,
        shortest_timer: float = SHORTEST_TIMER,
    ) -> None:
        self.capacity, self.ttl, self.clock = capacity, ttl, clock
        self.shortest_timer = shortest_timer
        # Whether a person is connected to a table (the live routes say): it is kept then.
        self.held: Callable[[str], bool] = lambda table_id: False
        # The store's clock read at each use: whoever holds the store may set another.
        self._tables: Kept[FriendsTable] = Kept(ttl, self._forget, lambda: self.clock(),
                                                lambda table_id: self.held(table_id))  # fmt: skip
        self.folder = None if folder is None else folder.tables
        self.records = None if folder is None else folder.records
        self.seeds = Seeds()

    def __len__(self) -> int:
        return len(self._tables)

    def seed_with(self, seed: int) -> None:
        """Make the tables' deals from now on follow ``seed`` (table k: seed, k)."""
        self.seeds = Seeds(seed)

    def new(self, setup: Setup, form: dict[str, Any], people: int, timer: float) -> FriendsTable:
        """A new table.

        Raises:
            GameError: (503) if the server holds as many tables as it may.
        """
        self._tables.expire()
        if len(self._tables) >= self.capacity:
            raise GameError.said("friends.server_full", 503, n=self.capacity)
        seed = self.seeds.next()
        table = FriendsTable(secrets.token_urlsafe(12), setup, form, seed, people, timer,
                             self.clock)  # fmt: skip
        self._tables.put(table.id, table)
        return table

    def get(self, table_id: str) -> FriendsTable:
        """The table of an id (its clock restarted).

        Raises:
            GameError: (404) for an id that is unknown, forged or expired.
        """
        table = self._tables.get(table_id)
        if table is None:
            raise GameError.said("friends.unknown_table", 404)
        return table

    def tables(self) -> list[FriendsTable]:
        return self._tables.items()

    def save(self, table: FriendsTable) -> None:
        """Keep the table on disk and write its finished hands' records, if there is a folder.

        Raises:
            OSError: if the table could not be kept (its records are written all the same;
                records that cannot be are logged and told to the seats, not raised).
        """
        if self.folder is None or self.records is None:
            return
        try:
            self.folder.save(table.id, table.saved())
        finally:
            self._write_records(table)

    def _write_records(self, table: FriendsTable) -> None:
        """The match's file of records, rewritten whole (atomically), named after the table and
        the match (never after data of the game's)."""
        game = table.game
        if self.records is None or game is None or not game.records:
            return
        try:
            self.records.write(f"{table.match_id(table.match - 1)}.jsonl",
                               game.records_jsonl().encode(), 0o666)  # fmt: skip
        except OSError as e:
            why = e.strerror or str(e)
            if table.records_lost != why:  # said once, not at every move
                LOG.warning("spar serve: the records of table %s are not written: %s",
                            table.id, printable(why))  # fmt: skip
            table.records_lost = why
        else:
            table.records_lost = None

    def restore(self, setup: Callable[[object, object], Setup]) -> int:
        """Take up the tables of the folder; returns how many."""
        if self.folder is None:
            return 0
        clock = self.clock

        def rebuild(data: dict[str, Any]) -> FriendsTable:
            return FriendsTable.restore(data, setup(data["form"], data.get("overrides")), clock,
                                        self.shortest_timer)  # fmt: skip

        tables = self.folder.load(self.ttl, rebuild)
        now = self.clock()
        for table, age in tables:
            table.changed = now  # the timer starts again with the server
            self._tables.put(table.id, table, age)
        return len(tables)

    def _forget(self, table_id: str) -> None:
        if self.folder is not None:
            self.folder.remove(table_id)
