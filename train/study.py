"""The strategy study: the rule sources' tips for beginners, measured on many hands.

Two kinds of figure, each with a 95% confidence interval:

- **What a tip is worth** (:func:`tip_value`): one
  :class:`~agents.tips.TipAgent` that breaks the tip (or overdoes it) sits
  with ``N - 1`` copies of its base agent, on the duplicate deals of
  ``spar bench`` (:func:`train.tournament.run_tournament`: every deal once
  per rotation of the seats). Its mean payoff per hand is the tip's worth to
  the base agent, with the sign flipped: a deviation that loses 0.2 stakes a
  hand means that the tip, as the base agent plays it, is worth 0.2. The
  interval is over deals.
- **How hands are won** (:func:`hand_rates`): one agent in every seat
  plays independent deals; the figures are shares of hands, with intervals
  over hands: how often the winner of trick ``H-1`` (who leads the last)
  takes the hand, and how often the last trick is won with a scoring card.

:data:`TIPS` names the tips, the deviation that tests each, and the
sources' words. :func:`tip_table` and :func:`rate_table` sweep rulesets
(player counts, variants) for the notebook ``notebooks/strategy_study.ipynb``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np

from agents import make_agent
from agents.tips import EARLY_LEAD_DEVIATIONS, LOW_CARD_DEVIATIONS, TipAgent
from spar_env.rules import Ruleset
from train.stats import mean_ci
from train.tournament import draw_deals, play_batch, run_tournament

DEVIATOR = "deviator"  # the TipAgent's name in the lineup


@dataclass(frozen=True)
class Tip:
    """One tip of the sources and the deviation (:mod:`agents.tips`) that tests it."""

    name: str
    advice: str  # the tip, in the sources' words (seed 001, translated)
    deviation: str
    rank: str | None = None  # only this scoring rank (dump_low, keep_low)


TIPS: tuple[Tip, ...] = (
    Tip("keep a 6", "keep a small card: a 6 at the last trick scores 3", "dump_low", "6"),
    Tip("keep a 7", "keep a small card (a 7 scores 2)", "dump_low", "7"),
    Tip("keep a 6 or 7", "keep a small card; don't play the 6 too early", "dump_low"),
    Tip("win trick H-1", "win the fourth trick: you then lead the last", "duck"),
    Tip("strip the suit", "strip the suits: if nobody has your suit, even a 6 wins", "no_strip"),
    Tip("strip harder", "strip the suits (led every time it can)", "strip"),
    Tip("high cards first", "the high cards first: aces and kings give you the lead", "low_first"),
    Tip("a point beats nothing", "a point is better than nothing: don't risk all for the 6",
        "keep_low"),
)  # fmt: skip


@dataclass(frozen=True)
class Estimate:
    """A mean with the half-width of its 95% confidence interval, over ``samples``."""

    mean: float
    ci95: float
    samples: int

    @property
    def low(self) -> float:
        return self.mean - self.ci95

    @property
    def high(self) -> float:
        return self.mean + self.ci95

    def __str__(self) -> str:
        return f"{self.mean:+.3f} ± {self.ci95:.3f}"

    def percent(self) -> str:
        """As a share: ``"62.1% ± 0.4%"``."""
        return f"{100 * self.mean:.1f}% ± {100 * self.ci95:.1f}%"


def estimate(samples: np.ndarray) -> Estimate:
    """The mean of independent samples with its 95% interval (Student's t)."""
    mean, half = mean_ci(samples)
    return Estimate(mean, half, int(np.asarray(samples).size))


def applies(tip: Tip, rules: Ruleset) -> bool:
    """Whether ``rules`` has the spots ``tip`` is about (scoring ranks, the rank, trick H-1)."""
    if tip.deviation in LOW_CARD_DEVIATIONS and not rules.rank_points:
        return False
    if tip.rank is not None and tip.rank not in rules.rank_points:
        return False
    early = tip.deviation in EARLY_LEAD_DEVIATIONS  # they lead a trick before H-1
    return rules.hand_size >= (3 if early else 2)


def tip_value(
    rules: Ruleset, tip: Tip, deals: int, seed: int = 0, base: str = "heuristic"
) -> Estimate:
    """Mean payoff per hand of ``tip``'s deviation against ``N - 1`` copies of ``base``.

    Negative: breaking the tip costs that much a hand (the tip is worth it).

    Raises:
        ValueError: if ``tip`` does not apply to ``rules`` (:func:`applies`).
    """
    if not applies(tip, rules):
        raise ValueError(f"the tip {tip.name!r} has no spots in {rules.variant}")
    deviator = TipAgent(rules, make_agent(base, rules), tip.deviation, tip.rank)
    lineup = [DEVIATOR] + [base] * (rules.players - 1)
    result = run_tournament(lineup, rules, deals, seed, agents={DEVIATOR: deviator})
    agent = result.agents[0]
    return Estimate(agent.mean_payoff, agent.ci95, deals)


@dataclass(frozen=True)
class HandRates:
    """Shares of hands (:func:`hand_rates`)."""

    before_last_takes_hand: Estimate  # the winner of trick H-1 wins the hand
    won_with_scoring_card: Estimate | None  # the last trick fell to a scoring card (None: none)
    fair_share: float  # 1/N: the share of a seat picked at random


def hand_rates(rules: Ruleset, deals: int, seed: int = 0, agent: str = "heuristic") -> HandRates:
    """How the hands of ``deals`` independent deals are won when ``agent`` holds every seat.

    Raises:
        ValueError: for one-card hands (no trick before the last) or ``deals < 2``.
    """
    if rules.hand_size < 2:
        raise ValueError("a hand of one card has no trick before the last")
    if deals < 2:
        raise ValueError(f"an interval needs at least 2 deals; got {deals}")
    player = make_agent(agent, rules)
    decks, dealers = draw_deals(rules, seed, 0, deals)
    seats = np.zeros((deals, rules.players), dtype=np.int64)
    outcome = play_batch(rules, [player], seats, decks, dealers, np.random.default_rng([seed, 1]))
    return HandRates(
        before_last_takes_hand=estimate(outcome.winner == outcome.before_last),
        won_with_scoring_card=estimate(outcome.won_low) if rules.rank_points else None,
        fair_share=1.0 / rules.players,
    )


@dataclass(frozen=True)
class TipRow:
    """One tip in one ruleset: :func:`tip_value`, or ``None`` where it does not apply."""

    label: str  # the ruleset, e.g. "spar, 4 players"
    tip: Tip
    value: Estimate | None


def label(rules: Ruleset) -> str:
    """``"spar, 4 players"``."""
    return f"{rules.variant}, {rules.players} players"


def tip_table(
    rulesets: Iterable[Ruleset],
    tips: Iterable[Tip] = TIPS,
    deals: int = 2000,
    seed: int = 0,
    base: str = "heuristic",
    progress: Callable[[str], None] | None = None,
) -> list[TipRow]:
    """:func:`tip_value` of every tip in every ruleset (``None`` where a tip does not apply)."""
    rows = []
    tips = tuple(tips)
    for rules in rulesets:
        for tip in tips:
            if progress is not None:
                progress(f"{label(rules)}: {tip.name}")
            value = tip_value(rules, tip, deals, seed, base) if applies(tip, rules) else None
            rows.append(TipRow(label(rules), tip, value))
    return rows


def rate_table(
    rulesets: Iterable[Ruleset], deals: int = 2000, seed: int = 0, agent: str = "heuristic"
) -> dict[str, HandRates]:
    """:func:`hand_rates` of each ruleset, by :func:`label`."""
    return {label(rules): hand_rates(rules, deals, seed, agent) for rules in rulesets}
