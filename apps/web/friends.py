"""A table of friends: several people and the bots at one table, each person's seat held by
a secret.

A :class:`FriendsTable` is made by one person from the new-game form of
:mod:`spar_apps.web.lobby` with three more fields: ``people`` (how many seats are people's,
the maker's among them: seats 0 to ``people - 1``), ``timer`` (the seconds a person may
take over a move before the bot moves for them) and ``name`` (the name the maker chose).
Its id goes in the invitation; each friend who opens it takes a free person's seat with
:meth:`FriendsTable.take` and is given the seat's key, an unguessable secret that the
server keeps only as its SHA-256 hash. A request for a seat is answered only with that
seat's view (:meth:`FriendsTable.view`): its own hand and what the table has shown
everyone; the others' hands, their face-down cards and the stock never leave the
server, and neither does a hint, a review or a record, which would each tell one seat
another's cards.

The match starts when every person's seat is taken, or when the maker starts it
sooner (:meth:`FriendsTable.start`; the seats still free are the bots' for that
match). It is a :class:`~spar_apps.web.game_store.WebGame` with several people:
the bots move on the server, each finished hand leaves its record with who sat where
(``seats``), and when a match ends the table may play another (:meth:`FriendsTable.again`),
with whoever has taken a seat by then. A person away past the timer has the bot move for
them (:meth:`FriendsTable.timed_out`), and every seat's lines say so; at a hand's end
the timer deals the next hand. So a table never stalls while someone is there; a table
everyone has left (:attr:`FriendsTable.deserted`, which the live routes set) pauses after
the hand in progress: the bot finishes that hand for the people away and its record is
kept, but no next hand is dealt, and so none recorded, until someone comes back
(:meth:`FriendsTable.back`).

:class:`~spar_apps.web.friends_store.FriendsTables` holds the tables by id and keeps them on
disk. Nothing is kept about a person but the seat's name they chose.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import re
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from spar_apps.table.messages import DEFAULT_LANGUAGE, Language, say
from spar_apps.table.rules_text import variant_name
from spar_apps.table.voice import say_phrase
from spar_apps.web.game_store import GameError, WebGame
from spar_apps.web.lobby import FIELDS, FormError, Lobby, Setup
from spar_apps.web.names import read_name, same_name
from spar_apps.web.saved import TABLE_ID
from spar_apps.web.seeds import spread

__all__ = ["FriendsTable", "Seat", "read_name", "table_form"]

TABLE_FIELDS = ("people", "timer", "name")  # the form's fields beyond a game's
TIMER_SECONDS = 60.0  # a person's time for a move, by default
SHORTEST_TIMER = 5.0  # the shortest a server allows, unless its Limits say otherwise
MAX_TIMER = 600.0
KEY_HASH = re.compile(r"[0-9a-f]{64}")  # SHA-256, as hexdigest() writes it


@dataclass
class Seat:
    """A seat of the table: a person's (free until taken) or a bot's."""

    person: bool
    name: str = ""  # the name its person chose
    key_hash: str | None = None  # SHA-256 of its key, once taken

    @property
    def taken(self) -> bool:
        return self.key_hash is not None


def key_hash(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8", "replace")).hexdigest()


class FriendsTable:
    """One table of friends (see the module docstring).

    Args:
        table_id: the table's id (in its invitation).
        setup: the game of the form (the bots' agent, the ruleset).
        form: the form, kept to rebuild the table.
        seed: fixes every match's deals and the bots' choices (match k: ``[seed, k]``).
        people: the person's seats, 2 to the player count.
        timer: a person's seconds for a move.
        clock: the time in seconds (``time.monotonic``; tests pass their own).
    """

    def __init__(
        self,
        table_id: str,
        setup: Setup,
        form: dict[str, Any],
        seed: int,
        people: int,
        timer: float,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.id = table_id
        self.setup = setup
        self.form = dict(form)
        self.seed = seed
        self.timer = timer
        self.clock = clock
        n = setup.rules.players
        self.seats = [Seat(person=s < people) for s in range(n)]
        self.match = 0  # matches started
        self.game: WebGame | None = None  # the match being played; None before the first
        self.changed = clock()  # when the table last changed: the timer counts from it
        self.busy = asyncio.Lock()  # one change at a time (the app holds it)
        self.records_lost: str | None = None  # why its records cannot be written, if they cannot
        self.deserted = False  # every seat's connection has left: no next hand is dealt

    # ----- seats -------------------------------------------------------------------------
    def take(self, name: str) -> tuple[int, str]:
        """The first free person's seat, for ``name``: the seat and its key.

        Raises:
            GameError: (409) if every person's seat is taken, or another person has the name.
        """
        free = [s for s, seat in enumerate(self.seats) if seat.person and not seat.taken]
        if not free:
            raise GameError.said("friends.full", 409)
        if any(seat.taken and same_name(seat.name, name) for seat in self.seats):
            raise GameError.said("friends.name_taken", 409, name=name)
        key = secrets.token_urlsafe(24)
        seat = self.seats[free[0]]
        seat.name, seat.key_hash = name, key_hash(key)
        if self.game is None and all(s.taken for s in self.seats if s.person):
            self._begin()  # every friend is here: the first match starts
        self.changed = self.clock()
        return free[0], key

    def seat_of(self, key: object) -> int:
        """The seat a key holds.

        Raises:
            GameError: (403) for a key that holds no seat of this table.
        """
        if isinstance(key, str) and len(key) <= 100:
            wanted = key_hash(key)
            for s, seat in enumerate(self.seats):
                if seat.key_hash is not None and hmac.compare_digest(seat.key_hash, wanted):
                    return s
        raise GameError.said("friends.bad_key", 403)

    def names(self) -> dict[int, str]:
        return {s: seat.name for s, seat in enumerate(self.seats) if seat.taken and seat.name}

    # ----- the match ---------------------------------------------------------------------
    def start(self, seat: int) -> None:
        """The maker (seat 0) starts the first match before every seat is taken.

        Raises:
            GameError: if another seat asks, or a match has started already.
        """
        if seat != 0:
            raise GameError.said("friends.maker_starts", 403)
        if self.game is not None:
            raise GameError.said("friends.started", 409)
        self._begin()

    def again(self, seat: int) -> None:
        """Another match at the table, once the last one is over (any seat may ask).

        Raises:
            GameError: if the match is still running, or none has started.
        """
        if self.game is None or not self.game.table.session_over:
            raise GameError.said("friends.match_running", 409)
        self._begin()

    def _begin(self) -> None:
        """Deal a new match to the seats taken now; the others are the bots'."""
        people = [s for s, seat in enumerate(self.seats) if seat.taken]
        self.game = WebGame(self.match_id(self.match), self.setup, spread(self.seed, self.match),
                            self.form, people=people, names=self.names())  # fmt: skip
        self.match += 1
        self.changed = self.clock()

    def match_id(self, match: int) -> str:
        """The id of match ``match`` (0, 1, ...): its records' file name, with ``.jsonl``."""
        return f"{self.id}-{match}"

    def playing(self, seat: int) -> WebGame:
        """The match, if ``seat`` plays in it.

        Raises:
            GameError: (409) before the first match, or for a seat that joined after it began.
        """
        game = self.game
        if game is None:
            raise GameError.said("friends.waiting", 409)
        if seat not in game.table.people:
            raise GameError.said("friends.next_match", 409)
        return game

    def act(self, seat: int, message: dict[str, Any], language: Language) -> None:
        """A seat's message: ``{"do": "move", "move": "KD", "turn": 3}``, ``{"do": "next",
        "turn": 4}`` (the next hand), ``{"do": "start"}`` or ``{"do": "again"}``.

        Raises:
            GameError: for a message the table cannot take now (the message says why).
        """
        do = message.get("do")
        if do == "move":
            self.playing(seat).move(message.get("move"), message.get("turn"), language, seat)
        elif do == "next":
            self.playing(seat).next_hand(message.get("turn"), language)
        elif do == "start":
            self.start(seat)
        elif do == "again":
            self.again(seat)
        else:
            raise GameError(f'"do" must be move, next, start or again; got {do!r:.40}', 400)
        self.changed = self.clock()

    def deadline(self) -> float | None:
        """When the timer moves for the table (a person away, or a hand over), or None:
        before the first match, when a bot is to move, once the match is over, or at a
        hand's end while the table is :attr:`deserted`."""
        game = self.game
        if game is None or game.table.session_over:
            return None
        table = game.table
        if table.hand_over and self.deserted:
            return None  # paused after the hand in progress, until someone comes back
        if table.hand_over or table.people_turn:
            return self.changed + self.timer
        return None

    def back(self) -> None:
        """Someone is connected again: a table paused at a hand's end deals again, its timer
        counting from now."""
        if self.deserted:
            self.deserted = False
            self.changed = self.clock()

    def timed_out(self) -> bool:
        """If the timer has run out: the bot moves for the person to move, or the next hand is
        dealt; whether it did."""
        when = self.deadline()
        if when is None or self.clock() < when or self.game is None:
            return False
        game = self.game
        if game.table.hand_over:
            game.next_hand(game.turn)
        else:
            game.stand_in()
        self.changed = self.clock()
        return True

    # ----- what a seat sees ---------------------------------------------------------------
    def info(self, language: Language = DEFAULT_LANGUAGE) -> dict[str, Any]:
        """What anyone with the table's id may see: the game, the seats and who took them."""
        setup = self.setup
        game = self.game
        in_match = game.table.people if game is not None else frozenset()
        return {
            "table": self.id,
            "variant": setup.rules.variant,
            "title": variant_name(setup.rules.variant, language),
            "players": setup.rules.players,
            "lineup": say_phrase(setup.lineup, language),
            "timer": self.timer,
            "match": self.match,
            "started": game is not None,
            "seats": [
                {
                    "seat": s,
                    "person": seat.person,
                    "taken": seat.taken,
                    "name": seat.name,
                    "playing": s in in_match,
                }
                for s, seat in enumerate(self.seats)
            ],
            "free": sum(seat.person and not seat.taken for seat in self.seats),
        }

    def view(self, seat: int, language: Language = DEFAULT_LANGUAGE) -> dict[str, Any]:
        """What ``seat`` is shown now: its view of the match (``friends`` adds the table's
        :meth:`info`, ``you`` the seat and ``deadline_in`` the seconds its timer has left),
        or, before its first match, the table alone (``phase`` ``waiting``)."""
        info = self.info(language)
        info["you"] = seat
        when = self.deadline()
        info["deadline_in"] = None if when is None else max(0.0, when - self.clock())
        game = self.game
        if game is None or seat not in game.table.people:
            return {"phase": "waiting", "language": language, "friends": info}
        view = game.view(language, seat)
        view["friends"] = info
        if self.records_lost is not None:  # every seat is told: the records are the table's
            view["warning"] = say("friends.records_lost", language, why=self.records_lost)
        return view

    # ----- kept on disk ---------------------------------------------------------------------
    def saved(self) -> dict[str, Any]:
        """What rebuilds the table (:mod:`spar_apps.web.saved`): plain JSON data; the seats'
        keys only as their hashes."""
        game = self.game
        return {
            "id": self.id,
            "form": self.form,
            "overrides": self.setup.overrides,
            "seed": self.seed,
            "timer": self.timer,
            "seats": [{"person": s.person, "name": s.name, "key": s.key_hash} for s in self.seats],
            "match": self.match,
            "people": sorted(game.table.people) if game is not None else None,
            "game": game.saved() if game is not None else None,
        }

    @classmethod
    def restore(
        cls,
        data: dict[str, Any],
        setup: Setup,
        clock: Callable[[], float] = time.monotonic,
        shortest: float = SHORTEST_TIMER,
    ) -> FriendsTable:
        """The table of :meth:`saved`'s data (read from a file), its match played again to
        where it was; its fields are read as the HTTP form's are (:func:`table_fields`,
        :func:`~spar_apps.web.names.read_name`), ``setup`` being its form read so.

        Raises:
            ValueError: (or KeyError, TypeError) for data that is not such a table.
        """
        table_id, seats, n = data["id"], data["seats"], setup.rules.players
        if not isinstance(table_id, str) or not TABLE_ID.fullmatch(table_id):
            raise ValueError("its id is not a table's")
        if setup.duplicate:
            raise ValueError("a table of friends plays no duplicate challenge")
        if not isinstance(seats, list) or len(seats) != n:
            raise ValueError("its seats are not one per player")
        persons = [isinstance(kept, dict) and kept["person"] is True for kept in seats]
        people, timer = table_fields(sum(persons), data["timer"], shortest, n)
        if persons != [s < people for s in range(n)]:
            raise ValueError("its people's seats are not the first ones")
        table = cls(table_id, setup, data["form"], _whole(data["seed"]), people, timer, clock)
        for seat, kept in zip(table.seats, seats, strict=True):
            key = kept["key"]
            if key is None:
                if kept["name"] != "":
                    raise ValueError("a seat no one took has a name")
                continue
            if not seat.person or not (isinstance(key, str) and KEY_HASH.fullmatch(key)):
                raise ValueError("a seat's key is not the hash of a person's key")
            seat.name = read_name(kept["name"])
            if any(o.taken and same_name(o.name, seat.name) for o in table.seats):
                raise ValueError(f"two seats are called {seat.name}")
            seat.key_hash = key
        table.match, game, playing = _whole(data["match"]), data["game"], data["people"]
        if game is None:
            if table.match != 0 or playing is not None:
                raise ValueError("a match is counted, but none is kept")
            return table
        if table.match < 1 or not isinstance(playing, list) or not playing:
            raise ValueError("its match has no people")
        people_in = {_whole(s) for s in playing}
        if len(people_in) != len(playing) or not all(
            s < n and table.seats[s].taken for s in people_in
        ):
            raise ValueError("its match's people are not the table's")
        table.game = WebGame.restore(game, setup, table.match_id(table.match - 1),
                                     people=sorted(people_in), names=table.names())  # fmt: skip
        return table


def _whole(value: object) -> int:
    if type(value) is not int or value < 0:
        raise ValueError(f"{value!r:.40} is not a whole number")
    return value


def table_fields(people: object, timer: object, shortest: float, players: int) -> tuple[int, float]:
    """A table's people's seats and turn timer, whether from the HTTP form or a saved table.

    Raises:
        FormError: naming the field that is wrong.
    """
    if isinstance(people, bool) or not isinstance(people, int) or not 2 <= people <= players:
        raise FormError(f"people must be a whole number 2..{players} (the players); got "
                        f"{people!r:.40}",
                        lambda lang: say("friends.bad_people", lang, n=players))  # fmt: skip
    seconds = None if isinstance(timer, bool) or not isinstance(timer, int | float) else timer
    if seconds is None or not shortest <= seconds <= MAX_TIMER:  # a bool is no number here
        raise FormError(f"timer: seconds {shortest:g} to {MAX_TIMER:g}; got {timer!r:.40}",
                        lambda lang: say("friends.bad_timer", lang, low=f"{shortest:g}",
                                         high=f"{MAX_TIMER:g}"))  # fmt: skip
    return people, float(seconds)


def table_form(
    lobby: Lobby, form: object, shortest: float
) -> tuple[Setup, dict[str, Any], int, float, str]:
    """A table's form read: the game's setup and form, the people's seats, the timer and the
    maker's name.

    Raises:
        FormError: naming the field that is wrong.
    """
    if not isinstance(form, dict):
        raise FormError('a new table is a JSON object such as {"variant": "spar", "people": 2}')
    unknown = sorted(set(form) - set(FIELDS) - set(TABLE_FIELDS) - {"duplicate"})
    if unknown:
        raise FormError(f"unknown field {unknown[0]!r}; the fields are "
                        f"{', '.join((*FIELDS, *TABLE_FIELDS))}")  # fmt: skip
    if form.get("duplicate") is not None and form["duplicate"] is not False:  # 0 == False
        raise FormError("a table of friends plays no duplicate challenge; got duplicate "
                        f"{form['duplicate']!r:.40}")  # fmt: skip
    game_form = {k: v for k, v in form.items() if k in FIELDS}
    setup = lobby.setup(game_form)
    people, timer = table_fields(form.get("people", 2), form.get("timer", TIMER_SECONDS),
                                 shortest, setup.rules.players)  # fmt: skip
    return setup, game_form, people, timer, read_name(form.get("name"))
