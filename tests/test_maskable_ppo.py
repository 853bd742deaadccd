"""A third-party trainer works: sb3-contrib's MaskablePPO trains on ``spar_env/Spar-v0``.

Only MaskablePPO's documented API is used: the env exposes ``action_masks()``,
which MaskablePPO finds by itself, and ``predict(..., action_masks=...)``.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
import torch
from sb3_contrib import MaskablePPO

from spar_env.envs import ENV_ID, register_envs


class CountIllegal(gym.Wrapper):
    """Counts the steps whose action was illegal (the env then ends the episode)."""

    def __init__(self, env: gym.Env) -> None:
        super().__init__(env)
        self.illegal = 0
        self.steps = 0

    def step(self, action):
        obs, reward, terminated, truncated, info = self.env.step(action)
        self.steps += 1
        self.illegal += int(info["illegal_action"])
        return obs, reward, terminated, truncated, info


def test_masks_through_gym_make_wrappers():
    """The calls the README shows: Gymnasium 1.x wrappers do not forward ``action_masks``,
    but ``env.unwrapped`` and ``get_wrapper_attr`` reach it, and so does MaskablePPO."""
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported
    from sb3_contrib.common.wrappers import ActionMasker

    register_envs()
    env = CountIllegal(gym.make(ENV_ID, variant="spar", seat=0))
    _, info = env.reset(seed=0)
    want = info["action_mask"].astype(bool)
    assert not hasattr(env, "action_masks")  # gym.make's wrappers hide it
    assert (env.unwrapped.action_masks() == want).all()
    assert (env.get_wrapper_attr("action_masks")() == want).all()
    assert is_masking_supported(env) and (get_action_masks(env) == want).all()
    masked = ActionMasker(env, lambda e: e.unwrapped.action_masks())  # not needed, but works
    assert (get_action_masks(masked) == want).all()


@pytest.mark.slow
def test_maskable_ppo_trains_and_plays_only_legal_cards():
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # tiny networks: threads only contend on a shared machine
    try:
        _train_and_play()
    finally:
        torch.set_num_threads(threads)


def _train_and_play() -> None:
    register_envs()
    env = CountIllegal(gym.make(ENV_ID, variant="spar"))
    model = MaskablePPO(
        "MlpPolicy", env, n_steps=256, batch_size=64, n_epochs=2, seed=0, device="cpu", verbose=0
    )
    model.learn(total_timesteps=3000)
    assert model.num_timesteps >= 3000
    assert env.steps >= 3000 and env.illegal == 0  # the masks were applied
    obs, info = env.reset(seed=1)
    episodes, rewards = 0, []
    while episodes < 20:
        action, _ = model.predict(
            obs, action_masks=env.unwrapped.action_masks(), deterministic=True
        )
        assert info["action_mask"][int(action)] == 1
        obs, reward, terminated, truncated, info = env.step(int(action))
        if terminated or truncated:
            episodes += 1
            rewards.append(reward)
            obs, info = env.reset()
    assert not info["illegal_action"] and np.isfinite(rewards).all()
