"""Replaying game records through the batch core, with errors that name the play and the rule.

:func:`replay_many` parses records (:mod:`spar_env.records.schema`), groups
them by ruleset and plays each group as one batch: the deck that deals the
recorded hands (``deck_for_hands``), the recorded dealer, then one
:func:`~spar_env.core.step` per decision for the whole batch. Before each step
every game's action is checked against the core's legal set; a game whose
action is illegal gets an error that says why (a card the seat does not
hold, a card already played, a failure to follow suit, an exchange the seat
may not make or that the stock does not match) and is then driven to its end
with stand-in legal actions, so the games around it are not disturbed. No
result is given for a broken record.

The result of a replay::

    {"winner": 0, "points": 3, "payoffs": [9, -3, -3, -3],
     "tricks": [0, 0, 0, 0, 0],                 # the winner of each trick
     "winning_cards": ["KH", "9C", "7S", "AD", "6H"],
     "face_down": [3, 7]}                        # only if the ruleset has face-down plays
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from spar_env.core import EXCHANGE, PLAY, reset, step, tables_for
from spar_env.core.deal import deck_for_hands
from spar_env.records.schema import ParsedRecord, RecordError, parse_record
from spar_env.rules import Ruleset

BATCH = 4096  # records replayed together (one group of a ruleset at a time)
SUIT_NAMES = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}
_ONE = np.uint64(1)


def replay(record: dict[str, Any]) -> dict[str, Any]:
    """Replay one record and return its result.

    Raises:
        RecordError: if the record breaks a rule or disagrees with its replay;
            the message names the play (index, card, seat) or field and the rule.
    """
    (out,) = replay_many([record])
    if isinstance(out, RecordError):
        raise out
    return out


def replay_many(
    records: Iterable[object], batch: int = BATCH
) -> list[dict[str, Any] | RecordError]:
    """Replay many records; each gets its result or its :class:`RecordError`, in order."""
    records = list(records)
    out: list[dict[str, Any] | RecordError | None] = [None] * len(records)
    groups: dict[Ruleset, list[tuple[int, ParsedRecord]]] = {}
    for i, record in enumerate(records):
        try:
            parsed = parse_record(record)
        except RecordError as e:
            out[i] = e
            continue
        groups.setdefault(parsed.rules, []).append((i, parsed))
    for rules, members in groups.items():
        for start in range(0, len(members), batch):
            chunk = members[start : start + batch]
            results = _Batch(rules, [p for _, p in chunk]).run()
            for (i, _), result in zip(chunk, results, strict=True):
                out[i] = result
    return out  # type: ignore[return-value]


class _Batch:
    """One batch of parsed records of one ruleset, played through the core together."""

    def __init__(self, rules: Ruleset, records: list[ParsedRecord]) -> None:
        self.rules = rules
        self.tables = tables_for(rules)
        self.records = records
        self.names = [rules.card_name(c) for c in range(rules.num_card_ids)]
        self.errors: list[str | None] = [None] * len(records)
        self.failed = np.zeros(len(records), dtype=bool)
        n, h = rules.players, rules.hand_size
        decks = np.zeros((len(records), self.tables.deck.shape[0]), dtype=np.int8)
        for g, rec in enumerate(records):
            try:
                decks[g] = deck_for_hands(self.tables, rec.hands, rec.dealer, rec.stock)
            except ValueError as e:  # parse_record should have caught it; keep the core's words
                self.fail(g, str(e))
                decks[g] = self.tables.deck
        dealers = np.array([rec.dealer for rec in records], dtype=np.int64)
        # The core draws nothing when decks and dealers are given; the rng is a formality.
        self.state = reset(
            rules, len(records), np.random.default_rng(0), decks=decks, dealers=dealers
        )
        self.plays = np.array([rec.plays for rec in records], dtype=np.int64).reshape(-1, n * h)
        self.wants = np.array(
            [[hand is not None for hand in rec.exchanges] for rec in records], dtype=bool
        ).reshape(-1, n)
        bit = self.tables.card_bit
        self.new_hands = np.array(
            [
                [int(np.bitwise_or.reduce(bit[hand])) if hand else 0 for hand in rec.exchanges]
                for rec in records
            ],
            dtype=np.uint64,
        ).reshape(-1, n)
        self.face_down = np.zeros((len(records), n * h), dtype=bool)
        self.payoffs = np.zeros((len(records), n), dtype=np.int64)
        self.exchanges_checked = np.zeros(len(records), dtype=bool)

    def fail(self, g: int, message: str) -> None:
        """Keep the first error of game ``g``; from now on it is played with stand-in actions."""
        if self.errors[g] is None:
            self.errors[g] = message
            self.failed[g] = True

    def run(self) -> list[dict[str, Any] | RecordError]:
        state = self.state
        played = np.zeros(state.batch_size, dtype=np.int64)  # plays made so far, per game
        self._check_exchanges_done()
        while not state.terminated.all():
            live = ~state.terminated
            actions = np.zeros(state.batch_size, dtype=np.int64)
            deciding = np.flatnonzero(live & (state.phase == EXCHANGE))
            playing = np.flatnonzero(live & (state.phase == PLAY))
            self._exchange_actions(deciding, actions)
            seats = state.current_player[playing]
            actions[playing] = self.plays[playing, played[playing]]
            self._check_plays(playing, played[playing], actions[playing])
            stand_in = np.flatnonzero(self.failed & live)
            actions[stand_in] = _lowest_member(state.legal[stand_in])
            rewards = step(state, actions, check=False)
            self.payoffs += np.rint(rewards).astype(np.int64)
            down = state.played_down[playing, seats] >> actions[playing].astype(np.uint64) & _ONE
            self.face_down[playing, played[playing]] = down.astype(bool)
            played[playing] += 1
            self._check_exchanges_done()
        return [self._outcome(g) for g in range(state.batch_size)]

    # ----- the weak-hand exchange -------------------------------------------------------
    def _exchange_actions(self, games: np.ndarray, actions: np.ndarray) -> None:
        """KEEP or EXCHANGE as the record says; an exchange must take the top of the stock."""
        if games.size == 0:
            return
        state, rules, h = self.state, self.rules, self.rules.hand_size
        seats = state.current_player[games]
        swap = self.wants[games, seats]
        allowed = state.legal[games] >> np.uint64(rules.exchange_action) & _ONE == 1
        for i in np.flatnonzero(swap & ~allowed):  # a strong hand: only KEEP is legal
            self.fail(int(games[i]), self._why_no_exchange(int(games[i]), int(seats[i])))
        swap &= allowed
        actions[games] = np.where(swap, rules.exchange_action, rules.keep_action)
        positions = np.minimum(state.stock_top[games, None] + np.arange(h), state.deck.shape[1] - 1)
        top = state.deck[games[:, None], positions]
        top_bits = np.bitwise_or.reduce(self.tables.card_bit[top], axis=1)
        for i in np.flatnonzero(swap & (top_bits != self.new_hands[games, seats])):
            seat, g = int(seats[i]), int(games[i])
            self.fail(
                g,
                f"exchanges[{seat}] is not the top of the stock: seat {seat} would take "
                f"{self._names(top[i])}, but the record gives "
                f"{self._names(self.records[g].exchanges[seat])}",
            )

    def _check_exchanges_done(self) -> None:
        """Once a game's exchange phase is over, every recorded exchange must have happened."""
        state = self.state
        due = ~self.exchanges_checked & (state.phase != EXCHANGE)
        missed = due & (state.exchanged != self.wants).any(axis=1)
        for g in np.flatnonzero(missed):
            seat = int(np.flatnonzero(state.exchanged[g] != self.wants[g])[0])
            self.fail(int(g), self._why_no_exchange(int(g), seat))
        self.exchanges_checked |= due

    def _why_no_exchange(self, g: int, seat: int) -> str:
        rules, h = self.rules, self.rules.hand_size
        dealt = self.records[g].hands[seat]
        high = [c for c in dealt if rules.is_high_rank(rules.card_rank(c))]
        where = f"exchanges[{seat}]: seat {seat} may not exchange"
        if high:
            return (
                f"{where}: its hand holds {self._names(high)}, and only a hand whose best card is "
                "a 9 or lower may be exchanged"
            )
        left = self.state.deck.shape[1] - int(self.state.stock_top[g])
        return (
            f"{where}: the stock holds {left} cards when its turn comes, fewer than a hand of {h}"
        )

    # ----- playing cards ----------------------------------------------------------------
    def _check_plays(self, games: np.ndarray, indices: np.ndarray, cards: np.ndarray) -> None:
        legal = self.state.legal[games] >> cards.astype(np.uint64) & _ONE
        for i in np.flatnonzero(legal == 0):
            g = int(games[i])
            if self.errors[g] is None:
                self.fail(g, self._why_illegal(g, int(indices[i]), int(cards[i])))

    def _why_illegal(self, g: int, k: int, card: int) -> str:
        state, rules = self.state, self.rules
        seat = int(state.current_player[g])
        name = rules.card_name(card)
        where = f"plays[{k}] {name} (seat {seat}, trick {int(state.trick[g]) + 1})"
        hand = int(state.hands[g, seat])
        if not hand >> card & 1:
            earlier = self.records[g].plays[:k]
            if card in earlier:
                first = earlier.index(card)
                return f"{where}: duplicated card: {name} was already played at plays[{first}]"
            return f"{where}: seat {seat} does not hold {name}; {self._whereabouts(g, card)}"
        led = int(state.led_suit[g])
        follow = [
            c
            for c in range(rules.num_card_ids)
            if hand >> c & 1 and rules.card_suit_index(c) == led
        ]
        suit = SUIT_NAMES[rules.suits[led]]
        held = self._names(follow)
        return f"{where}: seat {seat} must follow suit: {suit} were led and it holds {held}"

    def _whereabouts(self, g: int, card: int) -> str:
        state = self.state
        for seat in range(self.rules.players):
            if int(state.hands[g, seat]) >> card & 1:
                return f"seat {seat} holds it"
        for seat in range(self.rules.players):
            if int(state.discarded[g, seat]) >> card & 1:
                return f"seat {seat} gave it up in the exchange"
        return "it is in the stock"

    # ----- the outcome ------------------------------------------------------------------
    def _outcome(self, g: int) -> dict[str, Any] | RecordError:
        if self.errors[g] is not None:
            return RecordError(self.errors[g])
        state, rules = self.state, self.rules
        result: dict[str, Any] = {
            "winner": int(state.winner[g]),
            "points": int(state.points[g]),
            "payoffs": self.payoffs[g].tolist(),
            "tricks": state.trick_winner[g].astype(int).tolist(),
            "winning_cards": [self.names[c] for c in state.trick_card[g].tolist()],
        }
        down = np.flatnonzero(self.face_down[g]).tolist()
        if rules.face_down != "none":
            result["face_down"] = down
        record = self.records[g]
        if record.face_down is not None and sorted(record.face_down) != down:
            return RecordError(
                f"face_down is {record.face_down}, but in the replay the plays turned face down "
                f"are {down}"
            )
        if record.result is not None:
            problem = _compare_result(record.result, result)
            if problem:
                return RecordError(problem)
        return result

    def _names(self, cards: Iterable[int]) -> str:
        return ", ".join(self.names[int(c)] for c in cards)


def _compare_result(claimed: dict[str, Any], replayed: dict[str, Any]) -> str | None:
    """Why the record's ``result`` disagrees with the replay, or None if it agrees."""
    for key, value in claimed.items():
        if key not in replayed:
            return f"result has an unknown field {key!r}; a result has {', '.join(replayed)}"
        if value != replayed[key]:
            return f"result says {key} is {value!r}, but the replay gives {replayed[key]!r}"
    return None


def _lowest_member(bits: np.ndarray) -> np.ndarray:
    """The lowest set bit of each (non-empty) uint64 bit set, as int64."""
    low = bits & (~bits + _ONE)
    return np.bitwise_count(low - _ONE).astype(np.int64)
