"""``rollout.workers``: the run's games shared out among worker processes on this machine.

A seed and a worker count fix the run (the same checkpoints twice); a run stopped and resumed
is the run never stopped, with the overlap too; a killed worker is replaced and the run loses
nothing; the learner's wait is split into the workers' time and the transfer; a checkpoint
resumes only with the workers that played its games; what cannot run is refused naming the key.
"""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest
import torch
from helpers.stop import StopAfter

from spar_agents.ppo.checkpoint import CheckpointError, load_checkpoint
from spar_train.config import ConfigError, load_config
from spar_train.hooks import Hook
from spar_train.ppo.loop import train
from spar_train.ppo.wrappers.processes import ProcessCrew, resolve_workers
from spar_train.ppo.wrappers.shared import SharedSource

ROOT = Path(__file__).resolve().parents[1]
TINY = ROOT / "configs" / "ppo_tiny.toml"
# Three updates on two worker processes, a checkpoint each, one warm-start batch.
WORKERS = ["rollout.workers=2", "run.updates=3", "run.checkpoint_every=1", "eval.every=3",
           "eval.deals=20", "warmstart.updates=1", "rollout.games=64"]  # fmt: skip
MIX = 'game.mix=[{variant="jeu_de_carte",players=2},{variant="sipa",players=3}]'


def _checkpoint(run_dir: Path, update: int = 3) -> dict:
    return load_checkpoint(run_dir / "checkpoints" / f"update_{update:06d}.pt")


def _assert_same(a: dict, b: dict) -> None:
    """The same weights, and every worker's generator where it was."""
    for key, tensor in a["weights"].items():
        assert torch.equal(tensor, b["weights"][key]), key
    rngs = [[w["rng"] for w in c["games"]["workers"]] for c in (a, b)]
    assert rngs[0] == rngs[1] and len(rngs[0]) == 2


@pytest.fixture(scope="module")
def workers_run(tmp_path_factory):
    return train(load_config(TINY, WORKERS), tmp_path_factory.mktemp("workers"))


def test_a_seed_and_a_worker_count_give_the_same_checkpoints_twice(
    workers_run, tmp_path: Path
) -> None:
    again = train(load_config(TINY, WORKERS), tmp_path)
    assert again.counters.decisions == workers_run.counters.decisions
    _assert_same(_checkpoint(again.run_dir), _checkpoint(workers_run.run_dir))
    plain = train(load_config(TINY, [*WORKERS, "rollout.workers=0"]), tmp_path / "plain")
    weights = _checkpoint(plain.run_dir)["weights"]  # each worker draws from its own generator
    assert not all(
        torch.equal(t, weights[k]) for k, t in _checkpoint(again.run_dir)["weights"].items()
    )


@pytest.mark.parametrize("more", [(), ("rollout.overlap=true",), (MIX,)],
                         ids=["workers", "overlap", "mix"])  # fmt: skip
def test_a_run_on_workers_stopped_and_resumed_is_the_run_never_stopped(
    tmp_path: Path, more: tuple[str, ...]
) -> None:
    config = load_config(TINY, [*WORKERS, *more])
    whole = train(config, tmp_path / "whole")
    stopped = train(config, tmp_path / "b", hooks=[StopAfter(2)])
    assert stopped.counters.update == 2
    resumed = train(config, tmp_path / "b", resume=True)
    assert resumed.counters.decisions == whole.counters.decisions
    _assert_same(_checkpoint(resumed.run_dir), _checkpoint(whole.run_dir))


