"""What each deciding seat may know, in structured form, for rule-based and search agents.

:func:`knowledge` reads a :class:`~spar_agents.base.Situation` and returns arrays
with a leading axis of ``G`` decisions. It uses only what the deciding seat
may see: its own hand, discard and face-down cards; every face-up card; the
fact (not the face) of other seats' face-down plays; the stock card once
revealed; and the voids that the play so far has revealed to everyone:

- a seat that played a face-up card of another suit than the led one;
- under ``face_down: off_suit``, a seat that played face down (it could not
  follow). Under ``non_winning`` every off-suit card lies face down too, so
  nothing is revealed there.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from spar_agents.base import Situation
from spar_env.core import EXCHANGE
from spar_env.core.bits import count_of
from spar_env.core.kernel import nth_seat_after
from spar_env.core.tables import FACE_DOWN, KEY_SEATS, NO_CARD, OFF_SUIT, PLAYERS, SIGN


@dataclass(frozen=True)
class Knowledge:
    seats: np.ndarray  # int64 [G] the deciding seat
    hand: np.ndarray  # uint64 [G] its cards
    unseen: (
        np.ndarray
    )  # uint64 [G] cards it cannot place: others' hands and face-down cards, stock, discards
    played_up: np.ndarray  # uint64 [G, N] face-up cards each seat has played
    own_down: np.ndarray  # uint64 [G] cards it played face down itself
    down_count: np.ndarray  # int64 [G, N] face-down plays of each seat
    hand_sizes: np.ndarray  # int64 [G, N] cards left in each seat's hand
    voids: np.ndarray  # int64 [G, N] bit set of suits each seat is known to lack
    in_hand: np.ndarray  # bool [G, N] seat is dealt into this hand


def knowledge(situation: Situation) -> Knowledge:
    """What each deciding seat of ``situation`` may know."""
    state, history = situation.state, situation.history
    g, n = situation.size, state.num_players
    k = Knowledge(
        seats=situation.seats.copy(),
        hand=np.empty(g, dtype=np.uint64),
        unseen=np.empty(g, dtype=np.uint64),
        played_up=np.empty((g, n), dtype=np.uint64),
        own_down=np.empty(g, dtype=np.uint64),
        down_count=np.empty((g, n), dtype=np.int64),
        hand_sizes=np.empty((g, n), dtype=np.int64),
        voids=np.zeros((g, n), dtype=np.int64),
        in_hand=np.empty((g, n), dtype=bool),
    )
    _know(
        state.compiled,
        (history.cards, history.seats, history.down, history.count),
        situation.games,
        k.seats,
        (k.hand, k.unseen, k.played_up, k.own_down, k.down_count, k.hand_sizes, k.voids),
        k.in_hand,
    )
    return k


@njit(cache=True)
def _know(s, plays, games, seats, out, in_hand):
    """Fill the arrays of a :class:`Knowledge` (``out`` in its field order, and ``in_hand``)."""
    hand, unseen, played_up, own_down, down_count, hand_sizes, voids = out
    n = s.code[PLAYERS]
    for i in range(games.shape[0]):
        g, me = games[i], seats[i]
        deck = np.uint64(0)
        for c in s.deck[g]:
            deck |= s.card_bit[c]
        seen = s.hands[g, me] | s.played_down[g, me] | s.discarded[g, me]
        if s.revealed[g] >= 0:
            seen |= s.card_bit[s.revealed[g]]
        for seat in range(n):
            up = (s.held[g, seat] ^ s.hands[g, seat]) & ~s.played_down[g, seat]
            played_up[i, seat] = up
            seen |= up
            down_count[i, seat] = s.down_count[g, seat]
            hand_sizes[i, seat] = count_of(s.hands[g, seat])
            in_hand[i, seat] = (s.active[g] >> seat) & 1
        hand[i] = s.hands[g, me]
        own_down[i] = s.played_down[g, me]
        unseen[i] = deck & ~seen
        _revealed_voids(s, s.active[g], plays, g, voids[i])


@njit(cache=True)
def _revealed_voids(s, active, plays, g, voids):
    """Suits each seat has shown it lacks (bit sets, OR-ed into ``voids [N]``).

    A play fails to follow when it is face up and of another suit than the
    trick's lead; under ``off_suit`` a face-down play fails to follow too.
    """
    cards, seats, down, count = plays
    n_in = count_of(np.uint64(active))
    off_suit = s.code[FACE_DOWN] == OFF_SUIT
    for p in range(count[g]):
        led_suit = s.card_suit[cards[g, (p // n_in) * n_in]]
        failed = (not down[g, p] and s.card_suit[cards[g, p]] != led_suit) or (
            off_suit and down[g, p]
        )
        if failed:
            voids[seats[g, p]] |= 1 << led_suit


@dataclass(frozen=True)
class TrickView:
    """The trick in progress as every seat sees it, from the deciding seat's turn."""

    trick: np.ndarray  # int64 [G] 0-based number of the trick in progress
    led_suit: np.ndarray  # int64 [G] suit led, -1 when the deciding seat leads
    best_card: np.ndarray  # int64 [G] card winning the trick so far (always face up), -1 if none
    best_seat: np.ndarray  # int64 [G] seat that played it, -1 if none
    to_play: np.ndarray  # bool [G, N] seats still to play to this trick after the deciding seat


