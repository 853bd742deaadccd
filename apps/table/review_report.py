"""A session report: the mistakes of several reviewed hands, by kind, with what they cost.

After a session (``spar review`` over a file of several records, the web table's report of
the hands played), :func:`session_report` gathers the seat's mistakes of every
:class:`~spar_apps.table.review.HandReview` by kind, the kind of a mistake being that of its
first reason (:meth:`~spar_apps.table.review_reasons.Reason.category`: gave up the lead of
the last trick, lost the last trick, ...; ``unexplained`` where no reason tells the cards
apart), and :func:`report_texts` says it in one language, for instance "gave up the lead of
the last trick: 3 times, -1.90 of payoff", the costliest kind first, then the total.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from spar_apps.table.messages import Language, say
from spar_apps.table.review import DecisionReview, HandReview
from spar_apps.table.review_text import amount, scorers
from spar_env.rules import Ruleset
from spar_env.strict_json import finite

UNEXPLAINED = "unexplained"


@dataclass(frozen=True)
class KindTally:
    """One kind of mistake across the session."""

    kind: str  # a Reason.category, or UNEXPLAINED
    count: int
    cost: float  # the mistakes' gaps added up


@dataclass(frozen=True)
class SessionReport:
    """The mistakes of a session's reviewed hands."""

    rules: Ruleset
    hands: int
    decisions: int
    mistakes: int
    cost: float
    kinds: list[KindTally]  # the costliest first


def kind_of(decision: DecisionReview) -> str:
    """The kind of a mistake: its first reason's category (``unexplained`` without one)."""
    return decision.reasons[0].category(decision.best) if decision.reasons else UNEXPLAINED


def session_report(reviews: Sequence[HandReview]) -> SessionReport:
    """The session's mistakes by kind (``reviews``: one game's hands, of one seat).

    Raises:
        ValueError: for no reviews, or reviews of different games.
    """
    if not reviews:
        raise ValueError("a session report needs at least one reviewed hand")
    rules = reviews[0].rules
    if any(r.rules != rules for r in reviews):
        raise ValueError("a session report gathers the hands of one game")
    counts: dict[str, int] = {}
    costs: dict[str, float] = {}
    for review in reviews:
        for mistake in review.mistakes:
            kind = kind_of(mistake)
            counts[kind] = counts.get(kind, 0) + 1
            costs[kind] = costs.get(kind, 0.0) + mistake.gap
    kinds = [KindTally(k, counts[k], costs[k]) for k in counts]
    kinds.sort(key=lambda t: (t.kind == UNEXPLAINED, -t.cost, t.kind))
    return SessionReport(
        rules=rules,
        hands=len(reviews),
        decisions=sum(len(r.decisions) for r in reviews),
        mistakes=sum(t.count for t in kinds),
        cost=sum(t.cost for t in kinds),
        kinds=kinds,
    )


def report_texts(report: SessionReport, language: Language) -> dict[str, Any]:
    """The report as plain JSON, its texts in ``language``: a title, a summary line and one
    line a kind of mistake."""
    rules = report.rules
    mistakes = say("review.report.mistakes", language, n=report.mistakes)
    summary = say("review.report.summary", language,
                  hands=say("review.report.hands", language, n=report.hands),
                  mistakes=mistakes, decisions=report.decisions,
                  cost=amount(rules, report.cost, language))  # fmt: skip
    lines = [
        {
            "kind": t.kind,
            "count": t.count,
            "cost": t.cost,
            "text": say(
                "review.report.line",
                language,
                kind=say(f"review.kind.{t.kind}", language, scorers=scorers(rules, language)),
                times=say("review.report.times", language, n=t.count),
                cost=amount(rules, -t.cost, language),
            ),  # fmt: skip
        }
        for t in report.kinds
    ]
    return finite({
        "title": say("review.report.title", language),
        "summary": summary,
        "hands": report.hands,
        "decisions": report.decisions,
        "mistakes": report.mistakes,
        "cost": report.cost,
        "kinds": lines,
    })  # fmt: skip
