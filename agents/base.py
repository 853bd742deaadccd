"""The agent protocol: a batch of decisions in, one action per decision out.

A :class:`Situation` is ``G`` decisions taken at once, one per game of a
batch, each by the seat to move there. An agent reads what it needs:

- ``obs`` / ``mask``: the flat observation (:mod:`spar_env.observe`) and the
  legal actions, all a neural agent uses;
- :func:`agents.knowledge.knowledge` of the situation: what each deciding seat
  may know, in structured form (its hand, the unseen cards, the voids revealed
  so far), for rule-based and search agents.

``state`` and ``history`` are there to build those views. They hold hidden
cards, so agents must not read them directly (tests check that the views do
not change when hidden cards do).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Protocol, runtime_checkable

import numpy as np

from spar_env.core import State, unpack
from spar_env.history import History
from spar_env.observe import encode
from spar_env.rules import Ruleset


@dataclass(frozen=True)
class Decision:
    """What an agent returns for a situation of ``G`` decisions."""

    actions: np.ndarray  # int64 [G] one legal action per decision
    probs: np.ndarray | None = None  # float32 [G, num_actions] where the agent has them


@dataclass(eq=False)
class Situation:
    """``G`` decisions: in game ``games[i]`` of the batch, seat ``seats[i]`` is to move."""

    state: State
    history: History
    games: np.ndarray  # int64 [G] indices into the batch
    seats: np.ndarray = field(init=False)  # int64 [G] seat to move in each

    def __post_init__(self) -> None:
        self.games = np.asarray(self.games, dtype=np.int64)
        self.seats = self.state.current_player[self.games]

    @property
    def rules(self) -> Ruleset:
        return self.state.tables.rules

    @property
    def size(self) -> int:
        return int(self.games.shape[0])

    @cached_property
    def legal(self) -> np.ndarray:
        """``uint64 [G]`` legal actions as bit sets."""
        return self.state.legal[self.games]

    @cached_property
    def mask(self) -> np.ndarray:
        """``bool [G, num_actions]`` legal actions."""
        return unpack(self.legal, self.rules.num_actions)

    @cached_property
    def obs(self) -> np.ndarray:
        """``uint8 [G, D]`` each deciding seat's observation."""
        return encode(self.state, self.seats, self.games)


@runtime_checkable
class Agent(Protocol):
    """Anything that decides a batch of situations."""

    def act(self, situation: Situation, rng: np.random.Generator) -> Decision: ...
