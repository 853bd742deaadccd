"""The ``search`` agent: its replay is the truth in the true world, it never peeks (twin states),
it is deterministic for a seed, and a bad spec is refused."""

from __future__ import annotations

import numpy as np
import pytest
from test_worlds import random_situation, relabel, true_world

from spar_agents import Situation, make_agent
from spar_agents.belief import public_facts, replay
from spar_agents.search import ROLLOUT_CHUNK, SearchAgent, policy_of
from spar_agents.worlds import Worlds, seat_views
from spar_env import make_rules
from spar_env.observation.per_game import encode

RULES = make_rules("spar")  # 4 players: the shipped bot's game


@pytest.fixture(scope="module")
def policy():
    return policy_of(make_agent("onnx:spar4", RULES), "onnx:spar4")


def test_the_replay_of_the_true_world_is_the_game_itself(policy) -> None:
    situation = random_situation(RULES, 24, np.random.default_rng(11))
    views = seat_views(situation)
    spread = 0.0
    for i, view in enumerate(views):
        g = int(situation.games[i])
        state, history, loglik = replay(
            RULES, view, true_world(situation, i, view), public_facts(situation.state, g), policy
        )
        real = situation.state
        assert (state.hands[0] == real.hands[g]).all()
        assert state.current_player[0] == real.current_player[g] == view.seat
        assert state.legal[0] == real.legal[g]
        assert (encode(state, np.array([view.seat]), np.array([0])) == situation.obs[i]).all()
        assert loglik[0] <= 0
        assert (history.cards[0] == situation.history.cards[g]).all()  # the plays, replayed
        many = SearchAgent(RULES, policy, worlds=8)
        pool_rng = many._generator(view)
        from spar_agents.worlds import sample_worlds

        pool = sample_worlds(view, 16, pool_rng)
        _, _, logs = replay(RULES, view, pool, public_facts(real, g), policy)
        spread = max(spread, float(logs.max() - logs.min()))
        for k in (0, 5, 15):  # one pass for all worlds' plays: each world's own likelihood
            alone = replay(RULES, view, one_world(pool, k), public_facts(real, g), policy)[2]
            assert alone[0] == pytest.approx(logs[k], abs=1e-4)
    assert spread > 1.0  # the belief tells worlds apart: the weighting is not uniform


def one_world(worlds: Worlds, k: int) -> Worlds:
    return Worlds(*(getattr(worlds, f)[k : k + 1] for f in ("hands", "plays", "discards", "stock")))


@pytest.mark.parametrize("leaf", ["solve", "rollout"])
def test_no_peek_permuting_the_hidden_cards_changes_no_choice(policy, leaf) -> None:
    """The twin-state test: the cards the seat cannot see, permuted among the other hands and
    the stock (by swaps), give another true deal but the same view, so the same card."""
    situation = random_situation(RULES, 20, np.random.default_rng(7))
    agent = SearchAgent(RULES, policy, worlds=6, candidates=2, leaf=leaf, seed=1)
    rng = np.random.default_rng(0)
    compared = changed = 0
    for i, view in enumerate(seat_views(situation)):
        if bin(int(situation.legal[i])).count("1") < 2:
            continue
        unseen = [c for c in range(64) if view.unseen >> c & 1]
        g = int(situation.games[i])
        twin = situation
        for _ in range(8):
            c, d = rng.choice(unseen, size=2, replace=False)
            twin = relabel(twin, g, int(c), int(d))
        changed += int((twin.state.hands[g] != situation.state.hands[g]).any())
        a = agent.act(Situation(situation.state, situation.history, np.array([g]))).actions
        b = agent.act(Situation(twin.state, twin.history, np.array([g]))).actions
        assert a[0] == b[0]
        compared += 1
    assert compared >= 6 and changed >= 6


@pytest.mark.parametrize("leaf", ["solve", "rollout"])
def test_same_seed_same_play_whatever_the_batch(policy, leaf) -> None:
    situation = random_situation(RULES, 10, np.random.default_rng(4))
    together = SearchAgent(RULES, policy, worlds=6, leaf=leaf, seed=5).act(situation).actions
    alone = SearchAgent(RULES, policy, worlds=6, leaf=leaf, seed=5)
    for i, g in enumerate(situation.games):
        one = Situation(situation.state, situation.history, np.array([g]))
        assert alone.act(one).actions[0] == together[i]
    assert all(int(situation.legal[i]) >> int(a) & 1 for i, a in enumerate(together))


def test_time_limit_solves_one_world_per_decision(policy) -> None:
    situation = random_situation(RULES, 10, np.random.default_rng(6))
    agent = SearchAgent(RULES, policy, worlds=8, leaf="solve", time_limit=1e-9)
    agent.act(situation)
    assert agent.searched >= 4 and agent.worlds_solved == agent.searched


