"""Calling an object in a process of its own by method name: the rollout workers' line.

:class:`ProcessWorker` starts a fresh interpreter (``python -c``) on one end of a socket pair
and sends it a picklable maker; the process (:func:`serve_on`) builds the object, then answers
``(method, args)`` calls until told to stop or the caller is gone. Messages are plain pickles,
framed by :class:`multiprocessing.connection.Connection`; only objects this process made cross
the socket, never a user's file. In the middle of a call the object may ask the caller a
question down its ``line`` (:class:`LearnerLine`; the caller sees an :class:`Asking`, and
answers with :meth:`ProcessWorker.reply`). A process that ends without answering raises
:class:`WorkerDied`.

:mod:`spar_train.ppo.wrappers.processes` runs a crew of rollout workers this way.
"""

from __future__ import annotations

import contextlib
import pickle
import signal
import socket
import subprocess
import sys
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any

import torch


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
