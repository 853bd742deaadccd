"""The agent protocol: a batch of decisions in, one action per decision out.

A :class:`Situation` is ``G`` decisions taken at once, one per game of a
batch, each by the seat to move there. An agent reads what it needs:

- ``obs`` / ``mask``: the flat observation (:mod:`spar_env.observation.per_game`) and the
  legal actions, all a neural agent uses;
- :func:`spar_agents.knowledge.knowledge` of the situation: what each deciding seat
  may know, in structured form (its hand, the unseen cards, the voids revealed
  so far), for rule-based and search agents.

``state`` and ``history`` are there to build those views. They hold hidden
cards, so agents must not read them directly (tests check that the views do
not change when hidden cards do).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import numpy as np

from spar_env.situation import Situation

__all__ = ["Agent", "Decision", "Situation"]


@dataclass(frozen=True)
class Decision:
    """What an agent returns for a situation of ``G`` decisions."""

    actions: np.ndarray  # int64 [G] one legal action per decision
    probs: np.ndarray | None = None  # float32 [G, num_actions] where the agent has them


@runtime_checkable
class Agent(Protocol):
    """Anything that decides a batch of situations."""

    def act(self, situation: Situation, rng: np.random.Generator) -> Decision: ...
