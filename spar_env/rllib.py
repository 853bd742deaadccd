"""Spar's environments as Ray RLlib reads them (``pip install -e ".[rllib]"``).

RLlib's action-masking RLModule (``ActionMaskingTorchRLModule`` in
``ray.rllib.examples.rl_modules.classes.action_masking_rlm``) wants a dict
observation ``{"observations", "action_mask"}``, and RLlib's MLP encoder
takes ``float32``. Our envs follow PettingZoo and Gymnasium instead (the key
``"observation"``, ``uint8`` vectors, an ``int8`` mask), so the two classes
here translate, and nothing else:

=================  ==========================================================
``RLlibAECEnv``    the PettingZoo AEC env (:func:`spar_env.env`, with its
                   wrappers) as an RLlib ``MultiAgentEnv``, through RLlib's own
                   ``PettingZooEnv``: agents ``player_0 ... player_{N-1}``, one
                   observation per step, for the seat to move
``RLlibSparEnv``   ``spar_env/Spar-v0`` (:class:`spar_env.SparEnv`, made by
                   ``gymnasium.make``), the learner against opponents
Observation        ``Dict(observations=Box(0, high, (D,), float32),
                   action_mask=Box(0, 1, (A,), float32))``: the same numbers
                   as the env's, cast; the mask is all zeros when the hand
                   is over
Config             ``env_config`` holds the env's keyword arguments
                   (``variant``, ``num_players``, ``opponents``, ruleset
                   options, ...)
=================  ==========================================================

Give RLlib the class itself (``PPOConfig().environment(RLlibAECEnv,
env_config={...})``): a remote env runner unpickles it by name, which
imports ``spar_env`` there and registers its envs. (With an env id string,
use the module-prefix form ``"spar_env:spar_env/Spar-v0"``, so that Gymnasium
imports ``spar_env`` in the worker first.)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import gymnasium as gym
import numpy as np
from pettingzoo import AECEnv
from pettingzoo.utils.wrappers import BaseWrapper

import spar_env

try:
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv
except ImportError as err:  # ray alone lacks RLlib's dependencies (dm_tree, ...)
    raise ImportError(f'spar_env.rllib needs RLlib: pip install -e ".[rllib]" ({err})') from err
from spar_env.envs import ENV_ID

OBSERVATIONS = "observations"  # the keys RLlib's action-masking module reads
ACTION_MASK = "action_mask"


def masked_space(observation: gym.spaces.Box, num_actions: int) -> gym.spaces.Dict:
    """The ``float32`` dict space of an observation space and an action count."""
    return gym.spaces.Dict(
        {
            OBSERVATIONS: gym.spaces.Box(
                observation.low.astype(np.float32), observation.high.astype(np.float32)
            ),
            ACTION_MASK: gym.spaces.Box(0.0, 1.0, (num_actions,), dtype=np.float32),
        }
    )


def masked_observation(observation: np.ndarray, mask: np.ndarray) -> dict[str, np.ndarray]:
    """One observation and its mask as :func:`masked_space` holds them."""
    return {
        OBSERVATIONS: observation.astype(np.float32),
        ACTION_MASK: mask.astype(np.float32),
    }


class _MaskedAECObservations(BaseWrapper):
    """An AEC env whose observations are RLlib's dict (``observations``, float32)."""

    def __init__(self, aec: AECEnv) -> None:
        super().__init__(aec)
        inner = aec.observation_space(aec.possible_agents[0])
        self._space = masked_space(inner["observation"], inner["action_mask"].shape[0])

    def observation_space(self, agent: str) -> gym.spaces.Dict:
        return self._space

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seen = self.env.observe(agent)
        return masked_observation(seen["observation"], seen["action_mask"])


class RLlibAECEnv(PettingZooEnv):
    """The AEC env as an RLlib ``MultiAgentEnv``, observations as RLlib's masking module reads them.

    Args:
        config: the keyword arguments of :func:`spar_env.env` (RLlib passes
            ``env_config`` here).
    """

    def __init__(self, config: Mapping[str, Any] | None = None) -> None:
        super().__init__(_MaskedAECObservations(spar_env.env(**dict(config or {}))))


class RLlibSparEnv(gym.ObservationWrapper):
    """``spar_env/Spar-v0`` with observations as RLlib's masking module reads them.

    Args:
        config: the keyword arguments of ``gymnasium.make("spar_env/Spar-v0",
            ...)`` (RLlib passes ``env_config`` here).
    """

    def __init__(self, config: Mapping[str, Any] | None = None) -> None:
        super().__init__(gym.make(ENV_ID, **dict(config or {})))
        self.observation_space = masked_space(
            self.env.observation_space, int(self.env.action_space.n)
        )

    def observation(self, observation: np.ndarray) -> dict[str, np.ndarray]:
        return masked_observation(observation, self.env.unwrapped.action_masks())
