"""The tournament's figures (:mod:`spar_train.tournament`, its docstring says what each means):
running sums over the batches' outcomes, then each agent's results and the head-to-head table,
with intervals over deals."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from spar_env.rules import Ruleset
from spar_train.tournament.hands import Outcome
from spar_train.tournament.seating import Seating
from spar_train.tournament.stats import mean_ci


@dataclass
class _Tally:
    """Running sums over batches: per-deal samples and per-agent counts."""

    num_agents: int
    payoff_by_deal: list[np.ndarray] = field(default_factory=list)  # [D, A] per batch
    net_by_deal: list[np.ndarray] = field(default_factory=list)  # [D, A, A] per batch
    hands: np.ndarray = field(init=False)
    wins: np.ndarray = field(init=False)
    points: np.ndarray = field(init=False)
    won_low: np.ndarray = field(init=False)
    had_low: np.ndarray = field(init=False)
    kept_low: np.ndarray = field(init=False)
    before_last: np.ndarray = field(init=False)

    def __post_init__(self) -> None:
        names = ("hands", "wins", "points", "won_low", "had_low", "kept_low", "before_last")
        for name in names:
            setattr(self, name, np.zeros(self.num_agents, dtype=np.int64))

    def add(self, outcome: Outcome, seated: Seating) -> None:
        a = self.num_agents
        rotations, seats = seated.rotations, seated.seats
        games = outcome.winner.shape[0]
        deals = games // rotations
        agent_at = np.tile(seated.table, (deals, 1))  # game d * R + r has rotation r
        deal = np.repeat(np.arange(deals), rotations)
        hands_per_deal = rotations * seats  # [A] seat-hands of each agent in one deal
        pay = np.bincount(
            (deal[:, None] * a + agent_at).ravel(),
            weights=outcome.payoffs.ravel(),
            minlength=deals * a,
        ).reshape(deals, a)
        self.payoff_by_deal.append(pay / hands_per_deal)
        winner_agent = agent_at[np.arange(games), outcome.winner]
        others = np.arange(agent_at.shape[1])[None, :] != outcome.winner[:, None]
        index = (deal[:, None] * a + winner_agent[:, None]) * a + agent_at
        paid = np.bincount(
            index[others],
            weights=np.broadcast_to(outcome.points[:, None], others.shape)[others],
            minlength=deals * a * a,
        ).reshape(deals, a, a)
        net = paid - paid.transpose(0, 2, 1)
        self.net_by_deal.append(net / (rotations * seats[:, None] * seats[None, :]))
        self.hands += deals * hands_per_deal
        self.wins += np.bincount(winner_agent, minlength=a)
        self.points += np.bincount(winner_agent, weights=outcome.points, minlength=a).astype(
            np.int64
        )
        self.won_low += np.bincount(winner_agent[outcome.won_low], minlength=a)
        self.had_low += np.bincount(agent_at[outcome.had_low], minlength=a)
        self.kept_low += np.bincount(agent_at[outcome.had_low & outcome.kept_low], minlength=a)
        took = outcome.before_last >= 0
        rows = np.flatnonzero(took)
        self.before_last += np.bincount(agent_at[rows, outcome.before_last[rows]], minlength=a)


@dataclass(frozen=True)
class AgentResult:
    """One agent's figures (module docstring)."""

    spec: str
    seats: int  # seats it holds at each table
    hands: int  # hands it played (deals x rotations x seats)
    mean_payoff: float
    ci95: float  # half-width of the 95% confidence interval of mean_payoff
    win_share: float
    points_per_win: float | None  # None if it never won
    low_card_wins: float | None  # None for a variant without scoring ranks
    low_card_kept: float | None  # None without scoring ranks, or never dealt one
    before_last_wins: float | None = None  # None for one-card hands

    def to_dict(self) -> dict[str, object]:
        """Plain data; an interval that one deal cannot give is ``None``."""
        half = _number(self.ci95)
        return {
            "spec": self.spec,
            "seats": self.seats,
            "hands": self.hands,
            "mean_payoff": self.mean_payoff,
            "ci95": None if half is None else [self.mean_payoff - half, self.mean_payoff + half],
            "ci95_halfwidth": half,
            "win_share": self.win_share,
            "points_per_win": self.points_per_win,
            "low_card_wins": self.low_card_wins,
            "low_card_kept": self.low_card_kept,
            "before_last_wins": self.before_last_wins,
        }


