"""Ratings of a league's entrants from their pair matches, with intervals, and the schedule
that narrows the widest interval first.

**The measure.** A pair match seats two entrants ``A B`` round the table (as ``spar bench
A B`` does) and plays each deal in every rotation. Its per-deal sample is the *margin*:
A's mean payoff per hand minus B's. Deals are the independent unit, as in the bench.

**The model.** Entrant ``i`` has a rating ``r_i`` and the expected margin of ``i`` over ``j``
is ``r_i - r_j`` (the margin-of-victory model of least-squares sports ratings). The ratings
are the weighted least-squares fit to every pair's mean margin, each weighted by the
inverse variance of that mean, with the ratings summing to zero (the league's average
entrant is 0). Their covariance is the pseudo-inverse of the weighted graph Laplacian; when
the pairs disagree with any additive ratings more than their noise allows (a rock-paper-
scissors cycle), the covariance is scaled by the fit's chi-square per degree of freedom, so
the intervals widen rather than overclaim. Ratings are shown in stakes (or points) per 100
hands: a rating 30 above another means winning 0.3 per hand more in their matches.

Why not Elo, TrueSkill or OpenSkill: they see who won a game, not by how much (a Spar hand
won with a 6 pays three times one won with an ace), and treat every game as independent,
where duplicate deals and rotations make the games of one deal share their cards. Here
every figure is an average over deals, so a 95% interval means what the bench's does.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import connected_components
from scipy.special import ndtri

from spar_train.tournament.stats import t_quantile

Z95 = float(ndtri(0.975))  # the normal quantile of a two-sided 95% interval
MIN_VARIANCE = 1e-12  # a pair whose margin never varies still gets a finite weight


@dataclass(frozen=True)
class PairResult:
    """What one pair match adds: entrant ``a`` against entrant ``b`` over ``deals`` deals."""

    a: int
    b: int
    deals: int
    margin_sum: float  # sum over deals of (a's mean payoff per hand - b's)
    margin_sumsq: float  # sum over deals of the margin squared
    payoff_sum: tuple[float, float]  # sums over deals of a's and b's mean payoff per hand


class PairTotals:
    """Every pair's pooled margin: deals, sums and sums of squares, as ``[K, K]`` arrays whose
    ``[i, j]`` entry is ``i``'s margin over ``j`` (the sum is antisymmetric)."""

    def __init__(self, entrants: int, results: Iterable[PairResult] = ()) -> None:
        self.entrants = entrants
        self.deals = np.zeros((entrants, entrants), dtype=np.int64)
        self.margin_sum = np.zeros((entrants, entrants))
        self.margin_sumsq = np.zeros((entrants, entrants))
        self.payoff_sum = np.zeros((entrants, entrants))  # [i, j]: i's payoff against j
        for result in results:
            self.add(result)

    def add(self, r: PairResult) -> None:
        for i, j, sign, pay in (
            (r.a, r.b, 1.0, r.payoff_sum[0]),
            (r.b, r.a, -1.0, r.payoff_sum[1]),
        ):
            self.deals[i, j] += r.deals
            self.margin_sum[i, j] += sign * r.margin_sum
            self.margin_sumsq[i, j] += r.margin_sumsq
            self.payoff_sum[i, j] += pay

    def mean(self) -> np.ndarray:
        """``[K, K]`` mean margin of row over column per hand (NaN where never played)."""
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(self.deals > 0, self.margin_sum / self.deals, np.nan)

    def deal_variance(self) -> np.ndarray:
        """``[K, K]`` sample variance of one deal's margin (NaN below two deals)."""
        n = self.deals.astype(np.float64)
        with np.errstate(invalid="ignore", divide="ignore"):
            var = (self.margin_sumsq - self.margin_sum**2 / n) / (n - 1)
        return np.where(self.deals >= 2, np.maximum(var, MIN_VARIANCE), np.nan)

    def mean_halfwidth(self) -> np.ndarray:
        """``[K, K]`` half-width of the 95% interval of :meth:`mean` (Student's t over deals)."""
        out = np.full(self.deals.shape, np.nan)
        var = self.deal_variance()
        for i, j in zip(*np.nonzero(self.deals >= 2), strict=True):
            n = int(self.deals[i, j])
            out[i, j] = t_quantile(0.95, n - 1) * math.sqrt(var[i, j] / n)
        return out

    def payoff_mean(self) -> np.ndarray:
        """``[K, K]`` row entrant's mean payoff per hand in its matches against the column."""
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(self.deals > 0, self.payoff_sum / self.deals, np.nan)


@dataclass(frozen=True)
class Ratings:
    """The fit: ratings and 95% half-widths per entrant (NaN for one not rated yet)."""

    rating: np.ndarray  # float64 [K], payoff per hand relative to the league's average
    halfwidth: np.ndarray  # float64 [K]
    dispersion: float  # chi-square per degree of freedom of the fit, at least 1 (module docstring)
    rated: tuple[int, ...]  # the entrants rated together (one connected group of pairs)


