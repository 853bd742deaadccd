"""Match equity: each seat's chance to win the match from any score, given a hand model.

A session to ``target:T`` moves from hand to hand: the hand's winner ``w``
adds its ``p`` points and deals the next hand. With the chances of each
``(w, p)`` when ``d`` deals (:class:`~spar_train.match.model.HandModel`), the
chance that each seat wins the match from scores ``s`` with ``d`` dealing is

    E[d, s] = sum over (w, p) of  P[d, w, p] * (one-hot(w)      if s_w + p >= T
                                                E[w, s + p e_w]  otherwise)

Scores only grow, so :func:`equity_table` solves it exactly, layer by layer
from the highest total score down (dynamic programming over ``N * T**N``
states). Where that table would be too large (:data:`EXACT_LIMIT`), and for
the other session ends (``hands:K``, ``stones:K``), :func:`simulate_equity`
plays matches of the same hand model by Monte Carlo and gives each chance
with its 95% interval. :func:`match_equity` picks the one that applies and
says which.

**Cost.** A simulation's work is its matches times their hands, and a match to
a far end lasts many hands (a 4-player match to 1,000 points about 2,600), so a
simulation is given a budget of hands (:data:`SIMULATED_HANDS` by default in
:func:`match_equity`): :func:`simulated_matches` says, before it starts, how
many matches fit, from :func:`expected_hands`; fewer matches widen the
intervals, which say so.

**The state** a match is in: the seats' scores, and for the ends that read
more, the stones each seat holds (``stones:K``: the session is decided on
stones, so :func:`match_equity` reads its ``scores`` as the stones held) or the
hands played (``hands:K``). :func:`check_match_state` refuses a state no match
can be in: more stones than the pool, a match already won.

Stones sessions end in tie-break hands among the seats tied for most stones;
the simulation gives each tied seat its model chance of winning, renormalised
among the tied seats (the model is of full tables, so this is approximate).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from spar_env.rules import Ruleset
from spar_train.match.model import HandModel, require_match_end

EXACT_LIMIT = 40_000_000  # float64 cells of an exact table (N dealers x T**N scores x N seats)
SIMULATED_MATCHES = 100_000  # matches match_equity simulates, where the budget allows
SIMULATED_HANDS = 20_000_000  # hands one simulation of match_equity plays at most (a few seconds)
Z95 = 1.959963984540054  # the normal quantile of a two-sided 95% interval


@dataclass(frozen=True)
class EquityTable:
    """The exact equity of a ``target:T`` session: ``win[d, s_0, ..., s_{N-1}, seat]``."""

    target: int
    win: np.ndarray  # float64 [N, T, ..., T, N]

    @property
    def players(self) -> int:
        return int(self.win.shape[0])

    def at(self, scores: Sequence[int], dealer: int) -> np.ndarray:
        """``float64 [N]``: each seat's chance to win the match from ``scores``, ``dealer``
        dealing the next hand.

        Raises:
            ValueError: for a score outside ``0..T-1`` (the match is over at T) or a bad dealer.
        """
        scores = _check_state(scores, dealer, self.players)
        if max(scores) >= self.target:
            raise ValueError(f"a score of {max(scores)} has reached the target {self.target}")
        return self.win[(dealer, *scores)].copy()

    def lookup(self, scores: np.ndarray, dealers: np.ndarray) -> np.ndarray:
        """``float64 [B, N]``: :meth:`at` for a batch of running matches (scores below T)."""
        index = (np.asarray(dealers, dtype=np.int64), *np.asarray(scores, dtype=np.int64).T)
        return self.win[index]

    def at_start(self, first_dealer: int | None = None) -> np.ndarray:
        """Each seat's chance from 0-0: ``first_dealer`` deals, or every seat equally often."""
        zero = (0,) * self.players
        if first_dealer is not None:
            return self.at(zero, first_dealer)
        every_dealer: tuple[Any, ...] = (slice(None), *zero)
        return self.win[every_dealer].mean(axis=0)


def _check_state(scores: Sequence[int], dealer: int, n: int) -> tuple[int, ...]:
    out = tuple(int(s) for s in scores)
    if len(out) != n or min(out) < 0:
        raise ValueError(f"give {n} scores of 0 or more, one per seat; got {list(scores)}")
    if not 0 <= int(dealer) < n:
        raise ValueError(f"the dealer must be a seat 0..{n - 1}; got {dealer}")
    return out


