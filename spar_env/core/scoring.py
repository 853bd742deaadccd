"""The end of a hand: points, zero-sum payoffs, and the session's score and end.

Points (docs/rules.md, "Scoring"): W is the seat that won the last trick.
Walk back from the last trick over at most ``rules.chain`` tricks while W won
each with a scoring rank (``rules.rank_points``); the hand scores the sum of
their points, or 1 if the last trick was not won with a scoring rank. Under
``last_two: bonus`` a two-trick run also adds the last trick's own points
again (6+3 = 9 for two sixes).
"""

from __future__ import annotations

import numpy as np

from spar_env.core.state import OVER, State


def hand_points(state: State, games: slice | np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(winner, points)`` of finished hands in ``games``."""
    t = state.tables
    h, rules = t.hand_size, t.rules
    winners = state.trick_winner[games]
    cards = state.trick_card[games].astype(np.int64)
    w = winners[:, h - 1].astype(np.int64)
    total = np.zeros_like(w)
    run = np.ones(w.shape, dtype=bool)
    for k in range(min(rules.chain, h)):
        pts = t.card_points[cards[:, h - 1 - k]]
        run &= (winners[:, h - 1 - k] == w) & (pts > 0)
        total += np.where(run, pts, 0)
    if rules.last_two == "bonus" and h >= 2:
        total += np.where(run, t.card_points[cards[:, h - 1]], 0)
    return w, np.where(total > 0, total, 1)


def end_hand(state: State, games: slice | np.ndarray) -> None:
    """Score the hands that just ended in ``games``, pay rewards, update the session."""
    t = state.tables
    n, rules = t.num_players, t.rules
    rows = np.arange(state.batch_size)[games]
    w, pts = hand_points(state, rows)
    seats_in = (state.active[rows][:, None] >> np.arange(n)) & 1
    if rules.payoff == "stakes":
        pay = -pts[:, None] * seats_in
        pay[np.arange(rows.size), w] = pts * (seats_in.sum(axis=1) - 1)
    else:
        pay = np.zeros((rows.size, n), dtype=np.int64)
        pay[np.arange(rows.size), w] = pts
    state.rewards[rows] = pay
    state.winner[rows] = w
    state.points[rows] = pts
    state.phase[rows] = OVER
    state.terminated[rows] = True
    state.current_player[rows] = -1
    state.legal[rows] = 0
    _update_session(state, rows, w, pts)


def _update_session(state: State, rows: np.ndarray, w: np.ndarray, pts: np.ndarray) -> None:
    rules = state.tables.rules
    kind, value = rules.end_kind, rules.end_value
    state.scores[rows, w] += pts
    state.hands_played[rows] += 1
    if kind == "open":
        return
    if kind == "one_hand":
        over, champion = np.ones(rows.size, dtype=bool), w
    elif kind == "target":
        over, champion = state.scores[rows, w] >= value, w
    elif kind == "hands":
        scores = state.scores[rows]
        top = scores.max(axis=1)
        unique = (scores == top[:, None]).sum(axis=1) == 1
        over = state.hands_played[rows] >= value
        champion = np.where(unique, scores.argmax(axis=1), -1)
    else:  # stones: take stones while the pool lasts; then most stones wins
        pool = state.pool[rows]
        tie_break = pool == 0  # this hand was a tie-break among the tied seats
        taken = np.minimum(pts, pool)
        state.stones[rows, w] += taken
        state.pool[rows] = pool - taken
        stones = state.stones[rows]
        top = stones.max(axis=1)
        unique = (stones == top[:, None]).sum(axis=1) == 1
        emptied = (pool - taken == 0) & ~tie_break
        over = tie_break | (emptied & unique)
        champion = np.where(tie_break, w, stones.argmax(axis=1))
    state.session_over[rows] = over
    state.session_winner[rows] = np.where(over, champion, -1)
