"""``call``, ``get_attr`` and ``set_attr``: one snippet, run on ``SyncVectorEnv`` and on the native vector env."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

from spar_env.envs import ENV_ID, SparVectorEnv, register_envs

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

NUM_ENVS = 3


def make(mode: str) -> gym.vector.VectorEnv:
    register_envs()
    return gym.make_vec(
        ENV_ID, num_envs=NUM_ENVS, vectorization_mode=mode, variant="sipa", num_players=3
    )


def play_with_masks_from_call(envs: gym.vector.VectorEnv, steps: int) -> None:
    """What code written for SyncVectorEnv does: masks from ``call``, actions from the masks."""
    rng = np.random.default_rng(0)
    obs, info = envs.reset(seed=0)
    for _ in range(steps):
        masks = envs.call("action_masks")
        assert isinstance(masks, tuple) and len(masks) == NUM_ENVS
        for mask, from_info in zip(masks, info["action_mask"], strict=True):
            assert mask.dtype == bool and mask.shape == (envs.single_action_space.n,)
            np.testing.assert_array_equal(mask, from_info.astype(bool))
        np.testing.assert_array_equal(np.stack(envs.get_attr("action_masks")), np.stack(masks))
        assert envs.get_attr("seat") == tuple(int(s) for s in info["seat"])
        # A finished game has no legal action: its action is ignored (the next step resets it).
        actions = [int(rng.choice(np.flatnonzero(m))) if m.any() else 0 for m in masks]
        obs, reward, terminated, truncated, info = envs.step(np.array(actions))
        assert not info["illegal_action"].any()


@pytest.mark.parametrize("mode", ["sync", "vector_entry_point"])
def test_masks_and_seats_from_call_match_the_info(mode):
    envs = make(mode)
    assert isinstance(envs, SparVectorEnv) == (mode == "vector_entry_point")
    play_with_masks_from_call(envs, steps=30)


@pytest.mark.parametrize("mode", ["sync", "vector_entry_point"])
def test_the_sub_envs_constant_attributes(mode):
    envs = make(mode)
    envs.reset(seed=1)
    assert [r.variant for r in envs.get_attr("rules")] == ["sipa"] * NUM_ENVS
    assert envs.get_attr("observation_space") == (envs.single_observation_space,) * NUM_ENVS
    assert envs.get_attr("action_space") == (envs.single_action_space,) * NUM_ENVS
    assert envs.get_attr("render_mode") == (None,) * NUM_ENVS
    assert all(m["render_modes"] == ["ansi", "human"] for m in envs.get_attr("metadata"))


@pytest.mark.parametrize("mode", ["sync", "vector_entry_point"])
def test_set_attr_gives_each_sub_env_its_value(mode):
    envs = make(mode)
    envs.set_attr("tag", ["a", "b", "c"])
    assert envs.get_attr("tag") == ("a", "b", "c")
    envs.set_attr("tag", 7)  # one value for all
    assert envs.get_attr("tag") == (7, 7, 7)
    envs.set_attr("double", [lambda x, k=k: k * x for k in range(NUM_ENVS)])
    assert envs.call("double", 5) == (0, 5, 10)
    with pytest.raises(ValueError, match="Got `2` values for 3 environments"):
        envs.set_attr("tag", [1, 2])
    with pytest.raises(AttributeError):
        envs.get_attr("no_such_attribute")


@pytest.mark.parametrize("mode", ["sync", "vector_entry_point"])
def test_what_the_game_decides_cannot_be_set(mode):
    envs = make(mode)
    envs.reset(seed=2)
    with pytest.raises(AttributeError):
        envs.set_attr("seat", 0)


def test_the_native_envs_errors_name_the_attribute():
    envs = make("vector_entry_point")
    with pytest.raises(AttributeError, match="no attribute 'nope'; they have: action_masks"):
        envs.call("nope")
    with pytest.raises(AttributeError, match="rules is read from the batch"):
        envs.set_attr("rules", None)
    with pytest.raises(TypeError, match="action_masks takes no arguments"):
        envs.call("action_masks", 1)
