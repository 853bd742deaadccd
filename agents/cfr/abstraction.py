"""An information abstraction for sampled CFR on full-size games: a decision and a card as one row.

Full Spar has far too many information sets to list, so the sampled solver
(:mod:`spar_agents.cfr.mccfr`) keys its regrets on a few public-plus-own features
instead. Each legal card of a decision gets one **row** of the solver's
tables, a mixed-radix number of

- the **decision**: the trick number, the seat's place in the trick, the
  scoring class of the card winning the trick so far (none when leading), and
  how many cards of each scoring class (a 6, a 7 in Spar) and how many sure
  winners the seat holds (capped at 2);
- the **card**: its scoring class, how many unseen cards of its suit rank
  above it (0, 1, 2+), how many cards of its suit the seat holds (1, 2, 3+),
  and whether it takes the trick for now: it beats the card winning so far,
  or, on a lead, every seat still to play is known to lack its suit.

- the **advice**: how the card ranks among the legal ones by the value of
  the best plan left after it, as the rule-based expert computes it
  (:meth:`spar_agents.heuristic.HeuristicAgent.plan_values`): first, second, or
  lower; and how far its value falls short of the best card's (0, below
  0.02, 0.1 or 0.3 points, or more).

A "sure winner" is a card with no unseen card above it in its suit. The
advice gives the solver the expert's reading of the odds; the solver learns
where to follow it and where not. Cards of one decision with the same
features share a row; the policy splits a row's probability evenly between
them. Every feature is read through :func:`spar_agents.knowledge.knowledge`,
:func:`spar_agents.knowledge.trick_view` and the expert (which reads only those),
so a row depends only on what the deciding seat may know.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np

from spar_agents.base import Situation
from spar_agents.heuristic import HeuristicAgent
from spar_agents.knowledge import Knowledge, TrickView, knowledge, trick_view
from spar_env.core import tables_for
from spar_env.core.bits import lowest_bit_index, popcount
from spar_env.rules import Ruleset

VERSION = 1  # bump when the features change: a saved table is tied to them
GAPS = np.array([0.02, 0.1, 0.3])  # bins of a card's shortfall from the expert's best card
ADVICE = 3 * (GAPS.shape[0] + 1)  # advice values: rank (first, second, lower) x shortfall bin


@dataclass(frozen=True)
class CardAbstraction:
    """The row layout for one ruleset: sizes of each feature, and the card tables they use."""

    rules: Ruleset
    point_class: np.ndarray  # int64 [num_cards + 1] scoring class of each card (0: none); [-1] = 0
    higher: np.ndarray  # uint64 [num_cards] cards of the same suit that rank higher
    classes: int  # scoring classes, "none" included
    expert: HeuristicAgent

    @property
    def decision_radix(self) -> tuple[int, ...]:
        r = self.rules
        return (r.hand_size, r.players, self.classes + 1) + (3,) * self.classes

    @property
    def card_radix(self) -> tuple[int, ...]:
        return (self.classes, 3, 3, 2, ADVICE)

    @property
    def num_rows(self) -> int:
        return int(np.prod(self.decision_radix + self.card_radix))

    def rows(self, situation: Situation) -> tuple[np.ndarray, np.ndarray]:
        """The legal cards of each decision and their rows.

        Returns:
            ``(cards, rows)``, both ``int64 [G, hand_size]``: the legal cards in
            ascending id order, then -1 in the unused slots. A forced move (one
            legal card) has no row: -1.
        """
        if situation.state.phase[situation.games].min(initial=1) == 0:
            raise ValueError("the card abstraction has no rows for the weak-hand exchange")
        # In the play phase the legal actions are cards.
        cards = _cards_of(situation.legal, situation.rules.hand_size)
        rows = np.full(cards.shape, -1, dtype=np.int64)
        choice = cards[:, 1] >= 0 if cards.shape[1] > 1 else np.zeros(cards.shape[0], bool)
        if choice.any():
            sub = Situation(situation.state, situation.history, situation.games[choice])
            rows[choice] = self._rows(sub, cards[choice])
        return cards, rows

    def _rows(self, situation: Situation, cards: np.ndarray) -> np.ndarray:
        """The rows of ``cards`` (``int64 [G, H]``, -1 unused) in decisions with a choice."""
        t = tables_for(situation.rules)
        k, trick = knowledge(situation), trick_view(situation)
        g, h = cards.shape
        valid = cards >= 0
        c = np.maximum(cards, 0)

        held = _cards_of(k.hand, h)
        held_class = np.where(held >= 0, self.point_class[held], -1)
        unbeaten = popcount(k.unseen[:, None] & self.higher[np.maximum(held, 0)]) == 0
        sure = (unbeaten & (held >= 0)).sum(axis=1)
        in_class = [(held_class == q).sum(axis=1) for q in range(1, self.classes)]
        best_class = np.where(trick.best_card >= 0, self.point_class[trick.best_card] + 1, 0)
        decision = [trick.trick, situation.state.pos[situation.games], best_class]
        decision += [np.minimum(n, 2) for n in in_class] + [np.minimum(sure, 2)]

        suit = t.card_suit[c]
        above = np.minimum(popcount(k.unseen[:, None] & self.higher[c]), 2)
        length = np.minimum(popcount(k.hand[:, None] & t.suit_bits[suit]), 3) - 1
        beats = (trick.best_card[:, None] >= 0) & (
            (suit == trick.led_suit[:, None])
            & (t.card_strength[c] > t.card_strength[np.maximum(trick.best_card, 0)][:, None])
        )
        later = trick.to_play  # [G, N] seats still to play after the decider
        void = (k.voids[:, None, :] >> suit[:, :, None]) & 1
        all_void = np.all(~later[:, None, :] | (void == 1), axis=2)
        takes = np.where(trick.best_card[:, None] >= 0, beats, all_void)
        card = [
            self.point_class[c],
            above,
            length,
            takes.astype(np.int64),
            self._advice(situation, cards, k, trick),
        ]

        row = np.zeros((g, h), dtype=np.int64)
        for value, radix in zip(
            [np.broadcast_to(v[:, None], (g, h)) for v in decision] + card,
            self.decision_radix + self.card_radix,
            strict=True,
        ):
            row = row * radix + np.minimum(value, radix - 1)
        return np.where(valid, row, -1)

    def _advice(
        self, situation: Situation, cards: np.ndarray, k: Knowledge, trick: TrickView
    ) -> np.ndarray:
        """``int64 [G, H]`` the advice feature of each legal card (module docstring)."""
        held, value = self.expert.plan_values(situation, k, trick)
        match = (cards[:, :, None] == held[:, None, :]) & (cards[:, :, None] >= 0)  # [G, H, K]
        v = np.where(match, value[:, None, :], -np.inf).max(axis=2)  # -inf: an unused slot
        rank = np.minimum((v[:, None, :] > v[:, :, None]).sum(axis=2), 2)
        gap = v.max(axis=1, keepdims=True) - np.where(np.isfinite(v), v, -1e9)
        return rank * (GAPS.shape[0] + 1) + np.searchsorted(GAPS, gap)


def _cards_of(bits: np.ndarray, size: int) -> np.ndarray:
    """``int64 [G, size]`` the cards of each bit set in ascending id order, -1 past the last."""
    out = np.full((bits.shape[0], size), -1, dtype=np.int64)
    rest = bits.copy()
    for j in range(size):
        has = rest != 0
        out[has, j] = lowest_bit_index(rest[has])
        rest &= rest - has.astype(np.uint64)
    return out


@cache
def card_abstraction(rules: Ruleset) -> CardAbstraction:
    """The abstraction of ``rules`` (cached: its tables are built once per ruleset)."""
    if rules.weak_hand_exchange:
        raise ValueError(
            "sampled CFR does not model the weak-hand exchange yet; "
            "play with weak_hand_exchange=false"
        )
    t = tables_for(rules)
    points = t.card_points[:-1]
    levels = np.unique(points[points > 0])
    point_class = np.zeros(t.num_cards + 1, dtype=np.int64)
    point_class[:-1] = np.where(points > 0, np.searchsorted(levels, points) + 1, 0)
    same_suit = t.card_suit[:, None] == t.card_suit[None, :]
    above = same_suit & (t.card_strength[None, :] > t.card_strength[:, None])
    weights = np.left_shift(np.uint64(1), np.arange(t.num_cards, dtype=np.uint64))
    higher = np.bitwise_or.reduce(np.where(above, weights[None, :], np.uint64(0)), axis=1)
    return CardAbstraction(
        rules=rules,
        point_class=point_class,
        higher=higher,
        classes=int(levels.shape[0]) + 1,
        expert=HeuristicAgent(rules),
    )


class InfosetRows:
    """No abstraction: one row per (exact information set, card) of a small ruleset's tree.

    With it, sampled CFR solves the same game as the exact solvers, which is
    how the tests check it (:func:`spar_agents.cfr.build.build_tree` must accept
    the ruleset).
    """

    def __init__(self, rules: Ruleset) -> None:
        from spar_agents.cfr.build import build_tree

        self.rules = rules
        self.tree = build_tree(rules)
        self.keys = self.tree.infoset_keys
        self.num_rows = int(self.keys.shape[0]) * rules.num_actions

    def rows(self, situation: Situation) -> tuple[np.ndarray, np.ndarray]:
        """Like :meth:`CardAbstraction.rows`: the legal cards and their rows."""
        from spar_agents.cfr.build import infoset_keys

        st, g = situation.state, situation.games
        keys = infoset_keys(situation.seats, st.dealer[g], st.dealt[g], situation.history.cards[g])
        index = np.searchsorted(self.keys, keys)
        if np.any(self.keys[np.minimum(index, self.keys.shape[0] - 1)] != keys):
            raise ValueError("a decision outside the tree: the rules differ from the tree's")
        cards = _cards_of(situation.legal, situation.rules.hand_size)
        rows = index[:, None] * situation.rules.num_actions + cards
        return cards, np.where(cards >= 0, rows, -1)
