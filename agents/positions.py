"""Positions to measure and test agents on: :func:`random_situation` deals hands and plays
them at random to a random point of each game (any trick, any seat), the games still running.

The search benchmark (``benchmarks/search_speed.py``) and the tests of the worlds sampler
draw their decisions here, so a benchmark runs on the plain install.
"""

from __future__ import annotations

import numpy as np

from spar_env.core import random_member, reset, step
from spar_env.history import History
from spar_env.rules import Ruleset
from spar_env.situation import Situation


def random_situation(rules: Ruleset, batch: int, rng: np.random.Generator) -> Situation:
    """Hands dealt and played at random to a random point; the games still running."""
    state = reset(rules, batch, rng)
    history = History(state)
    stop = rng.integers(0, rules.players * (rules.hand_size + 1), batch)
    taken = np.zeros(batch, dtype=np.int64)
    for _ in range(rules.players * (rules.hand_size + 1) + 1):
        moving = ~state.terminated & (taken < stop)
        if not moving.any():
            break
        actions = random_member(state.legal, rng)
        history.record(state, actions, moving)
        step(state, actions, moving=moving)
        history.settle(state)
        taken += moving
    return Situation(state, history, np.flatnonzero(~state.terminated))
