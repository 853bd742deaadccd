"""The native vector env of ``spar_env/Spar-v0``: many games in one batch of the core.

``gymnasium.make_vec("spar_env/Spar-v0", num_envs=N,
vectorization_mode="vector_entry_point")`` returns a :class:`SparVectorEnv`:
the same game as :class:`~spar_env.envs.single.SparEnv` (same keyword
arguments, spaces and rewards), but every sub-env is a game of one batch of
the core, so a step costs a few array operations for all games at once.

=================  ==========================================================
Observations       ``uint8 [num_envs, D]`` (a fresh array each call)
Actions            ``int [num_envs]`` (``MultiDiscrete``)
Action masks       ``info["action_mask"]`` ``int8 [num_envs, A]`` (with
                   ``info["_action_mask"]``) and :meth:`action_masks`; all
                   zeros for a sub-env whose episode just ended (its next
                   action is ignored)
Seats              ``info["seat"]``: the learner's seat in each game
Illegal actions    as in ``SparEnv``: by default the sub-env's episode ends
                   with ``illegal_reward`` and ``info["illegal_action"]``
Autoreset          ``AutoresetMode.NEXT_STEP`` (Gymnasium 1.x's default, as in
                   ``SyncVectorEnv``): the step after a sub-env terminates
                   resets it, ignores its action and returns the first
                   observation of the new episode with reward 0. Also
                   supported: ``autoreset_mode=AutoresetMode.SAME_STEP``
                   (the new episode starts in the step that ended the old
                   one; ``info["final_obs"]``/``info["final_info"]`` hold the
                   last observation and info) and ``DISABLED`` (reset games
                   with ``reset(options={"reset_mask": mask})``).
Seeding            ``reset(seed=s)`` seeds one generator for the whole batch
Attributes         ``call``, ``get_attr`` and ``set_attr`` as in
                   ``SyncVectorEnv`` (``envs.call("action_masks")``: one
                   ``bool [A]`` per sub-env), see
                   :mod:`spar_env.envs.sub_env_attrs`
=================  ==========================================================
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from numbers import Integral
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from spar_env.envs.batch import env_rules
from spar_env.envs.opponents import AgentBuilder, PolicySpec
from spar_env.envs.single import SparEnv, observation_space
from spar_env.envs.sub_env_attrs import SubEnvAttributes
from spar_env.envs.table import LearnerTable
from spar_env.rules import Ruleset


class SparVectorEnv(SubEnvAttributes, VectorEnv):
    """``num_envs`` games of Spar from the learner's seat, stepped together."""

    metadata: dict[str, Any] = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}

    def __init__(
        self,
        num_envs: int = 1,
        variant: str = "spar",
        num_players: int | None = None,
        *,
        seat: int | None = None,
        opponents: PolicySpec | Sequence[PolicySpec] = "random",
        episode: str = "hand",
        illegal_action: str = "terminate",
        illegal_reward: float | None = None,
        agent_builder: AgentBuilder | None = None,
        autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
        render_mode: str | None = None,
        **options: Any,
    ) -> None:
        if render_mode is not None:
            raise ValueError(f"SparVectorEnv does not render; got render_mode={render_mode!r}")
        if not isinstance(num_envs, Integral) or isinstance(num_envs, bool) or num_envs < 1:
            raise ValueError(f"num_envs must be a whole number of at least 1; got {num_envs!r}")
        num_envs = int(num_envs)
        # Annotated: mypy cannot infer them across the import cycle of spar_env's modules.
        self.autoreset_mode: AutoresetMode = AutoresetMode(autoreset_mode)
        self.metadata = {**self.metadata, "autoreset_mode": self.autoreset_mode}
        self.rules: Ruleset = env_rules(variant, num_players, options)
        self.num_envs = num_envs
        self.render_mode = None
        self._settings: dict[str, Any] = dict(
            episode=episode,
            seat=seat,
            opponents=opponents,
            illegal_action=illegal_action,
            illegal_reward=illegal_reward,
            agent_builder=agent_builder,
        )
        self._table: LearnerTable = LearnerTable(
            self.rules, num_envs, np.random.default_rng(), **self._settings
        )
        self.single_observation_space = observation_space(self._table)
        self.single_action_space = gym.spaces.Discrete(self.rules.num_actions)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self._needs_reset: np.ndarray = np.zeros(num_envs, dtype=bool)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        if seed is not None:
            self._table = LearnerTable(self.rules, self.num_envs, self.np_random, **self._settings)
        else:
            self._table.games.rng = self.np_random
        mask = (options or {}).get("reset_mask")
        games = np.arange(self.num_envs) if mask is None else np.flatnonzero(mask)
        self._table.restart(games)
        self._needs_reset[games] = False
        return self._table.observe().copy(), self._info()

    def step(
        self, actions: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        table = self._table
        resetting = self._needs_reset.copy()
        rewards = table.act(np.asarray(actions).reshape(self.num_envs))  # over games ignore it
        terminated = table.over
        info_extra: dict[str, Any] = {}
        if self.autoreset_mode == AutoresetMode.NEXT_STEP:
            if resetting.any():
                table.restart(np.flatnonzero(resetting))
                terminated[resetting] = False
            self._needs_reset = terminated.copy()
        elif self.autoreset_mode == AutoresetMode.SAME_STEP and terminated.any():
            info_extra = {
                "final_obs": table.observe().copy(),
                "final_info": self._info(),
                "_final_obs": terminated.copy(),
                "_final_info": terminated.copy(),
            }
            table.restart(np.flatnonzero(terminated))
        obs = table.observe().copy()
        truncated = np.zeros(self.num_envs, dtype=bool)
        return obs, rewards, terminated, truncated, {**self._info(), **info_extra}

    def action_masks(self) -> np.ndarray:
        """Legal actions ``bool [num_envs, A]`` of each game's learner."""
        return self._table.masks()

    def _sub_env_values(self) -> dict[str, Callable[[], Any]]:
        every = [None] * self.num_envs
        return {
            "action_masks": lambda: list(self.action_masks()),
            "seat": lambda: self._table.learner.tolist(),
            "rules": lambda: [self.rules for _ in every],
            "observation_space": lambda: [self.single_observation_space for _ in every],
            "action_space": lambda: [self.single_action_space for _ in every],
            "render_mode": lambda: [None for _ in every],
            "metadata": lambda: [SparEnv.metadata for _ in every],
        }

    def _info(self) -> dict[str, Any]:
        ones = np.ones(self.num_envs, dtype=bool)
        return {
            "action_mask": self.action_masks().view(np.int8),  # 0/1 bytes: a view, no copy
            "_action_mask": ones,
            "seat": self._table.learner.copy(),
            "_seat": ones,
            "illegal_action": self._table.forfeited.copy(),
            "_illegal_action": ones,
        }