def test_a_killed_worker_is_replaced_and_the_run_loses_nothing(
    workers_run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Worker 1 killed while it plays the run's third rollout (warm start, update 1, update 2):
    a new process plays its share again, and the run ends as the one nothing happened to."""
    answer, gathered, sources = ProcessCrew.answer, [], []
    gather = SharedSource.gather

    def counted(self):
        gathered.append(self)
        return gather(self)

    def kill_then_answer(self):
        if len(gathered) == 3 and not sources:
            sources.append(self)
            os.kill(self.pids[1], signal.SIGKILL)
        return answer(self)

    monkeypatch.setattr(SharedSource, "gather", counted)
    monkeypatch.setattr(ProcessCrew, "answer", kill_then_answer)
    run = train(load_config(TINY, WORKERS), tmp_path)
    monkeypatch.undo()
    assert sources and gathered[-1].replaced == 1
    assert "rollout worker 1 (process" in caplog.text
    _assert_same(_checkpoint(run.run_dir), _checkpoint(workers_run.run_dir))


class _Heard(Hook):
    def __init__(self) -> None:
        self.seconds: list[dict[str, float]] = []

    def on_update(self, run, update) -> bool:
        self.seconds.append(dict(update.seconds))
        return True


def test_the_learners_wait_is_split_into_the_workers_time_and_the_transfer(tmp_path: Path) -> None:
    heard = _Heard()
    train(load_config(TINY, [*WORKERS, "warmstart.updates=0"]), tmp_path, hooks=[heard])
    assert len(heard.seconds) == 3
    for seconds in heard.seconds:
        assert seconds["workers"] > 0 and seconds["transfer"] >= 0
        # the work is summed over both workers, so it is more than the slowest one's
        work = seconds["learner"] + seconds["opponents"] + seconds["game"]
        assert work > seconds["workers"] * 0.5


def test_a_checkpoint_resumes_only_with_the_workers_that_played_its_games(
    workers_run, tmp_path: Path
) -> None:
    import shutil

    def refused(*overrides: str) -> str:
        copy = tmp_path / str(len(list(tmp_path.iterdir())))
        shutil.copytree(workers_run.run_dir, copy / workers_run.run_dir.name)
        with pytest.raises(CheckpointError) as e:
            train(load_config(TINY, [*WORKERS, "run.updates=4", *overrides]), copy, resume=True)
        assert len(str(e.value).splitlines()) == 1
        return str(e.value)

    assert "holds the games of 2 rollout workers; this run has rollout.workers = 1: resume " \
        "it with rollout.workers = 2" in refused("rollout.workers=1")  # fmt: skip
    assert "played by 2 rollout workers; resume the run with them (rollout.workers = 2" in refused(
        "rollout.workers=0"
    )


def test_an_overlapped_checkpoint_of_the_older_form_resumes_exactly(tmp_path: Path) -> None:
    """Before the workers, the overlap's one worker kept its games under ``overlap``, with the
    reward scale in the rollout in flight; such a checkpoint still resumes, the same run."""
    from spar_agents.ppo.checkpoint import save_checkpoint

    config = load_config(TINY, [*WORKERS, "rollout.workers=0", "rollout.overlap=true"])
    whole = train(config, tmp_path / "whole")
    stopped = train(config, tmp_path / "b", hooks=[StopAfter(2)])
    file = stopped.run_dir / "checkpoints" / "update_000002.pt"
    saved = load_checkpoint(file)
    (worker,), pending = saved["games"]["workers"], saved["games"]["pending"]
    saved["games"] = {"overlap": {**worker, "pending": {**pending, "reward_scale": 0.25}}}
    save_checkpoint(file, saved)
    resumed = train(config, tmp_path / "b", resume=True)
    a, b = _checkpoint(resumed.run_dir), _checkpoint(whole.run_dir)
    for key, tensor in a["weights"].items():
        assert torch.equal(tensor, b["weights"][key]), key


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        (["rollout.workers=-1"], r"^rollout\.workers: must be at least 0; got -1"),
        (['rollout.workers="many"'], r'^rollout\.workers: must be a whole number or "auto"'),
        (["rollout.workers=true"], r"^rollout\.workers: expected a whole number or a word"),
        (["rollout.workers=3", MIX], r"^rollout\.workers: must be at most the 2 games of game\.mix"),
        (["rollout.workers=9", "rollout.games=8"], r"^rollout\.workers: must be at most "
                                                   r"rollout\.games"),
        (["rollout.workers=2", "ray.enabled=true"], r"^rollout\.workers: must be 0 with ray\."),
        (["rollout.overlap_threads=2", "rollout.worker_threads=2"],
         r"^rollout\.worker_threads: given twice"),
    ],
)  # fmt: skip
def test_what_workers_cannot_be_is_refused_naming_the_key(overrides, message) -> None:
    with pytest.raises(ConfigError, match=message):
        load_config(TINY, overrides)


def test_the_older_name_of_the_worker_threads_still_sets_them() -> None:
    assert load_config(TINY, ["rollout.overlap_threads=3"]).rollout.worker_threads == 3


def test_auto_gives_a_worker_a_core_and_at_most_one_a_game() -> None:
    cores = len(os.sched_getaffinity(0))
    assert load_config(TINY, ["rollout.workers=auto"]).rollout.workers == "auto"
    assert resolve_workers("auto", [1000]) == cores
    assert resolve_workers("auto", [1]) == 1
    assert resolve_workers("auto", [5, 5]) == min(cores, 2)  # a mix: a game is one worker's
    assert resolve_workers(3, [1000]) == 3


def test_an_onnx_bot_travels_to_a_worker_as_its_model_and_plays_the_same() -> None:
    """The warm start sends its teacher (often a shipped bot) to every worker: a bot pickles
    as its model's bytes and is rebuilt there, since an onnxruntime session cannot travel."""
    import pickle

    import numpy as np
    from test_worlds import random_situation

    from spar_agents import make_agent
    from spar_env import make_rules

    rules = make_rules("spar", players=2)
    bot = make_agent("onnx:spar2", rules)
    copy = pickle.loads(pickle.dumps(bot))
    assert copy is not bot and copy.where == bot.where
    situation = random_situation(rules, 64, np.random.default_rng(0))
    a, b = (agent.act(situation, np.random.default_rng(1)) for agent in (bot, copy))
    assert np.array_equal(a.actions, b.actions) and np.array_equal(a.probs, b.probs)
