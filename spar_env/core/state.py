"""The batch state: every field is an array with a leading batch axis ``[B, ...]``.

Public fields (the same in every game, as in Pgx): ``current_player``,
``legal``, ``rewards``, ``terminated``. Bit sets are ``uint64`` with bit ``c``
for card id ``c`` (and, in the exchange phase, bits ``KEEP``/``EXCHANGE`` for
those actions). Seats are absolute (0..N-1); the observation layer makes them
relative to the observer. Compiled kernels read the same arrays through
:attr:`State.compiled`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields
from functools import cached_property
from operator import attrgetter

import numpy as np
from numba import njit
from numba.core import types
from numba.experimental import structref

from spar_env.core.bits import lowest_bit_index
from spar_env.core.tables import KEY_SEATS, LOOKUP_FIELDS, NO_CARD, Tables

# Phases of a hand.
EXCHANGE = 0  # weak-hand exchange decisions before trick 1
PLAY = 1  # tricks in progress
OVER = 2  # the hand is over (rewards paid)


@dataclass(eq=False)
class State:
    tables: Tables
    # --- public ---
    current_player: np.ndarray  # int64 [B] seat to act; -1 when the hand is over
    legal: np.ndarray  # uint64 [B] legal actions of current_player as a bit set
    rewards: np.ndarray  # float32 [B, N] payoffs paid by the last step
    terminated: np.ndarray  # bool [B] the hand is over
    # --- the hand (private: hidden information lives here) ---
    phase: np.ndarray  # int64 [B] EXCHANGE | PLAY | OVER
    dealer: np.ndarray  # int64 [B] seat that dealt this hand
    active: np.ndarray  # int64 [B] bit set of seats in this hand
    deck: (
        np.ndarray
    )  # int8 [B, deck_size] the shuffled deck, top first; the stock is deck[stock_top:]
    stock_top: np.ndarray  # int64 [B] deck position of the stock's top card
    hands: np.ndarray  # uint64 [B, N] cards held
    dealt: np.ndarray  # uint64 [B, N] hands as dealt (before any exchange)
    held: np.ndarray  # uint64 [B, N] hands when trick 1 began (after any exchange)
    played_down: np.ndarray  # uint64 [B, N] cards each seat played face down (secret)
    down_count: np.ndarray  # int64 [B, N] face-down plays by seat (public)
    exchanged: np.ndarray  # bool [B, N] seat exchanged its hand (public)
    discarded: np.ndarray  # uint64 [B, N] hand given up in the exchange (secret)
    exchange_turn: np.ndarray  # int64 [B] k: the k-th seat after the dealer decides next
    revealed: np.ndarray  # int64 [B] stock-bottom card turned face up, -1 if none
    trick: np.ndarray  # int64 [B] 0-based trick number
    pos: np.ndarray  # int64 [B] cards played to the trick in progress
    leader: np.ndarray  # int64 [B] seat that led the trick in progress
    led_suit: np.ndarray  # int64 [B] suit index led, -1 before the lead
    best: (
        np.ndarray
    )  # int64 [B] 8 * strength + seat + 1 of the card winning the trick, 0 before the lead
    trick_start: np.ndarray  # uint64 [B, N] hands when the trick in progress began
    trick_start_down: np.ndarray  # uint64 [B, N] played_down when the trick in progress began
    trick_winner: np.ndarray  # int8 [B, H] seat that won each trick, -1 not yet played
    trick_card: np.ndarray  # int8 [B, H] card that won each trick
    winner: np.ndarray  # int64 [B] seat that won the hand, -1 while it runs
    points: np.ndarray  # int64 [B] points the winner scored, 0 while it runs
    # --- the session ---
    scores: np.ndarray  # int64 [B, N] session points
    stones: np.ndarray  # int64 [B, N] stones taken (end "stones:K")
    pool: np.ndarray  # int64 [B] stones left in the pool
    hands_played: np.ndarray  # int64 [B] hands finished in this session
    session_over: np.ndarray  # bool [B]
    session_winner: np.ndarray  # int64 [B] seat that won the session, -1 none (yet)

    # --- views derived from the fields above (read-only) ---
    @property
    def played_up(self) -> np.ndarray:
        """uint64 [B, N] cards each seat has played face up."""
        return (self.held ^ self.hands) & ~self.played_down

    @property
    def trick_cards(self) -> np.ndarray:
        """int8 [B, N] card each seat played to the trick in progress, -1 for none."""
        played = self.trick_start ^ self.hands
        return np.where(played == 0, NO_CARD, lowest_bit_index(played)).astype(np.int8)

    @property
    def trick_down(self) -> np.ndarray:
        """bool [B, N] the seat's card in the trick in progress lies face down."""
        return (self.played_down ^ self.trick_start_down) != 0

    @property
    def best_seat(self) -> np.ndarray:
        """int64 [B] seat winning the trick in progress, -1 before the lead."""
        return np.where(self.best > 0, (self.best - 1) % KEY_SEATS, -1)

    @property
    def best_card(self) -> np.ndarray:
        """int64 [B] card winning the trick in progress (always face up), -1 before the lead."""
        r = self.tables.rules.num_ranks
        strength = (self.best - 1) // KEY_SEATS
        return np.where(self.best > 0, self.led_suit * r + (r - 1 - strength), NO_CARD)

    @cached_property
    def row_base(self) -> np.ndarray:
        """int64 [B] ``game * N``: flat index of seat 0 of each game in a [B, N] array."""
        return np.arange(self.batch_size, dtype=np.int64) * self.num_players

    @property
    def batch_size(self) -> int:
        return int(self.current_player.shape[0])

    @property
    def num_players(self) -> int:
        return self.tables.num_players

    @property
    def nbytes(self) -> int:
        """Bytes held by the state's arrays (the shared tables excluded)."""
        return sum(getattr(self, f.name).nbytes for f in fields(self) if f.name != "tables")

    def take(self, games: np.ndarray) -> State:
        """A copy of some games, as a smaller batch (for tests and records)."""
        kw = {
            f.name: getattr(self, f.name)[games].copy() for f in fields(self) if f.name != "tables"
        }
        return State(tables=self.tables, **kw)

    @staticmethod
    def concat(states: Sequence[State]) -> State:
        """The games of several batches of one ruleset, one after another, as one batch."""
        kw = {
            f.name: np.concatenate([getattr(s, f.name) for s in states])
            for f in fields(State)
            if f.name != "tables"
        }
        return State(tables=states[0].tables, **kw)

    def arrays(self) -> tuple[np.ndarray, ...]:
        """The state's arrays in field order."""
        return _get_arrays(self)

    @property
    def compiled(self) -> Arrays:
        """The same arrays (not copies), and the tables' lookup arrays, as one object for the
        compiled kernels (fields by name: ``s.hands``, ``s.card_bit``, ...).

        Built once per state; replacing a field (``state.hands = ...``) builds it afresh.
        """
        view = self.__dict__.get("_compiled")
        if view is None:
            view = self.__dict__["_compiled"] = _pack(*self.arrays(), *self.tables.lookup)
        return view

    def __setattr__(self, name: str, value: object) -> None:
        object.__setattr__(self, name, value)
        self.__dict__.pop("_compiled", None)

    def __getstate__(self) -> dict[str, object]:
        return {k: v for k, v in self.__dict__.items() if k != "_compiled"}

    def legal_mask(self) -> np.ndarray:
        """The legal actions as ``bool [B, num_actions]``."""
        shifts = np.arange(self.tables.rules.num_actions, dtype=np.uint64)
        return ((self.legal[:, None] >> shifts) & np.uint64(1)).astype(bool)


FIELDS = tuple(f.name for f in fields(State) if f.name != "tables")
_get_arrays = attrgetter(*FIELDS)


@structref.register
class ArraysType(types.StructRef):
    def preprocess_fields(self, fields):
        return tuple((name, types.unliteral(t)) for name, t in fields)


class Arrays(structref.StructRefProxy):
    """A state's arrays and its tables' lookup arrays by name, for compiled kernels:
    ``state.compiled``.

    Passed to a kernel as one pointer, so calls stay cheap (a batch of one
    game is stepped thousands of times a second) and so does compiling.
    """


structref.define_proxy(Arrays, ArraysType, FIELDS + LOOKUP_FIELDS)


@njit(cache=True)
def _pack(*arrays):
    return Arrays(*arrays)
