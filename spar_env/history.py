"""The plays of each game's current hand, in order: what the table saw, for agents that reason.

The batch core keeps no history (it does not need one to play). Search and
rule-based agents do: which seat failed to follow which suit, what a
face-down card may be. A :class:`History` follows a batch: call
:meth:`History.record` with the actions just before :func:`spar_env.core.step`,
then :meth:`History.settle` just after it, and :meth:`History.clear` for games
dealt a new hand.

It stores the true card of face-down plays too; code that builds what one
seat may know must hide those of other seats (``down`` tells which they are).
"""

from __future__ import annotations

import numpy as np

from spar_env.core import PLAY, State


class History:
    """Plays of the current hand of each game of a batch, in the order played.

    Attributes:
        cards: ``int8 [B, P]`` card of each play, -1 past ``count`` (P = N * H).
        seats: ``int8 [B, P]`` seat that made each play.
        down: ``bool [B, P]`` the play lay face down.
        count: ``int64 [B]`` plays so far in the current hand.
    """

    def __init__(self, state: State) -> None:
        b, n, h = state.batch_size, state.num_players, state.tables.hand_size
        self.cards = np.full((b, n * h), -1, dtype=np.int8)
        self.seats = np.full((b, n * h), -1, dtype=np.int8)
        self.down = np.zeros((b, n * h), dtype=bool)
        self.count = np.zeros(b, dtype=np.int64)
        self._pending: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None

    def take(self, games: np.ndarray) -> History:
        """A copy of the plays of some games, as a smaller batch (matches :meth:`State.take`)."""
        out = object.__new__(History)
        out.cards, out.seats = self.cards[games], self.seats[games]
        out.down, out.count = self.down[games], self.count[games]
        out._pending = None
        return out

    def clear(self, games: np.ndarray | slice = slice(None)) -> None:
        """Forget the plays of ``games`` (their new hand has just been dealt)."""
        self.cards[games] = -1
        self.seats[games] = -1
        self.down[games] = False
        self.count[games] = 0

    def record(self, state: State, actions: np.ndarray, moving: np.ndarray | None = None) -> None:
        """Note the card plays among ``actions``, before ``step(state, actions, moving=...)``."""
        playing = ~state.terminated & (state.phase == PLAY)
        if moving is not None:
            playing &= moving
        games = np.flatnonzero(playing)
        seats = state.current_player[games]
        cards = np.asarray(actions)[games].astype(np.int64)
        index = self.count[games]
        self.cards[games, index] = cards
        self.seats[games, index] = seats
        self.count[games] += 1
        self._pending = (games, index, cards)

    def settle(self, state: State) -> None:
        """After the step: learn which of the recorded plays lay face down."""
        if self._pending is None:
            raise RuntimeError("History.settle() without a record() before the step")
        games, index, cards = self._pending
        self._pending = None
        if state.tables.rules.face_down == "none" or games.size == 0:
            return
        seats = self.seats[games, index].astype(np.int64)
        bits = state.played_down[games, seats] >> cards.astype(np.uint64)
        self.down[games, index] = (bits & np.uint64(1)).astype(bool)
