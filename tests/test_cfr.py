"""Exact solvers on micro and mini: the tree against the core, known values, the LP cross-check."""

from __future__ import annotations

import numpy as np
import pytest

from spar_agents.cfr import evaluation as ev
from spar_agents.cfr.build import build_tree
from spar_agents.cfr.lp import solve_lp
from spar_agents.cfr.seqform import sequence_form
from spar_agents.cfr.solvers import ALGORITHMS, make_solver
from spar_agents.cfr.tree import TERMINAL, make_tree
from spar_env import make_rules
from spar_env.core import reset, step

MICRO_VALUE = 7 / 9  # LP (HiGHS) and CFR agree
MINI_VALUE = 0.4999268961  # LP (HiGHS), from both seats' sides: see benchmarks/cfr_speed.py
MICRO_UNIFORM_NASH_CONV = 31 / 45  # OpenSpiel's nash_conv of the uniform policy agrees


@pytest.fixture(scope="module")
def micro():
    return sequence_form(build_tree(make_rules("micro")))


@pytest.fixture(scope="module")
def mini():
    return sequence_form(build_tree(make_rules("mini")))


def _play_random(tree, rules, games: int, seed: int):
    """Random legal play in the core, followed in the tree; returns (tree returns, core returns)."""
    rng = np.random.default_rng(seed)
    state = reset(rules, games, rng)
    node = tree.child(np.zeros(games, dtype=np.int64), tree.deal_index(state.dealt, state.dealer))
    got = np.zeros((games, rules.players))
    while not state.terminated.all():
        live = ~state.terminated
        assert (tree.player[node[live]] == state.current_player[live]).all()
        assert (tree.legal[node[live]] == state.legal[live]).all()
        mask = state.legal_mask()
        pick = np.where(mask, rng.random(mask.shape), -1.0).argmax(axis=1)
        pick = np.where(live, pick, 0)
        got += step(state, pick)
        node[live] = tree.child(node[live], pick[live])
    assert (tree.player[node] == TERMINAL).all()
    return tree.returns[node], got


@pytest.mark.parametrize("variant", ["micro", "mini"])
def test_tree_returns_agree_with_core_on_random_play(variant, request):
    tree = request.getfixturevalue(variant).tree
    rules = tree.rules
    ours, core = _play_random(tree, rules, 500, seed=7)
    np.testing.assert_array_equal(ours, core)


def test_tree_chance_is_uniform_over_deals():
    tree = build_tree(make_rules("micro"))
    outcomes, probs = tree.chance_outcomes(0)
    assert outcomes.shape == (90,)  # C(6,2) * C(4,2)
    np.testing.assert_allclose(probs, 1 / 90)


def test_unsupported_ruleset_is_refused():
    with pytest.raises(ValueError, match="face_down"):
        build_tree(make_rules("micro", face_down="off_suit"))


def _matching_pennies():
    # Seat 0 picks heads/tails; seat 1 picks without seeing it; seat 0 wins 1 on a match.
    return make_tree(
        parent=[-1, 0, 0, 1, 1, 2, 2],
        player=[0, 1, 1, TERMINAL, TERMINAL, TERMINAL, TERMINAL],
        action=[0, 0, 1, 0, 1, 0, 1],
        infoset=[0, 1, 1, -1, -1, -1, -1],
        returns=[[0, 0]] * 3 + [[1, -1], [-1, 1], [-1, 1], [1, -1]],
    )


def _bluff_game():
    # Chance deals seat 0 High or Low (1/2 each). Seat 0 checks (showdown, +-1) or bets;
    # seat 1, seeing only the bet, folds (+1 to seat 0) or calls (+-2).
    # By hand: seat 0 always bets High, bluffs Low 1/3; seat 1 calls 2/3; value 1/3.
    return make_tree(
        parent=[-1, 0, 0, 1, 1, 2, 2, 4, 4, 6, 6],
        player=[-1, 0, 0, TERMINAL, 1, TERMINAL, 1] + [TERMINAL] * 4,
        action=[0, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1],
        chance_prob=[1, 0.5, 0.5] + [1] * 8,
        infoset=[-1, 0, 1, -1, 2, -1, 2, -1, -1, -1, -1],
        returns=[[0, 0]] * 3
        + [[1, -1], [0, 0], [-1, 1], [0, 0], [1, -1], [2, -2], [1, -1], [-2, 2]],
    )


