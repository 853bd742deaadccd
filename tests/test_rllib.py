"""The RLlib adapters: observations as RLlib's masking module reads them, RLlib's own env checks.

These need the ``rllib`` extra, whose Ray pins its own Gymnasium, so CI runs
them in a virtual environment of their own (``.ci/rllib``), with the
manual's RLlib examples (docs/guide/integrations.md), which train (locally and on a remote env runner).
No test here starts Ray.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("ray.rllib", reason="needs the rllib extra: pip install -e '.[rllib]'")

from ray.rllib.utils.pre_checks.env import check_multiagent_environments  # noqa: E402

from spar_env.envs.batch import default_illegal_reward  # noqa: E402
from spar_env.rllib import ACTION_MASK, OBSERVATIONS, RLlibAECEnv, RLlibSparEnv  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::UserWarning")


def _legal(observation: dict[str, np.ndarray], rng: np.random.Generator) -> int:
    return int(rng.choice(np.flatnonzero(observation[ACTION_MASK])))


def test_the_aec_env_speaks_rllibs_keys_and_float32():
    env = RLlibAECEnv({"variant": "sipa", "num_players": 3})
    obs, _ = env.reset(seed=0)
    (agent, seen), *others = obs.items()
    assert not others and agent == env.env.unwrapped.agent_selection  # the seat to move
    assert set(seen) == {OBSERVATIONS, ACTION_MASK}
    assert seen[OBSERVATIONS].dtype == np.float32 and seen[ACTION_MASK].dtype == np.float32
    space = env.observation_space[agent]
    assert space.contains(seen)
    native_space = env.env.env.observation_space(agent)
    assert space[OBSERVATIONS].shape == native_space["observation"].shape
    np.testing.assert_array_equal(space[OBSERVATIONS].high, native_space["observation"].high)
    # The same numbers as the PettingZoo env's own observation.
    native = env.env.env.observe(agent)
    np.testing.assert_array_equal(seen[OBSERVATIONS], native["observation"])
    np.testing.assert_array_equal(seen[ACTION_MASK], native["action_mask"])


def test_a_masked_hand_through_rllibs_multi_agent_api_pays_every_seat_zero_sum():
    env = RLlibAECEnv({"variant": "spar", "num_players": 4})
    rng = np.random.default_rng(1)
    obs, _ = env.reset(seed=1)
    returns = dict.fromkeys(env.possible_agents, 0.0)
    done = False
    while not done:
        (agent, seen), *_ = obs.items()
        assert env.observation_space[agent].contains(seen)
        obs, rewards, terminated, truncated, _ = env.step({agent: _legal(seen, rng)})
        for seat, reward in rewards.items():
            returns[seat] += reward
        done = terminated["__all__"]
        assert not truncated["__all__"]
    assert set(obs) == set(env.possible_agents)  # every seat sees the end of the hand
    assert all(not o[ACTION_MASK].any() for o in obs.values())
    assert sum(returns.values()) == 0 and any(returns.values())


def test_an_illegal_action_ends_the_hand_with_the_penalty():
    env = RLlibAECEnv({"variant": "spar", "num_players": 4})
    obs, _ = env.reset(seed=2)
    (agent, seen), *_ = obs.items()
    illegal = int(np.flatnonzero(seen[ACTION_MASK] == 0)[0])
    _, rewards, terminated, _, _ = env.step({agent: illegal})
    assert terminated["__all__"]
    assert rewards[agent] == default_illegal_reward(env.env.unwrapped.rules)


def test_rllibs_own_multi_agent_check_passes():
    check_multiagent_environments(RLlibAECEnv({"variant": "spar"}))


def test_the_single_agent_env_puts_the_mask_in_the_observation():
    env = RLlibSparEnv({"variant": "spar", "opponents": "heuristic", "seat": 2})
    rng = np.random.default_rng(3)
    obs, info = env.reset(seed=3)
    hands = 0
    while hands < 5:
        assert env.observation_space.contains(obs)
        np.testing.assert_array_equal(obs[ACTION_MASK], info["action_mask"])
        obs, reward, terminated, truncated, info = env.step(_legal(obs, rng))
        assert not info["illegal_action"]
        if terminated or truncated:
            assert not obs[ACTION_MASK].any()
            hands += 1
            obs, info = env.reset()


def test_the_config_reaches_the_env():
    env = RLlibSparEnv({"variant": "sipa", "num_players": 3, "last_two": "off"})
    assert env.unwrapped.rules.variant == "sipa" and env.unwrapped.rules.players == 3
    with pytest.raises(ValueError, match="players"):
        RLlibAECEnv({"variant": "spar", "num_players": 8})
