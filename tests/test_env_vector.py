"""The native vector env: make_vec wiring, spaces, masks and the three autoreset modes."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

from spar_env.envs import ENV_ID, SparEnv, SparVectorEnv, register_envs
from spar_env.envs.batch import default_illegal_reward
from spar_env.observation.per_game import layout_for

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def _random_actions(info: dict, rng: np.random.Generator) -> np.ndarray:
    """A random legal action per game; 0 where nothing is legal (the action is ignored)."""
    mask = info["action_mask"].astype(bool)
    scores = np.where(mask, rng.random(mask.shape), -1.0)
    return scores.argmax(axis=1)


def _to_move(obs: np.ndarray, rules) -> np.ndarray:
    lay = layout_for(rules)
    return obs[:, lay.offset("to_move") : lay.offset("to_move") + rules.players]


def test_make_vec_returns_the_native_vector_env():
    register_envs()
    envs = gym.make_vec(
        ENV_ID, num_envs=5, vectorization_mode="vector_entry_point", variant="sipa", num_players=3
    )
    assert isinstance(envs, SparVectorEnv)
    assert envs.num_envs == 5 and envs.rules.variant == "sipa" and envs.rules.players == 3
    single = SparEnv("sipa", num_players=3)
    assert envs.single_observation_space == single.observation_space
    assert envs.single_action_space == single.action_space
    assert envs.observation_space.shape == (5, single.observation_space.shape[0])
    assert envs.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    obs, info = envs.reset(seed=0)
    assert envs.observation_space.contains(obs)
    assert info["action_mask"].shape == (5, single.action_space.n)
    assert info["action_mask"].dtype == np.int8 and info["_action_mask"].all()
    np.testing.assert_array_equal(envs.action_masks(), info["action_mask"].astype(bool))


@pytest.mark.parametrize("variant", ["spar", "essilfy", "sipa", "agram"])
def test_every_step_returns_games_at_the_learners_turn(variant):
    envs = SparVectorEnv(64, variant, weak_hand_exchange=(variant == "agram"))
    rng = np.random.default_rng(1)
    obs, info = envs.reset(seed=1)
    finished = 0
    for _ in range(40):
        obs, reward, terminated, truncated, info = envs.step(_random_actions(info, rng))
        assert envs.observation_space.contains(obs)
        live = ~terminated
        # The learner is to move (relative seat 0) in every game still running.
        np.testing.assert_array_equal(_to_move(obs, envs.rules)[live, 0], 1)
        assert (info["action_mask"][live].sum(axis=1) > 0).all()
        assert (info["action_mask"][terminated] == 0).all()
        assert (reward[live] == 0).all() and not truncated.any()
        assert (reward[terminated] != 0).all()
        finished += int(terminated.sum())
    assert finished > 64


def test_next_step_autoreset_ignores_the_action_and_starts_a_new_episode():
    envs = SparVectorEnv(16, "spar")
    rng = np.random.default_rng(2)
    obs, info = envs.reset(seed=2)
    terminated = np.zeros(16, dtype=bool)
    while not terminated.any():
        obs, reward, terminated, truncated, info = envs.step(_random_actions(info, rng))
    ended = terminated.copy()
    lay = layout_for(envs.rules)
    hand_over = lay.offset("trick_number") + envs.rules.hand_size
    assert (obs[ended, hand_over] == 1).all()
    # The next step resets those games, whatever their action (even an illegal one).
    actions = _random_actions(info, rng)
    actions[ended] = 35
    obs, reward, terminated, truncated, info = envs.step(actions)
    assert not terminated[ended].any() and (reward[ended] == 0).all()
    assert (obs[ended, lay.offset("trick_number")] == 1).all()
    assert not info["illegal_action"].any()


def test_same_step_autoreset_gives_the_final_observation_in_info():
    envs = SparVectorEnv(16, "spar", autoreset_mode=AutoresetMode.SAME_STEP)
    assert envs.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    rng = np.random.default_rng(3)
    obs, info = envs.reset(seed=3)
    lay = layout_for(envs.rules)
    for _ in range(12):
        obs, reward, terminated, truncated, info = envs.step(_random_actions(info, rng))
        if terminated.any():
            final = info["final_obs"][info["_final_obs"]]
            assert (final[:, lay.offset("trick_number") + envs.rules.hand_size] == 1).all()
            assert (obs[terminated, lay.offset("trick_number")] == 1).all()
            assert (info["action_mask"][terminated].sum(axis=1) > 0).all()
            return
    pytest.fail("no game ended in 12 steps")


def test_disabled_autoreset_leaves_games_over_until_reset_with_a_mask():
    envs = SparVectorEnv(8, "mini", autoreset_mode="Disabled")
    rng = np.random.default_rng(4)
    obs, info = envs.reset(seed=4)
    for _ in range(3):  # a mini hand lasts three learner decisions
        obs, reward, terminated, truncated, info = envs.step(_random_actions(info, rng))
    assert terminated.all()
    obs, reward, terminated, truncated, info = envs.step(np.zeros(8, dtype=np.int64))
    assert terminated.all() and (reward == 0).all()
    obs, info = envs.reset(options={"reset_mask": np.arange(8) < 3})
    assert (info["action_mask"][:3].sum(axis=1) > 0).all()
    assert (info["action_mask"][3:] == 0).all()


def test_an_illegal_action_ends_only_its_own_game():
    envs = SparVectorEnv(4, "spar")
    obs, info = envs.reset(seed=5)
    actions = _random_actions(info, np.random.default_rng(5))
    actions[2] = int(np.flatnonzero(info["action_mask"][2] == 0)[0])
    obs, reward, terminated, truncated, info = envs.step(actions)
    assert terminated.tolist() == [False, False, True, False]
    assert reward[2] == default_illegal_reward(envs.rules)
    assert info["illegal_action"].tolist() == [False, False, True, False]


def test_fixed_seats_and_seeding():
    a = SparVectorEnv(6, "essilfy", seat=3)
    b = SparVectorEnv(6, "essilfy", seat=3)
    oa, ia = a.reset(seed=8)
    ob, ib = b.reset(seed=8)
    assert (ia["seat"] == 3).all()
    np.testing.assert_array_equal(oa, ob)
    rng_a, rng_b = np.random.default_rng(0), np.random.default_rng(0)
    for _ in range(8):
        oa, ra, *_, ia = a.step(_random_actions(ia, rng_a))
        ob, rb, *_, ib = b.step(_random_actions(ib, rng_b))
        np.testing.assert_array_equal(oa, ob)
        np.testing.assert_array_equal(ra, rb)


def test_opponents_can_differ_by_seat_and_get_batches():
    seen: dict[str, list[int]] = {"second": [], "third": []}

    def lowest(name):
        def policy(obs, mask, rng):
            assert obs.shape[0] == mask.shape[0] and mask.any(axis=1).all()
            seen[name].append(obs.shape[0])
            return mask.argmax(axis=1)

        return policy

    envs = SparVectorEnv(32, "spar", opponents=["random", lowest("second"), lowest("third")])
    rng = np.random.default_rng(6)
    obs, info = envs.reset(seed=6)
    for _ in range(12):
        obs, reward, terminated, truncated, info = envs.step(_random_actions(info, rng))
        np.testing.assert_array_equal(_to_move(obs, envs.rules)[~terminated, 0], 1)
    assert seen["second"] and seen["third"]
    assert max(seen["second"]) <= 32 and sum(seen["second"]) > 32
