"""The games a web server is running, by id: each a :class:`~spar_apps.table.HumanTable`.

A :class:`WebGame` is a session between the person (seat 0) and bots, run
on the same table as ``spar play`` (:mod:`spar_apps.table`): the bots move on
the server, a move is read by the same :func:`~spar_apps.table.read_move` (a
card code, a number, ``k``/``e``), and every finished hand leaves its game record. Each move
must echo the game's ``turn`` counter, so a repeated click or a second tab
on the same game cannot play a card meant for a position that has passed.

A duplicate game (the form's ``duplicate``) sits the person at a
:class:`~spar_apps.table.duplicate.DuplicateTable` of the form's seed, or of the game's own
seed when the form gives none, and its view adds ``duplicate``, the challenge's
:func:`~spar_apps.table.duplicate.scoreboard` (null in a plain game).

The games are held by id in a :class:`~spar_apps.web.store.GameStore`.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Collection, Mapping
from typing import Any

import numpy as np

from spar_apps.table import HumanTable, MoveError, Quit, exchange_words, read_move
from spar_apps.table.duplicate import DuplicateTable, scoreboard
from spar_apps.table.messages import DEFAULT_LANGUAGE, Language, say
from spar_apps.table.voice import say_phrase
from spar_apps.web.lobby import Setup
from spar_apps.web.seeds import spread
from spar_apps.web.view import table_view
from spar_env.limits import MAX_SEED
from spar_env.printable import printable

BOARDS_STREAM = 3  # generator (seed, 3): a duplicate game's boards, when its form gives no seed
MAX_SEED_BITS = 256  # a saved seed's most (the server draws 128)


class GameError(ValueError):
    """A request the game cannot take now; ``status`` is the HTTP status that says why. One
    made by :meth:`said` keeps its message's key, so the app says it in the request's
    language."""

    def __init__(self, message: str, status: int = 409) -> None:
        super().__init__(message)
        self.status = status
        self.key: str | None = None
        self.fields: dict[str, object] = {}

    @classmethod
    def said(cls, key: str, status: int = 409, **fields: object) -> GameError:
        """The error of message ``key`` (in English until the app says it again)."""
        error = cls(say(key, DEFAULT_LANGUAGE, **fields), status)
        error.key, error.fields = key, fields
        return error

    def say(self, language: Language) -> str:
        return str(self) if self.key is None else say(self.key, language, **self.fields)


class WebGame:
    """One person's session at a table of bots (seat 0 is the person's), or, given
    ``people``, a match of several people and bots (a table of friends,
    :mod:`spar_apps.web.friends`): the methods that act or show then take the person's
    ``seat``, and each record says who sat where (``seats``)."""

    def __init__(
        self,
        game_id: str,
        setup: Setup,
        seed: int,
        form: dict[str, Any] | None = None,
        saved: dict[str, Any] | None = None,
        *,
        people: Collection[int] = (0,),
        names: Mapping[int, str] | None = None,
    ) -> None:
        self.id = game_id
        self.setup = setup
        self.seed = seed
        self.busy = asyncio.Lock()  # one request at a time moves this game (the app holds it)
        self.form = dict(form or {})  # the new-game form, kept to rebuild the game
        self.table: HumanTable
        if setup.duplicate:  # the bot in the person's seat is the opponents' (seat 1's)
            board_seed = setup.duplicate_seed
            if board_seed is None:  # one of the game's own: shown, so drawn apart from it
                board_seed = spread(seed, BOARDS_STREAM) % (MAX_SEED + 1)
            self.table = DuplicateTable(
                setup.rules, 0, setup.bots, setup.bots[1], board_seed, setup.spec
            )
        else:
            bot = next(iter(setup.bots.values()))  # every seat's bot is the opponents' agent
            self.table = HumanTable(
                setup.rules,
                min(people),
                {s: setup.bots.get(s, bot) for s in range(setup.rules.players) if s not in people},
                np.random.default_rng([seed, 0]),
                np.random.default_rng([seed, 1]),
                people=people,
                names=names,
            )
        self.friends = len(self.table.people) > 1  # a table of friends: hidden more, kept apart
        self.stood_in: dict[int, list[int]] = {}  # this hand's plays a bot made for the away
        self._stood_in_ended: list[dict[int, list[int]]] = []  # the same, of each hand ended
        self.turn = 0
        self.records: list[dict[str, Any]] = []
        self._recorded = 0  # hands of the session whose end has been met
        self._hint_rng = np.random.default_rng([seed, 2])
        self._reviews: dict[int, Any] = {}  # the reviews of finished hands, by hand number
        self._reported: list[Any] = []  # the reviews of the first records, for the report
        if saved is None:
            self._settle()
        else:
            self._replay(saved)

    @classmethod
    def restore(
        cls,
        data: dict[str, Any],
        setup: Setup,
        game_id: str,
        *,
        people: Collection[int] = (0,),
        names: Mapping[int, str] | None = None,
    ) -> WebGame:
        """The game of :meth:`saved`'s ``data`` (read from a file), played again to where it
        was; ``game_id`` is the id it must have (its file's name, or its table's match), and
        ``setup`` its form read as the HTTP form is (:meth:`~spar_apps.web.lobby.Lobby.setup`).

        Raises:
            ValueError: (or KeyError, TypeError) for data that is not such a game.
        """
        if data.get("id") != game_id:
            raise ValueError(f"its id {printable(data.get('id'))!r:.60} is not {game_id}")
        seed, form = data["seed"], data["form"]
        if type(seed) is not int or not 0 <= seed < 1 << MAX_SEED_BITS:
            raise ValueError(f"its seed {seed!r:.40} is no seed")
        if not isinstance(form, dict):
            raise ValueError("its form is not a form")
        return cls(game_id, setup, seed, form, data, people=people, names=names)

    def saved(self) -> dict[str, Any]:
        """What rebuilds this game exactly (:mod:`spar_apps.web.saved`): plain JSON data."""
        return {
            "id": self.id,
            "form": self.form,
            "overrides": self.setup.overrides,  # the server-wide fields: its rules, kept
            "seed": self.seed,
            "turn": self.turn,
            "log": list(self.table.log),
            "stood_in": {str(s): plays for s, plays in self.stood_in.items()},
            "stood_in_ended": [  # each ended hand's, for its record
                {str(s): plays for s, plays in hand.items()} for hand in self._stood_in_ended
            ],
            "choices": self.table.choices.bit_generator.state,
            "hints": self._hint_rng.bit_generator.state,
        }

    def _replay(self, saved: dict[str, Any]) -> None:
        """Play a saved game's log again, then take up its generators where they were.

        Raises:
            ValueError: for a log the engine refuses, or a turn that is no turn of it
                (a generator's state that is no state: ValueError or TypeError).
        """
        log, turn = saved["log"], saved["turn"]
        if not isinstance(log, list) or not all(type(a) is int for a in log):
            raise ValueError("its log is not a list of actions")
        if type(turn) is not int or not 0 <= turn <= len(log):
            raise ValueError(f"its turn {turn!r} is no turn of its log")
        table = self.table
        ended = saved.get("stood_in_ended", [])  # absent from a file of an earlier server
        if not isinstance(ended, list):
            raise ValueError("its stood_in_ended is not a list")
        ended = [_stood_in(hand, table.rules.players) for hand in ended]
        for action in log:
            table.apply(action)
            self.stood_in = ended[self._recorded] if self._recorded < len(ended) else {}
            self._keep_record()
        table.choices.bit_generator.state = saved["choices"]
        self._hint_rng.bit_generator.state = saved["hints"]
        self.stood_in = _stood_in(saved.get("stood_in", {}), table.rules.players)
        self.turn = turn

    def view(
        self, language: Language = DEFAULT_LANGUAGE, seat: int | None = None
    ) -> dict[str, Any]:
        """What the person's seat (``seat`` at a table of friends) is shown now, its texts in
        ``language`` (a duplicate game's scoreboard too). At a table of friends no hint,
        review or record is offered: each would tell one seat the others' cards."""
        self._resume()
        table = self.table if seat is None else self.table.seated(seat)
        view = table_view(
            table,
            game=self.id,
            turn=self.turn,
            records=0 if self.friends else len(self.records),
            hint=self.setup.hint is not None and not self.friends,
            review=self.reviewable() and not self.friends,
            language=language,
        )
        view["lineup"] = say_phrase(self.setup.lineup, language)
        note = self.setup.note
        view["note"] = None if note is None else table.voice(language).text(note)
        view["duplicate"] = (
            scoreboard(table, language) if isinstance(table, DuplicateTable) else None
        )
        return view

    def move(
        self,
        text: object,
        turn: object,
        language: Language = DEFAULT_LANGUAGE,
        seat: int | None = None,
    ) -> None:
        """Play the person's move (a card code such as ``KD``, a number, ``k`` or ``e``); at
        a table of friends, the move of the person in ``seat``.

        Raises:
            GameError: for a stale ``turn``, a hand or session that is over, a seat whose
                turn it is not, or a move that is not legal now (the message says why, as
                in ``spar play``, in ``language``).
        """
        self._resume()
        self._check_turn(turn, "move", language)
        if self.table.hand_over:
            raise GameError(self._over_message(language))
        if not isinstance(text, str) or len(text) > 16:
            raise GameError(say("typed.too_long", language), 400)
        table = self.table if seat is None else self.table.seated(seat)
        if not table.my_turn:
            raise GameError(say("error.not_your_turn", language))
        try:
            action = read_move(text, table.rules, table.reasons(), language, keys=False)
        except MoveError as e:
            raise GameError(str(e), 400) from None
        except Quit:
            raise GameError(say("typed.leave_web", language), 400) from None
        self.table.play(action)
        self.turn += 1
        self._settle()

    def stand_in(self) -> None:
        """The opponents' bot moves for the person to move, who is away (the turn timer of a
        table of friends); the hand's record lists the plays it made for them."""
        table = self.table
        if table.hand_over or not table.people_turn:
            raise GameError("no person is to move")
        seat, play = table.to_move, int(table.history.count[0])
        table.stand_in(next(iter(self.setup.bots.values())))
        if not table.exchanging and int(table.history.count[0]) > play:
            self.stood_in.setdefault(seat, []).append(play)
        self.turn += 1
        self._settle()

    def seats(self) -> list[dict[str, str]]:
        """Who sat where, for a record: ``{"person": name}`` or ``{"bot": spec}`` by seat."""
        table = self.table
        return [
            {"person": table.names.get(s, "")} if s in table.people else {"bot": self.setup.spec}
            for s in range(table.rules.players)
        ]

    def next_hand(self, turn: object, language: Language = DEFAULT_LANGUAGE) -> None:
        """Deal the session's next hand.

        Raises:
            GameError: for a stale ``turn``, a hand still running or a session that is over.
        """
        self._resume()
        self._check_turn(turn, "deal of the next hand", language)
        if not self.table.hand_over:
            raise GameError(say("error.hand_running", language))
        if self.table.session_over:
            raise GameError(self._over_message(language))
        self.table.next_hand()
        self.turn += 1
        self._settle()

    def hint(self, language: Language = DEFAULT_LANGUAGE) -> dict[str, Any]:
        """The hint bot's probabilities for the person's move, highest first.

        Raises:
            GameError: if no bot with probabilities plays this game, or it is not the
                person's turn.
        """
        table = self.table
        if self.setup.hint is None:
            raise GameError(say("error.no_hint_bot", language), 404)
        if not table.my_turn:
            raise GameError(say("error.no_hint_now", language))
        probs = self.setup.hint.act(table.situation(), self._hint_rng).probs[0]
        rules = table.rules
        words = exchange_words(rules)
        legal = table.legal()
        order = sorted(legal, key=lambda a: (-float(probs[a]), a))
        moves = [
            {"move": words.get(a) or rules.card_name(a), "p": round(float(probs[a]), 4)}
            for a in order
        ]
        return {"game": self.id, "turn": self.turn, "moves": moves}

    def reviewable(self) -> bool:
        """Whether the table's hands can be reviewed (see :meth:`review`)."""
        return self._not_reviewable(DEFAULT_LANGUAGE) is None

    def _not_reviewable(self, language: Language) -> str | None:
        """Why the hands cannot be reviewed, or None: the review's search refuses the
        exchange, and needs a bot with probabilities (its model of the seats)."""
        if self.setup.rules.weak_hand_exchange:
            return say("review.exchange", language)
        if self.setup.hint is None:
            return say("review.unavailable", language)
        return None

    def review(self, language: Language) -> dict[str, Any]:
        """The review of the hand just over (:mod:`spar_apps.table.review`), in ``language``;
        each hand is searched once.

        Raises:
            GameError: if the game's hands cannot be reviewed (404), or no hand is over (409).
        """
        from spar_apps.table.review import review_table_hand, reviewer
        from spar_apps.table.review_text import review_texts

        table = self.table
        why = self._not_reviewable(language)
        if why is not None:
            raise GameError(why, 404)
        if not table.hand_over:
            raise GameError(say("review.running", language))
        hand = int(table.state.hands_played[0])
        if hand not in self._reviews:
            spec = str(self.setup.hint_spec)
            try:
                self._reviews = {hand: review_table_hand(table, reviewer(table.rules,
                                                         self.setup.hint, spec))}  # fmt: skip
            except ValueError:  # a tie-break hand, which has no record
                raise GameError(say("review.tie_break", language)) from None
        texts = review_texts(self._reviews[hand], language, str(self.setup.hint_spec))
        return {"game": self.id, "turn": self.turn, "hand": hand, **texts}

    def report(self, language: Language) -> dict[str, Any]:
        """The session report of the hands finished so far (:mod:`spar_apps.table.review_report`),
        for the person's seat, in ``language``; each hand is searched once.

        Raises:
            GameError: if the game's hands cannot be reviewed, or a table of friends (404); or
                no hand is over yet (409).
        """
        from spar_apps.table.review import review_hand, reviewer
        from spar_apps.table.review_report import report_texts, session_report

        why = self._not_reviewable(language)
        if why is None and self.friends:
            why = say("review.report.friends", language)
        if why is not None:
            raise GameError(why, 404)
        if not self.records:
            raise GameError(say("review.report.none", language))
        search = reviewer(self.table.rules, self.setup.hint, str(self.setup.hint_spec))
        for record in self.records[len(self._reported) :]:
            self._reported.append(review_hand(record, self.table.seat, search))
        texts = report_texts(session_report(self._reported), language)
        return {"game": self.id, "turn": self.turn, **texts}

    def records_jsonl(self) -> str:
        """The records of the finished hands, one JSON line each (``spar replay`` reads them)."""
        return "".join(json.dumps(r) + "\n" for r in self.records)

    def _settle(self) -> None:
        """Let the bots move; keep the record of a hand that has ended."""
        self.table.advance()
        self._keep_record()

    def _keep_record(self) -> None:
        """The record of the hand just ended, once (a hand's end is met once per hand)."""
        table = self.table
        if table.hand_over and self._recorded < int(table.state.hands_played[0]):
            self._recorded = int(table.state.hands_played[0])
            record = table.record()
            if record is not None and self.friends:
                record["seats"] = self.seats()
                for seat, plays in sorted(self.stood_in.items()):
                    record["seats"][seat]["stood_in"] = plays
            if record is not None:
                self.records.append(record)
            self._stood_in_ended.append(self.stood_in)
            self.stood_in = {}

    def _resume(self) -> None:
        """Finish the bots' moves if a fault stopped them, so that no game is left stuck."""
        if not self.table.hand_over and not self.table.people_turn:
            self._settle()

    def _check_turn(self, turn: object, request: str, language: Language) -> None:
        """Refuse a ``request`` (``move``, ``deal``) for a turn the table is not at."""
        if not isinstance(turn, int) or isinstance(turn, bool):
            raise GameError(f"a {request} must give the table's turn, a whole number; "
                            f"got {turn!r:.40}", 400)  # fmt: skip
        if turn != self.turn:
            raise GameError(say("error.stale_turn", language, turn=turn, now=self.turn))

    def _over_message(self, language: Language) -> str:
        return say("error.session_over" if self.table.session_over else "error.hand_over", language)


def _stood_in(value: object, players: int) -> dict[int, list[int]]:
    """A saved game's plays made by a bot for people away, by seat.

    Raises:
        ValueError: for anything but seats (as text) of the table with lists of plays.
    """
    if not isinstance(value, dict):
        raise ValueError("its stood_in is not a mapping of seats")
    out = {}
    for seat, plays in value.items():
        if not (isinstance(seat, str) and seat.isascii() and seat.isdecimal()
                and int(seat) < players):  # fmt: skip
            raise ValueError(f"its stood_in names no seat: {printable(seat)!r:.40}")
        if not isinstance(plays, list) or not all(type(p) is int and p >= 0 for p in plays):
            raise ValueError("its stood_in plays are not a list of plays")
        out[int(seat)] = plays
    return out
