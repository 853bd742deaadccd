"""PPO rollouts on Ray actors: ``spar train CONFIG --ray``, or ``[ray] enabled = true``.

:class:`RayCrew` runs the workers of a :class:`~spar_train.ppo.wrappers.shared.SharedSource`
(which games each plays, how their rollouts join, checkpoints and faults are told there) as
``ray.workers`` actors, each a :class:`~spar_train.ppo.wrappers.worker.RolloutWorker`, on the
nodes of a cluster or a local Ray. The learner puts the network's weights in Ray's object
store once a rollout, and every worker reads them from there (the pool's snapshots too, when
they change). An actor that dies (a killed process, a lost node) is killed for good, in case
it was only unreachable, and a new one takes its place under the next generation's name.
"""

from __future__ import annotations

import secrets
import weakref
from collections.abc import Sequence
from typing import Any

from spar_train.distributed import connect
from spar_train.games import GameMix
from spar_train.ppo.wrappers.shared import SharedSource, WorkerLost
from spar_train.ppo.wrappers.shares import WorkerSources, worker_args
from spar_train.ppo.wrappers.worker import RolloutWorker, WorkerState
from spar_train.sections import Config, RaySection


class RayCrew:
    """Ray actors, each a :class:`RolloutWorker` of ``args[i]`` (module docstring; a
    :class:`~spar_train.ppo.wrappers.shared.Crew`).

    Args:
        args: each worker's arguments.
        settings: ``[ray]``.
        name: the run's name, in the actors' names.
    """

    def __init__(self, args: Sequence[tuple[Any, ...]], settings: RaySection,
                 name: str = "run") -> None:  # fmt: skip
        self.ray = connect(settings.address, settings.timeout)
        self._args, self.settings, self.run_name = list(args), settings, name
        self.size = len(self._args)
        self._worker_class = self.ray.remote(RolloutWorker)
        self._generation = [0] * self.size
        self._session = secrets.token_hex(3)  # this crew's actors, apart from a resumed one's
        self._actors: list[Any] = []
        self._calls: dict[Any, int] = {}  # the calls under way: their result's ref, by worker
        self._finalizer = weakref.finalize(self, _kill, self.ray, self._actors)
        self._actors.extend(self._start(i) for i in range(self.size))

    def name(self, worker: int) -> str:
        """The Ray name of worker ``worker``'s current actor (``ray list actors`` shows it):
        ``spar-rollout/RUN/SESSION/WORKER-GENERATION``, the generation counting replacements."""
        return f"spar-rollout/{self.run_name}/{self._session}/{worker}-{self._generation[worker]}"

    def _start(self, worker: int) -> Any:
        threads = self.settings.cpus_per_worker
        actor = self._worker_class.options(name=self.name(worker), num_cpus=threads)
        return actor.remote(*self._args[worker])

    def share(self, value: Any) -> Any:
        return self.ray.put(value)

    def send(self, worker: int, method: str, *args: Any) -> None:
        self._calls[getattr(self._actors[worker], method).remote(*args)] = worker

    def answer(self) -> tuple[int, Any]:
        (ready,), _ = self.ray.wait(list(self._calls), num_returns=1)
        worker = self._calls.pop(ready)
        try:
            return worker, self.ray.get(ready)
        except self.ray.exceptions.RayActorError as e:
            raise WorkerLost(worker) from e

    def reply(self, worker: int, answer: Any) -> None:
        raise RuntimeError("Ray actors answer their own turns: rollout.inference = "
                           '"learner" is for worker processes (rollout.workers)')  # fmt: skip

    def replace(self, worker: int, state: WorkerState) -> None:
        self.ray.kill(self._actors[worker])  # if it is only unreachable, it must not come back
        self._generation[worker] += 1
        actor = self._start(worker)
        actor.load_state.remote(state)  # runs before any later call
        self._actors[worker] = actor

    def call_all(self, method: str, args: Sequence[tuple[Any, ...]]) -> list[Any]:
        calls = [getattr(a, method).remote(*one) for a, one in zip(self._actors, args, strict=True)]
        return self.ray.get(calls)

    def close(self) -> None:
        """End the actors (also done when the crew is dropped)."""
        self._calls.clear()
        self._finalizer()


def ray_source(config: Config, mix: GameMix, sources: WorkerSources) -> SharedSource:
    """The run's source on ``ray.workers`` actors, each playing the source that ``sources``
    gives for its games (in the arithmetic the driver resolved, not each node's own ``auto``)."""
    pieces, args = worker_args(config, mix, sources, config.ray.workers,
                               config.ray.cpus_per_worker)  # fmt: skip
    return SharedSource(mix, pieces, RayCrew(args, config.ray, config.run.name), "ray.workers")


def _kill(ray: Any, actors: list[Any]) -> None:
    if ray.is_initialized():  # else the actors ended with it
        for actor in actors:
            ray.kill(actor)
