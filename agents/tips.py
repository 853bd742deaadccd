"""Agents that break (or overdo) one tip of the rule sources, and otherwise play like a base agent.

The sources give beginners tips: keep a small card for the last trick, win
the trick before the last, strip the others of your suit, play the high
cards first, and do not risk everything for the 6. A :class:`TipAgent`
plays exactly like its base agent except in the spots one tip is about,
where it does what the *deviation* says. Seated against copies of the base
agent on duplicate deals, its mean payoff is what following the base agent
there is worth against breaking the tip (:mod:`spar_train.study` measures it).

The *scoring cards* are the cards of the variant's scoring ranks (6 and 7
in Spar, 7 in Sipa and Jeu de Carte, 3 in Fapfap); ``rank=`` narrows them to
one rank. The *keeper* is the hand's scoring card worth most points (then
the lowest, then the first by card id). Where a deviation has several cards
to choose from it prefers cards that are not scoring cards, then the
highest. Trick ``H-1`` is the trick before the last.

===============  ================================================================  ======================
deviation        what the agent does instead of its base agent                     tip it tests
===============  ================================================================  ======================
``dump_low``     plays a legal scoring card (the keeper first) as soon as it has   keep a small card
                 one, while it holds two cards or more
``keep_low``     never plays a scoring card before the last trick while another    don't risk all for
                 legal card is there                                               the 6
``duck``         at trick H-1, following, when the base agent would take the       win the trick before
                 lead, plays a card that does not                                  the last
``strip``        leading a trick before H-1, leads a card of the keeper's suit     strip the suits
                 (not the keeper) when the base agent leads another
``no_strip``     leading a trick before H-1, never leads the keeper's suit while   strip the suits
                 it holds another
``high_first``   leading a trick before H-1, leads its highest card that is not    high cards first
                 a scoring card
``low_first``    leading a trick before H-1, leads its lowest card that is not a   high cards first
                 scoring card
===============  ================================================================  ======================

Exchange decisions (keep or exchange a weak hand) are the base agent's.
Forced moves stay forced: every override picks among the legal cards.
"""

from __future__ import annotations

import numpy as np

from spar_agents.base import Agent, Decision, Situation
from spar_agents.knowledge import knowledge, trick_view
from spar_env.core import tables_for
from spar_env.core.bits import popcount
from spar_env.rules import Ruleset

DEVIATIONS = ("dump_low", "keep_low", "duck", "strip", "no_strip", "high_first", "low_first")
LOW_CARD_DEVIATIONS = ("dump_low", "keep_low", "strip", "no_strip")  # need scoring ranks
EARLY_LEAD_DEVIATIONS = ("strip", "no_strip", "high_first", "low_first")  # lead before H-1

_ZERO = np.uint64(0)


class TipAgent:
    """``base``'s play, but with one ``deviation`` of the module docstring in its spots.

    Raises:
        ValueError: for an unknown deviation, a ``rank`` that is not a scoring
            rank of ``rules``, or a low-card deviation in a variant without
            scoring ranks.
    """

    def __init__(
        self, rules: Ruleset, base: Agent, deviation: str, rank: str | None = None
    ) -> None:
        if deviation not in DEVIATIONS:
            raise ValueError(
                f"unknown deviation {deviation!r}; choose one of {', '.join(DEVIATIONS)}"
            )
        scoring = rules.rank_points
        if deviation in LOW_CARD_DEVIATIONS and not scoring:
            raise ValueError(f"{deviation} needs scoring ranks; {rules.variant} has none")
        if rank is not None and rank not in scoring:
            raise ValueError(
                f"rank {rank!r} is not a scoring rank of {rules.variant} "
                f"(its scoring ranks: {', '.join(scoring) or 'none'})"
            )
        t = tables_for(rules)
        self.rules, self.base, self.deviation, self.rank = rules, base, deviation, rank
        self.num_cards = rules.num_card_ids
        self.strength = t.card_strength
        self.suit = t.card_suit
        self.suit_bits = t.suit_bits[:-1]
        self.bit = t.card_bit[: self.num_cards]
        self.points = t.card_points[: self.num_cards]
        self.card_bits = np.bitwise_or.reduce(self.bit)
        low = self.points > 0
        if rank is not None:
            low &= np.array([rules.card_rank(c) == rank for c in range(self.num_cards)])
        self.low_bits = np.bitwise_or.reduce(np.where(low, self.bit, _ZERO))

    def act(self, situation: Situation, rng: np.random.Generator) -> Decision:
        actions = np.asarray(self.base.act(situation, rng).actions, dtype=np.int64).copy()
        legal = situation.legal
        playing = (legal & ~self.card_bits) == 0  # not a keep-or-exchange decision
        if playing.any():
            rows = np.flatnonzero(playing)
            sub = Situation(situation.state, situation.history, situation.games[rows])
            spot, choice = self._override(sub, actions[rows])
            actions[rows[spot]] = choice[spot]
        return Decision(actions)

    # ----- the spots and the cards played there ----------------------------------------
    def _override(self, situation: Situation, chosen: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(spot bool [G], card int64 [G])``: where the deviation overrides, and with what."""
        legal = situation.legal
        hand = knowledge(situation).hand
        view = trick_view(situation)
        held = popcount(hand)
        before_last = self.rules.hand_size - 2  # 0-based index of trick H-1
        leading = view.led_suit < 0
        chosen_bit = self.bit[chosen]
        low = self.low_bits
        d = self.deviation
        if d == "dump_low":
            pool = legal & low
            spot = (held >= 2) & (pool != 0)
            return spot, self._pick(pool, self.points * 64 - self.strength)
        if d == "keep_low":
            pool = legal & ~low
            spot = (held >= 2) & ((chosen_bit & low) != 0) & (pool != 0)
            return spot, self._pick(pool, self.strength)
        if d == "duck":
            best = np.maximum(view.best_card, 0)
            led = self.suit_bits[np.maximum(view.led_suit, 0)]
            above = self.strength[None, :] > self.strength[best][:, None]  # [G, C]
            beats = led & np.bitwise_or.reduce(np.where(above, self.bit[None, :], _ZERO), axis=1)
            pool = legal & ~beats
            spot = (view.trick == before_last) & ~leading & ((chosen_bit & beats) != 0)
            return spot & (pool != 0), self._pick(pool, self.strength - 64 * (self.points > 0))
        early = leading & (view.trick < before_last)
        if d in ("high_first", "low_first"):
            pool = legal & ~low
            sign = 1 if d == "high_first" else -1
            return early & (pool != 0), self._pick(pool, sign * self.strength)
        keeper = self._pick(hand & low, self.points * 64 - self.strength)
        has_keeper = (hand & low) != 0
        keeper_suit = self.suit_bits[self.suit[keeper]]
        in_suit = (chosen_bit & keeper_suit) != 0
        if d == "strip":
            pool = legal & keeper_suit & ~self.bit[keeper]
            spot = early & has_keeper & ~in_suit & (pool != 0)
        else:  # no_strip
            pool = legal & ~keeper_suit
            spot = early & has_keeper & in_suit & (pool != 0)
        return spot, self._pick(pool, self.strength - 64 * (self.points > 0))

    def _pick(self, bits: np.ndarray, score: np.ndarray) -> np.ndarray:
        """The card of each bit set with the highest ``score`` (per card id); ties: lowest id."""
        members = (bits[:, None] & self.bit[None, :]) != 0  # [G, C]
        return np.where(members, score[None, :], np.iinfo(np.int64).min).argmax(axis=1)
