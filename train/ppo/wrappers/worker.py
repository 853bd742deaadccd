"""A rollout source in a worker of its own: a process beside the learner, or a Ray actor.

A :class:`RolloutWorker` holds a :class:`~spar_train.ppo.sources.mix.MixSource` of its part of
the run's games, built in the worker from a picklable maker, with a generator of its own
(seeded by the run's seed and the worker's number), a CPU copy of the network and its opponent
pools. Each :meth:`~RolloutWorker.collect` receives the learner's weights (and the pool's
snapshots when they change), plays its games and sends back each game's rollout, its state
(its games and its generator), which the learner keeps for a checkpoint, and the seconds it
played.

:class:`ProcessWorker` runs an object such as a worker in a process of its own and calls it
by method name (:mod:`spar_train.ppo.wrappers.processes`); a Ray actor runs one on a node of
a cluster (:mod:`spar_train.ppo.wrappers.on_ray`).
"""

from __future__ import annotations

import contextlib
import pickle
import signal
import socket
import subprocess
import sys
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from multiprocessing.connection import Connection
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
        self.line: Line | None = None  # to the learner, where a process runs it (serve_on)

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


class WorkerDied(ChildProcessError):
    """The rollout process ended without answering, or failed: an ``OSError``, so that ``spar``
    says it in one line; ``details`` holds the worker's traceback where it failed (empty where
    the process was lost: killed, or out of memory)."""

    def __init__(self, message: str, details: str = "") -> None:
        super().__init__(message)
        self.details = details

    @property
    def lost(self) -> bool:
        """The process ended without a reason of its own: another may play its share."""
        return not self.details


def _put(conn: Connection, message: Any) -> None:
    """Send with plain pickle: multiprocessing's own pickler would pass tensors through shared
    memory, whose handshake needs a process multiprocessing started."""
    conn.send_bytes(pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL))


def _get(conn: Connection) -> Any:
    return pickle.loads(conn.recv_bytes())


@dataclass(frozen=True)
class Asking:
    """What :meth:`ProcessWorker.receive` returns for a worker that asks the learner in the
    middle of a call (:class:`LearnerLine`): the call is still under way."""

    turns: Any


class LearnerLine:
    """A worker process's line to the learner (a :class:`~spar_train.ppo.wrappers.served.Line`):
    in the middle of a call, it sends a question and waits for the answer."""

    def __init__(self, conn: Connection) -> None:
        self._conn = conn

    def ask(self, turns: Any) -> Any:
        _put(self._conn, ("ask", turns))
        return _get(self._conn)


def serve_on(fd: int) -> None:
    """The worker process's main: read the pickled ``make_worker`` from the socket ``fd``,
    build the worker, then answer ``(method, args)`` calls until None (or the learner's end).
    A worker with a ``line`` attribute is given its line to the learner (:class:`LearnerLine`)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C stops the learner, which ends us
    torch.set_num_threads(1)  # until the worker sets its own
    conn = Connection(fd)
    try:
        worker = _get(conn)()
    except EOFError:
        return
    except BaseException:
        _answer(conn, ("error", traceback.format_exc()))
        return
    if hasattr(worker, "line"):
        worker.line = LearnerLine(conn)
    if not _answer(conn, ("ok", None)):
        return
    while True:
        try:
            call = _get(conn)
        except (EOFError, OSError):  # the learner is gone
            return
        if call is None:
            return
        method, args = call
        try:
            answer = ("ok", getattr(worker, method)(*args))
        except BaseException:
            answer = ("error", traceback.format_exc())
        if not _answer(conn, answer):
            return


def _answer(conn: Connection, message: Any) -> bool:
    """Send ``message`` to the learner; False if it is gone (killed), so that the worker
    ends quietly instead of printing a broken pipe's traceback on the learner's terminal."""
    try:
        _put(conn, message)
    except OSError:
        return False
    return True


class ProcessWorker:
    """An object built by ``make_worker`` in a process of its own, called by method name:
    :meth:`send` a call, then :meth:`receive` its answer (or :meth:`call` for both).

    The process is a fresh interpreter (``python -c``) on one end of a socket pair: unlike
    multiprocessing's spawn, it never runs the caller's main script again, so a script
    needs no ``if __name__ == "__main__"`` guard to train with the overlap."""

    def __init__(self, make_worker: Callable[[], Any], *, wait: bool = True) -> None:
        """Start the process and send it ``make_worker``; with ``wait``, wait until it is
        built (else call :meth:`receive` for that, so that several start at once)."""
        mine, theirs = socket.socketpair()
        with theirs:
            fd = theirs.fileno()
            command = f"from {__name__} import serve_on; serve_on({fd})"
            self._process = subprocess.Popen([sys.executable, "-c", command], pass_fds=[fd])
        self._conn = Connection(mine.detach())
        self._put(make_worker)  # the first message is the worker's maker
        if wait:
            self.receive()  # built, or the reason it could not be

    @property
    def pid(self) -> int | None:
        return self._process.pid

    @property
    def connection(self) -> Connection:
        """Its end of the socket (``multiprocessing.connection.wait`` takes it)."""
        return self._conn

    def send(self, method: str, *args: Any) -> None:
        self._put((method, args))

    def _put(self, message: Any) -> None:
        try:
            _put(self._conn, message)
        except OSError:  # a broken pipe: the process is gone
            raise self._died() from None

    def receive(self) -> Any:
        try:
            status, value = _get(self._conn)
        except (EOFError, OSError):
            raise self._died() from None
        if status == "error":
            last = value.strip().splitlines()[-1] if value.strip() else "no reason given"
            raise WorkerDied(f"the rollout process failed: {last}", value)
        if status == "ask":
            return Asking(value)
        return value

    def reply(self, answer: Any) -> None:
        """Answer the question of an :class:`Asking` (its call goes on)."""
        self._put(answer)

    def _died(self) -> WorkerDied:
        with contextlib.suppress(subprocess.TimeoutExpired):
            self._process.wait(timeout=5)
        return WorkerDied(
            f"the rollout process died (exit code {self._process.returncode}); "
            "resume the run from its last checkpoint"
        )

    def call(self, method: str, *args: Any) -> Any:
        self.send(method, *args)
        return self.receive()

    def close(self, busy: bool = False) -> None:
        """End the process: ask it to, or (``busy``: a call under way, whose answer no one
        needs, as when the run is stopped) kill it at once."""
        if self._process.poll() is None:
            with contextlib.suppress(OSError):  # it may be ending already
                _put(self._conn, None)
            try:
                self._process.wait(timeout=0 if busy else 10)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
        self._conn.close()