def table_cells(players: int, target: int) -> int:
    """Cells of the exact table of ``players`` seats to ``target``."""
    return players * target**players * players


def equity_table(model: HandModel, target: int) -> EquityTable:
    """The exact equity of a session to ``target`` points under ``model`` (module docstring).

    Raises:
        ValueError: for a target below 1, or a table above :data:`EXACT_LIMIT` cells.
    """
    n, top = model.players, model.max_points
    if target < 1:
        raise ValueError(f"the target must be at least 1; got {target}")
    if table_cells(n, target) > EXACT_LIMIT:
        raise ValueError(
            f"an exact table of {n} players to {target} has {table_cells(n, target):,} cells "
            f"(the limit is {EXACT_LIMIT:,}); use simulate_equity"
        )
    size = target**n
    strides = np.array([target ** (n - 1 - i) for i in range(n)])
    scores = np.indices((target,) * n).reshape(n, size).T  # [size, N], C order
    total = scores.sum(axis=1)
    win = np.zeros((n, size, n))
    eye = np.eye(n)
    for t in range(int(total.max()), -1, -1):  # a state only leads to higher totals
        idx = np.flatnonzero(total == t)
        acc = np.zeros((n, idx.size, n))
        for w in range(n):
            for p in range(1, top + 1):
                chance = model.probs[:, w, p - 1]  # [dealer]
                if not chance.any():
                    continue
                won = scores[idx, w] + p >= target
                after = win[w, np.where(won, 0, idx + p * strides[w])]  # the winner deals next
                after[won] = eye[w]
                acc += chance[:, None, None] * after[None]
        win[:, idx] = acc
    return EquityTable(target, win.reshape((n,) + (target,) * n + (n,)))


@dataclass(frozen=True)
class SampledEquity:
    """Each seat's share of simulated matches won, with the 95% half-widths."""

    win: np.ndarray  # float64 [N]
    ci95: np.ndarray  # float64 [N]
    ties: float  # share of matches that ended without a winner (hands:K)
    matches: int
    mean_hands: float


def simulate_equity(
    model: HandModel,
    rules: Ruleset,
    scores: Sequence[int] | None = None,
    dealer: int | None = None,
    *,
    matches: int = 100_000,
    seed: int = 0,
    stones: Sequence[int] | None = None,
    hands_played: int = 0,
    budget: int | None = None,
) -> SampledEquity:
    """Play ``matches`` matches of ``model`` from a state, to ``rules.end``, by Monte Carlo.

    The state: the seats' ``scores`` (default 0), ``stones`` held (stones sessions;
    the pool holds what they do not), ``hands_played`` (``hands:K``) and the
    ``dealer`` of the next hand (default: ``rules.first_dealer``, or a seat at
    random for each match).

    ``budget``: the most hands to play in all; fewer matches are played where ``matches``
    would pass it (:func:`simulated_matches`), and :attr:`SampledEquity.matches` says how many.

    Raises:
        ValueError: for an open session, a model of another table size, or a bad state
            (:func:`check_match_state`).
    """
    n, kind, value = rules.players, rules.end_kind, rules.end_value or 1
    require_match_end(rules)
    if model.players != n:
        raise ValueError(f"the hand model is of {model.players} seats; the game has {n}")
    if matches < 1:
        raise ValueError(f"matches must be at least 1; got {matches}")
    check_match_state(rules, scores, stones, hands_played)
    if budget is not None:
        matches = simulated_matches(model, rules, matches, budget, scores, stones, hands_played)
    rng = np.random.default_rng([seed, 5])
    zero = (0,) * n
    score = np.tile(_check_state(zero if scores is None else scores, 0, n), (matches, 1))
    held = np.tile(_check_state(zero if stones is None else stones, 0, n), (matches, 1))
    pool = np.full(matches, value - int(held[0].sum()) if kind == "stones" else 0)
    played = np.full(matches, int(hands_played))
    if dealer is None:
        dealer = rules.first_dealer
    deal = (
        rng.integers(0, n, matches)
        if dealer is None
        else np.full(matches, _check_dealer(dealer, n), dtype=np.int64)
    )
    winner = np.full(matches, -1)
    running = np.ones(matches, dtype=bool)
    if kind == "target":
        winner[score.max(axis=1) >= value] = score.argmax(axis=1)[score.max(axis=1) >= value]
        running &= winner < 0
    flat = model.probs.reshape(n, -1)  # [dealer, w * P + p - 1]
    cumulative = np.cumsum(flat, axis=1)
    hands = np.zeros(matches, dtype=np.int64)
    while running.any():
        rows = np.flatnonzero(running)
        d = deal[rows]
        tied = None
        if kind == "stones":
            top = held[rows].max(axis=1, keepdims=True)
            tied = (pool[rows] == 0)[:, None] & (held[rows] == top)
        outcome = _draw(cumulative[d], flat[d], tied, model.max_points, rng)
        w, p = outcome // model.max_points, outcome % model.max_points + 1
        hands[rows] += 1
        score[rows, w] += p
        deal[rows] = w
        if kind == "target":
            done = score[rows, w] >= value
            winner[rows[done]] = w[done]
        elif kind == "one_hand":
            done = np.ones(rows.size, dtype=bool)
            winner[rows] = w
        elif kind == "hands":
            played[rows] += 1
            done = played[rows] >= value
            top = score[rows].max(axis=1, keepdims=True)
            unique = (score[rows] == top).sum(axis=1) == 1
            winner[rows[done & unique]] = score[rows].argmax(axis=1)[done & unique]
        else:  # stones
            tie_break = pool[rows] == 0
            taken = np.minimum(p, pool[rows])
            held[rows, w] += taken
            pool[rows] -= taken
            top = held[rows].max(axis=1, keepdims=True)
            unique = (held[rows] == top).sum(axis=1) == 1
            done = tie_break | ((pool[rows] == 0) & unique)
            winner[rows[done]] = np.where(tie_break, w, held[rows].argmax(axis=1))[done]
        running[rows[done]] = False
    wins = np.bincount(winner[winner >= 0], minlength=n) / matches
    half = Z95 * np.sqrt(wins * (1 - wins) / matches)
    return SampledEquity(wins, half, float((winner < 0).mean()), matches, float(hands.mean()))


