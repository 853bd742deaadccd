"""A policy read back into a tabular profile of ``micro``: against profiles computed by hand
from the tree, and against the network asked in games played on the batch core."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from spar_agents.cfr.build import infoset_keys
from spar_agents.cfr.evaluation import exploitability
from spar_agents.cfr.readback import (
    exact_exploitability,
    merged_infosets,
    profile_of,
    representatives,
)
from spar_agents.ppo.agent import policy_probs
from spar_agents.ppo.network import ActorCritic
from spar_env.core import reset, step
from spar_env.core.bits import popcount
from spar_env.observation.per_game import encode, layout_for
from spar_env.rules import make_rules

RULES = make_rules("micro")


@pytest.fixture(scope="module")
def reps():
    return representatives(RULES)


def network(seed: int) -> ActorCritic:
    torch.manual_seed(seed)
    return ActorCritic(layout_for(RULES).high, RULES.num_actions, (32,))


def network_policy(model: ActorCritic):
    return lambda states: policy_probs(model, encode(states, states.current_player),
                                       states.legal_mask())  # fmt: skip


def test_every_information_set_of_the_tree_has_its_state(reps) -> None:
    ids = np.concatenate([ids for _, ids in reps.levels])
    assert np.array_equal(np.sort(ids), np.arange(reps.sf.tree.num_infosets))
    for states, ids in reps.levels:  # each state's legal cards are its set's
        legal = states.legal_mask()
        bits = (legal * (np.uint64(1) << np.arange(legal.shape[1], dtype=np.uint64))).sum(1)
        assert np.array_equal(bits.astype(np.uint64), reps.sf.tree.infoset_legal[ids])


def test_a_network_of_fixed_preferences_reads_back_as_the_profile_computed_by_hand(reps) -> None:
    """Logits that are one constant vector: at each set, the softmax over its legal cards."""
    model = network(0)
    preference = torch.linspace(-1.0, 2.0, RULES.num_actions)
    with torch.no_grad():
        model.actor[-1].weight.zero_()
        model.actor[-1].bias.copy_(preference)
    tree = reps.sf.tree
    legal = (tree.infoset_legal[:, None] >> np.arange(RULES.num_actions, dtype=np.uint64)) & 1
    weights = np.where(legal.astype(bool), np.exp(preference.numpy().astype(np.float64)), 0.0)
    by_hand = reps.sf.from_tree_policy(weights / weights.sum(axis=1, keepdims=True))
    read = profile_of(reps, network_policy(model))
    for mine, theirs in zip(read, by_hand, strict=True):
        np.testing.assert_allclose(mine, theirs, atol=1e-6)
    assert exact_exploitability(reps, network_policy(model)) == pytest.approx(
        exploitability(reps.sf, by_hand), abs=1e-6
    )
    uniform = exact_exploitability(reps, lambda s: s.legal_mask() / s.legal_mask().sum(1)[:, None])
    assert uniform == pytest.approx(exploitability(reps.sf, reps.sf.uniform()), abs=1e-12)


def test_the_profile_is_what_the_network_plays_in_real_games(reps) -> None:
    """Hands dealt and played on the batch core: at every decision, the network's answer is
    the read-back's at that decision's information set."""
    model = network(1)
    table = reps.sf.tree_policy(profile_of(reps, network_policy(model)))
    tree = reps.sf.tree
    rng = np.random.default_rng(0)
    state = reset(RULES, 64, rng)
    plays = np.full((64, RULES.players * RULES.hand_size), -1, dtype=np.int8)
    checked = 0
    for depth in range(plays.shape[1]):
        live = np.flatnonzero(~state.terminated)
        if not live.size:
            break
        seat = state.current_player[live]
        keys = infoset_keys(seat, state.dealer[live], state.dealt[live], plays[live])
        ids = np.searchsorted(tree.infoset_keys, keys)
        assert np.array_equal(tree.infoset_keys[ids], keys)
        probs = policy_probs(model, encode(state, seat, live), state.legal_mask()[live])
        np.testing.assert_allclose(table[ids], probs, atol=1e-6)
        checked += live.size
        actions = np.zeros(64, dtype=np.int64)
        actions[live] = [rng.choice(np.flatnonzero(p > 0)) for p in probs]
        plays[live, depth] = actions[live]
        step(state, actions)
    assert checked >= 64 * 2


def test_the_observation_tells_every_information_set_of_micro_apart(reps) -> None:
    """The learners' observation keeps all micro's tree distinguishes; one that reads only the
    legal cards merges sets, and is counted, among the sets with a choice only."""
    assert merged_infosets(reps, lambda states: encode(states, states.current_player)) == 0
    blind = merged_infosets(reps, lambda states: np.zeros((states.batch_size, 1), np.uint8))
    choices = sum(int((popcount(states.legal) > 1).sum()) for states, _ in reps.levels)
    assert 0 < blind < choices < reps.num_infosets
