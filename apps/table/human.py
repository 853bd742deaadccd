"""People at a table of bots: a session of hands on the core, with what each move did,
and what each person's seat may see of it.

A :class:`HumanTable` plays one game (a batch of one) of the core. The
person's seat waits for :meth:`HumanTable.play`; every other seat is an agent
(anything with ``act(situation, rng) -> decision``, see :mod:`spar_agents.base`),
moved by :meth:`HumanTable.advance` until it is the person's turn or the
hand is over; the person's last card, which leaves no choice, is played for them (and the
line says so). Each move leaves a line in :attr:`HumanTable.events` ("seat 2
wins trick 3 with K♦"), a :class:`~spar_env.explain.phrase.Phrase` that the screens say in
the person's language (:meth:`HumanTable.voice`), written from the person's point of view:
a card played face down by another seat is never named, and why a card went face down is
said once in the lines since the person's last move.

Deals come from their own generator and the bots' choices from another, so a
seed fixes the deals whatever the bots and the person do. A finished hand
gives its game record (:meth:`HumanTable.record`), in the format of
:mod:`spar_env.records`.

A table may seat several people (``people``, a table of friends): every person's seat waits
for :meth:`HumanTable.play`, each keeps its own lines (:attr:`HumanTable.seat_events`), and
:meth:`HumanTable.seated` is the table as another person's seat sees it, for its screen.
A person who is away may have a bot move for them (:meth:`HumanTable.stand_in`), and
the lines say so.

The screens read the table through its methods: :meth:`HumanTable.sees` hides another
seat's face-down card, :meth:`HumanTable.trick_plays` and :meth:`HumanTable.plays_by_seat`
give the plays, in order, to draw.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Collection, Mapping
from typing import Any

import numpy as np

from spar_apps.table.messages import Language
from spar_apps.table.voice import Voice
from spar_env import core
from spar_env.core import EXCHANGE, PLAY
from spar_env.explain import HandScore, MoveReason, explain_hand, face_down_reason, move_reasons
from spar_env.explain.phrase import Card, Phrase, Seat, phrase
from spar_env.history import History, step_with_history
from spar_env.records.recorder import RecordWriter
from spar_env.rules import Ruleset, c_notation
from spar_env.situation import Situation

GAME = np.array([0])  # the table is game 0 of a batch of one
NEXT_HAND = -1  # in a table's log: the session's next hand was dealt


class HumanTable:
    """A session between a person in ``seat`` and ``bots`` in every other seat (or every
    seat but ``people``'s).

    Args:
        rules: the ruleset.
        seat: the person's seat (the one this table's screens are drawn for).
        bots: an agent for every seat no person holds, by seat.
        deals: the generator of the deals (and of the first dealer).
        choices: the generator the bots draw from.
        people: the seats held by people, ``seat`` among them (default: ``seat`` alone).
        names: names the people chose, by seat (a seat without one is "seat 2").
    """

    def __init__(
        self,
        rules: Ruleset,
        seat: int,
        bots: Mapping[int, Any],
        deals: np.random.Generator,
        choices: np.random.Generator,
        people: Collection[int] | None = None,
        names: Mapping[int, str] | None = None,
    ) -> None:
        n = rules.players
        if not 0 <= seat < n:
            raise ValueError(f"your seat must be 0..{n - 1}; got {seat}")
        self.people = frozenset({seat} if people is None else people)
        if seat not in self.people or not self.people <= set(range(n)):
            raise ValueError(f"the people's seats must be seats 0..{n - 1}, {seat} among them; "
                             f"got {sorted(self.people)}")  # fmt: skip
        missing = sorted(set(range(n)) - self.people - set(bots))
        if missing:
            raise ValueError(f"no bot for seat {missing[0]}")
        self.rules = rules
        self.seat = seat
        self.names = dict(names or {})
        self.bots = dict(bots)
        self.deals = deals
        self.choices = choices
        self.state = self._first_deal()
        self.history = History(self.state)
        # what happened since each person's last move, by seat, said from that seat
        self.seat_events: dict[int, list[Phrase]] = {p: [] for p in self.people}
        self.payoffs = np.zeros(n, dtype=np.int64)  # of the hand in progress
        self._writer = RecordWriter(rules, with_stock=False)
        self._reveal_seen = -1
        self._chances: list[float] | None = None
        self._chances_at = -1  # the hand whose end the chances are of
        # Every action applied, bots' and person's, and NEXT_HAND: with the two generators'
        # seeds, enough to rebuild the table exactly (apply it again with :meth:`apply`).
        self.log: list[int] = []
        self.at_deal = self._session_now()  # the session when the hand in progress was dealt
        # Called as each trick is won, before the next is led: a screen may show it a moment.
        self.on_trick: Callable[[], None] | None = None

    # ----- what the table shows -------------------------------------------------------
    @property
    def events(self) -> list[Phrase]:
        """What happened since the person's last move, said from the person's seat."""
        return self.seat_events[self.seat]

    def seated(self, seat: int) -> HumanTable:
        """The table as the person in ``seat`` sees it, for its screen: a copy that shares
        this table's game, to read and never to move."""
        if seat not in self.people:
            raise ValueError(f"seat {seat} is not a person's")
        view = copy.copy(self)
        view.seat = seat
        return view

    def voice(self, language: Language) -> Voice:
        """The table's words in ``language``, seats named from the person's seat."""
        return Voice(self.rules, language, self.seat, self.names)

    def score(self, points: int) -> str:
        return c_notation(int(points)) if self.rules.c_notation else str(int(points))

    @property
    def to_move(self) -> int:
        """The seat to act, -1 once the hand is over."""
        return int(self.state.current_player[0])

    @property
    def my_turn(self) -> bool:
        return self.to_move == self.seat

    @property
    def people_turn(self) -> bool:
        """A person (any of them) is to move."""
        return self.to_move in self.people

    @property
    def hand_over(self) -> bool:
        return bool(self.state.terminated[0])

    @property
    def session_over(self) -> bool:
        return bool(self.state.session_over[0])

    @property
    def exchanging(self) -> bool:
        """The decision to take is keep-or-exchange, not a card."""
        return not self.hand_over and int(self.state.phase[0]) == EXCHANGE

    def legal(self) -> list[int]:
        """The legal actions of the seat to move, ascending."""
        bits = int(self.state.legal[0])
        return [a for a in range(self.rules.num_actions) if bits >> a & 1]

    def hand(self, seat: int | None = None) -> list[int]:
        """The cards a seat holds (the person's by default), by suit then rank high to low."""
        return self._cards(self.state.hands[0, self.seat if seat is None else seat])

    def dealt(self, seat: int) -> list[int]:
        """The cards a seat was dealt this hand (shown once the hand is over)."""
        return self._cards(self.state.dealt[0, seat])

    def sees(self, seat: int, down: bool) -> bool:
        """Whether the person may see a card that ``seat`` played (``down``: face down):
        another seat's face-down card is a back."""
        return not down or seat == self.seat

    def trick_plays(self) -> list[tuple[int, int, bool]]:
        """The trick in progress as ``(seat, card, face down)``, from its leader round the table."""
        state, rules = self.state, self.rules
        cards, down = state.trick_cards[0], state.trick_down[0]
        plays, seat = [], int(state.leader[0])
        for _ in range(rules.players):
            if int(cards[seat]) >= 0:
                plays.append((seat, int(cards[seat]), bool(down[seat])))
            seat = (seat + rules.sign) % rules.players
        return plays

    def plays_by_seat(self) -> list[list[tuple[int, bool]]]:
        """Each seat's plays this hand, in order, as ``(card, face down)`` (one pass over the
        history)."""
        history = self.history
        count = int(history.count[0])
        seats, cards = history.seats[0, :count].tolist(), history.cards[0, :count].tolist()
        plays: list[list[tuple[int, bool]]] = [[] for _ in range(self.rules.players)]
        for seat, card, down in zip(seats, cards, history.down[0, :count].tolist(), strict=True):
            plays[seat].append((card, down))
        return plays

    def tricks_won(self) -> list[int]:
        """The tricks each seat has won this hand, by seat."""
        winners = self.state.trick_winner[0]
        return np.bincount(winners[winners >= 0], minlength=self.rules.players).tolist()

    def reasons(self) -> list[MoveReason]:
        """The person's actions with the rule that opens or closes each; none off turn."""
        return move_reasons(self.state) if self.my_turn else []

    def hand_score(self) -> HandScore:
        """How the hand just over was scored."""
        return explain_hand(self.state, 0)

    def finished_trick(self) -> tuple[int, list[tuple[int, int, bool]], int, int] | None:
        """The last trick finished this hand: its number (from 1), its plays as ``(seat, card,
        face down)`` in order, its winner and winning card; ``None`` before the first ends."""
        state, history = self.state, self.history
        done = int(np.count_nonzero(state.trick_winner[0] >= 0))
        if done == 0:
            return None
        seats = int(state.active[0]).bit_count()
        first = (done - 1) * seats
        plays = [
            (int(history.seats[0, i]), int(history.cards[0, i]), bool(history.down[0, i]))
            for i in range(first, min(first + seats, int(history.count[0])))
        ]
        index = done - 1
        return done, plays, int(state.trick_winner[0, index]), int(state.trick_card[0, index])

    def match_chances(self) -> list[float] | None:
        """Once a hand is over and the match goes on: each seat's chance to win the match
        from here, were every seat an equal player (:mod:`spar_train.match.table_chances`); else None."""
        from spar_train.match.table_chances import table_chances

        if not self.hand_over or self.session_over:
            return None
        state = self.state
        key = int(state.hands_played[0])
        if self._chances_at != key:
            chances = table_chances(
                self.rules,
                state.scores[0].tolist(),
                self.next_dealer(),
                stones=state.stones[0].tolist(),
                hands_played=key,
            )
            self._chances = None if chances is None else chances.tolist()
            self._chances_at = key
        return self._chances

    def situation(self) -> Situation:
        """The decision of the seat to move, as agents see it (for a bot's hint)."""
        return Situation(self.state, self.history, GAME)

    # ----- moves --------------------------------------------------------------------
    def play(self, action: int) -> None:
        """The action of the person to move (a card id, or KEEP/EXCHANGE).

        Raises:
            ValueError: if no person is to move or the action is illegal.
        """
        if not self.people_turn:
            raise ValueError("it is not your turn")
        self.seat_events[self.to_move].clear()
        self._step(int(action))

    def stand_in(self, bot: Any) -> None:
        """``bot`` moves for the person to move, who is away; the lines say so."""
        if not self.people_turn:
            raise ValueError("no person is to move")
        seat = self.to_move
        self.seat_events[seat].clear()
        decision = bot.act(self.situation(), self.choices)
        self._step(int(np.asarray(decision.actions)[0]), stood_in=seat)

    def advance(self) -> None:
        """Let the bots move until it is a person's turn or the hand is over; a person's
        last card, which leaves no choice, is played for them."""
        while not self.hand_over:
            if self.people_turn:
                forced = self.forced()
                if forced is None:
                    return
                self._step(forced, forced=True)
                continue
            bot = self.bots[self.to_move]
            decision = bot.act(self.situation(), self.choices)
            self._step(int(np.asarray(decision.actions)[0]))

    def forced(self) -> int | None:
        """The last card of the person to move, when it is all they hold."""
        if not self.people_turn or self.exchanging:
            return None
        held = self.hand(self.to_move)
        return held[0] if len(held) == 1 else None

    def apply(self, action: int) -> None:
        """Apply ``action`` for the seat to move, whoever sits there, or deal the next hand
        (``NEXT_HAND``): how a logged session is played again.

        Raises:
            ValueError: if the action is not legal now.
        """
        if action == NEXT_HAND:
            if not self.hand_over or self.session_over:
                raise ValueError("the next hand cannot be dealt now")
            self.next_hand()
            return
        if self.hand_over or action not in self.legal():
            raise ValueError(f"action {action} is not legal now")
        if self.people_turn:
            self.seat_events[self.to_move].clear()
        self._step(int(action))

    def next_hand(self) -> None:
        """Deal the session's next hand (the winner deals)."""
        self.log.append(NEXT_HAND)
        self._deal_next()
        self.history.clear()
        self.payoffs[:] = 0
        for lines in self.seat_events.values():
            lines.clear()
        self._reveal_seen = -1
        self.at_deal = self._session_now()

    def next_dealer(self) -> int:
        """The seat that deals the session's next hand (once a hand is over): its winner."""
        return int(self.state.winner[0])

    def _first_deal(self) -> core.State:
        """The session's first hand, dealt (a duplicate table deals its boards instead)."""
        return core.reset(self.rules, 1, self.deals)

    def _deal_next(self) -> None:
        """Deal the session's next hand in place, the winner dealing."""
        core.next_hand(self.state, GAME, self.deals)

    def record(self) -> dict[str, Any] | None:
        """The game record of the hand just finished (``None`` for a tie-break hand
        that some seats sat out: the record format deals every seat a hand)."""
        if not self.hand_over:
            raise ValueError("the hand is still running")
        if int(self.state.active[0]) != self.state.tables.all_active:
            return None
        return self._writer.record(
            self.state, 0, self.history.cards[0], self.history.down[0], self.payoffs
        )

    def _session_now(self) -> tuple[tuple[int, ...], tuple[int, ...], int]:
        """Every seat's score and stones, and the hands played: what a review of the hand
        needs to know of the match (a record does not say it)."""
        state = self.state
        scores, stones = state.scores[0].tolist(), state.stones[0].tolist()
        return tuple(scores), tuple(stones), int(state.hands_played[0])

    def _cards(self, bits: int | np.integer) -> list[int]:
        """The card ids of a hand's bits, by suit then rank high to low."""
        held = int(bits)
        return [c for c in range(self.rules.num_card_ids) if held >> c & 1]

    def _step(self, action: int, forced: bool = False, stood_in: int | None = None) -> None:
        state = self.state
        seat, trick = self.to_move, int(state.trick[0])
        playing = int(state.phase[0]) == PLAY
        led = int(state.led_suit[0]) if int(state.pos[0]) > 0 else -1
        follows = led < 0 or self.rules.card_suit_index(action) == led
        actions = np.array([action])
        step_with_history(state, actions, self.history)
        self.log.append(action)
        self.payoffs += np.rint(state.rewards[0]).astype(np.int64)
        for viewer, lines in self.seat_events.items():
            if forced and viewer == seat:
                lines.append(phrase("event.forced"))
            if stood_in is not None:
                you = "you" if viewer == stood_in else "other"
                lines.append(phrase(f"event.stood_in.{you}", who=Seat(stood_in)))
            lines.append(self._line(viewer, seat, action, playing, follows, lines))
        if playing and int(state.trick[0]) > trick:
            winner = int(state.trick_winner[0, trick])
            card = Card(int(state.trick_card[0, trick]))
            for viewer, lines in self.seat_events.items():
                you = "you" if winner == viewer else "other"
                lines.append(
                    phrase(f"event.trick.{you}", who=Seat(winner), trick=trick + 1, card=card)
                )
            if self.on_trick is not None:
                self.on_trick()
        revealed = int(state.revealed[0])
        if revealed >= 0 and revealed != self._reveal_seen:
            self._reveal_seen = revealed
            for lines in self.seat_events.values():
                lines.append(phrase("event.reveal", card=Card(revealed)))

    def _line(
        self,
        viewer: int,
        seat: int,
        action: int,
        playing: bool,
        follows: bool,
        lines: list[Phrase],
    ) -> Phrase:
        """The line of ``seat``'s ``action``, as the person in ``viewer`` reads it: a card
        played face down by another seat is never named, nor why (its suit)."""
        state = self.state
        who, you = Seat(seat), "you" if seat == viewer else "other"
        if not playing:
            verb = "exchange" if state.exchanged[0, seat] else "keep"
            return phrase(f"event.{verb}.{you}", who=who)
        if int(state.played_down[0, seat]) >> action & 1:
            why = face_down_reason(self.rules, follows if seat == viewer else None)
            said = any(dict(e.fields).get("why") == why for e in lines)  # once a line
            key = f"event.down_again.{you}" if said else f"event.down.{you}"
            fields = {"who": who} if seat != viewer else {"card": Card(action)}
            return phrase(key, **fields, **({} if said else {"why": why}))
        return phrase(f"event.play.{you}", who=who, card=Card(action))
