"""The run's games shared out among rollout workers: processes here, or Ray actors.

:class:`SharedSource` is a wrapper around the run's source. The games of the
:class:`~spar_train.ppo.sources.mix.MixSource` a local run plays are shared out among workers,
each a :class:`~spar_train.ppo.wrappers.worker.RolloutWorker` that holds its part of them on
the batch core, a CPU copy of the policy and the opponent pools. What runs the workers is a
:class:`Crew`: worker processes on this machine (``rollout.workers``,
:mod:`~spar_train.ppo.wrappers.processes`) or Ray actors (``[ray] enabled``,
:mod:`~spar_train.ppo.wrappers.on_ray`). The rest of the run is the local one: only where the
rollouts come from changes.

**Which games a worker plays**: a single game's are shared out among the workers, a mix's go
whole to one worker each (:mod:`~spar_train.ppo.wrappers.shares`). The learner joins the
workers' rollouts game by game, in the mix's order: a game's shares one after another, then
the games (:func:`~spar_train.ppo.sources.base.join_workers`).

**One rollout.** The learner sends the network's weights once to every worker (the pool's
snapshots too, when they change); each plays ``rollout.hands`` hands in all its games and sends
back its decisions, which the learner joins; with ``rollout.inference = "learner"`` it asks the
learner for the networks' answers at each step of its games, and the learner answers every
worker's turns together once each has asked (:mod:`~spar_train.ppo.wrappers.served`).
Worker ``i`` draws from its own generator, seeded
by ``run.seed`` and ``i``, so a seed and a worker count fix the run (it is not the local run,
which draws every game from one generator), whichever crew plays it.

**The next rollout beside the update** (``rollout.overlap``). Asked for a rollout with another
to follow (``ahead``), the source sends the next one at once, with the weights as they are,
and the workers play it while the learner updates on this one::

    learner:  update 1 on R1 | update 2 on R2 | update 3 on R3 | ...
    workers:  R2 with θ1     | R3 with θ2     | R4 with θ3     | ...

Each rollout is then played by the policy one update older than the one that learns from it.
The decisions carry the log-probabilities of the policy that played them, and PPO's ratio is
taken against those, so the clipped objective corrects the lag as it corrects the drift within
an update's epochs (IMPALA and APPO run the same way).

**Checkpoints and faults.** The source keeps every worker's state (its games and its generator)
as it was before the rollout in flight, and what plays that rollout (:class:`Pending`: the
weights, the pool's snapshots, the hands). A checkpoint holds both, so a resumed run plays the
same rollout again and goes on exactly. A worker that dies (a killed process, a lost node) is
replaced by a new one in the state the dead one had before the rollout, which plays its share
again: the same share, so the run goes on as if nothing had happened and loses no update. Past
:data:`REPLACEMENTS` deaths in one rollout the run stops, saying how to resume it.
"""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
import torch

from spar_agents.base import Agent
from spar_agents.ppo.network import ActorCritic
from spar_agents.ppo.precision import Precision
from spar_train.games import GameMix
from spar_train.ppo.sources.base import PooledGames, Rollout, join_workers
from spar_train.ppo.sources.mix import Piece
from spar_train.ppo.sources.pools import MixPool, weights_of
from spar_train.ppo.wrappers.rpc import Asking, WorkerDied
from spar_train.ppo.wrappers.served import answer_workers
from spar_train.ppo.wrappers.worker import Played, WorkerState, arrays, tensors

REPLACEMENTS = 3  # new workers a share may need in one rollout before the run stops

log = logging.getLogger(__name__)


class WorkerLost(Exception):
    """Worker ``worker`` ended without answering (killed, or its node lost)."""

    def __init__(self, worker: int) -> None:
        super().__init__(f"rollout worker {worker} was lost")
        self.worker = worker


class Crew(Protocol):
    """What runs a :class:`SharedSource`'s workers, each a
    :class:`~spar_train.ppo.wrappers.worker.RolloutWorker`, called by method name."""

    size: int  # the number of workers

    def share(self, value: Any) -> Any:
        """``value`` made ready to send to several workers (Ray puts it in its object store)."""
        ...

    def send(self, worker: int, method: str, *args: Any) -> None:
        """Start the call ``method(*args)`` on worker ``worker``; at most one at a time each."""
        ...

    def answer(self) -> tuple[int, Any]:
        """The first answer to come of the calls under way, and whose; :class:`WorkerLost` if
        that worker died instead (its call is then no longer under way). An
        :class:`~spar_train.ppo.wrappers.rpc.Asking` is a question in the middle of a call,
        which goes on once :meth:`reply` answers it."""
        ...

    def reply(self, worker: int, answer: Any) -> None:
        """Answer worker ``worker``'s question (``rollout.inference = "learner"``)."""
        ...

    def replace(self, worker: int, state: WorkerState) -> None:
        """A new worker in place of ``worker``, in ``state``."""
        ...

    def call_all(self, method: str, args: Sequence[tuple[Any, ...]]) -> list[Any]:
        """``method(*args[i])`` on every worker ``i``, at once; their answers in order."""
        ...

    def name(self, worker: int) -> str:
        """How the log names worker ``worker`` (a process id, an actor's name)."""
        ...

    def close(self) -> None:
        """End every worker, at once where a call is under way (no one needs its answer)."""
        ...