def trick_view(situation: Situation) -> TrickView:
    """The public state of the trick in progress at each decision of ``situation``.

    The card winning a trick so far is never face down: under ``off_suit`` only
    off-suit cards lie face down, and under ``non_winning`` only the cards that
    did not take the lead.
    """
    state = situation.state
    g = situation.size
    view = TrickView(
        trick=np.empty(g, dtype=np.int64),
        led_suit=np.empty(g, dtype=np.int64),
        best_card=np.empty(g, dtype=np.int64),
        best_seat=np.empty(g, dtype=np.int64),
        to_play=np.zeros((g, state.num_players), dtype=bool),
    )
    _view_tricks(
        state.compiled,
        situation.games,
        situation.seats,
        state.tables.rules.num_ranks,
        (view.trick, view.led_suit, view.best_card, view.best_seat),
        view.to_play,
    )
    return view


@njit(cache=True)
def _view_tricks(s, games, seats, ranks, out, to_play):
    """Fill the arrays of a :class:`TrickView` (``out``: trick, led_suit, best_card, best_seat)."""
    trick, led_suit, best_card, best_seat = out
    n = s.code[PLAYERS]
    for i in range(games.shape[0]):
        g = games[i]
        trick[i], led_suit[i] = s.trick[g], s.led_suit[g]
        best = s.best[g]
        if best > 0:
            best_seat[i] = (best - 1) % KEY_SEATS
            best_card[i] = s.led_suit[g] * ranks + ranks - 1 - (best - 1) // KEY_SEATS
        else:
            best_seat[i], best_card[i] = -1, NO_CARD
        left = count_of(np.uint64(s.active[g])) - s.pos[g] - 1  # seats after the decider
        for k in range(left):
            to_play[i, nth_seat_after(n, s.code[SIGN], s.active[g], seats[i], k)] = True


@dataclass(frozen=True)
class PublicPlays:
    """The hand so far as the deciding seat saw it (for search agents that sample hidden cards)."""

    cards: np.ndarray  # int64 [G, P] card of each play; -1 for another seat's face-down card
    seats: np.ndarray  # int64 [G, P] seat that made each play
    down: np.ndarray  # bool [G, P] the play lay face down
    count: np.ndarray  # int64 [G] plays so far
    leader: np.ndarray  # int64 [G] seat that leads (or led) the trick in progress
    exchanged: np.ndarray  # bool [G, N] seat exchanged its hand (public)
    exchange_phase: np.ndarray  # bool [G] exchange decisions are still being taken


def public_plays(situation: Situation) -> PublicPlays:
    """The plays of each decision's hand, hiding the faces of other seats' face-down cards."""
    state, g, seats = situation.state, situation.games, situation.seats
    history = situation.history
    played_by = history.seats[g].astype(np.int64)
    down = history.down[g].copy()
    hidden = down & (played_by != seats[:, None])
    cards = np.where(hidden, -1, history.cards[g].astype(np.int64))
    return PublicPlays(
        cards=cards,
        seats=played_by,
        down=down,
        count=history.count[g].copy(),
        leader=state.leader[g].copy(),
        exchanged=state.exchanged[g].copy(),
        exchange_phase=state.phase[g] == EXCHANGE,
    )
