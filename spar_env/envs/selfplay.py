"""The self-play batch API for trainers: the caller plays every seat, as in Pgx.

For each game of the batch the caller reads the seat to move, its observation
and its legal-action mask, gives one action per game, and gets back the
rewards of every seat::

    import numpy as np
    from spar_env.envs import SelfPlay

    games = SelfPlay("spar", num_players=4, batch_size=1024, seed=0)
    rng = np.random.default_rng(0)
    for _ in range(1000):
        seat, obs, mask = games.current_player, games.observation, games.action_mask
        logits = rng.normal(size=mask.shape)                  # your network here
        actions = np.where(mask, logits, -np.inf).argmax(axis=1)
        rewards = games.step(actions)                         # float32 [B, N], every seat
        finished = games.terminated                           # ended now; already dealt anew

``observe(seats)`` gives any seat's observation (for a critic that looks at
every seat). Autoreset follows Pgx's ``auto_reset``: a game whose episode
ends in a step is dealt a new episode in that same step, so after the step
``terminated`` and ``rewards`` tell how the old episode ended while
``current_player``, ``observation`` and ``action_mask`` already belong to the
new one. With ``autoreset=False`` a finished game stays over (its
``current_player`` is -1, its mask all False and its actions are ignored)
until the caller restarts it with :meth:`SelfPlay.reset`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from spar_env.envs.batch import GameBatch, env_rules
from spar_env.observation.per_game import Encoder


class SelfPlay:
    """A batch of games in which the caller chooses every seat's actions.

    Args:
        variant: a preset name.
        num_players: seats per game (``None``: the preset's count).
        batch_size: number of games.
        seed: seed of the batch's generator (``None``: fresh entropy).
        episode: ``"hand"`` or ``"session"`` (rewards are paid per hand either way).
        autoreset: deal a new episode to finished games at the next step.
        **options: ruleset options.
    """

    def __init__(
        self,
        variant: str = "spar",
        num_players: int | None = None,
        batch_size: int = 1,
        *,
        seed: int | None = None,
        episode: str = "hand",
        autoreset: bool = True,
        **options: Any,
    ) -> None:
        if batch_size < 1:
            raise ValueError(f"batch_size must be at least 1; got {batch_size}")
        self.rules = env_rules(variant, num_players, options)
        self.autoreset = autoreset
        self._episode = episode
        self._size = batch_size
        self.reset(seed)

    def reset(self, seed: int | None = None, games: np.ndarray | None = None) -> None:
        """New episodes in every game (a new generator if ``seed`` is given), or in ``games``."""
        if games is None:
            if seed is not None or not hasattr(self, "_batch"):
                rng = np.random.default_rng(seed)
                self._batch = GameBatch(self.rules, self._size, rng, self._episode)
                self._encoder = Encoder(self._batch.layout)
            else:
                self._batch.restart()
            self.rewards = np.zeros((self._size, self.num_players), dtype=np.float32)
            self._terminated = np.zeros(self._size, dtype=bool)
        else:
            games = np.asarray(games)
            self._batch.restart(games)
            self.rewards[games] = 0
            self._terminated[games] = False

    @property
    def state(self):
        """The core's state (read it, but leave it alone)."""
        return self._batch.state

    @property
    def batch_size(self) -> int:
        return self._batch.batch_size

    @property
    def num_players(self) -> int:
        return self.rules.players

    @property
    def num_actions(self) -> int:
        return self.rules.num_actions

    @property
    def observation_size(self) -> int:
        return self._batch.layout.size

    @property
    def current_player(self) -> np.ndarray:
        """``int64 [B]``: the seat to move in each game, ``-1`` once the episode is over."""
        return self.state.current_player.copy()

    @property
    def terminated(self) -> np.ndarray:
        """``bool [B]``: the episode ended in the last step (or earlier, without autoreset)."""
        return self._terminated.copy()

    @property
    def observation(self) -> np.ndarray:
        """``uint8 [B, D]``: the observation of the seat to move (seat 0's once over)."""
        return self.observe(np.maximum(self.state.current_player, 0))

    @property
    def action_mask(self) -> np.ndarray:
        """``bool [B, A]``: legal actions of the seat to move (all False once over)."""
        return self._batch.masks()

    def observe(self, seats: np.ndarray | int) -> np.ndarray:
        """``uint8 [B, D]``: the observations of ``seats`` (one per game, or one for all)."""
        return self._encoder.encode(self.state, seats).copy()

    def step(self, actions: np.ndarray, *, check: bool = True) -> np.ndarray:
        """Play one action per game (games that are over ignore theirs).

        Returns:
            ``float32 [B, N]``: the payoffs of this step for every seat.

        Raises:
            ValueError: on an illegal action (when ``check``), naming the game,
                seat, card and the legal cards.
        """
        self.rewards = self._batch.step(np.asarray(actions), check=check)
        self._terminated = self.state.terminated.copy()
        if self.autoreset and self._terminated.any():
            self._batch.restart(np.flatnonzero(self._terminated))
        return self.rewards
