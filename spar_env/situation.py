"""A batch of decisions: in each listed game, the seat to move, with what it may read.

A :class:`Situation` is what agents decide on (:mod:`spar_agents.base`) and what
the environments hand to agent opponents. ``obs`` and ``mask`` are what a
neural agent reads; ``state`` and ``history`` are there to build structured
views of what the deciding seat may know (:mod:`spar_agents.knowledge`). They
hold hidden cards, so agents must not read them directly.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from spar_env.core import State, unpack
from spar_env.history import History
from spar_env.observation.per_game import encode
from spar_env.rules import Ruleset


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