def check_match_state(
    rules: Ruleset,
    scores: Sequence[int] | None = None,
    stones: Sequence[int] | None = None,
    hands_played: int = 0,
) -> None:
    """Refuse a state no running match of ``rules`` can be in (module docstring).

    Raises:
        ValueError: for scores or stones that are not one count of 0 or more per seat, more
            stones than the pool holds, hands played past ``hands:K``, or a match already won.
    """
    n, kind, value = rules.players, rules.end_kind, rules.end_value or 0
    zero = (0,) * n
    score = _check_state(zero if scores is None else scores, 0, n)
    held = _check_state(zero if stones is None else stones, 0, n)
    if kind == "target" and max(score) >= value:
        raise ValueError(
            f"a score of {max(score)} has reached the target {value}: the match is over"
        )
    if kind == "stones":
        if sum(held) > value:
            raise ValueError(f"the seats hold {sum(held)} stones; the pool has {value}")
        if sum(held) == value and held.count(max(held)) == 1:
            raise ValueError(f"the pool of {value} stones is empty: the seat holding most won")
    if kind == "hands" and not 0 <= int(hands_played) < value:
        raise ValueError(f"hands played must be 0 to {value - 1} in a hands:{value} session; "
                         f"got {hands_played}")  # fmt: skip


def expected_hands(
    model: HandModel,
    rules: Ruleset,
    scores: Sequence[int] | None = None,
    stones: Sequence[int] | None = None,
    hands_played: int = 0,
) -> float:
    """About how many hands a match of ``model`` lasts from a state: an estimate for sizing a
    simulation, on the high side for targets (as if the leader took only its share, ``1/N``,
    of the points a hand scores)."""
    n, kind, value = rules.players, rules.end_kind, rules.end_value or 1
    points = float(
        (model.probs.sum(axis=1).mean(axis=0) * np.arange(1, model.max_points + 1)).sum()
    )
    if kind == "target":
        return max(1.0, n * (value - (0 if scores is None else max(scores))) / points)
    if kind == "hands":
        return float(value - hands_played)
    if kind == "stones":
        return (value - (0 if stones is None else sum(stones))) / points + 1  # + a tie-break
    return 1.0  # one_hand


