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

The worker is a :class:`~spar_train.distributed.rollout.RolloutWorker`, as a Ray
actor is, in a fresh interpreter of its own (a fork would copy torch's thread
pools), with ``rollout.overlap_threads`` torch threads for its forward passes. It
draws from its own generator, seeded by ``run.seed``, so a seed fixes an
overlapped run as it fixes any other (which one update waits for the other
does not enter). A checkpoint holds the worker's games as they were before
the rollout in flight, with the weights and snapshots that play it; a resumed
run plays that rollout again, the same one, and goes on exactly.
"""

from __future__ import annotations

import contextlib
import dataclasses
import pickle
import signal
import socket
import subprocess
import sys
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from multiprocessing.connection import Connection
from typing import Any

import numpy as np
import torch

from spar_agents.ppo.network import ActorCritic
from spar_agents.ppo.precision import resolve
from spar_env.rules import Ruleset
from spar_train.game_mix import (
    MixCollector,
    MixGame,
    MixRollouts,
    is_mix,
    join_games,
    mix_games,
)
from spar_train.match.reward import match_table_of
from spar_train.opponent_pool import OpponentPool, weights_of
from spar_train.rollout import Collector, Rollout
from spar_train.sections import Config


class WorkerDied(ChildProcessError):
    """The rollout process ended without answering, or failed: an ``OSError``, so that ``spar``
    says it in one line; ``details`` holds the worker's traceback, where it failed."""

    def __init__(self, message: str, details: str = "") -> None:
        super().__init__(message)
        self.details = details


def _put(conn: Connection, message: Any) -> None:
    """Send with plain pickle: multiprocessing's own pickler would pass tensors through shared
    memory, whose handshake needs a process multiprocessing started."""
    conn.send_bytes(pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL))


def _get(conn: Connection) -> Any:
    return pickle.loads(conn.recv_bytes())


def serve_on(fd: int) -> None:
    """The worker process's main: read the pickled ``make_worker`` from the socket ``fd``,
    build the worker, then answer ``(method, args)`` calls until None (or the learner's end)."""
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

    def __init__(self, make_worker: Callable[[], Any]) -> None:
        mine, theirs = socket.socketpair()
        with theirs:
            fd = theirs.fileno()
            command = f"from spar_train.overlap import serve_on; serve_on({fd})"
            self._process = subprocess.Popen([sys.executable, "-c", command], pass_fds=[fd])
        self._conn = Connection(mine.detach())
        self._put(make_worker)  # the first message is the worker's maker
        self.receive()  # built, or the reason it could not be

    @property
    def pid(self) -> int | None:
        return self._process.pid

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
        return value

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


@dataclass(frozen=True)
class Pending:
    """The rollout in flight: what plays it (the weights, the pool as it was) and how long."""

    weights: dict[str, torch.Tensor]
    mix: dict[str, float]
    keep: int
    snapshots: list[dict[str, torch.Tensor]]
    hands: int
    reward_scale: float


class OverlapCollector:
    """A collector whose games live in a worker process (module docstring).

    It has a collector's interface (:meth:`collect`, ``state_dict``, ``load_state_dict``,
    :meth:`close`) and two more calls for the overlap: :meth:`submit` starts the next
    rollout in the worker and returns at once; :meth:`gather` waits for it.

    Args:
        make_worker: builds the :class:`~spar_train.distributed.rollout.RolloutWorker`
            (picklable: it is built in the worker process).
        join: one rollout of the worker's parts (a mix's games, or the one game's).
        rules: the game (a mix: its first), as a local collector has.
    """

    def __init__(
        self, make_worker: Callable[[], Any], join: Callable[[list[Rollout]], Rollout],
        rules: Ruleset,
    ) -> None:  # fmt: skip
        self._rules = rules
        self._join = join
        self._worker = ProcessWorker(make_worker)
        self._before: dict[str, Any] = self._worker.call("state")  # the games before `pending`
        self.pending: Pending | None = None
        self._sent_snapshots: list | None = None  # the snapshots the worker holds

    @property
    def rules(self) -> Ruleset:
        """The game (a mix: its first), as a local collector has."""
        return self._rules

    @property
    def worker_pid(self) -> int | None:
        """The worker process's id."""
        return self._worker.pid

    def submit(self, model: ActorCritic, pool: OpponentPool, hands: int, reward_scale: float,
               teacher: Any = None) -> None:  # fmt: skip
        """Start the next rollout with the model's weights as they are now."""
        if self.pending is not None:
            raise RuntimeError("a rollout is already in flight: gather it first")
        pending = Pending(weights_of(model), dict(pool.mix), pool.keep, list(pool.snapshots),
                          hands, reward_scale)  # fmt: skip
        self._send(pending, teacher)

    def _send(self, pending: Pending, teacher: Any = None) -> None:
        # The worker keeps its pool between calls: the snapshots travel only when they change.
        changed = self._sent_snapshots is None or not _same(self._sent_snapshots, pending.snapshots)
        snapshots = pending.snapshots if changed else None
        self._worker.send("collect", pending.weights, pending.mix, pending.keep, snapshots,
                          pending.hands, pending.reward_scale, teacher)  # fmt: skip
        self._sent_snapshots = pending.snapshots
        self.pending = pending

    def gather(self) -> Rollout:
        """The rollout in flight, once the worker has played it."""
        if self.pending is None:
            raise RuntimeError("no rollout in flight")
        parts, state = self._worker.receive()
        self.pending = None
        self._before = state
        return self._join(parts)

    def collect(self, model: ActorCritic, pool: OpponentPool, hands: int,
                rng: np.random.Generator, reward_scale: float, teacher: Any = None) -> Rollout:  # fmt: skip
        """A rollout now, with the model as it is (the warm start's; ``rng`` is not used:
        the worker draws from its own)."""
        del rng
        self.submit(model, pool, hands, reward_scale, teacher)
        return self.gather()

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


class OverlapMixCollector(OverlapCollector, MixRollouts):
    """A mix's overlapped collector: it offers the run what a local mix collector does
    (:class:`~spar_train.game_mix.MixRollouts`: ``games``, the pools, the teachers)."""

    def __init__(self, make_worker: Callable[[], Any], games: list[MixGame]) -> None:
        self.games = games
        super().__init__(make_worker, partial(join_games, games), games[0].rules)


def overlap_collector(config: Config, rules: Ruleset) -> OverlapCollector:
    """The overlapped collector of a run config (a game or a mix); its worker plays on the
    CPU, in the arithmetic ``rollout.precision`` means there."""
    from spar_train.distributed.rollout import RolloutWorker
    from spar_train.model import build_model

    precision = resolve(config.rollout.precision)
    if is_mix(config):
        played = config.replace(rollout=dataclasses.replace(config.rollout, precision=precision))
        make_collector: Callable[..., Any] = partial(MixCollector, played)
    else:
        make_collector = partial(Collector, rules, config.rollout.games, precision=precision,
                                 match_table=match_table_of(config, rules))  # fmt: skip
    make_worker = partial(RolloutWorker, make_collector, config.run.seed, 0,
                          partial(build_model, config, rules), config.rollout.overlap_threads)  # fmt: skip
    if is_mix(config):
        return OverlapMixCollector(make_worker, mix_games(config))
    return OverlapCollector(make_worker, _only, rules)


def _only(parts: list[Rollout]) -> Rollout:
    (rollout,) = parts
    return rollout
