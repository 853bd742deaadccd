"""``rollout.inference = "learner"``: the workers' turns answered in the learner's process.

The learner answering every worker's turns in one batch plays the very run each worker answering
its own plays (on the CPU a row's answer does not depend on the rows beside it), in a game mix
too; a killed worker is replaced mid-rollout and the run loses nothing; a worker sends the
learner's and the snapshots' turns and answers any other network's itself; what cannot run is
refused naming the key.
"""

from __future__ import annotations

import os
import signal
from functools import partial
from pathlib import Path

import numpy as np
import pytest
import torch

from spar_agents.ppo.checkpoint import load_checkpoint
from spar_train.config import ConfigError, load_config
from spar_train.games import build_model, game_mix
from spar_train.hooks import Hook
from spar_train.ppo.loop import train
from spar_train.ppo.sources.lockstep import LearnerTurn, PolicyTurn, answer_here
from spar_train.ppo.sources.pools import MixPool
from spar_train.ppo.wrappers.served import AskLearner, SnapshotTurn, answer_workers
from spar_train.ppo.wrappers.shared import SharedSource

ROOT = Path(__file__).resolve().parents[1]
TINY = ROOT / "configs" / "ppo_tiny.toml"
# Three updates on two worker processes, a checkpoint each, one warm-start batch; the tiny
# config's pool has snapshots (answered by the learner) and the heuristic (by the worker).
WORKERS = ["rollout.workers=2", "run.updates=3", "run.checkpoint_every=1", "eval.every=3",
           "eval.deals=20", "warmstart.updates=1", "rollout.games=64"]  # fmt: skip
SERVED = [*WORKERS, 'rollout.inference="learner"']
MIX = 'game.mix=[{variant="jeu_de_carte",players=2},{variant="sipa",players=3}]'


def _same_checkpoints(a: Path, b: Path) -> None:
    """The same weights, and every worker's generator where it was, after update 3."""
    saved = [load_checkpoint(d / "checkpoints" / "update_000003.pt") for d in (a, b)]
    for key, tensor in saved[0]["weights"].items():
        assert torch.equal(tensor, saved[1]["weights"][key]), key
    rngs = [[w["rng"] for w in s["games"]["workers"]] for s in saved]
    assert rngs[0] == rngs[1] and len(rngs[0]) == 2


class _Served(Hook):
    """Each update's seconds of the learner's answers."""

    def __init__(self) -> None:
        self.seconds: list[float] = []

    def on_update(self, run, update) -> bool:
        self.seconds.append(update.seconds.get("served", 0.0))
        return True


@pytest.mark.parametrize("more", [(), (MIX,)], ids=["one game", "mix"])
def test_the_learner_answering_the_workers_plays_the_run_they_play_answering_themselves(
    tmp_path: Path, more: tuple[str, ...]
) -> None:
    served = _Served()
    a = train(load_config(TINY, [*SERVED, *more]), tmp_path / "served", hooks=[served])
    b = train(load_config(TINY, [*WORKERS, *more]), tmp_path / "workers")
    assert len(served.seconds) == 3 and all(s > 0 for s in served.seconds)
    assert a.counters.decisions == b.counters.decisions
    _same_checkpoints(a.run_dir, b.run_dir)


