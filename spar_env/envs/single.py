"""``spar_env/Spar-v0``: a Gymnasium single-agent env, the learner against opponents.

=================  ==========================================================
Observation        ``Box(0, high, (D,), uint8)``: the learner's view, see
                   :mod:`spar_env.observation.per_game` (``D = 379`` for ``spar``, 4 players)
Action             ``Discrete(A)``: a card id (``rules.card_id("6H")``), plus
                   KEEP and EXCHANGE when ``weak_hand_exchange`` is on
Action mask        ``info["action_mask"]`` (``int8 [A]``) and
                   :meth:`SparEnv.action_masks` (``bool [A]``, the sb3-contrib
                   ``MaskablePPO`` convention); all zeros once the episode ends
Reward             the learner's zero-sum payoff when a hand ends, else 0
Episode            one hand (``episode="hand"``, default) or a whole session
                   (``episode="session"``: to the ruleset's ``end``, with a
                   reward per hand)
Opponents          ``"random"`` (default), any agent spec of the registry
                   (``"heuristic"``, ``"pimc:worlds=16"``, ...), an agent
                   object, or a callable
                   ``policy(obs [G, D], mask [G, A], rng) -> actions [G]``;
                   or a list of ``N - 1`` of them, for the seats after the
                   learner's in order of play. Specs are built by
                   ``agent_builder(spec, rules)`` when given, else by the
                   installed registry (:mod:`spar_env.envs.opponents`)
Seat               ``seat=None`` (default): a random seat each episode
Render modes       ``"ansi"`` (returns the table as text), ``"human"``
                   (prints it), from the learner's seat
Version            v0
=================  ==========================================================

Illegal actions: by default (``illegal_action="terminate"``) an illegal action
ends the episode with reward ``illegal_reward`` (default: one point worse than
the most a hand can cost) and ``info["illegal_action"] = True``; this is what
Gymnasium's ``check_env`` needs, as it steps with unmasked random actions.
With ``illegal_action="raise"`` it raises ``ValueError`` naming the card and
the legal cards. Other keyword arguments are ruleset options (``last_two="bonus"``,
``face_down="off_suit"``, ``end="target:5"``, ...).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np

from spar_env.envs.batch import env_rules
from spar_env.envs.opponents import AgentBuilder, PolicySpec
from spar_env.envs.render import render_table
from spar_env.envs.table import LearnerTable


def observation_space(table: LearnerTable) -> gym.spaces.Box:
    """The learner's observation space of a table's ruleset."""
    high = table.games.layout.high
    return gym.spaces.Box(low=np.zeros_like(high), high=high, dtype=np.uint8)


class SparEnv(gym.Env[np.ndarray, np.int64]):
    """Spar (or a relative) from one seat; the other seats are played by opponents."""

    metadata = {"render_modes": ["ansi", "human"], "render_fps": 1}

    def __init__(
        self,
        variant: str = "spar",
        num_players: int | None = None,
        *,
        seat: int | None = None,
        opponents: PolicySpec | Sequence[PolicySpec] = "random",
        episode: str = "hand",
        illegal_action: str = "terminate",
        illegal_reward: float | None = None,
        agent_builder: AgentBuilder | None = None,
        render_mode: str | None = None,
        **options: Any,
    ) -> None:
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None, 'ansi' or 'human'; got {render_mode!r}")
        self.rules = env_rules(variant, num_players, options)
        self.render_mode = render_mode
        self._settings: dict[str, Any] = dict(
            episode=episode,
            seat=seat,
            opponents=opponents,
            illegal_action=illegal_action,
            illegal_reward=illegal_reward,
            agent_builder=agent_builder,
        )
        self._table = LearnerTable(self.rules, 1, np.random.default_rng(), **self._settings)
        self.observation_space = observation_space(self._table)
        self.action_space = gym.spaces.Discrete(self.rules.num_actions)

    @property
    def seat(self) -> int:
        """The learner's seat in this episode."""
        return int(self._table.learner[0])

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        if seed is not None:
            self._table = LearnerTable(self.rules, 1, self.np_random, **self._settings)
        else:
            self._table.games.rng = self.np_random
        self._table.restart(np.zeros(1, dtype=np.int64))
        if self.render_mode == "human":
            self.render()
        return self._observation(), self._info()

    def step(
        self, action: int | np.integer
    ) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        reward = self._table.act(np.array([action], dtype=np.int64))
        terminated = bool(self._table.over[0])
        if self.render_mode == "human":
            self.render()
        return self._observation(), float(reward[0]), terminated, False, self._info()

    def action_masks(self) -> np.ndarray:
        """Legal actions ``bool [A]`` (sb3-contrib ``MaskablePPO`` reads this)."""
        return self._table.masks()[0]

    def render(self) -> str | None:
        if self.render_mode is None:
            gym.logger.warn("render() called without a render_mode; pass render_mode='ansi'")
            return None
        text = render_table(self._table.state, 0, view=self.seat)
        if self.render_mode == "ansi":
            return text
        print(text + "\n")
        return None

    def _observation(self) -> np.ndarray:
        return self._table.observe()[0].copy()

    def _info(self) -> dict[str, Any]:
        return {
            "action_mask": self.action_masks().astype(np.int8),
            "seat": self.seat,
            "illegal_action": bool(self._table.forfeited[0]),
        }