def fit(totals: PairTotals, entrants: Sequence[int]) -> Ratings:
    """Weighted least-squares ratings of ``entrants`` (module docstring).

    Only pairs of two deals or more count. Entrants linked to each other by such pairs are
    rated together; where the pairs leave several unlinked groups, the largest (the first
    listed, on a tie) is rated and the others are not, since ratings of groups that never
    met are not comparable.
    """
    k = totals.entrants
    laplacian, rhs, edges = _normal_equations(totals, entrants)
    rating = np.full(k, np.nan)
    half = np.full(k, np.nan)
    group = _largest_group(k, entrants, edges)
    if len(group) < 2:
        return Ratings(rating, half, 1.0, tuple(group))
    idx = np.array(group)
    cov = np.linalg.pinv(laplacian[np.ix_(idx, idx)])
    r = cov @ rhs[idx]
    rating[idx] = r
    at = {e: n for n, e in enumerate(group)}
    mean, var = totals.mean(), totals.deal_variance()
    inside = [(i, j) for i, j in edges if i in at and j in at]
    chi2 = sum(
        (mean[i, j] - (r[at[i]] - r[at[j]])) ** 2 / (var[i, j] / totals.deals[i, j])
        for i, j in inside
    )
    dof = len(inside) - (len(group) - 1)
    dispersion = max(1.0, chi2 / dof) if dof > 0 else 1.0
    half[idx] = Z95 * np.sqrt(np.clip(np.diag(cov), 0.0, None) * dispersion)
    return Ratings(rating, half, float(dispersion), tuple(group))


def plan(
    totals: PairTotals, entrants: Sequence[int], batches: int, deals: int
) -> list[tuple[int, int]]:
    """The next ``batches`` pair matches of ``deals`` deals each among ``entrants``.

    First every pair not yet played (two deals or more), in entrant order; then, one by one,
    the pair whose match would most narrow the widest rating interval, judged by each pair's
    variance so far (each choice counts the matches chosen before it). The choice depends on
    the totals alone, so a league's schedule is the same wherever its matches are played.
    """
    active = sorted(entrants)
    if len(active) < 2:
        return []
    pairs = [(i, j) for n, i in enumerate(active) for j in active[n + 1 :]]
    laplacian, _, _ = _normal_equations(totals, active)
    var = totals.deal_variance()
    known = var[np.ix_(active, active)]
    guess = float(np.nanmedian(known)) if np.isfinite(known).any() else 1.0
    var = np.where(np.isnan(var), guess, var)  # an unplayed pair: the typical pair's variance
    idx = np.array(active)
    chosen: list[tuple[int, int]] = []
    for _ in range(batches):
        fresh = [p for p in pairs if totals.deals[p] < 2 and p not in chosen]
        if fresh:
            pair = fresh[0]
        else:
            pair = min(pairs, key=lambda p: _widest_after(laplacian, idx, p, deals / float(var[p])))
        chosen.append(pair)
        _add_edge(laplacian, *pair, deals / float(var[pair]))
    return chosen


def _normal_equations(
    totals: PairTotals, entrants: Sequence[int]
) -> tuple[np.ndarray, np.ndarray, list[tuple[int, int]]]:
    """The weighted Laplacian, the right-hand side and the pairs (``i < j``) that count."""
    k = totals.entrants
    laplacian, rhs = np.zeros((k, k)), np.zeros(k)
    mean, var = totals.mean(), totals.deal_variance()
    members = sorted(entrants)
    edges = [(i, j) for n, i in enumerate(members) for j in members[n + 1 :]
             if totals.deals[i, j] >= 2]  # fmt: skip
    for i, j in edges:
        w = totals.deals[i, j] / var[i, j]
        _add_edge(laplacian, i, j, w)
        rhs[i] += w * mean[i, j]
        rhs[j] -= w * mean[i, j]
    return laplacian, rhs, edges


def _add_edge(laplacian: np.ndarray, i: int, j: int, weight: float) -> None:
    laplacian[i, i] += weight
    laplacian[j, j] += weight
    laplacian[i, j] -= weight
    laplacian[j, i] -= weight


def _widest_after(laplacian: np.ndarray, idx: np.ndarray, pair: tuple[int, int], w: float) -> float:
    """The largest rating variance among ``idx`` once ``pair`` gains weight ``w``."""
    trial = laplacian.copy()
    _add_edge(trial, *pair, w)
    return float(np.max(np.diag(np.linalg.pinv(trial[np.ix_(idx, idx)]))))


def _largest_group(k: int, entrants: Sequence[int], edges: list[tuple[int, int]]) -> list[int]:
    members = sorted(entrants)
    if not edges:
        return members[:1]
    rows, cols = zip(*edges, strict=True)
    graph = csr_matrix((np.ones(len(edges)), (rows, cols)), shape=(k, k))
    _, label = connected_components(graph, directed=False)
    groups: dict[int, list[int]] = {}
    for e in members:
        groups.setdefault(int(label[e]), []).append(e)
    return max(groups.values(), key=len)  # max keeps the first of equal sizes