def simulated_matches(
    model: HandModel,
    rules: Ruleset,
    matches: int,
    budget: int,
    scores: Sequence[int] | None = None,
    stones: Sequence[int] | None = None,
    hands_played: int = 0,
) -> int:
    """How many of ``matches`` a simulation from a state plays within ``budget`` hands (at
    least one): what :func:`simulate_equity` will cost, known before it starts."""
    hands = expected_hands(model, rules, scores, stones, hands_played)
    return max(1, min(matches, int(budget / hands)))


def _check_dealer(dealer: int, n: int) -> int:
    if not 0 <= int(dealer) < n:
        raise ValueError(f"the dealer must be a seat 0..{n - 1}; got {dealer}")
    return int(dealer)


def _draw(
    cumulative: np.ndarray,
    flat: np.ndarray,
    tied: np.ndarray | None,
    top: int,
    rng: np.random.Generator,
) -> np.ndarray:
    """One ``w * P + p - 1`` per row; where ``tied`` is given and has seats, among them only."""
    if tied is not None and tied.any():
        allowed = np.where(tied.any(axis=1, keepdims=True), tied, True)
        flat = flat * np.repeat(allowed, top, axis=1)
        cumulative = np.cumsum(flat, axis=1)
    u = rng.random(flat.shape[0]) * cumulative[:, -1]
    return np.minimum((cumulative <= u[:, None]).sum(axis=1), flat.shape[1] - 1)


@dataclass(frozen=True)
class Equity:
    """Each seat's chance to win the match from one state, and how it was found."""

    win: np.ndarray  # float64 [N]
    ci95: np.ndarray  # float64 [N]: zeros when exact
    method: str  # "exact" (dynamic programming) or "sampled" (Monte Carlo)
    matches: int = 0  # matches simulated (0 when exact)


def match_equity(
    model: HandModel,
    rules: Ruleset,
    scores: Sequence[int] | None = None,
    dealer: int | None = None,
    *,
    matches: int = SIMULATED_MATCHES,
    seed: int = 0,
    hands_played: int = 0,
    budget: int = SIMULATED_HANDS,
) -> Equity:
    """Each seat's chance from ``scores`` (default 0) with ``dealer`` dealing: exact for a
    target session whose table fits, else sampled from ``matches`` matches, or as many as
    ``budget`` hands allow (module docstring).

    ``scores`` are each seat's standing: its points, or in a ``stones:K`` session the stones
    it holds. ``hands_played``: the hands a ``hands:K`` session has played.

    Raises:
        ValueError: for a state no running match can be in (:func:`check_match_state`).
    """
    n = rules.players
    value = rules.end_value or 0
    if rules.end_kind == "target" and table_cells(n, value) <= EXACT_LIMIT:
        check_match_state(rules, scores)
        table = equity_table(model, value)
        at_zero = scores is None or max(scores) == 0
        if scores is None:
            scores = (0,) * n
        if dealer is None and rules.first_dealer is None and at_zero:
            win = table.at_start()
        else:
            fixed = rules.first_dealer if dealer is None else dealer
            if fixed is None:
                raise ValueError("say which seat deals the next hand")
            win = table.at(scores, fixed)
        return Equity(win, np.zeros(n), "exact")
    stones = rules.end_kind == "stones"  # decided on stones: the standing is the stones held
    sampled = simulate_equity(
        model, rules, None if stones else scores, dealer, matches=matches, seed=seed,
        stones=scores if stones else None, hands_played=hands_played, budget=budget,
    )  # fmt: skip
    return Equity(sampled.win, sampled.ci95, "sampled", sampled.matches)


def leader_grid(model: HandModel, rules: Ruleset) -> np.ndarray | None:
    """``float64 [T, T]``: seat 0's chance with score ``r`` against the leading other seat's
    ``c`` (the others at 0), averaged over who deals next; ``None`` where no exact table
    applies (other ends, or too large)."""
    n, target = rules.players, rules.end_value or 0
    if rules.end_kind != "target" or table_cells(n, target) > EXACT_LIMIT:
        return None
    win = equity_table(model, target).win  # [dealer, s_0, ..., s_{N-1}, seat]
    rest = (0,) * (n - 2)
    # the leader sits at seat 1; a symmetric model makes the choice of seat immaterial
    index: tuple[Any, ...] = (slice(None), slice(None), slice(None), *rest, 0)
    return win[index].mean(axis=0)
