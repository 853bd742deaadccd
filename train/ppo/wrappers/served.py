"""Inference in the learner's process: every rollout worker's turns answered in one batch.

With ``rollout.inference = "learner"`` the rollout workers (``rollout.workers``) still step
their games on their own cores, but do not run the network for them. At each step of its games
a worker sends the turns they ask (the learner's seats, and each snapshot opponent's) to the
learner's process and waits (:class:`AskLearner`). The learner waits until every worker still
playing has asked, joins their turns and answers them with one forward pass per network on its
device (:func:`answer_workers`, which is
:func:`~spar_train.ppo.sources.lockstep.answer_here` over every worker's turns), then sends
each worker its answers::

    worker 1:  step | ask ......... | act, step | ask ......... | ...
    worker 2:  step | ask ......... | act, step | ask ......... | ...
    learner:          forward passes of both   |  forward passes of both

This is central inference, as SEED RL does it: on a GPU box sixteen workers' decisions make
one large batch for the GPU instead of sixteen small ones on the CPU. On a machine without a
GPU it adds the transfers and buys nothing (docs/scaling.md has the figures).

The workers still draw every action from their own generators, so a seed and a worker count
fix the run, as without it. An opponent network that is not a snapshot of the learner (a fixed
``onnx:`` or ``ppo:`` agent of the pool) is answered in the worker, as before; so is whatever
a worker's source plays apart from the turns it hands over, over the worker's CPU copy of the
network.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from spar_agents.ppo.network import ActorCritic
from spar_agents.ppo.precision import Precision
from spar_train.ppo.sources.lockstep import (
    Answer,
    LearnerTurn,
    PolicyTurn,
    Turn,
    answer_here,
    shared_by_rows,
)
from spar_train.ppo.sources.pools import MixPool


@dataclass(frozen=True)
class SnapshotTurn:
    """A snapshot opponent's turn as it travels: which of the pool's snapshots
    (:attr:`~spar_train.ppo.sources.pools.MixPool.networks`), and what it reads."""

    index: int
    obs: np.ndarray  # uint8 [g, D]
    mask: np.ndarray  # bool [g, A]


Asked = list[LearnerTurn | SnapshotTurn]  # one worker's turns of one step, as they travel


class Line(Protocol):
    """A worker's line to the learner's process, in the middle of a call."""

    def ask(self, turns: Asked) -> list[Any]:
        """Send ``turns``, and wait for their answers."""
        ...


class AskLearner:
    """A worker's :data:`~spar_train.ppo.sources.lockstep.Answer` that asks the learner's
    process (module docstring): the learner's and the snapshots' turns go down ``line``, any
    other network's are answered here by ``local``.

    Args:
        line: the worker's line to the learner.
        pool: the worker's pool, whose snapshots' order the learner's pool shares.
        local: answers the turns of networks that are not snapshots.
    """

    def __init__(self, line: Line, pool: MixPool, local: Answer) -> None:
        self.line, self.pool, self.local = line, pool, local

    def __call__(self, turns: list[Turn]) -> tuple[list[Any], np.ndarray]:
        snapshot = {id(model): k for k, model in enumerate(self.pool.networks)}
        sent: list[int] = []
        wire: Asked = []
        kept: list[int] = []
        for k, turn in enumerate(turns):
            if isinstance(turn, LearnerTurn):
                wire.append(turn)
            elif id(turn.model) in snapshot:
                wire.append(SnapshotTurn(snapshot[id(turn.model)], turn.obs, turn.mask))
            else:
                kept.append(k)
                continue
            sent.append(k)
        outs: list[Any] = [None] * len(turns)
        seconds = np.zeros((len(turns), 2))
        if kept:
            found, took = self.local([turns[k] for k in kept])
            seconds[kept] = took
            for k, out in zip(kept, found, strict=True):
                outs[k] = out
        if wire:
            began = time.perf_counter()
            answers = self.line.ask(wire)
            # The wait (the learner's passes and the transfers), shared by rows, each turn's
            # share in its network's column: the learner's, or the opponents'.
            share = shared_by_rows(time.perf_counter() - began, [turns[k] for k in sent])
            for k, out, part in zip(sent, answers, share, strict=True):
                outs[k] = out
                seconds[k, 0 if isinstance(turns[k], LearnerTurn) else 1] = part
        return outs, seconds


def answer_workers(
    model: ActorCritic, pool: MixPool, asked: dict[int, Asked], precision: Precision
) -> dict[int, list[Any]]:
    """Every worker's turns of one step (``asked``, by worker) answered together: one forward
    pass per network, the learner's ``model`` and the snapshots of its ``pool``, in
    ``precision``; each worker's answers in the order it asked."""
    turns: list[Turn] = []
    for worker_turns in asked.values():
        turns += [_here(turn, pool.networks) for turn in worker_turns]
    outs, _ = answer_here(model, turns, precision)
    answers: dict[int, list[Any]] = {}
    at = 0
    for worker, worker_turns in asked.items():
        answers[worker] = outs[at : at + len(worker_turns)]
        at += len(worker_turns)
    return answers


def _here(turn: LearnerTurn | SnapshotTurn, networks: Sequence[ActorCritic]) -> Turn:
    """A turn as it travelled, with the learner's own network for a snapshot's."""
    if isinstance(turn, LearnerTurn):
        return turn
    if not 0 <= turn.index < len(networks):
        raise RuntimeError(
            f"a rollout worker asked for snapshot {turn.index}; the learner's pool holds "
            f"{len(networks)}"
        )
    return PolicyTurn(networks[turn.index], turn.obs, turn.mask)
