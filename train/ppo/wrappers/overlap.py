"""The next rollout beside the update: ``rollout.overlap = true``.

Without it a run collects a rollout, then updates on it, then collects the
next: each half waits for the other. With it the games live in a worker
process of their own, which plays rollout ``k + 1`` with the weights of update
``k`` while the learner runs update ``k + 1`` on rollout ``k``::

    learner:  update 1 on R1 | update 2 on R2 | update 3 on R3 | ...
    worker:   R2 with θ1     | R3 with θ2     | R4 with θ3     | ...

Each rollout is therefore played by the policy one update older than the one
that learns from it. Nothing else has to change for that: the decisions carry
the log-probabilities of the policy that played them, and PPO's ratio is
taken against those, so the clipped objective corrects the lag as it corrects
the drift within an update's epochs (IMPALA and APPO run the same way).

:class:`OverlapSource` is a wrapper around the run's source
(:class:`~spar_train.ppo.sources.mix.MixSource`): the source lives in a
:class:`~spar_train.ppo.wrappers.worker.RolloutWorker`, as in a Ray actor, in a fresh
interpreter of its own (a fork would copy torch's thread pools), with
``rollout.overlap_threads`` torch threads for its forward passes. The loop asks it for a
rollout as it asks any source, saying whether another follows (``ahead``): it then sends the
worker the next one at once, with the weights as they are. It
draws from its own generator, seeded by ``run.seed``, so a seed fixes an
overlapped run as it fixes any other (which one update waits for the other
does not enter). A checkpoint holds the worker's games as they were before
the rollout in flight, with the weights and snapshots that play it; a resumed
run plays that rollout again, the same one, and goes on exactly.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np
import torch

from spar_agents.base import Agent
from spar_agents.ppo.network import ActorCritic
from spar_agents.ppo.precision import Precision
from spar_train.ppo.games import GameMix, build_model, reward_scale
from spar_train.ppo.sources.base import PooledGames, Rollout, join_games
from spar_train.ppo.sources.mix import mix_source
from spar_train.ppo.sources.pools import MixPool, weights_of
from spar_train.ppo.wrappers.worker import ProcessWorker, RolloutWorker
from spar_train.sections import Config


@dataclass(frozen=True)
class Pending:
    """The rollout in flight: what plays it (the weights, the pool as it was) and how long.

    ``reward_scale`` is the home game's, as checkpoints have always held it (each game's
    rewards are scaled by the source itself)."""

    weights: dict[str, torch.Tensor]
    mix: dict[str, float]
    keep: int
    snapshots: list[dict[str, torch.Tensor]]
    hands: int
    reward_scale: float


class OverlapSource(PooledGames):
    """The run's source in a worker process (module docstring).

    It has a source's interface (:class:`~spar_train.ppo.sources.base.RolloutSource`) and
    two more calls: :meth:`submit` starts the next rollout in the worker and returns at once;
    :meth:`gather` waits for it.

    Args:
        make_worker: builds the :class:`~spar_train.ppo.wrappers.worker.RolloutWorker`
            (picklable: it is built in the worker process).
        mix: the run's games.
        reward_scale: the home game's, recorded with the rollout in flight.
    """

    def __init__(self, make_worker: Callable[[], Any], mix: GameMix, reward_scale: float) -> None:
        self.games = list(mix.games)
        self._reward_scale = reward_scale
        self._worker = ProcessWorker(make_worker)
        self._before: dict[str, Any] = self._worker.call("state")  # the games before `pending`
        self.pending: Pending | None = None
        self._sent_snapshots: list | None = None  # the snapshots the worker holds

    @property
    def worker_pid(self) -> int | None:
        """The worker process's id."""
        return self._worker.pid

    def submit(self, model: ActorCritic, pool: MixPool, hands: int,
               teacher: Sequence[Agent] | None = None) -> None:  # fmt: skip
        """Start the next rollout with the model's weights as they are now."""
        if self.pending is not None:
            raise RuntimeError("a rollout is already in flight: gather it first")
        pending = Pending(weights_of(model), dict(pool.mix), pool.keep, list(pool.snapshots),
                          hands, self._reward_scale)  # fmt: skip
        self._send(pending, teacher)

    def _send(self, pending: Pending, teacher: Sequence[Agent] | None = None) -> None:
        # The worker keeps its pool between calls: the snapshots travel only when they change.
        changed = self._sent_snapshots is None or not _same(self._sent_snapshots, pending.snapshots)
        snapshots = pending.snapshots if changed else None
        self._worker.send("collect", pending.weights, pending.mix, pending.keep, snapshots,
                          pending.hands, teacher)  # fmt: skip
        self._sent_snapshots = pending.snapshots
        self.pending = pending

    def gather(self) -> Rollout:
        """The rollout in flight, once the worker has played it."""
        if self.pending is None:
            raise RuntimeError("no rollout in flight")
        parts, state = self._worker.receive()
        self.pending = None
        self._before = state
        return join_games(self.games, parts)

    def collect(
        self,
        model: ActorCritic,
        pool: MixPool,
        hands: int,
        rng: np.random.Generator,
        teacher: Sequence[Agent] | None = None,
        *,
        ahead: bool = False,
    ) -> Rollout:
        """The rollout in flight (or, with none, one played now with the model as it is), and
        with ``ahead`` the next one started at once, with the model as it is now; ``rng`` is
        not used: the worker draws from its own."""
        del rng
        if self.pending is None:  # nothing played ahead (the first update of a session)
            self.submit(model, pool, hands, teacher)
        rollout = self.gather()
        if ahead:
            self.submit(model, pool, hands, teacher)
        return rollout

    def state_dict(self) -> dict[str, Any]:
        """The worker's games and generator before the rollout in flight, and what plays it."""
        games = {k: torch.from_numpy(np.array(v)) for k, v in self._before["games"].items()}
        pending = None if self.pending is None else vars(self.pending).copy()
        return {"overlap": {"games": games, "rng": self._before["rng"], "pending": pending}}

    def load_state_dict(self, saved: dict[str, Any]) -> None:
        """Go on from a checkpoint: the worker's games, and the rollout that was in flight."""
        mine = saved.get("overlap")
        if mine is None:
            raise ValueError("the checkpoint's games were played without rollout.overlap")
        if self.pending is not None:
            self.gather()  # nothing may be in flight while the games are replaced
        state = {"games": {k: v.numpy() for k, v in mine["games"].items()}, "rng": mine["rng"]}
        self._worker.call("load_state", state)
        self._before = state
        self._sent_snapshots = None
        if mine["pending"] is not None:
            self._send(Pending(**mine["pending"]))

    def close(self) -> None:
        """End the worker process (at once if a rollout is in flight: a stopped run's
        checkpoint holds what plays it again)."""
        self._worker.close(busy=self.pending is not None)


def _same(a: list, b: list) -> bool:
    """Whether two lists of snapshots are the very same ones (a pool replaces, never edits)."""
    return len(a) == len(b) and all(x is y for x, y in zip(a, b, strict=True))


def overlap_source(config: Config, mix: GameMix, precision: Precision) -> OverlapSource:
    """The run's source in a worker process; its worker plays on the CPU, in ``precision``
    (``rollout.precision`` resolved there)."""
    return OverlapSource(worker_maker(config, mix, precision), mix, reward_scale(config, mix.home))


def worker_maker(config: Config, mix: GameMix, precision: Precision) -> Callable[[], RolloutWorker]:
    """What builds the overlap's worker in its process (picklable): the run's whole source,
    the run's seed, ``rollout.overlap_threads`` torch threads."""
    make_source = mix_source(mix, config, precision=precision)
    return partial(RolloutWorker, make_source, config.run.seed, 0,
                   partial(build_model, config, mix), config.rollout.overlap_threads)  # fmt: skip
