"""The exact solver against brute force: plain recursion through the core, without memo or pruning.

The brute force plays every legal card of every seat through
:func:`spar_env.core.step` (so the core is the referee of legality, trick
winners and scoring) and applies the preference order of
:mod:`spar_agents.perfect_info.solver` written out afresh: own payoff, then the winner's points
(fewer preferred), then the viewer's payoff (higher preferred), then the winner
seat (lower preferred).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest

from spar_agents.perfect_info.solver import Position, Solver, position_from_state
from spar_env import make_rules
from spar_env.core import PLAY, State, random_member, reset, step
from spar_env.core.deal import deal, deck_for_hands, shuffle_decks
from spar_env.rules import Ruleset


@dataclass(frozen=True)
class Result:
    winner: int
    points: int
    payoffs: tuple[float, ...]


def brute_result(state: State, viewer: int) -> Result:
    """The result of game 0 of ``state`` when every seat plays max-n, by plain enumeration."""
    return best_of(brute_children(state, viewer), int(state.current_player[0]), viewer)


def best_of(children: dict[int, Result], mover: int, viewer: int) -> Result:
    """The child result the mover prefers."""
    return max(
        children.values(),
        key=lambda r: (r.payoffs[mover], -r.points, r.payoffs[viewer], -r.winner),
    )


def brute_children(state: State, viewer: int) -> dict[int, Result]:
    """The max-n result after each legal card of the seat to move in game 0."""
    legal = int(state.legal[0])
    out = {}
    for card in (c for c in range(legal.bit_length()) if legal >> c & 1):
        child = state.take(np.array([0]))
        rewards = step(child, np.array([card]))
        if child.terminated[0]:
            out[card] = Result(
                int(child.winner[0]), int(child.points[0]), tuple(rewards[0].tolist())
            )
        else:
            out[card] = brute_result(child, viewer)
    return out


def positions(rules: Ruleset, count: int, max_cards: int, rng: np.random.Generator) -> State:
    """``count`` random positions of ``rules`` (play phase) where seats hold at most ``max_cards``."""
    state = reset(rules, count, rng)
    h = rules.hand_size
    first_trick = max(0, h - max_cards)
    stop_pos = rng.integers(0, rules.players, count)
    for _ in range(rules.players * (h + 2)):
        at_target = (
            (state.phase == PLAY)
            & (state.trick >= first_trick)
            & (state.pos >= np.minimum(stop_pos, np.bitwise_count(state.active) - 1))
        )
        moving = ~state.terminated & ~at_target
        if not moving.any():
            break
        step(state, random_member(state.legal, rng), moving=moving)
    keep = np.flatnonzero(~state.terminated)
    return state.take(keep)


CASES = [
    ("spar", {"players": 4}, 3),
    ("spar", {"players": 3, "payoff": "points"}, 3),
    ("spar", {"players": 2}, 4),
    ("spar", {"players": 3, "last_two": "bonus"}, 3),
    ("essilfy", {"players": 3}, 3),
    ("essilfy", {"players": 2, "payoff": "points"}, 4),
    ("sipa", {"players": 3}, 3),
    ("sipa", {"players": 2, "payoff": "points"}, 4),
    ("fapfap", {"players": 3}, 3),
    ("jeu_de_carte", {"players": 4}, 3),
    ("agram", {"players": 3}, 3),
    ("agram_mali", {"players": 2}, 4),
    ("spar_classic", {"players": 5}, 2),
    ("mini", {}, 3),
    ("micro", {}, 2),
]


def check_against_brute_force(rules: Ruleset, state: State) -> list[Result]:
    """Assert the solver agrees with brute force on every game of ``state``; return the results."""
    solver = Solver(rules)
    seen = []
    for g in range(state.batch_size):
        one = state.take(np.array([g]))
        position = position_from_state(one, 0)
        mover = int(one.current_player[0])
        for viewer in {mover, (mover + 1) % rules.players}:
            expected = brute_children(one, viewer)
            got = solver.action_outcomes(position, viewer)
            assert set(got) == set(expected), (rules.variant, g)
            for card, result in expected.items():
                assert got[card] == (result.winner, result.points), (g, viewer, card)
                payoffs = solver.payoffs(got[card], position.active)
                assert payoffs.tolist() == list(result.payoffs)
            best = best_of(expected, mover, viewer)
            assert solver.value(position, viewer) == (best.winner, best.points)
            seen.extend(expected.values())
    return seen


@pytest.mark.parametrize(("variant", "overrides", "max_cards"), CASES)
def test_solver_matches_brute_force(variant: str, overrides: dict, max_cards: int) -> None:
    rules = make_rules(variant, **overrides)
    rng = np.random.default_rng(sum(map(ord, variant)) + len(overrides))
    state = positions(rules, 12, max_cards, rng)
    assert state.batch_size >= 8
    check_against_brute_force(rules, state)


@pytest.mark.parametrize(
    ("variant", "overrides", "chained"),
    [
        ("spar", {"players": 3, "last_two": "bonus", "ranks": ("A", "Q", "7", "6")}, {6, 7, 8, 9}),
        ("essilfy", {"players": 3, "ranks": ("A", "Q", "7", "6")}, {4, 5, 6}),
        ("sipa", {"players": 2, "ranks": ("A", "Q", "7"), "hand_size": 4}, {4, 6}),
        ("sipa", {"players": 3, "ranks": ("A", "Q", "7"), "hand_size": 3}, {4, 6}),
        ("fapfap", {"players": 2, "ranks": ("10", "5", "3"), "hand_size": 4}, {4}),
    ],
)
def test_scoring_chains_match_brute_force(variant: str, overrides: dict, chained: set) -> None:
    """Short endings with many scoring cards, so that runs of scoring tricks occur."""
    rules = make_rules(variant, **overrides)
    cards = rules.chain if rules.players == 2 else 2  # earlier tricks won are part of the run
    state = positions(rules, 150, cards, np.random.default_rng(len(variant)))
    results = check_against_brute_force(rules, state)
    assert chained & {r.points for r in results}, "no run of scoring tricks was exercised"


def scripted(rules: Ruleset, hands: list[list[str]], dealer: int) -> State:
    """A hand dealt from the given cards (by seat)."""
    t = reset(rules, 1, np.random.default_rng(0)).tables
    ids = [[rules.card_id(c) for c in hand] for hand in hands]
    deck = deck_for_hands(t, ids, dealer)
    return reset(rules, 1, np.random.default_rng(0), decks=deck[None], dealers=np.array([dealer]))


def test_keeps_the_six_for_the_last_trick() -> None:
    """7H and 6H are next to each other, yet not equivalent: leading the 7 keeps 3 points."""
    rules = make_rules("spar", players=2, hand_size=2)
    state = scripted(rules, [["7H", "6H"], ["8C", "9C"]], dealer=1)
    check_against_brute_force(rules, state)
    outcomes = Solver(rules).action_outcomes(position_from_state(state, 0))
    assert outcomes == {rules.card_id("7H"): (0, 3), rules.card_id("6H"): (0, 2)}


def test_tie_break_hands_with_seats_sitting_out() -> None:
    """A stones tie-break hand: only the tied seats are dealt in; the others never play."""
    rules = make_rules("spar", players=5, end="stones:10")
    solver = Solver(rules)
    rng = np.random.default_rng(5)
    state = reset(rules, 8, rng)
    active = np.array([0b01011, 0b10101, 0b00110, 0b11010, 0b01101, 0b10011, 0b11100, 0b00111])
    deal(state, slice(None), shuffle_decks(state.tables, 8, rng), np.arange(8) % 5, active)
    for _ in range(rng.integers(7, 9)):
        step(state, random_member(state.legal, rng))
    for g in range(8):
        one = state.take(np.array([g]))
        position = position_from_state(one, 0)
        assert position.active == int(active[g])
        mover = int(one.current_player[0])
        expected = brute_children(one, mover)
        got = solver.action_outcomes(position)
        assert got == {c: (r.winner, r.points) for c, r in expected.items()}


def test_two_player_stakes_is_minimax() -> None:
    """With two players and stakes, max-n is minimax: a seat's value is the other's loss."""
    rules = make_rules("mini")
    solver = Solver(rules)
    state = positions(rules, 30, 3, np.random.default_rng(3))
    for g in range(state.batch_size):
        position = position_from_state(state, g)
        mover = solver.to_move(position)
        values = {c: solver.payoffs(o)[mover] for c, o in solver.action_outcomes(position).items()}
        other = solver.action_outcomes(position, viewer=1 - mover)
        # The same outcomes whoever the viewer is, and the mover's value is the max.
        assert other == solver.action_outcomes(position)
        best = solver.value(position)
        assert solver.payoffs(best)[mover] == max(values.values())
        assert solver.payoffs(best)[1 - mover] == -max(values.values())


def test_worlds_share_a_table_without_changing_answers() -> None:
    """Solving many worlds in one call gives what solving each alone, afresh, gives."""
    rules = make_rules("spar", players=4)
    rng = np.random.default_rng(11)
    state = positions(rules, 4, 4, rng)
    for g in range(state.batch_size):
        position = position_from_state(state, g)
        mover = Solver(rules).to_move(position)
        others = [s for s in range(4) if s != mover]
        pool = [c for s in others for c in range(64) if position.hands[s] >> c & 1]
        worlds = []
        for _ in range(12):  # deal the others' cards afresh, keeping each seat's count
            rng.shuffle(pool)
            hands, at = list(position.hands), 0
            for s in others:
                k = bin(position.hands[s]).count("1")
                hands[s] = sum(1 << c for c in pool[at : at + k])
                at += k
            worlds.append(hands)
        worlds = np.array(worlds, dtype=np.uint64)
        together = Solver(rules).solve_worlds(worlds, position)
        for w in range(len(worlds)):
            alone = Solver(rules).solve_worlds(worlds[[w]], position)
            assert (alone[0] == together[w]).all()


def test_position_checks() -> None:
    solver = Solver(make_rules("micro"))
    with pytest.raises(ValueError, match="worlds must have shape"):
        solver.solve_worlds(np.zeros((1, 3), dtype=np.uint64), Position((1, 2), 0))
    with pytest.raises(ValueError, match="holds no card"):
        solver.solve_worlds(np.zeros((1, 2), dtype=np.uint64), Position((0, 2), 0))
    with pytest.raises(ValueError, match="table_bits"):
        Solver(make_rules("micro"), table_bits=40)
