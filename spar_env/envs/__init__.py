"""The doors for RL users: PettingZoo AEC, Gymnasium single-agent and vector envs, self-play.

Every env here is a thin adapter over the batch core (:mod:`spar_env.core`)
and the observation encoder (:mod:`spar_env.observation.per_game`); none holds a rule.

- :func:`env` / :class:`raw_env`: PettingZoo AEC (:mod:`spar_env.envs.aec`).
- ``spar_env/Spar-v0``: Gymnasium single-agent env (:class:`SparEnv`), with a
  native vector env (:class:`SparVectorEnv`) for ``gymnasium.make_vec(...,
  vectorization_mode="vector_entry_point")``. Registered by
  :func:`register_envs`.
- :class:`SelfPlay`: the caller plays every seat of a batch (Pgx style).
"""

from __future__ import annotations

import gymnasium as gym

from spar_env.envs.aec import env, raw_env
from spar_env.envs.render import render_table
from spar_env.envs.selfplay import SelfPlay
from spar_env.envs.single import SparEnv
from spar_env.envs.vector import SparVectorEnv

ENV_ID = "spar_env/Spar-v0"


def register_envs() -> None:
    """Register ``spar_env/Spar-v0`` with Gymnasium (safe to call more than once)."""
    if ENV_ID in gym.registry:
        return
    gym.register(
        id=ENV_ID,
        entry_point="spar_env.envs.single:SparEnv",
        vector_entry_point="spar_env.envs.vector:SparVectorEnv",
    )


__all__ = [
    "ENV_ID",
    "SelfPlay",
    "SparEnv",
    "SparVectorEnv",
    "env",
    "raw_env",
    "register_envs",
    "render_table",
]
