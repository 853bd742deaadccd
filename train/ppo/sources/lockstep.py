"""Many games' network decisions in few forward passes: the batches of a rollout in lockstep.

A batch's :meth:`~spar_train.ppo.sources.batch.GameBatch.play` is a generator. At each
step of its games it yields the decisions networks must take:

- a :class:`LearnerTurn`, the learner's seats: answered with the policy's
  log-probabilities and the critic's values;
- a :class:`PolicyTurn` for each opponent that is a network (a snapshot of
  the pool): answered with the policy's probabilities;

and it is sent the answers back, in the order asked. :func:`play_in_lockstep`
drives many such generators at once (one per game of a mix,
:mod:`spar_train.ppo.sources.mix`): each round, it groups every pending turn by network
and each network answers its group in one forward pass (:func:`answer_here`). For 49 games
of a few hundred hands each, that is one pass per network and step instead of 49. A rollout
worker may pass the round's turns on instead, to be answered in the learner's process together
with every other worker's (``rollout.inference = "learner"``,
:mod:`spar_train.ppo.wrappers.served`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, TypeVar

import numpy as np
import torch

from spar_agents.ppo.network import ActorCritic
from spar_agents.ppo.precision import Precision, arithmetic

R = TypeVar("R")


@dataclass(frozen=True)
class LearnerTurn:
    """The learner's decisions of one step in one batch: what the network reads."""

    obs: np.ndarray  # uint8 [g, D]
    legal: np.ndarray  # uint64 [g] legal actions as a bit set
    mask: np.ndarray  # bool [g, A] the same, unpacked
    extra: np.ndarray | None  # uint8 [g, E] the privileged critic's input, if any


@dataclass(frozen=True, eq=False)
class PolicyTurn:
    """An opponent network's decisions of one step in one batch."""

    model: ActorCritic
    obs: np.ndarray  # uint8 [g, D]
    mask: np.ndarray  # bool [g, A]


Turn = LearnerTurn | PolicyTurn
Play = Generator[list[Turn], list[Any], R]
"""A batch's play: yields the turns of a step, is sent their answers, returns its result."""


Answer = Callable[[list[Turn]], tuple[list[Any], np.ndarray]]
"""What answers a round's turns: each turn's answer, and the seconds ``[len(turns), 2]`` of
forward passes each took (the learner's column, then the opponents')."""


def play_in_lockstep(
    learner: ActorCritic,
    plays: Sequence[Play[R]],
    precision: Precision = "float32",
    answer: Answer | None = None,
) -> tuple[list[R], np.ndarray]:
    """Drive ``plays`` together (module docstring); the matrix products in ``precision``.
    ``answer`` answers each round's turns: by default :func:`answer_here` (with the learner
    and ``precision``), or another's, such as a rollout worker's that asks the learner's
    process (:mod:`spar_train.ppo.wrappers.served`).

    Returns each play's result, and the seconds of forward passes each was answered
    by, ``[len(plays), 2]``: the learner's, then the opponents' (a pass's time shared
    out by rows).
    """
    if answer is None:
        answer = partial(answer_here, learner, precision=precision)
    results: dict[int, R] = {}
    seconds = np.zeros((len(plays), 2))
    pending: dict[int, list[Turn]] = {}

    def advance(i: int, answers: list[Any] | None) -> None:
        try:
            pending[i] = plays[i].send(answers)  # type: ignore[arg-type]  # None starts it
        except StopIteration as stop:
            results[i] = stop.value

    for i in range(len(plays)):
        advance(i, None)
    while pending:
        asked = dict(pending)
        pending.clear()
        whose = [i for i, turns in asked.items() for _ in turns]
        outs, took = answer([turn for turns in asked.values() for turn in turns])
        np.add.at(seconds, whose, took)
        answers = iter(outs)
        for i, turns in asked.items():
            advance(i, [next(answers) for _ in turns])
    return [results[i] for i in range(len(plays))], seconds


def answer_here(
    learner: ActorCritic, turns: Sequence[Turn], precision: Precision = "float32"
) -> tuple[list[Any], np.ndarray]:
    """Answer ``turns`` here (an :data:`Answer`): grouped by network, one forward pass each,
    whatever batch or worker each turn came from; a pass's time shared out by rows."""
    outs: list[Any] = [None] * len(turns)
    seconds = np.zeros((len(turns), 2))
    by_network: dict[int, list[int]] = {}
    for k, turn in enumerate(turns):
        network = learner if isinstance(turn, LearnerTurn) else turn.model
        by_network.setdefault(id(network), []).append(k)
    for members in by_network.values():
        group = [turns[k] for k in members]
        begin = time.perf_counter()
        if isinstance(group[0], LearnerTurn):
            found, column = learner_answers(learner, group, precision), 0  # type: ignore[arg-type]
        else:
            found, column = policy_answers(group, precision), 1  # type: ignore[assignment,arg-type]
        seconds[members, column] = shared_by_rows(time.perf_counter() - begin, group)
        for k, out in zip(members, found, strict=True):
            outs[k] = out
    return outs, seconds


def shared_by_rows(seconds: float, turns: Sequence[Turn]) -> np.ndarray:
    """``seconds`` shared out among ``turns`` by their rows (games)."""
    rows = np.array([t.obs.shape[0] for t in turns], dtype=np.float64)
    return seconds * rows / max(rows.sum(), 1.0)


def _joined(model: ActorCritic, arrays: Sequence[np.ndarray]) -> torch.Tensor:
    """The turns' arrays as one tensor on ``model``'s device."""
    return model.inputs_here(arrays[0] if len(arrays) == 1 else np.concatenate(arrays))


def _split(array: np.ndarray, turns: Sequence[Turn]) -> list[np.ndarray]:
    return np.split(array, np.cumsum([t.obs.shape[0] for t in turns])[:-1])


def learner_answers(
    model: ActorCritic, turns: Sequence[LearnerTurn], precision: Precision = "float32"
) -> list[tuple[np.ndarray, np.ndarray]]:
    """Log-probabilities ``float32 [g, A]`` and values ``[g]`` of each turn, in one pass."""
    extras = [t.extra for t in turns]
    with torch.inference_mode():  # the features once, for both networks
        inputs = model.critic_input(
            _joined(model, [t.obs for t in turns]),
            None if extras[0] is None else _joined(model, extras),  # type: ignore[arg-type]
        )
        mask = _joined(model, [t.mask for t in turns])
        with arithmetic(precision, model.device):
            logits, value = model.logits_and_value(inputs, ~mask)
        logp_all = torch.log_softmax(logits.float(), dim=-1).cpu().numpy()
    values = value.float().cpu().numpy()
    return list(zip(_split(logp_all, turns), _split(values, turns), strict=True))


def policy_answers(
    turns: Sequence[PolicyTurn], precision: Precision = "float32"
) -> list[np.ndarray]:
    """The masked policy ``float32 [g, A]`` of each turn (one network's), in one pass: in
    float32, exactly :func:`spar_agents.ppo.agent.policy_probs`."""
    model = turns[0].model
    with torch.inference_mode():
        mask = _joined(model, [t.mask for t in turns])
        with arithmetic(precision, model.device):
            logits = model.policy_logits(_joined(model, [t.obs for t in turns]), mask)
        probs = torch.softmax(logits.float(), dim=-1).masked_fill(~mask, 0.0).cpu().numpy()
    return _split(probs, turns)
