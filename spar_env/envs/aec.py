"""# Spar (PettingZoo AEC)

Spar and its West African relatives as a PettingZoo AEC environment: one game,
one agent per seat, a thin adapter over the batch core (batch size 1).

=====================  ======================================================
Import                 ``import spar_env; spar_env.env(variant="spar")``
                       (or ``from spar_env.envs.aec import env, raw_env``)
Agents                 ``player_0 ... player_{N-1}`` (``player_i`` is seat ``i``)
Action space           ``Discrete(A)``: card ids (``rules.card_id("6H")``),
                       plus KEEP and EXCHANGE when ``weak_hand_exchange`` is on
Observation space      ``Dict(observation=Box(0, high, (D,), uint8),
                       action_mask=Box(0, 1, (A,), int8))``; the vector is the
                       seat's own view (:mod:`spar_env.observation.per_game`); the mask is
                       all zeros for a seat whose turn it is not
Rewards                zero-sum payoffs (``rules.payoff``) to every agent when
                       a hand ends, 0 otherwise
Episode                ``episode="hand"`` (default): one hand.
                       ``episode="session"``: hands follow one another (the
                       winner deals) until the ruleset's ``end`` (``target:T``,
                       ``stones:K``, ``hands:K``, ``one_hand``), with rewards
                       per hand
Truncation             ``max_cycles=K``: every agent is truncated as soon as
                       the agent to move has already moved ``K`` times
Illegal actions        ``raw_env`` raises ``ValueError`` naming the agent, the
                       card and the legal cards. ``env()`` follows PettingZoo's
                       convention: ``TerminateIllegalWrapper`` ends the game,
                       the offending agent gets ``illegal_reward`` (default:
                       one point worse than the most a hand can cost, so an
                       illegal move never beats a lost hand) and the others 0
                       (plus ``AssertOutOfBoundsWrapper`` and
                       ``OrderEnforcingWrapper``)
Render modes           ``"ansi"`` (returns text), ``"human"`` (prints it); the
                       table as ``render_seat`` sees it (``None``: a spectator,
                       who sees no hidden card)
Seeding                ``reset(seed=s)`` makes a new ``np.random.default_rng(s)``
Parallel API           none (``metadata["is_parallelizable"]`` is ``False``, so
                       ``aec_to_parallel`` refuses the env): who moves next
                       depends on who won the trick, so seats never move at
                       once. Step it turn by turn, or use
                       :class:`spar_env.SelfPlay` to move every seat of a
                       batch of games at once
Version                v0 (observation version :data:`spar_env.observation.per_game.OBS_VERSION`)
=====================  ======================================================

Keyword arguments: ``variant`` (a preset), ``num_players`` (``None``: the
preset's count, 4 for ``spar``), ``render_mode``, ``episode``, ``max_cycles``,
``render_seat``, and any ruleset option (``last_two="bonus"``,
``weak_hand_exchange=True``, ``end="stones:10"``, ...).
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from spar_env.core import describe_action
from spar_env.core.bits import unpack_into
from spar_env.envs.batch import GameBatch, default_illegal_reward, env_rules
from spar_env.envs.render import render_table
from spar_env.observation.per_game import Encoder


def env(illegal_reward: float | None = None, **kwargs: Any) -> AECEnv:
    """The AEC env with PettingZoo's usual wrappers (an illegal move ends the game).

    Args:
        illegal_reward: the offender's reward for an illegal move (``None``:
            :func:`~spar_env.envs.batch.default_illegal_reward`).
        **kwargs: the arguments of :class:`raw_env`.
    """
    aec = raw_env(**kwargs)
    if illegal_reward is None:
        illegal_reward = default_illegal_reward(aec.rules)
    aec = wrappers.TerminateIllegalWrapper(aec, illegal_reward=illegal_reward)
    aec = wrappers.AssertOutOfBoundsWrapper(aec)
    return wrappers.OrderEnforcingWrapper(aec)


class raw_env(AECEnv):  # noqa: N801 - PettingZoo's name
    """The unwrapped AEC env; see the module docstring."""

    metadata: dict[str, Any] = {
        "name": "spar_v0",
        "render_modes": ["human", "ansi"],
        "is_parallelizable": False,
        "render_fps": 1,
    }

    def __init__(
        self,
        variant: str = "spar",
        num_players: int | None = None,
        render_mode: str | None = None,
        *,
        episode: str = "hand",
        max_cycles: int | None = None,
        render_seat: int | None = None,
        **options: Any,
    ) -> None:
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None, 'human' or 'ansi'; got {render_mode!r}")
        if max_cycles is not None and max_cycles < 1:
            raise ValueError(
                f"max_cycles must be a positive whole number or None; got {max_cycles}"
            )
        self.rules = env_rules(variant, num_players, options)
        n = self.rules.players
        if render_seat is not None and not 0 <= render_seat < n:
            raise ValueError(f"render_seat must be a seat 0..{n - 1} or None; got {render_seat!r}")
        self.render_mode = render_mode
        self.render_seat = render_seat
        self.episode = episode
        self.max_cycles = max_cycles
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self.agent_name_mapping = {a: i for i, a in enumerate(self.possible_agents)}
        self._rng = np.random.default_rng()
        self._batch = GameBatch(self.rules, 1, self._rng, episode)
        self._encoder = Encoder(self._batch.layout)
        high = self._batch.layout.high
        self._observation_space = gym.spaces.Dict(
            {
                "observation": gym.spaces.Box(np.zeros_like(high), high, dtype=np.uint8),
                "action_mask": gym.spaces.Box(0, 1, (self.rules.num_actions,), dtype=np.int8),
            }
        )
        self._action_space = gym.spaces.Discrete(self.rules.num_actions)
        self._num_actions = self.rules.num_actions
        self._game = np.zeros(1, dtype=np.int64)  # the one game of the batch
        self._seat = np.zeros(1, dtype=np.int64)

    def observation_space(self, agent: str) -> gym.spaces.Dict:
        return self._observation_space  # the same object every time, as PettingZoo asks

    def action_space(self, agent: str) -> gym.spaces.Discrete:
        return self._action_space

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self._batch.rng = self._rng
        self._batch.restart()
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._moves = [0] * self.rules.players
        self.agent_selection = self.possible_agents[int(self._batch.state.current_player[0])]
        if self.render_mode == "human":
            self.render()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        state = self._batch.state
        self._seat[0] = self.agent_name_mapping[agent]
        vector = self._encoder.encode(state, self._seat, self._game, reuse=False)[0]
        mask = np.zeros((1, self._num_actions), dtype=np.int8)
        if state.current_player[0] == self._seat[0]:
            unpack_into(state.legal, mask)
        return {"observation": vector, "action_mask": mask[0]}

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        seat = self.agent_name_mapping[agent]
        state = self._batch.state
        if action is None:
            raise ValueError(f"{agent} is still playing: step(None) is for a finished agent")
        move = int(action)
        legal = int(state.legal[0])
        if not (0 <= move < self._num_actions and legal >> move & 1):
            names = [
                describe_action(self.rules, a) for a in range(self._num_actions) if legal >> a & 1
            ]
            card = describe_action(self.rules, move)
            raise ValueError(f"{agent} cannot play {card}; legal: {', '.join(names)}")
        paid = self._batch.step(np.array([move]), check=False)[0].tolist()
        self._moves[seat] += 1
        self._cumulative_rewards[agent] = 0.0
        self.rewards = {a: paid[self.agent_name_mapping[a]] for a in self.agents}
        if state.terminated[0]:
            self.terminations = dict.fromkeys(self.agents, True)
        else:
            self.agent_selection = self.possible_agents[int(state.current_player[0])]
            mover = self.agent_name_mapping[self.agent_selection]
            if self.max_cycles is not None and self._moves[mover] >= self.max_cycles:
                self.truncations = dict.fromkeys(self.agents, True)
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | None:
        if self.render_mode is None:
            gym.logger.warn("render() called without a render_mode; pass render_mode='ansi'")
            return None
        text = render_table(self._batch.state, 0, view=self.render_seat)
        if self.render_mode == "ansi":
            return text
        print(text + "\n")
        return None

    def close(self) -> None:
        pass
