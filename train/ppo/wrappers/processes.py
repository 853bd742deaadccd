"""Rollout workers as processes on this machine: ``rollout.workers``, and ``rollout.overlap``.

:class:`ProcessCrew` runs each worker of a :class:`~spar_train.ppo.wrappers.shared.SharedSource`
in a :class:`~spar_train.ppo.wrappers.rpc.ProcessWorker`: a fresh interpreter (a fork would
copy torch's thread pools) with ``rollout.worker_threads`` torch threads for its forward passes.
They start together, and the learner reads their answers as they come
(``multiprocessing.connection.wait``). A worker whose process ends without answering (killed,
out of memory) is replaced by a new process; one that fails with an error of its own stops the
run with that error, since a new one would fail the same way.

:func:`process_source` is the run's source on ``rollout.workers`` processes (``"auto"``: one a
core this process may use, :func:`resolve_workers`); ``rollout.overlap`` alone plays the whole
mix in one worker process, beside the update.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from functools import partial
from multiprocessing.connection import wait
from typing import Any

from spar_agents.ppo.precision import Precision
from spar_train.games import GameMix
from spar_train.ppo.wrappers.rpc import Asking, ProcessWorker, WorkerDied
from spar_train.ppo.wrappers.shared import SharedSource, WorkerLost
from spar_train.ppo.wrappers.shares import WorkerSources, worker_args
from spar_train.ppo.wrappers.worker import RolloutWorker, WorkerState
from spar_train.sections import Config

AUTO = "auto"


class ProcessCrew:
    """Worker processes, each building a :class:`RolloutWorker` of ``args[i]`` (module
    docstring; a :class:`~spar_train.ppo.wrappers.shared.Crew`)."""

    def __init__(self, args: Sequence[tuple[Any, ...]]) -> None:
        self._args = list(args)
        self.size = len(self._args)
        self._workers: list[ProcessWorker] = []
        self._busy: set[int] = set()  # the workers with a call under way
        try:
            self._workers = [ProcessWorker(self._maker(i), wait=False) for i in range(self.size)]
            for worker in self._workers:  # they build at once, each in its process
                worker.receive()
        except BaseException:
            self.close()
            raise

    def _maker(self, worker: int) -> partial[RolloutWorker]:
        return partial(RolloutWorker, *self._args[worker])

    @property
    def pids(self) -> list[int | None]:
        """The worker processes' ids."""
        return [w.pid for w in self._workers]

    def share(self, value: Any) -> Any:
        return value  # each process is sent its own copy

    def send(self, worker: int, method: str, *args: Any) -> None:
        self._busy.add(worker)
        self._tell(worker, lambda w: w.send(method, *args))

    def answer(self) -> tuple[int, Any]:
        if not self._busy:
            raise RuntimeError("no call under way")
        by_connection = {self._workers[w].connection: w for w in self._busy}
        ready = wait(list(by_connection))
        worker = min(by_connection[c] for c in ready)  # type: ignore[index]
        self._busy.discard(worker)
        try:
            answer = self._workers[worker].receive()
        except WorkerDied as e:
            if e.lost:
                raise WorkerLost(worker) from e
            raise
        if isinstance(answer, Asking):  # a question in the middle of its call
            self._busy.add(worker)
        return worker, answer

    def reply(self, worker: int, answer: Any) -> None:
        self._tell(worker, lambda w: w.reply(answer))

    def _tell(self, worker: int, message: Callable[[ProcessWorker], None]) -> None:
        """Send worker ``worker`` a message; one gone before it heard it is found by
        :meth:`answer`, whose end of the socket is then closed."""
        try:
            message(self._workers[worker])
        except WorkerDied as e:
            if not e.lost:
                raise

    def replace(self, worker: int, state: WorkerState) -> None:
        self._workers[worker].close(busy=True)
        self._workers[worker] = ProcessWorker(self._maker(worker))
        self._workers[worker].call("load_state", state)

    def call_all(self, method: str, args: Sequence[tuple[Any, ...]]) -> list[Any]:
        for worker, one in zip(self._workers, args, strict=True):
            worker.send(method, *one)
        return [worker.receive() for worker in self._workers]

    def name(self, worker: int) -> str:
        return f"process {self._workers[worker].pid}"

    def close(self) -> None:
        for i, worker in enumerate(self._workers):
            worker.close(busy=i in self._busy)
        self._busy.clear()


def resolve_workers(workers: int | str, games: Sequence[int]) -> int:
    """``rollout.workers`` as a number: ``"auto"`` is one worker a core this process may use,
    at most one a game (``games``: each game's number of games; a mix's go whole to one worker).
    """
    if workers != AUTO:
        return int(workers)
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    most = games[0] if len(games) == 1 else len(games)
    return max(1, min(cores or 1, most))


def process_source(config: Config, mix: GameMix, sources: WorkerSources, *,
                   served: Precision | None = None) -> SharedSource:  # fmt: skip
    """The run's source on worker processes (module docstring), each playing the source that
    ``sources`` gives for its games; with ``served``, the learner's process answers their
    networks' turns, in that arithmetic (``rollout.inference = "learner"``)."""
    workers = resolve_workers(config.rollout.workers, mix.shares(config.rollout.games))
    pieces, args = worker_args(config, mix, sources, max(1, workers),  # overlap alone: one
                               config.rollout.worker_threads)  # fmt: skip
    return SharedSource(mix, pieces, ProcessCrew(args), "rollout.workers",
                        overlap=config.rollout.overlap, served=served)  # fmt: skip
