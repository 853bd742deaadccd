"""Sessions of many hands through the core's ``next_hand``: who deals, and when a session ends.

Each hand is played with random legal actions and checked against the
reference (which also covers the tie-break hands of a ``stones`` session,
where only some seats are dealt in). The session bookkeeping is recomputed
here from each hand's winner and points, following docs/rules.md
("Sessions").
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest
from helpers.engine import CoreTrace, check_against_reference, play_out, seats_of

from spar_env.core import next_hand, reset
from spar_env.core.state import State
from spar_env.rules import Ruleset, make_rules


def never_sitting_out(state: State, actions: np.ndarray) -> None:
    """Before each step: the seat to act is dealt into this hand."""
    live = np.flatnonzero(~state.terminated)
    seat = state.current_player[live]
    assert ((state.active[live] >> seat) & 1 == 1).all(), "a seat that sits out was asked to act"


def hands_of_sessions(
    rules: Ruleset, batch: int, rng: np.random.Generator, max_hands: int
) -> Iterator[CoreTrace]:
    """Play sessions hand after hand (winner deals), yielding each hand's trace after checking it."""
    state = reset(rules, batch, rng)
    for _ in range(max_hands):
        trace = play_out(state, rng, before_step=never_sitting_out)
        check_against_reference(trace)
        yield trace
        running = np.flatnonzero(~state.session_over)
        if running.size == 0:
            return
        next_hand(state, running, rng)


@pytest.mark.parametrize(("variant", "step"), [("spar", 1), ("sipa", -1)])
def test_the_winner_deals_the_next_hand(variant: str, step: int) -> None:
    rules = make_rules(variant, players=4, end="open")
    rng = np.random.default_rng(1)
    state = reset(rules, 256, rng)
    for _ in range(4):
        play_out(state, rng)
        winners = state.winner.copy()
        next_hand(state, slice(None), rng)
        assert (state.dealer == winners).all()
        # The seat after the dealer, in the direction of play, leads trick 1.
        assert (state.current_player == (winners + step) % 4).all()
        assert (state.winner == -1).all() and not state.terminated.any()


def test_target_ends_when_a_seat_reaches_it() -> None:
    target = 5
    rules = make_rules("spar", players=3, end=f"target:{target}")
    batch = 256
    tally = np.zeros((batch, 3), dtype=np.int64)
    over = np.zeros(batch, dtype=bool)
    for trace in hands_of_sessions(rules, batch, np.random.default_rng(2), max_hands=60):
        state, played = trace.state, trace.live[0]
        rows = np.flatnonzero(played)
        tally[rows, state.winner[rows]] += state.points[rows]
        assert (state.scores == tally).all()
        reached = (tally >= target).any(axis=1)
        # A session ends exactly when a seat reaches the target; the one who just scored wins.
        assert (state.session_over == reached).all()
        ended_now = rows[state.session_over[rows]]
        assert (state.session_winner[ended_now] == state.winner[ended_now]).all()
        assert (state.session_winner[~reached] == -1).all()
        assert not over[rows].any(), "a finished session was dealt another hand"
        over = state.session_over.copy()
    assert over.all()


def test_hands_k_ends_after_k_hands() -> None:
    rules = make_rules("spar", players=4, end="hands:3")
    count = 0
    for k, trace in enumerate(hands_of_sessions(rules, 128, np.random.default_rng(3), 10), 1):
        state = trace.state
        count = k
        assert (state.hands_played == k).all()
        assert (state.session_over == (k == 3)).all()
    assert count == 3
    top = state.scores.max(axis=1)
    unique = (state.scores == top[:, None]).sum(axis=1) == 1
    rows = np.arange(128)
    assert (state.session_winner[unique] == state.scores.argmax(axis=1)[unique]).all()
    # With a tie for most points, no seat outside the tie is named the winner.
    tied_winner = state.session_winner[~unique]
    outside = (tied_winner >= 0) & (state.scores[rows[~unique], tied_winner] != top[~unique])
    assert not outside.any()


@pytest.mark.parametrize("variant", ["agram", "sink_sink", "agram_mali", "mini"])
def test_one_hand_decides(variant: str) -> None:
    rng = np.random.default_rng(4)
    state = reset(make_rules(variant), 64, rng)
    play_out(state, rng)
    assert state.session_over.all()
    assert (state.session_winner == state.winner).all()
    with pytest.raises(ValueError, match="over"):
        next_hand(state, slice(None), rng)