def test_time_limit_rolls_out_one_chunk_of_worlds_per_decision(policy) -> None:
    situation = random_situation(RULES, 10, np.random.default_rng(6))
    unlimited = SearchAgent(RULES, policy, worlds=40, leaf="rollout")
    unlimited.act(situation)
    limited = SearchAgent(RULES, policy, worlds=40, leaf="rollout", time_limit=1e-9)
    limited.act(situation)
    assert limited.searched == unlimited.searched >= 4
    assert limited.worlds_solved == ROLLOUT_CHUNK * limited.searched  # 40 worlds: > 1 chunk
    assert unlimited.worlds_solved > 2 * limited.worlds_solved


def test_the_spec_builds_it_and_a_bad_spec_is_refused() -> None:
    agent = make_agent(
        "search:policy=onnx:spar4,worlds=4,candidates=2,belief=0.5,leaf=rollout", RULES
    )
    assert isinstance(agent, SearchAgent)
    assert (agent.worlds, agent.candidates, agent.belief, agent.leaf) == (4, 2, 0.5, "rollout")
    bad = {
        "search:worlds=0": "worlds must be a positive whole number",
        "search:candidates=0": "candidates must be a positive whole number",
        "search:belief=-1": "belief must be a finite number of at least 0",
        "search:ess=0": "ess must be a finite number above 0",
        "search:prior=-1": "prior must be a finite number of at least 0",
        "search:belief=inf": "belief must be a finite number of at least 0; got inf",
        "search:ess=inf": "ess must be a finite number above 0; got inf",
        "search:prior=nan": "prior must be a finite number of at least 0; got nan",
        "search:worlds=1000000000": "worlds: at most 65,536",
        "search:worlds=20000,candidates=4": r"at most 65,536 \(a limit of spar-rl\); got 20,000 x 4",
        "search:leaf=guess": "leaf must be one of solve, rollout",
        "search:policy=heuristic": "has no action probabilities",
        "search:policy=onnx:nowhere.onnx": "search: policy onnx:nowhere.onnx:",
        "search:depth=3": "search has no parameter 'depth'",
    }
    for spec, message in bad.items():
        with pytest.raises(ValueError, match=message):
            make_agent(spec, RULES)
    with pytest.raises(ValueError, match="search: policy onnx:spar4:"):  # a bot for 4 players
        make_agent("search:policy=onnx:spar4", make_rules("spar", players=2))
    two = make_agent("search", make_rules("spar", players=2))  # the universal bot plays it
    assert isinstance(two, SearchAgent) and (two.worlds, two.leaf) == (64, "rollout")
    with pytest.raises(ValueError, match="search: policy onnx:universal:"):  # not a game it plays
        make_agent("search", make_rules("micro"))
    with pytest.raises(ValueError, match="weak-hand exchange"):
        make_agent("search", make_rules("spar", weak_hand_exchange=True))


def test_the_belief_is_tempered_to_keep_enough_worlds() -> None:
    from spar_agents.belief import systematic, tempered

    flat = np.zeros(64)
    assert tempered(flat, 1.0, 32) == 1.0  # equal weights: nothing to temper
    peaked = -10.0 * np.arange(64.0)  # one world would take all the weight at beta = 1
    beta = tempered(peaked, 1.0, 16)
    w = np.exp(beta * (peaked - peaked.max()))
    assert 0 < beta < 1 and w.sum() ** 2 / (w * w).sum() == pytest.approx(16, rel=1e-3)
    picks = systematic(np.array([1.0, 0.0, 3.0]), 8, np.random.default_rng(0))
    assert sorted(np.bincount(picks, minlength=3)) == [0, 2, 6]


def test_a_strong_prior_plays_the_policy_s_own_choice(policy) -> None:
    situation = random_situation(RULES, 10, np.random.default_rng(9))
    own = policy(situation).argmax(axis=1)
    agent = SearchAgent(RULES, policy, worlds=4, candidates=1, prior=1e6)
    assert (agent.act(situation).actions == own).all()


@pytest.mark.parametrize("universal", [False, True])
def test_a_ppo_agent_models_the_seats_by_its_own_probabilities(universal) -> None:
    """A ``ppo:`` policy (observation v1, or v2 for a universal network) answers the replay's
    batched passes with the probabilities its own ``act`` gives, over the game's actions."""
    from test_ppo import MIX, tiny

    from spar_agents.ppo.agent import PPOAgent
    from spar_train.games import build_model, game_mix

    config = tiny("game.players=4", *([MIX] if universal else []))
    model = build_model(config, game_mix(config))
    agent = PPOAgent(RULES, model, universal=universal)
    seats = policy_of(agent, "ppo:tiny")
    situation = random_situation(RULES, 12, np.random.default_rng(4))
    probs = seats(situation)
    assert probs.shape == (situation.size, RULES.num_actions)
    np.testing.assert_allclose(probs, agent.act(situation, np.random.default_rng(0)).probs)
    search = SearchAgent(RULES, seats, worlds=4, candidates=2)
    actions = search.act(situation).actions
    assert all(int(situation.legal[i]) >> int(a) & 1 for i, a in enumerate(actions))
