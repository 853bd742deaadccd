"""The plays of each game's current hand, in order: what the table saw, for agents that reason.

The batch core keeps no history (it does not need one to play). Search and
rule-based agents do: which seat failed to follow which suit, what a
face-down card may be. A :class:`History` follows a batch: call
:meth:`History.record` with the actions just before :func:`spar_env.core.step`,
then :meth:`History.settle` just after it, and :meth:`History.clear` for games
dealt a new hand.

It stores the true card of face-down plays too; code that builds what one
seat may know must hide those of other seats (``down`` tells which they are).

:func:`step_with_history` is that protocol as one call: every loop that
keeps a history steps the batch with it.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numba import njit

from spar_env.core import PLAY, State, step

_EVERYONE = np.ones(0, dtype=bool)


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
        self._pending = np.zeros(b, dtype=bool)  # games whose play record() noted
        self._recorded = False

    def take(self, games: np.ndarray) -> History:
        """A copy of the plays of some games, as a smaller batch (matches :meth:`State.take`)."""
        out = object.__new__(History)
        out.cards, out.seats = self.cards[games], self.seats[games]
        out.down, out.count = self.down[games], self.count[games]
        out._pending = np.zeros(out.count.shape[0], dtype=bool)
        out._recorded = False
        return out

    @staticmethod
    def concat(histories: Sequence[History]) -> History:
        """The plays of several batches, one after another (matches :meth:`State.concat`)."""
        out = object.__new__(History)
        for name in ("cards", "seats", "down", "count"):
            setattr(out, name, np.concatenate([getattr(h, name) for h in histories]))
        out._pending = np.zeros(out.count.shape[0], dtype=bool)
        out._recorded = False
        return out

    def clear(self, games: np.ndarray | slice = slice(None)) -> None:
        """Forget the plays of ``games`` (their new hand has just been dealt)."""
        self.cards[games] = -1
        self.seats[games] = -1
        self.down[games] = False
        self.count[games] = 0

    def record(self, state: State, actions: np.ndarray, moving: np.ndarray | None = None) -> None:
        """Note the card plays among ``actions``, before ``step(state, actions, moving=...)``."""
        everyone = moving is None
        moving = _EVERYONE if everyone else np.asarray(moving, dtype=bool)
        actions = np.asarray(actions, dtype=np.int64)
        _record(state.compiled, self._plays(), self._pending, actions, moving, everyone)
        self._recorded = True

    def settle(self, state: State) -> None:
        """After the step: learn which of the recorded plays lay face down."""
        if not self._recorded:
            raise RuntimeError("History.settle() without a record() before the step")
        self._recorded = False
        _settle(state.compiled, self._plays(), self._pending)

    def _plays(self) -> tuple[np.ndarray, ...]:
        return self.cards, self.seats, self.down, self.count


def step_with_history(
    state: State,
    actions: np.ndarray,
    history: History | None,
    *,
    moving: np.ndarray | None = None,
    check: bool = True,
) -> np.ndarray:
    """:func:`spar_env.core.step` (same arguments, same return) that keeps ``history`` up to
    date: :meth:`History.record` before the step, :meth:`History.settle` after it. Without a
    history it is the plain step."""
    if history is None:
        return step(state, actions, moving=moving, check=check)
    history.record(state, actions, moving)
    rewards = step(state, actions, moving=moving, check=check)
    history.settle(state)
    return rewards


@njit(cache=True)
def _record(s, plays, pending, actions, moving, everyone):
    cards, seats, _down, count = plays
    for g in range(actions.shape[0]):
        pending[g] = not s.terminated[g] and s.phase[g] == PLAY and (everyone or moving[g])
        if pending[g]:
            if count[g] == cards.shape[1]:
                raise IndexError("History.record: more plays than a hand holds; clear() new hands")
            cards[g, count[g]] = actions[g]
            seats[g, count[g]] = s.current_player[g]
            count[g] += 1


@njit(cache=True)
def _settle(s, plays, pending):
    cards, seats, down, count = plays
    for g in range(pending.shape[0]):
        if pending[g]:
            p = count[g] - 1
            down[g, p] = (s.played_down[g, seats[g, p]] >> np.uint64(cards[g, p])) & np.uint64(1)
            pending[g] = False