def test_open_sessions_never_end() -> None:
    rules = make_rules("fapfap", players=3)
    assert rules.end == "open"
    tally = np.zeros((64, 3), dtype=np.int64)
    hands = 0
    for trace in hands_of_sessions(rules, 64, np.random.default_rng(5), max_hands=40):
        state = trace.state
        tally[np.arange(64), state.winner] += state.points
        hands += 1
        assert not state.session_over.any()
        assert (state.session_winner == -1).all()
        assert (state.scores == tally).all()
    assert hands == 40


def test_next_hand_refuses_a_running_hand() -> None:
    rng = np.random.default_rng(6)
    state = reset(make_rules("spar"), 4, rng)
    with pytest.raises(ValueError, match="running"):
        next_hand(state, slice(None), rng)


# ----- stones ------------------------------------------------------------------------
def run_stones(rules: Ruleset, batch: int, seed: int) -> dict[str, int]:
    """Play stones sessions to their end, checking every hand; count what happened."""
    pool_size = rules.end_value
    n = rules.players
    seen = {"tie_breaks": 0, "dealer_sat_out": 0, "pool_overflow": 0}
    stones = np.zeros((batch, n), dtype=np.int64)
    pool = np.full(batch, pool_size, dtype=np.int64)
    for trace in hands_of_sessions(rules, batch, np.random.default_rng(seed), max_hands=40):
        state, start = trace.state, trace.start
        for g in np.flatnonzero(trace.live[0]):
            seats = seats_of(start.active[g])
            w, points = int(state.winner[g]), int(state.points[g])
            tie_break = pool[g] == 0
            if tie_break:
                # Only the seats tied for most stones are dealt in; the others get no cards.
                tied = np.flatnonzero(stones[g] == stones[g].max()).tolist()
                assert seats == tied and len(tied) >= 2
                assert all(int(start.dealt[g, s]) == 0 for s in range(n) if s not in seats)
                assert int(start.stock_top[g]) == len(seats) * rules.hand_size
                assert w in seats
                assert bool(state.session_over[g]) and int(state.session_winner[g]) == w
                seen["tie_breaks"] += 1
                seen["dealer_sat_out"] += int(start.dealer[g]) not in seats
                continue
            assert seats == list(range(n))
            # W takes one stone per point, as far as the pool lasts.
            taken = min(points, int(pool[g]))
            seen["pool_overflow"] += int(points > pool[g])
            stones[g, w] += taken
            pool[g] -= taken
            assert state.stones[g].tolist() == stones[g].tolist()
            assert int(state.pool[g]) == pool[g]
            top = np.flatnonzero(stones[g] == stones[g].max())
            if pool[g] > 0:
                assert not state.session_over[g]
            elif len(top) == 1:  # the pool is empty: the seat with most stones wins
                assert state.session_over[g] and int(state.session_winner[g]) == top[0]
            else:  # seats tied for most play on among themselves
                assert not state.session_over[g]
        assert (state.stones.sum(axis=1) + state.pool == pool_size).all()
    assert (pool == 0).all()
    return seen


HIDDEN_CARD_OPTIONS = dict(
    weak_hand_exchange=True,
    reveal_stock_bottom=True,
    face_down="non_winning",
    direction="clockwise",
)


@pytest.mark.parametrize("options", [{}, HIDDEN_CARD_OPTIONS], ids=["preset", "options"])
def test_stones_sessions_and_tie_breaks(options: dict[str, object]) -> None:
    # Agram scores 1 a hand: with 2 stones and 3 seats, two different winners tie.
    seen = run_stones(make_rules("agram", players=3, end="stones:2", **options), 256, seed=7)
    assert seen["tie_breaks"] > 50


def test_stones_tie_break_dealt_by_a_seat_that_sits_out() -> None:
    # Spar's 2- and 3-point hands let the last winner trail the tied seats: that
    # seat deals the tie-break hand without playing in it.
    seen = run_stones(make_rules("spar", players=4, end="stones:5"), 1024, seed=8)
    assert seen["tie_breaks"] > 20 and seen["dealer_sat_out"] > 0 and seen["pool_overflow"] > 0


def test_stones_tie_break_payoffs_only_involve_the_seats_in_the_hand() -> None:
    rules = make_rules("agram", players=4, end="stones:2")
    checked = 0
    for trace in hands_of_sessions(rules, 256, np.random.default_rng(9), max_hands=10):
        active = trace.start.active
        for g in np.flatnonzero(trace.live[0]):
            seats = seats_of(active[g])
            if len(seats) == 4:
                continue
            rewards = trace.final_rewards[g]
            w = int(trace.state.winner[g])
            assert all(rewards[s] == 0 for s in range(4) if s not in seats)
            assert rewards[w] == len(seats) - 1 and rewards.sum() == 0
            checked += 1
    assert checked > 20
