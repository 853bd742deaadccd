"""The OpenSpiel bridge: OpenSpiel's own checks and solvers on the bridged games agree with ours."""

from __future__ import annotations

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from open_spiel.python import policy as os_policy  # noqa: E402
from open_spiel.python.algorithms import cfr, expected_game_score, exploitability  # noqa: E402

from spar_agents.cfr import evaluation as ev  # noqa: E402
from spar_agents.cfr.build import build_tree  # noqa: E402
from spar_agents.cfr.seqform import sequence_form  # noqa: E402
from spar_env import make_rules  # noqa: E402
from spar_env.openspiel import load_game  # noqa: E402

MICRO_VALUE = 7 / 9


@pytest.fixture(scope="module")
def micro_tree():
    return build_tree(make_rules("micro"))


@pytest.mark.parametrize(
    "rules",
    [
        make_rules("micro"),
        make_rules("mini"),
        make_rules("micro", first_dealer=None),
        make_rules("jeu_de_carte", players=3),  # face-down plays, card-at-a-time chance
        make_rules("spar", players=3, weak_hand_exchange=True, reveal_stock_bottom=True),
    ],
    ids=["micro", "mini", "micro-dealer", "jeu_de_carte3", "spar3-exchange-reveal"],
)
def test_random_sim(rules):
    game = load_game(rules)
    pyspiel.random_sim_test(game, num_sims=10, serialize=True, verbose=False)


def test_random_sim_tree_backed(micro_tree):
    game = load_game(micro_tree.rules, tree=micro_tree)
    pyspiel.random_sim_test(game, num_sims=20, serialize=True, verbose=False)


def test_uniform_exploitability_matches_ours(micro_tree):
    sf = sequence_form(micro_tree)
    ours = ev.nash_conv(sf, sf.uniform())
    game = load_game(micro_tree.rules)  # the core-backed bridge: independent of our tree
    theirs = exploitability.nash_conv(game, os_policy.UniformRandomPolicy(game))
    assert theirs == pytest.approx(ours, abs=1e-12)


def test_openspiel_cfr_plus_converges_to_our_value(micro_tree):
    game = load_game(micro_tree.rules, tree=micro_tree)
    solver = cfr.CFRPlusSolver(game)
    gaps = []
    for rounds in (5, 30):
        for _ in range(rounds):
            solver.evaluate_and_update_policy()
        avg = solver.average_policy()
        nash_conv = exploitability.nash_conv(game, avg)
        value = expected_game_score.policy_value(game.new_initial_state(), [avg, avg])[0]
        # Seat 0's equilibrium value lies within the NashConv of any profile's value.
        assert abs(value - MICRO_VALUE) <= nash_conv + 1e-12
        gaps.append(nash_conv)
    assert gaps[1] < gaps[0]
    assert gaps[1] < 0.01


def test_information_state_hides_the_other_hand():
    game = load_game(make_rules("micro"))
    a = game.new_initial_state()
    b = game.new_initial_state()
    a.apply_action(0)  # seat 0 gets the first combination in both
    b.apply_action(0)
    a.apply_action(0)
    b.apply_action(5)  # seat 1's hands differ
    assert a.information_state_string(0) == b.information_state_string(0)
    assert a.information_state_string(1) != b.information_state_string(1)
    np.testing.assert_array_equal(a.information_state_tensor(0), b.information_state_tensor(0))
    np.testing.assert_array_equal(a.observation_tensor(0), b.observation_tensor(0))


def test_tree_backed_game_is_the_same_game(micro_tree):
    core = load_game(micro_tree.rules)
    tree = load_game(micro_tree.rules, tree=micro_tree)
    uniform = [os_policy.UniformRandomPolicy(g) for g in (core, tree)]
    values = [
        expected_game_score.policy_value(g.new_initial_state(), [u, u])[0]
        for g, u in zip((core, tree), uniform, strict=True)
    ]
    assert values[0] == pytest.approx(values[1], abs=1e-12)


def test_our_equilibrium_is_an_equilibrium_for_openspiel(micro_tree):
    # Our LP solution, copied into OpenSpiel's tabular policy through each information
    # state's representative state: OpenSpiel's NashConv must be 0 (so the bridge's
    # information states and our tree's information sets are the same partition).
    from spar_agents.cfr.lp import solve_lp

    sf = sequence_form(micro_tree)
    table = sf.tree_policy(solve_lp(sf).profile)
    game = load_game(micro_tree.rules, tree=micro_tree)
    tabular = os_policy.TabularPolicy(game)
    for row, state in enumerate(tabular.states):  # one representative state per row
        tabular.action_probability_array[row] = table[micro_tree.infoset[state.node]]
    assert exploitability.nash_conv(game, tabular) == pytest.approx(0.0, abs=1e-9)
    value = expected_game_score.policy_value(game.new_initial_state(), [tabular, tabular])[0]
    assert value == pytest.approx(MICRO_VALUE, abs=1e-9)
