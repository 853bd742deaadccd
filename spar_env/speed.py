"""Throughput of the batch core under random legal play: the figures behind ``spar speed``.

Every game is played with uniformly random legal actions; a game whose hand
is over is dealt a new one at once (dealing, scoring and auto-reset are all
inside the timed loop).
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass

import numpy as np

from spar_env.core import random_member, reset, start_sessions, step
from spar_env.core.tables import seats_in
from spar_env.rules import Ruleset


@dataclass(frozen=True)
class SpeedResult:
    variant: str
    players: int
    batch: int
    seconds: float
    card_plays: int
    hands: int

    @property
    def plays_per_second(self) -> float:
        return self.card_plays / self.seconds

    @property
    def hands_per_second(self) -> float:
        return self.hands / self.seconds

    def to_dict(self) -> dict[str, float | int | str]:
        return {
            **asdict(self),
            "plays_per_second": self.plays_per_second,
            "hands_per_second": self.hands_per_second,
        }


def measure_core(rules: Ruleset, batch: int, seconds: float = 2.0, seed: int = 0) -> SpeedResult:
    """Play random legal hands in a batch of ``batch`` games for about ``seconds``."""
    rng = np.random.default_rng(seed)
    state = reset(rules, batch, rng)
    plays = hands = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        for _ in range(64):  # look at the clock every few steps, not every step
            step(state, random_member(state.legal, rng), check=False)
            over = state.terminated
            if over.any():
                done = np.flatnonzero(over)
                hands += done.size
                plays += int(seats_in(state.active[done]).sum()) * rules.hand_size
                start_sessions(state, slice(None) if done.size == batch else done, rng)
        now = time.perf_counter()
        if now >= deadline:
            # Cards already played in the hands still running count too.
            plays += int((state.trick * seats_in(state.active) + state.pos).sum())
            return SpeedResult(rules.variant, rules.players, batch, now - start, plays, hands)