@dataclass(frozen=True)
class Pending:
    """The rollout in flight: what plays it (the weights, the pool as it was) and how long."""

    weights: dict[str, torch.Tensor]
    mix: dict[str, float]
    keep: int
    snapshots: list[dict[str, torch.Tensor]]
    hands: int


class SharedSource(PooledGames):
    """The run's games shared out among a crew's workers (module docstring).

    It has a source's interface (:class:`~spar_train.ppo.sources.base.RolloutSource`; the
    ``rng`` passed to :meth:`collect` is not used: the workers draw from their own), and two
    more calls: :meth:`submit` starts the next rollout and returns at once; :meth:`gather`
    waits for it.

    Args:
        mix: the run's games.
        pieces: each worker's games and how many of each
            (:func:`~spar_train.ppo.wrappers.shares.worker_pieces`).
        crew: what runs the workers; worker ``i`` plays ``pieces[i]``.
        key: the config key that sets the number of workers, for messages.
        overlap: play the next rollout beside the update when another follows
            (``rollout.overlap``); else each rollout is played when asked for.
        served: the learner's process answers the workers' turns, in this arithmetic
            (``rollout.inference = "learner"``, :mod:`~spar_train.ppo.wrappers.served`);
            None: each worker answers its own.
    """

    def __init__(self, mix: GameMix, pieces: Sequence[Sequence[Piece]], crew: Crew,
                 key: str, *, overlap: bool = False,
                 served: Precision | None = None) -> None:  # fmt: skip
        if served is not None and overlap:
            raise ValueError("the learner cannot answer the workers' turns while it updates "
                             '(rollout.inference = "learner" with rollout.overlap)')  # fmt: skip
        self.games = list(mix.games)
        self.pieces = [list(p) for p in pieces]
        self.crew, self.key, self.overlap, self.served = crew, key, overlap, served
        self._answering: tuple[ActorCritic, MixPool] | None = None  # served: who answers
        self.replaced = 0  # workers replaced so far
        self.pending: Pending | None = None
        self._states: list[WorkerState] = crew.call_all("state", [()] * crew.size)
        # The snapshots each worker's pool holds, by the pool's (mix, keep): a pool replaces its
        # list of snapshots, never edits it, so the list's identity says whether they changed.
        self._holds: list[dict[tuple[Any, ...], list]] = [{} for _ in range(crew.size)]
        self._teacher: tuple[Any, list[Any]] = (None, [None] * crew.size)
        self._shared: tuple[Any, Any] = (None, None)  # (weights, snapshots) as the crew shares them

    def submit(self, model: ActorCritic, pool: MixPool, hands: int,
               teacher: Sequence[Agent] | None = None) -> None:  # fmt: skip
        """Start the next rollout in every worker, with the model's weights as they are now."""
        if self.pending is not None:
            raise RuntimeError("a rollout is already in flight: gather it first")
        if teacher is not self._teacher[0]:
            refs = [None] * self.crew.size if teacher is None else self._share_teachers(teacher)
            self._teacher = (teacher, refs)
        if self.served is not None:  # no update comes before the gather: no overlap
            self._answering = (model, pool)
        self._start(Pending(weights_of(model), dict(pool.mix), pool.keep, pool.snapshots, hands))

    def _start(self, pending: Pending) -> None:
        self.pending = pending
        self._shared = (self.crew.share(pending.weights), None)
        for worker in range(self.crew.size):
            self._send(worker)

    def _send(self, worker: int) -> None:
        """Send worker ``worker`` the rollout in flight: the snapshots only if it lacks them."""
        p = self.pending
        assert p is not None
        key = (tuple(p.mix.items()), p.keep)
        snapshots = None
        if self._holds[worker].get(key) is not p.snapshots:
            weights, shared = self._shared
            if shared is None:
                shared = self.crew.share(p.snapshots)
                self._shared = (weights, shared)
            snapshots = shared
            self._holds[worker][key] = p.snapshots
        self.crew.send(worker, "collect", self._shared[0], p.mix, p.keep, snapshots, p.hands,
                       self._teacher[1][worker], self.served is not None)  # fmt: skip

    def gather(self) -> Rollout:
        """The rollout in flight, once every worker has played its share (module docstring);
        its seconds also hold ``workers``, the slowest worker's, and ``transfer``, what the
        learner waited beyond that (sending, pickling, joining)."""
        if self.pending is None:
            raise RuntimeError("no rollout in flight")
        began = time.perf_counter()
        played: dict[int, Played] = {}
        states = list(self._states)
        waiting, lost = set(range(self.crew.size)), [0] * self.crew.size
        asking: dict[int, Any] = {}  # served: the questions of this step, by worker
        serving = 0.0  # served: the seconds of the learner's forward passes
        while waiting:
            try:
                worker, answer = self.crew.answer()
            except WorkerLost as e:
                asking.pop(e.worker, None)
                self._replace(e.worker, lost)
                continue
            if isinstance(answer, Asking):
                asking[worker] = answer.turns
            else:
                played[worker] = answer
                states[worker] = answer.state
                waiting.discard(worker)
            if asking and asking.keys() == waiting:  # every worker still playing has asked
                serving += self._serve(asking)
                asking.clear()
        self._states, self.pending = states, None
        answers = [played[worker] for worker in range(self.crew.size)]
        rollout = join_workers(self.games, self.pieces, [p.parts for p in answers])
        slowest = max(p.seconds for p in answers)
        waited = time.perf_counter() - began
        seconds = {**rollout.seconds, "workers": slowest, "transfer": max(0.0, waited - slowest)}
        if self.served is not None:
            seconds["served"] = serving
        return dataclasses.replace(rollout, seconds=seconds)

    def _serve(self, asking: dict[int, Any]) -> float:
        """Answer every worker's questions of one step together; the seconds it took."""
        assert self._answering is not None and self.served is not None
        began = time.perf_counter()
        model, pool = self._answering
        in_order = dict(sorted(asking.items()))  # one batch whatever order they asked in
        for worker, answers in answer_workers(model, pool, in_order, self.served).items():
            self.crew.reply(worker, answers)
        return time.perf_counter() - began

    def _replace(self, worker: int, lost: list[int]) -> None:
        """A new worker in place of a lost one, playing its share of the rollout again."""
        lost[worker] += 1
        if lost[worker] > REPLACEMENTS:
            raise WorkerDied(
                f"rollout worker {worker} died {lost[worker]} times in one rollout; "
                "resume the run from its last checkpoint"
            )
        log.warning("rollout worker %d (%s) died; a new one plays its share again",
                    worker, self.crew.name(worker))  # fmt: skip
        self.crew.replace(worker, self._states[worker])
        self.replaced += 1
        self._holds[worker] = {}
        self._send(worker)

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
        with ``ahead`` and the overlap the next one started at once, with the model as it is
        now."""
        del rng
        if self.pending is None:  # nothing played ahead (the first update of a session)
            self.submit(model, pool, hands, teacher)
        elif self.served is not None:  # a rollout resumed in flight: the learner answers it
            self._answering = (model, pool)
        rollout = self.gather()
        if ahead and self.overlap:
            self.submit(model, pool, hands, teacher)
        return rollout

    def _share_teachers(self, teacher: Sequence[Agent]) -> list[Any]:
        """Each worker's teachers: one a piece it plays."""
        return [self.crew.share([teacher[g] for g, _ in pieces]) for pieces in self.pieces]

    def state_dict(self) -> dict[str, Any]:
        """Every worker's games (as tensors) and generator before the rollout in flight, and
        what plays that rollout (None when none is)."""
        workers = [{k: v if k == "rng" else tensors(v) for k, v in s.items()} for s in self._states]
        pending = None if self.pending is None else vars(self.pending).copy()
        return {"workers": workers, "pending": pending}

    def load_state_dict(self, saved: dict[str, Any]) -> None:
        """Go on from a checkpoint: every worker's games, and the rollout that was in flight."""
        saved = one_form(saved)
        workers = saved.get("workers")
        if workers is None:
            raise ValueError(
                "the checkpoint's games were played in the learner's process (rollout.workers "
                "= 0, ray.enabled = false); resume the run without workers"
            )
        if len(workers) != self.crew.size:
            raise ValueError(
                f"the checkpoint holds the games of {len(workers)} rollout workers; this run "
                f"has {self.key} = {self.crew.size}: resume it with {self.key} = {len(workers)}"
            )
        if self.pending is not None:
            self.gather()  # nothing may be in flight while the games are replaced
        states = [{k: v if k == "rng" else arrays(v) for k, v in w.items()} for w in workers]
        self.crew.call_all("load_state", [(s,) for s in states])
        self._states = states
        self._holds = [{} for _ in range(self.crew.size)]
        pending = saved.get("pending")
        if pending is not None:
            self._start(Pending(**pending))

    def close(self) -> None:
        """End the workers (at once if a rollout is in flight: a stopped run's checkpoint holds
        what plays it again)."""
        self.crew.close()


def one_form(saved: dict[str, Any]) -> dict[str, Any]:
    """The games of a checkpoint in the form of any workers' (``workers``, ``pending``): the
    overlap's one worker kept them under ``overlap`` before the workers came; any other
    checkpoint's games as they are."""
    old = saved.get("overlap")
    if old is None:
        if "workers" in saved and "pending" not in saved:  # Ray's, before the overlap joined
            return {**saved, "pending": None}
        return saved
    pending = old["pending"]
    if pending is not None:
        pending = {k: v for k, v in pending.items() if k != "reward_scale"}  # it is the run's
    return {"workers": [{"games": old["games"], "rng": old["rng"]}], "pending": pending}
