"""A rollout source in a worker of its own: a process beside the learner, or a Ray actor.

A :class:`RolloutWorker` holds a :class:`~spar_train.ppo.sources.mix.MixSource` of its part of
the run's games, built in the worker from a picklable maker, with a generator of its own
(seeded by the run's seed and the worker's number), a CPU copy of the network and its opponent
pools. Each :meth:`~RolloutWorker.collect` receives the learner's weights (and the pool's
snapshots when they change), plays its games and sends back each game's rollout, its state
(its games and its generator), which the learner keeps for a checkpoint, and the seconds it
played.

A process runs a worker (:mod:`spar_train.ppo.wrappers.processes`, calling it by method name
through :mod:`spar_train.ppo.wrappers.rpc`); a Ray actor runs one on a node of a cluster
(:mod:`spar_train.ppo.wrappers.on_ray`).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np
import torch

from spar_agents.base import Agent
from spar_train.ppo.sources.base import ModelMaker, Rollout, SourceMaker
from spar_train.ppo.sources.lockstep import answer_here
from spar_train.ppo.sources.pools import MixPool
from spar_train.ppo.wrappers.served import AskLearner, Line

WORKER_STREAM = 2  # the workers' generators are (run.seed, WORKER_STREAM, worker)
# {"games": the source's state_dict, its tensors as arrays, "rng": its generator's state}. The
# games travel as NumPy arrays: torch cannot pickle its uint64 tensors (checkpoints are zip
# files, which can).
WorkerState = dict[str, Any]


@dataclass(frozen=True)
class Played:
    """A worker's answer to :meth:`RolloutWorker.collect`."""

    parts: list[Rollout]  # the rollout of each of its games, in the worker's order
    state: WorkerState  # its state after
    seconds: float  # what the call took here (the learner's wait less it is the transfer)


class RolloutWorker:
    """One rollout worker: its source (whatever it is handed), a CPU copy of the policy and
    the opponent pools."""

    def __init__(self, make_source: SourceMaker, seed: int, index: int, make_model: ModelMaker,
                 threads: int) -> None:  # fmt: skip
        torch.set_num_threads(threads)
        self.make_model = make_model
        self.rng = np.random.default_rng([seed, WORKER_STREAM, index])
        self.source = make_source(self.rng)
        self.model = make_model()
        self.pools: dict[tuple[Any, ...], MixPool] = {}
        self.line: Line | None = None  # to the learner, where a process runs it (rpc.serve_on)

    def state(self) -> WorkerState:
        return {"games": arrays(self.source.state_dict()), "rng": self.rng.bit_generator.state}

    def load_state(self, state: WorkerState) -> None:
        self.source.load_state_dict(tensors(state["games"]))
        self.rng.bit_generator.state = state["rng"]

    def collect(
        self,
        weights: dict[str, torch.Tensor],
        mix: dict[str, float],
        keep: int,
        snapshots: list[dict[str, torch.Tensor]] | None,
        hands: int,
        teacher: Sequence[Agent] | None,
        served: bool = False,
    ) -> Played:
        """Play ``hands`` hands in every game of this worker's source (with a ``teacher``: one
        agent a game of this worker, for imitation); ``snapshots`` if the pool's changed;
        ``served``: the learner's process answers the networks' turns
        (``rollout.inference = "learner"``, :mod:`~spar_train.ppo.wrappers.served`)."""
        began = time.perf_counter()
        self.model.load_state_dict(weights)
        key = (tuple(mix.items()), keep)
        if key not in self.pools:
            self.pools[key] = self.source.pool(mix, keep, self.make_model)
        pool = self.pools[key]
        if snapshots is not None:
            pool.load_snapshots(snapshots)
        answer = None
        if served:
            if self.line is None:
                raise RuntimeError("this worker has no line to the learner: only worker "
                                   "processes (rollout.workers) can ask it")  # fmt: skip
            answer = AskLearner(
                self.line, pool, partial(answer_here, self.model, precision=self.source.precision)
            )
        parts = self.source.collect_games(self.model, pool, hands, self.rng, teacher, answer)
        return Played(parts, self.state(), time.perf_counter() - began)


def arrays(saved: dict[str, Any]) -> dict[str, Any]:
    """A source's saved games, its tensors as NumPy arrays (at any depth), to travel (see
    :data:`WorkerState`)."""
    return {k: arrays(v) if isinstance(v, dict) else v.numpy() for k, v in saved.items()}


def tensors(saved: dict[str, Any]) -> dict[str, Any]:
    """Writable tensors of travelled arrays, at any depth (those read from Ray's object store
    are read-only)."""
    return {
        k: tensors(v) if isinstance(v, dict) else torch.from_numpy(np.array(v))
        for k, v in saved.items()
    }
