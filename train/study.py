"""The strategy study: the rule sources' tips for beginners, measured on many hands.

Two kinds of figure, each with a 95% confidence interval:

- **What a tip is worth** (:func:`tip_value`): one
  :class:`~spar_agents.tips.TipAgent` that breaks the tip (or overdoes it) sits
  with ``N - 1`` copies of its base agent, on the duplicate deals of
  ``spar bench`` (:func:`spar_train.tournament.run_tournament`: every deal once
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
(:func:`player_sweep`, :func:`variant_sweep`) for the notebook
``notebooks/strategy_study.ipynb``; the full-size figures come from::

    python -m spar_train.study --deals 20000 --json study.json
    python -m spar_train.study --deals 20000 --ruleset spar:4 --base onnx:checkpoints/spar4.onnx
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from spar_agents import make_agent
from spar_agents.tips import EARLY_LEAD_DEVIATIONS, LOW_CARD_DEVIATIONS, TipAgent
from spar_env import strict_json
from spar_env.rules import Ruleset, make_rules
from spar_train.tournament import draw_deals, play_batch, run_tournament
from spar_train.tournament.stats import mean_ci

if TYPE_CHECKING:
    from rich.table import Table

DEVIATOR = "deviator"  # the TipAgent's name in the lineup


@dataclass(frozen=True)
class Tip:
    """One tip of the sources and the deviation (:mod:`spar_agents.tips`) that tests it."""

    name: str
    advice: str  # the tip, in the sources' words (seed 001, translated)
    deviation: str
    rank: str | None = None  # only this scoring rank (dump_low, keep_low)


TIPS: tuple[Tip, ...] = (
    Tip("keep a 6", "keep a small card: a 6 at the last trick scores 3", "dump_low", "6"),
    Tip("keep a 7", "keep a small card (a 7 scores 2)", "dump_low", "7"),
    Tip("keep a low card", "keep a small card; don't play the 6 too early", "dump_low"),
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


PLAYER_COUNTS = (2, 3, 4, 5, 6, 7)  # spar's range
VARIANTS = ("spar", "spar_classic", "essilfy", "jeu_de_carte", "sipa", "fapfap", "agram")
VARIANT_PLAYERS = 4


def player_sweep(counts: Iterable[int] = PLAYER_COUNTS, variant: str = "spar") -> list[Ruleset]:
    """``variant`` at each player count."""
    return [make_rules(variant, players=n) for n in counts]


def variant_sweep(
    variants: Iterable[str] = VARIANTS, players: int = VARIANT_PLAYERS
) -> list[Ruleset]:
    """Each variant at ``players`` seats."""
    return [make_rules(v, players=players) for v in variants]


def to_dict(tips: list[TipRow], rates: dict[str, HandRates]) -> dict[str, object]:
    """The figures as plain data (``--json``)."""

    def est(e: Estimate | None) -> dict[str, float] | None:
        return None if e is None else {"mean": e.mean, "ci95": e.ci95, "samples": e.samples}

    return {
        "tips": [
            {"ruleset": r.label, "tip": r.tip.name, "deviation": r.tip.deviation,
             "rank": r.tip.rank, "value": est(r.value)}
            for r in tips
        ],
        "hand_rates": {
            k: {"before_last_takes_hand": est(v.before_last_takes_hand),
                "won_with_scoring_card": est(v.won_with_scoring_card), "fair_share": v.fair_share}
            for k, v in rates.items()
        },
    }  # fmt: skip


def tip_grid(rows: list[TipRow], title: str) -> Table:
    """A rich table of :func:`tip_table`'s rows: a row per tip, a column per ruleset."""
    from rich.table import Table

    labels = list(dict.fromkeys(r.label for r in rows))
    table = Table(title=title)
    table.add_column("tip (deviation)")
    for name in labels:
        table.add_column(name.replace(" players", "p"), justify="right")
    for tip in dict.fromkeys(r.tip for r in rows):
        value = {r.label: r.value for r in rows if r.tip == tip}
        cells = [str(value[name]) if value[name] is not None else "n/a" for name in labels]
        table.add_row(f"{tip.name} ({tip.deviation}{'' if tip.rank is None else ' ' + tip.rank})",
                      *cells)  # fmt: skip
    return table


def rate_grid(rates: dict[str, HandRates], title: str) -> Table:
    """A rich table of :func:`rate_table`: a row per ruleset."""
    from rich.table import Table

    table = Table(title=title)
    for name in ("ruleset", "trick H-1 winner takes the hand", "1/N", "won with a scoring card"):
        table.add_column(name, justify="right")
    for key, r in rates.items():
        low = r.won_with_scoring_card
        table.add_row(key, r.before_last_takes_hand.percent(), f"{100 * r.fair_share:.1f}%",
                      low.percent() if low else "n/a")  # fmt: skip
    return table


def main(argv: list[str] | None = None) -> None:
    """``python -m spar_train.study --deals 20000``: every tip and rate, by player count and variant."""
    import argparse

    from rich.console import Console
    from rich.progress import Progress

    from spar_env.atomic import atomic_output

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--deals", type=int, default=2000, help="deals per figure")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--base", default="heuristic", help="the agent the tips are measured on")
    parser.add_argument("--json", type=Path, help="write the figures to this file")
    parser.add_argument(
        "--ruleset",
        action="append",
        metavar="VARIANT:PLAYERS",
        help="measure only these rulesets (repeatable), e.g. spar:4 for the shipped bot's game",
    )
    args = parser.parse_args(argv)
    if args.ruleset:
        sweeps = {"rulesets": [_ruleset(text) for text in args.ruleset]}
    else:
        sweeps = {"player counts": player_sweep(), "variants": variant_sweep()}
    console = Console(width=170)
    tips: list[TipRow] = []
    rates: dict[str, HandRates] = {}
    with Progress(console=console, transient=True) as bar:
        task = bar.add_task("tips", total=sum(map(len, sweeps.values())) * len(TIPS))
        for name, rulesets in sweeps.items():
            rows = tip_table(
                rulesets, TIPS, args.deals, args.seed, args.base,
                progress=lambda what: bar.update(task, advance=1, description=what),
            )  # fmt: skip
            console.print(
                tip_grid(
                    rows,
                    f"{name}: the deviation's payoff per hand against "
                    f"{args.base} ({args.deals:,} deals, seed {args.seed})",
                )
            )
            tips += rows
            here = rate_table(rulesets, args.deals, args.seed, args.base)
            console.print(rate_grid(here, f"{name}: hands with {args.base} in every seat"))
            rates.update(here)
    if args.json is not None:
        with atomic_output(args.json) as f:
            strict_json.dump(to_dict(tips, rates), f, indent=1)


def _ruleset(text: str) -> Ruleset:
    """``"spar:4"`` -> 4-player spar."""
    variant, _, players = text.partition(":")
    if not players.isdecimal():
        raise SystemExit(f"--ruleset {text!r}: write VARIANT:PLAYERS, e.g. spar:4")
    return make_rules(variant, players=int(players))


if __name__ == "__main__":
    main()