def test_a_killed_worker_is_replaced_while_the_learner_answers_and_nothing_is_lost(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Worker 1 killed after the learner's fifth answer of the run's third rollout: a new
    process plays its share again while worker 0 waits, and the run ends as the unbroken one."""
    serve, gathered, answered = SharedSource._serve, [], []
    gather = SharedSource.gather

    def counted(self):
        gathered.append(self)
        return gather(self)

    def kill_after_five(self, asking):
        took = serve(self, asking)
        if len(gathered) == 3:
            answered.append(1)
            if len(answered) == 5:
                os.kill(self.crew.pids[1], signal.SIGKILL)
        return took

    monkeypatch.setattr(SharedSource, "gather", counted)
    monkeypatch.setattr(SharedSource, "_serve", kill_after_five)
    broken = train(load_config(TINY, SERVED), tmp_path / "broken")
    monkeypatch.undo()
    assert len(answered) > 5 and gathered[-1].replaced == 1
    assert "rollout worker 1 (process" in caplog.text
    whole = train(load_config(TINY, SERVED), tmp_path / "whole")
    _same_checkpoints(broken.run_dir, whole.run_dir)


class _Line:
    """A worker's line whose learner answers at once, with ``answer_workers``."""

    def __init__(self, model, pool) -> None:
        self.model, self.pool, self.sent = model, pool, []

    def ask(self, turns):
        self.sent.append(turns)
        return answer_workers(self.model, self.pool, {0: turns}, "float32")[0]


def test_a_worker_sends_the_learners_and_the_snapshots_turns_and_answers_the_others() -> None:
    config = load_config(TINY, ["model.privileged_critic=false"])
    mix = game_mix(config)
    make = partial(build_model, config, mix)
    torch.manual_seed(0)
    learner, other = make(), make()
    pool = MixPool(mix.games, {"self": 0.5, "snapshot": 0.5}, 2, make)
    pool.add_snapshot(make())
    pool.add_snapshot(make())
    rng = np.random.default_rng(0)
    high, actions, _ = mix.inputs

    def inputs(games: int) -> tuple[np.ndarray, np.ndarray]:
        mask = rng.random((games, actions)) < 0.5
        mask[:, 0] = True
        return rng.integers(0, high + 1, (games, high.size)).astype(np.uint8), mask

    obs, mask = inputs(5)
    turns = [
        PolicyTurn(pool.networks[1], *inputs(3)),
        LearnerTurn(obs, np.zeros(5, dtype=np.uint64), mask, None),
        PolicyTurn(other, *inputs(4)),  # not a snapshot: answered by the worker
        PolicyTurn(pool.networks[0], *inputs(2)),
    ]
    line = _Line(learner, pool)
    outs, seconds = AskLearner(line, pool, partial(answer_here, learner))(turns)
    (sent,) = line.sent
    assert [type(t).__name__ for t in sent] == ["SnapshotTurn", "LearnerTurn", "SnapshotTurn"]
    assert [t.index for t in sent if isinstance(t, SnapshotTurn)] == [1, 0]
    here, _ = answer_here(learner, turns)
    for out, expected in zip(outs, here, strict=True):
        for a, b in zip(out if isinstance(out, tuple) else (out,),
                        expected if isinstance(expected, tuple) else (expected,), strict=True):  # fmt: skip
            np.testing.assert_array_equal(a, b)
    assert seconds.shape == (4, 2) and (seconds[[0, 2, 3], 1] > 0).all() and seconds[1, 0] > 0
    with pytest.raises(RuntimeError, match="asked for snapshot 2; the learner's pool holds 2"):
        answer_workers(learner, pool, {0: [SnapshotTurn(2, *inputs(1))]}, "float32")


def test_a_worker_without_a_line_to_the_learner_refuses_to_be_served() -> None:
    """A worker outside a process (a Ray actor) has no line to the learner: asked to be served,
    it says so instead of waiting for answers that never come."""
    from spar_train.ppo.start import sources_of
    from spar_train.ppo.wrappers.shares import worker_args
    from spar_train.ppo.wrappers.worker import RolloutWorker

    config = load_config(TINY, WORKERS)
    mix = game_mix(config)
    _, (args, _) = worker_args(config, mix, sources_of(config, mix, "float32"), 2, 1)
    worker = RolloutWorker(*args)
    weights = worker.model.state_dict()
    with pytest.raises(RuntimeError, match="no line to the learner: only worker processes"):
        worker.collect(weights, {"self": 1.0}, 2, None, 1, None, True)


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        (['rollout.inference="gpu"'], r'^rollout\.inference: must be "workers" or "learner"'),
        (['rollout.inference="learner"'], r'^rollout\.workers: must be a number or "auto" with '
                                          r'rollout\.inference = "learner"'),
        (['rollout.inference="learner"', "rollout.workers=2", "rollout.overlap=true"],
         r'^rollout\.overlap: must be false with rollout\.inference = "learner"'),
    ],
)  # fmt: skip
def test_what_the_learners_answers_cannot_be_is_refused_naming_the_key(overrides, message) -> None:
    with pytest.raises(ConfigError, match=message):
        load_config(TINY, overrides)


class _Crew:
    """Two workers that are never started: the learner's side of serving them, alone."""

    size = 2

    def call_all(self, method: str, args: list) -> list:
        return [{}] * self.size

    def reply(self, worker: int, answer: list) -> None:
        pass


def test_the_workers_turns_join_in_worker_order_whatever_order_they_asked_in(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A row's answer may differ in its last bits with its place in the batch, so the learner
    joins the workers' turns in worker order, not in the order they asked: a seed and a
    worker count fix a served run."""
    from spar_train.ppo.wrappers import shared

    joined: list[list[int]] = []

    def recorded(model, pool, asked, precision):  # noqa: ANN001, ANN202
        joined.append(list(asked))
        return {worker: [] for worker in asked}

    monkeypatch.setattr(shared, "answer_workers", recorded)
    config = load_config(TINY, WORKERS)
    source = SharedSource(game_mix(config), [[(0, 1)], [(0, 1)]], _Crew(), "rollout.workers",
                          served="float32")  # type: ignore[arg-type]  # fmt: skip
    source._answering = (None, None)  # type: ignore[assignment]
    source._serve({1: [], 0: []})
    assert joined == [[0, 1]]
