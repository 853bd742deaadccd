"""Baseline agents: ``random`` (any legal card), ``high`` and ``low`` (the highest or lowest).

``high`` and ``low`` rank cards by the variant's rank order; between equal
ranks of different suits they take the first suit (C, D, H, S). Asked whether
to exchange a weak hand, they keep it; ``random`` chooses either.
"""

from __future__ import annotations

import numpy as np

from spar_agents.base import Decision, Situation
from spar_env.core import random_member, tables_for
from spar_env.rules import Ruleset


class RandomAgent:
    """A uniformly random legal action; its probabilities are uniform over the legal ones."""

    def act(self, situation: Situation, rng: np.random.Generator) -> Decision:
        mask = situation.mask
        probs = mask / mask.sum(axis=1, keepdims=True)
        return Decision(random_member(situation.legal, rng), probs.astype(np.float32))


class RankAgent:
    """Always the highest (``prefer="high"``) or lowest (``"low"``) legal card."""

    def __init__(self, rules: Ruleset, prefer: str) -> None:
        if prefer not in ("high", "low"):
            raise ValueError(f"prefer must be 'high' or 'low'; got {prefer!r}")
        t = tables_for(rules)
        sign = 1 if prefer == "high" else -1
        key = np.full(rules.num_actions, -(10**6), dtype=np.int64)
        cards = np.arange(rules.num_card_ids)
        key[cards] = sign * t.card_strength * 8 + (7 - t.card_suit)
        if rules.weak_hand_exchange:
            key[rules.keep_action] = 10**6  # keep a weak hand
        self.key = key

    def act(self, situation: Situation, rng: np.random.Generator) -> Decision:
        scores = np.where(situation.mask, self.key, -(10**9))
        return Decision(scores.argmax(axis=1).astype(np.int64))