@dataclass(frozen=True)
class TournamentResult:
    rules: Ruleset
    lineup: tuple[str, ...]
    seed: int
    deals: int
    seating: Seating
    agents: tuple[AgentResult, ...]
    head_to_head: np.ndarray  # float64 [A, A] mean net stake from a seat of j to a seat of i
    head_to_head_ci95: np.ndarray  # float64 [A, A] half-widths
    payoff_by_deal: np.ndarray  # float64 [D, A] each agent's mean payoff per hand in each deal

    @property
    def games(self) -> int:
        """Games played: deals x rotations (one hand each)."""
        return self.deals * self.seating.rotations

    def to_dict(self) -> dict[str, object]:
        """Plain data for ``--json``: the same seed gives the same dict."""
        return {
            "variant": self.rules.variant,
            "players": self.rules.players,
            "options": self.rules.options(),
            "lineup": list(self.lineup),
            "seed": self.seed,
            "deals": self.deals,
            "rotations": self.seating.rotations,
            "games": self.games,
            "seating": self.seating.table.tolist(),
            "agents": [a.to_dict() for a in self.agents],
            "head_to_head": {
                "agents": list(self.seating.agents),
                "mean": self.head_to_head.tolist(),
                "ci95_halfwidth": [[_number(x) for x in row] for row in self.head_to_head_ci95],
            },
        }


def _number(x: float) -> float | None:
    """``x`` as a JSON-safe float, ``None`` for NaN."""
    return None if math.isnan(x) else float(x)


def summarise(
    lineup: Sequence[str],
    rules: Ruleset,
    deals: int,
    seed: int,
    seats: Seating,
    outcomes: Iterable[Outcome],
) -> TournamentResult:
    """The figures of a run from the outcomes of its batches, in batch order."""
    tally = _Tally(len(seats.agents))
    for outcome in outcomes:
        tally.add(outcome, seats)
    return _result(lineup, rules, deals, seed, seats, tally)


def _result(
    lineup: Sequence[str], rules: Ruleset, deals: int, seed: int, seats: Seating, tally: _Tally
) -> TournamentResult:
    payoff = np.concatenate(tally.payoff_by_deal)
    net = np.concatenate(tally.net_by_deal)
    scoring = bool(rules.rank_points)
    results = []
    for a, spec in enumerate(seats.agents):
        mean, half = mean_ci(payoff[:, a])
        wins, had = int(tally.wins[a]), int(tally.had_low[a])
        results.append(
            AgentResult(
                spec=spec,
                seats=int(seats.seats[a]),
                hands=int(tally.hands[a]),
                mean_payoff=mean,
                ci95=half,
                win_share=wins / int(tally.hands[a]),
                points_per_win=int(tally.points[a]) / wins if wins else None,
                low_card_wins=int(tally.won_low[a]) / int(tally.hands[a]) if scoring else None,
                low_card_kept=int(tally.kept_low[a]) / had if scoring and had else None,
                before_last_wins=(
                    int(tally.before_last[a]) / int(tally.hands[a])
                    if rules.hand_size >= 2
                    else None
                ),
            )
        )
    a = len(seats.agents)
    h2h = np.zeros((a, a))
    h2h_ci = np.zeros((a, a))
    for i in range(a):
        for j in range(a):
            if i != j:
                h2h[i, j], h2h_ci[i, j] = mean_ci(net[:, i, j])
    return TournamentResult(
        rules=rules,
        lineup=tuple(lineup),
        seed=seed,
        deals=deals,
        seating=seats,
        agents=tuple(results),
        head_to_head=h2h,
        head_to_head_ci95=h2h_ci,
        payoff_by_deal=payoff,
    )
