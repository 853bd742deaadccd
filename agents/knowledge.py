"""What each deciding seat may know, in structured form, for rule-based and search agents.

:func:`knowledge` reads a :class:`~agents.base.Situation` and returns arrays
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

from agents.base import Situation
from spar_env.core import EXCHANGE, tables_for
from spar_env.core.bits import popcount
from spar_env.core.tables import nth_after, seats_in


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
    state, g, seats = situation.state, situation.games, situation.seats
    t = tables_for(situation.rules)
    n = t.num_players
    hand = state.hands[g, seats]
    played_up = state.played_up[g]
    own_down = state.played_down[g, seats]
    deck_bits = np.bitwise_or.reduce(t.card_bit[t.deck.astype(np.int64)])
    seen = hand | np.bitwise_or.reduce(played_up, axis=1) | own_down
    seen |= state.discarded[g, seats]
    revealed = state.revealed[g]
    seen |= np.where(revealed >= 0, t.card_bit[np.maximum(revealed, 0)], np.uint64(0))
    in_hand = ((state.active[g][:, None] >> np.arange(n)) & 1).astype(bool)
    return Knowledge(
        seats=seats,
        hand=hand,
        unseen=deck_bits & ~seen,
        played_up=played_up,
        own_down=own_down,
        down_count=state.down_count[g],
        hand_sizes=popcount(state.hands[g]),
        voids=_revealed_voids(situation),
        in_hand=in_hand,
    )


def _revealed_voids(situation: Situation) -> np.ndarray:
    """``int64 [G, N]`` suits each seat has shown it lacks, from the public play history."""
    state, g = situation.state, situation.games
    t = tables_for(situation.rules)
    rules = situation.rules
    history = situation.history
    cards = history.cards[g].astype(np.int64)
    seats = history.seats[g].astype(np.int64)
    down = history.down[g]
    count = history.count[g]
    n_in = seats_in(state.active[g])
    voids = np.zeros((g.shape[0], t.num_players), dtype=np.int64)
    rows = np.arange(g.shape[0])
    for p in range(int(count.max(initial=0))):
        made = p < count
        lead = cards[rows, (p // n_in) * n_in]
        led_suit = t.card_suit[np.maximum(lead, 0)]
        suit = t.card_suit[np.maximum(cards[:, p], 0)]
        failed = ~down[:, p] & (suit != led_suit)
        if rules.face_down == "off_suit":
            failed |= down[:, p]
        hit = made & failed
        voids[rows[hit], seats[hit, p]] |= 1 << led_suit[hit]
    return voids


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
    state, g, seats = situation.state, situation.games, situation.seats
    t = tables_for(situation.rules)
    n = t.num_players
    led = state.led_suit[g]
    active = state.active[g]
    left = seats_in(active) - state.pos[g] - 1  # seats after the decider in this trick
    to_play = np.zeros((g.shape[0], n), dtype=bool)
    rows = np.arange(g.shape[0])
    for k in range(n - 1):
        later = k < left
        to_play[rows[later], nth_after(t, active, seats, k)[later]] = True
    return TrickView(
        trick=state.trick[g].copy(),
        led_suit=led.copy(),
        best_card=state.best_card[g],
        best_seat=state.best_seat[g],
        to_play=to_play,
    )


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