def test_best_response_on_matching_pennies():
    sf = sequence_form(_matching_pennies())
    heads_70 = np.array([1.0, 0.7, 0.3])
    br = ev.best_response(sf, 1, heads_70)
    assert br.value == pytest.approx(0.4)  # seat 1 plays tails: 0.7 - 0.3
    np.testing.assert_array_equal(br.sigma, [1, 0, 1])
    assert ev.nash_conv(sf, sf.uniform()) == pytest.approx(0.0)
    assert ev.nash_conv(sf, (heads_70, sf.uniform()[1])) == pytest.approx(0.4)


def test_best_response_and_value_on_bluff_game():
    sf = sequence_form(_bluff_game())
    ps0 = sf.players[0]
    # Seat 0 always bets, with either card.
    always_bet = np.ones(ps0.num_sequences)
    always_bet[1:] = (ps0.seq_action[1:] == 1).astype(float)
    br1 = ev.best_response(sf, 1, always_bet)
    assert br1.value == pytest.approx(0.0)  # calling: -2 with High, +2 with Low
    always_call = np.array([1.0, 0.0, 1.0])  # seat 1's sequences: empty, fold, call
    br0 = ev.best_response(sf, 0, always_call)
    assert br0.value == pytest.approx(0.5)  # bet High (+2), check Low (-1)
    lp = solve_lp(sf)
    assert lp.value_seat0_side == pytest.approx(1 / 3)
    assert lp.value_seat1_side == pytest.approx(1 / 3)
    solver = make_solver("cfr+", sf)
    solver.step(2000)
    assert ev.expected_value(sf, solver.average_policy()) == pytest.approx(1 / 3, abs=1e-3)


def test_micro_value_cfr_agrees_with_lp(micro):
    lp = solve_lp(micro)
    assert lp.value_seat0_side == pytest.approx(MICRO_VALUE, abs=1e-9)
    assert lp.value_seat1_side == pytest.approx(MICRO_VALUE, abs=1e-9)
    assert ev.nash_conv(micro, lp.profile) < 1e-9
    solver = make_solver("dcfr", micro)
    solver.step(1000)
    low, high = ev.game_value_bounds(micro, solver.average_policy())
    assert high - low < 1e-6
    assert ev.expected_value(micro, solver.average_policy()) == pytest.approx(lp.value, abs=1e-6)


def test_uniform_nash_conv_on_micro(micro):
    assert ev.nash_conv(micro, micro.uniform()) == pytest.approx(MICRO_UNIFORM_NASH_CONV)


def test_custom_ruleset_cfr_agrees_with_lp():
    # Two-card hands from mini's deck: 2,970 deals.
    sf = sequence_form(build_tree(make_rules("mini", hand_size=2)))
    lp = solve_lp(sf)
    assert lp.value_seat0_side == pytest.approx(lp.value_seat1_side, abs=1e-9)
    solver = make_solver("pcfr+", sf)
    solver.step(500)
    profile = solver.average_policy()
    assert ev.nash_conv(sf, profile) < 1e-5
    assert ev.expected_value(sf, profile) == pytest.approx(lp.value, abs=1e-5)


def test_mini_value(mini):
    solver = make_solver("pcfr+", mini)
    solver.step(400)
    profile = solver.average_policy()
    low, high = ev.game_value_bounds(mini, profile)
    assert high - low < 1e-4
    assert low - 1e-9 <= MINI_VALUE <= high + 1e-9
    assert ev.expected_value(mini, profile) == pytest.approx(MINI_VALUE, abs=1e-4)


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_mini_exploitability_falls(mini, algorithm):
    solver = make_solver(algorithm, mini)
    seen = [ev.exploitability(mini, solver.average_policy())]
    for _ in range(3):
        solver.step(30)
        seen.append(ev.exploitability(mini, solver.average_policy()))
    assert seen[-1] < seen[1] < seen[0]
    assert seen[-1] < 0.1 * seen[0]


def test_unknown_algorithm(micro):
    with pytest.raises(ValueError, match="unknown algorithm"):
        make_solver("cfr++", micro)
