"""The rollout source: every game of a run's mix on the batch core, in lockstep.

A run's games are a :class:`~spar_train.games.GameMix`; a single game is a mix of one.
:class:`MixSource` gives each game its share of ``rollout.games``
(:meth:`~spar_train.games.GameMix.shares`) and plays it in a
:class:`~spar_train.ppo.sources.batch.GameBatch` of its own, each recording what the learner
reads of its game (its own observation, or observation v2 and the v2 action grid in a
``game.mix``), so that the records of every game concatenate into one PPO batch for the one
network (:func:`~spar_train.ppo.sources.base.join_games`). The games play in lockstep: each
step's decisions of every game are answered by one forward pass per network, the learner's and
each snapshot's (:mod:`spar_train.ppo.sources.lockstep`). Each game's rewards are scaled by its
own payoff scale (:func:`~spar_train.games.reward_scale`).

A worker (:mod:`spar_train.ppo.wrappers`) plays a part of the mix: ``pieces`` names its
games and how many of each it plays (a whole game of a mix on Ray, a share of a single game).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from functools import partial
from typing import Any

import numpy as np
import torch

from spar_agents.base import Agent
from spar_agents.ppo.network import ActorCritic
from spar_agents.ppo.precision import Precision
from spar_train.games import GameMix, reward_scale
from spar_train.match.reward import match_table_of
from spar_train.ppo.sources.base import PlayedWhenAsked, Rollout, SourceMaker
from spar_train.ppo.sources.batch import GameBatch
from spar_train.ppo.sources.lockstep import Answer, Play, play_in_lockstep
from spar_train.ppo.sources.pools import MixPool
from spar_train.sections import Config

Piece = tuple[int, int]  # (a game's index in the mix, how many of its games to play)


class MixSource(PlayedWhenAsked):
    """Plays every game of a mix (or the ``pieces`` of it a worker plays); its rollout is the
    concatenation of every game's (module docstring).

    Args:
        mix: the run's games.
        config: the run's config (``rollout.games``, the rewards' settings).
        rng: draws the deals, the seats and the learner's actions.
        precision: the arithmetic of the learner's forward passes, resolved where they run.
        pieces: the games to play and how many of each, in the mix's order; by default every
            game of the mix with its share of ``rollout.games``.
    """

    def __init__(
        self,
        mix: GameMix,
        config: Config,
        rng: np.random.Generator,
        *,
        precision: Precision = "float32",
        pieces: Sequence[Piece] | None = None,
    ) -> None:
        if pieces is None:
            pieces = list(enumerate(mix.shares(config.rollout.games)))
        self.games = [mix.games[i] for i, _ in pieces]
        self.precision = precision
        self.batches = [
            GameBatch(
                game.rules,
                games,
                rng,
                game.view,
                reward_scale(config, game.rules),
                match_table=match_table_of(config, game.rules),
                random_starts=config.ppo.match_starts,
            )  # fmt: skip
            for game, (_, games) in zip(self.games, pieces, strict=True)
        ]

    def collect_games(
        self,
        model: ActorCritic,
        pool: MixPool,
        hands: int,
        rng: np.random.Generator,
        stand_ins: Sequence[Agent] | None = None,
        answer: Answer | None = None,
    ) -> list[Rollout]:
        """The rollout of each game, in order (:meth:`collect` joins them; a worker sends
        them to be joined with the other workers'); ``stand_ins``: one agent a game that plays
        the learner's seats (:class:`~spar_train.ppo.sources.batch.Hand`); ``answer`` answers
        the networks' turns (:func:`~spar_train.ppo.sources.lockstep.play_in_lockstep`; by
        default, here)."""
        privileged = model.privileged > 0
        plays = [
            batch.play(
                pool.pools[i],
                hands,
                rng,
                privileged,
                stand_in=None if stand_ins is None else stand_ins[i],
            )  # fmt: skip
            for i, batch in enumerate(self.batches)
        ]
        return collect_in_lockstep(model, plays, self.precision, answer)

    def state_dict(self) -> dict[str, torch.Tensor]:
        """Every game's games between hands, under the game's key."""
        return {
            game.keyed(key, "/"): value
            for game, batch in zip(self.games, self.batches, strict=True)
            for key, value in batch.state_dict().items()
        }

    def load_state_dict(self, saved: dict[str, Any]) -> None:
        refuse_workers_games(saved)
        for game, batch in zip(self.games, self.batches, strict=True):
            prefix = game.keyed("", "/")
            mine = {k[len(prefix) :]: v for k, v in saved.items() if k.startswith(prefix)}
            if not mine:
                raise ValueError(f"saved games: none of {game.name}")
            batch.load_state_dict(mine)

    def close(self) -> None:
        """Nothing to release: the games live here."""


def mix_source(
    mix: GameMix,
    config: Config,
    *,
    precision: Precision = "float32",
    pieces: Sequence[Piece] | None = None,
) -> SourceMaker:
    """What builds the run's source from a generator (picklable: a worker builds it there):
    a :class:`MixSource` of ``mix`` (or of its ``pieces``), the arguments as its own."""
    return partial(MixSource, mix, config, precision=precision, pieces=pieces)


def collect_in_lockstep(
    model: ActorCritic,
    plays: Sequence[Play[Rollout]],
    precision: Precision = "float32",
    answer: Answer | None = None,
) -> list[Rollout]:
    """The rollouts of several :meth:`~spar_train.ppo.sources.batch.GameBatch.play` driven
    together (:func:`~spar_train.ppo.sources.lockstep.play_in_lockstep`), each with its share
    of the forward passes' time in its ``learner`` and ``opponents`` seconds."""
    rollouts, seconds = play_in_lockstep(model, plays, precision, answer)
    return [
        dataclasses.replace(
            r,
            seconds={
                **r.seconds,
                "learner": r.seconds["learner"] + float(learner),
                "opponents": r.seconds["opponents"] + float(opponents),
            },  # fmt: skip
        )
        for r, (learner, opponents) in zip(rollouts, seconds, strict=True)
    ]


def refuse_workers_games(saved: dict[str, Any]) -> None:
    """A ``ValueError`` for the games of a checkpoint played by rollout workers (processes or
    Ray actors, :mod:`spar_train.ppo.wrappers.shared`), which a source here cannot go on with."""
    workers = saved.get("workers", [None] if "overlap" in saved else None)
    if workers is not None:
        raise ValueError(
            f"the checkpoint's games were played by {len(workers)} rollout workers; resume the "
            f"run with them (rollout.workers = {len(workers)}, or ray.enabled = true and "
            f"ray.workers = {len(workers)})"
        )
