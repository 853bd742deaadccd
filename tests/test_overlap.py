"""``rollout.overlap``: the next rollout in a worker process while the learner updates.

An overlapped run is a valid run (checkpoints, evaluations; a seed fixes it) that resumes
exactly, for one game and for a mix; each rollout is played by the weights it was started
with, whatever the learner does meanwhile; a worker that dies is said to have died.
"""

from __future__ import annotations

import os
import signal
from pathlib import Path

import numpy as np
import pytest
import torch
from helpers.stop import StopAfter

from spar_agents.ppo.agent import policy_probs
from spar_agents.ppo.checkpoint import load_checkpoint
from spar_env.core import unpack
from spar_train.config import ConfigError, check, load_config
from spar_train.games import build_model, game_mix
from spar_train.ppo.loop import train
from spar_train.ppo.start import sources_of
from spar_train.ppo.wrappers.processes import ProcessCrew, process_source
from spar_train.ppo.wrappers.rpc import WorkerDied
from spar_train.ppo.wrappers.shared import REPLACEMENTS

ROOT = Path(__file__).resolve().parents[1]
TINY = ROOT / "configs" / "ppo_tiny.toml"
OVERLAP = ["rollout.overlap=true", "run.updates=5", "run.checkpoint_every=1", "eval.every=5"]
MIX = 'game.mix=[{variant="jeu_de_carte",players=2},{variant="sipa",players=3}]'


def _weights(run_dir: Path, update: int) -> dict[str, torch.Tensor]:
    return load_checkpoint(run_dir / "checkpoints" / f"update_{update:06d}.pt")["weights"]


@pytest.mark.parametrize("game", [(), (MIX,)], ids=["one", "mix"])
def test_an_overlapped_run_is_fixed_by_its_seed_and_resumes_exactly(
    tmp_path: Path, game: tuple[str, ...]
) -> None:
    config = load_config(TINY, [*OVERLAP, *game])
    whole = train(config, tmp_path / "a")
    assert whole.counters.update == 5 and whole.evaluations
    stopped = train(config, tmp_path / "b", hooks=[StopAfter(2)])
    assert stopped.counters.update == 2
    saved = load_checkpoint(stopped.run_dir / "checkpoints" / "update_000002.pt")
    assert saved["games"]["pending"] is not None  # a rollout was in flight
    resumed = train(config, tmp_path / "b", resume=True)
    assert resumed.counters.decisions == whole.counters.decisions
    a, b = _weights(whole.run_dir, 5), _weights(resumed.run_dir, 5)
    for key, tensor in a.items():
        assert torch.equal(tensor, b[key]), key
    if not game:  # and it is not the run without overlap: its rollouts lag one update
        plain = train(load_config(TINY, OVERLAP[1:]), tmp_path / "c")
        assert not all(torch.equal(t, _weights(plain.run_dir, 5)[k]) for k, t in a.items())


def test_a_rollout_is_played_by_the_weights_it_was_started_with(tmp_path: Path) -> None:
    config = load_config(TINY, ["rollout.overlap=true", "rollout.games=32"])
    mix = game_mix(config)
    model = build_model(config, mix)
    before = build_model(config, mix)
    before.load_state_dict(model.state_dict())
    source = process_source(config, mix, sources_of(config, mix, "float32"))
    pool = source.pool({"self": 1.0}, 1, None)
    try:
        source.submit(model, pool, 1)
        with torch.no_grad():  # the learner moves on while the worker plays
            for p in model.parameters():
                p.add_(torch.randn_like(p))
        rollout = source.gather()
    finally:
        source.close()
    mask = unpack(rollout.legal, rollout.num_actions)
    rows = np.arange(rollout.decisions)
    played = np.log(policy_probs(before, rollout.obs, mask)[rows, rollout.actions])
    moved = np.log(policy_probs(model, rollout.obs, mask)[rows, rollout.actions])
    np.testing.assert_allclose(rollout.logp, played, atol=1e-5)
    assert np.abs(rollout.logp - moved).max() > 0.1


def test_a_killed_worker_is_replaced_and_one_that_keeps_dying_stops_the_run(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    config = load_config(TINY, ["rollout.workers=2", "rollout.games=16"])
    mix = game_mix(config)
    model = build_model(config, mix)
    source = process_source(config, mix, sources_of(config, mix, "float32"))
    pool = source.pool({"self": 1.0}, 1, None)
    try:
        first = source.crew.pids[0]
        os.kill(first, signal.SIGKILL)
        rollout = source.collect(model, pool, 1, np.random.default_rng(0))
        assert rollout.hands == 16 and source.replaced == 1 and source.crew.pids[0] != first
        assert "rollout worker 0 (process" in caplog.text and "died" in caplog.text
        replace = ProcessCrew.replace

        def replace_and_kill(self, worker, state):
            replace(self, worker, state)
            os.kill(self.pids[worker], signal.SIGKILL)

        monkeypatch.setattr(ProcessCrew, "replace", replace_and_kill)
        os.kill(source.crew.pids[0], signal.SIGKILL)
        message = (rf"^rollout worker 0 died {REPLACEMENTS + 1} times in one rollout; "
                   r"resume the run from its last checkpoint$")  # fmt: skip
        with pytest.raises(WorkerDied, match=message):
            source.collect(model, pool, 1, np.random.default_rng(0))
    finally:
        source.close()


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        (["rollout.worker_threads=0"], r"^rollout\.worker_threads: must be at least 1"),
        (["rollout.overlap_threads=0"], r"^rollout\.worker_threads: must be at least 1"),
        (["rollout.overlap=true", "ray.enabled=true"], r"^rollout\.overlap: must be false with"),
    ],
)
def test_what_an_overlap_cannot_be_is_refused_naming_the_key(overrides, message) -> None:
    with pytest.raises(ConfigError, match=message):
        check(load_config(TINY, overrides))


def test_a_script_without_a_main_guard_trains_with_the_overlap(tmp_path: Path) -> None:
    """The worker is a fresh interpreter, not multiprocessing's spawn: the script is not run
    again in it (which would start a second run there)."""
    import subprocess
    import sys

    script = tmp_path / "train_it.py"
    script.write_text(
        "import spar_train\n"
        "from spar_train.config import load_config\n"
        f"config = load_config({str(TINY)!r}, ['rollout.overlap=true', 'run.updates=2',\n"
        "                      'warmstart.updates=1', 'eval.every=2', 'rollout.games=32'])\n"
        "print('updates:', spar_train.run(config, 'runs').counters.update)\n"
    )
    done = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True,
                          text=True, timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.count("updates: 2") == 1


def _overlapped_run(tmp_path: Path):
    """``spar train`` with the overlap in a subprocess, once it has written checkpoint 2."""
    import subprocess
    import time

    from helpers.cli import SPAR, default_sigint

    argv = [SPAR, "train", "ppo_tiny", "--name", "t", "--set", "rollout.overlap=true",
            "--set", "run.updates=100000", "--set", "warmstart.updates=0",
            "--set", "run.checkpoint_every=1", "--set", "run.max_minutes=0"]  # fmt: skip
    child = subprocess.Popen(argv, cwd=tmp_path, stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, text=True, preexec_fn=default_sigint)  # fmt: skip
    checkpoint = tmp_path / "runs" / "t" / "checkpoints" / "update_000002.pt"
    deadline = time.monotonic() + 240
    while not checkpoint.exists() and child.poll() is None and time.monotonic() < deadline:
        time.sleep(0.1)
    if not checkpoint.exists():
        child.kill()
        raise AssertionError(child.communicate()[1])
    return child


@pytest.mark.parametrize("kill", [signal.SIGTERM, signal.SIGKILL], ids=["term", "kill"])
def test_a_killed_overlapped_run_says_one_line_and_its_worker_none(
    tmp_path: Path, kill: signal.Signals
) -> None:
    """The worker outlived the killed learner and printed a chained BrokenPipeError traceback
    on its terminal when it answered. Now: a kill (SIGTERM) stops the run as Ctrl-C does, in
    one line; after SIGKILL the learner can say nothing, and the worker ends quietly."""
    child = _overlapped_run(tmp_path)
    try:
        child.send_signal(kill)
        _, err = child.communicate(timeout=120)  # EOF once the worker, too, has closed stderr
    finally:
        child.kill()
    if kill == signal.SIGTERM:
        assert child.returncode == 130
        assert err.splitlines() == [f"spar train: stopped; resume from the latest checkpoint "
                                    f"with spar train --resume {Path('runs') / 't'}"]  # fmt: skip
    else:
        assert err == ""


def test_a_killed_rollout_worker_is_replaced_and_the_run_goes_on(tmp_path: Path) -> None:
    """Once the learner ended in a WorkerDied traceback; then the run stopped in one line; now
    a new process plays the dead one's share again and the run goes on, saying so."""
    import subprocess
    import time

    child = _overlapped_run(tmp_path)
    try:
        workers = subprocess.run(["pgrep", "-P", str(child.pid)], capture_output=True,
                                 text=True, check=True).stdout.split()  # fmt: skip
        assert len(workers) == 1
        os.kill(int(workers[0]), signal.SIGKILL)
        later = tmp_path / "runs" / "t" / "checkpoints" / "update_000005.pt"
        deadline = time.monotonic() + 240
        while not later.exists() and child.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)
        assert later.exists() and child.poll() is None
        child.send_signal(signal.SIGTERM)
        _, err = child.communicate(timeout=120)
    finally:
        child.kill()
    assert child.returncode == 130
    lines = err.splitlines()
    assert (
        lines[0] == f"rollout worker 0 (process {workers[0]}) died; a new one plays its share again"
    )
    assert lines[1:] == [f"spar train: stopped; resume from the latest checkpoint with "
                         f"spar train --resume {Path('runs') / 't'}"]  # fmt: skip


# What the worker process must not import: the run around the rollouts (the loop, the warm start
# and its onnx, the checkpoints, the evaluation, TensorBoard). The package's eager imports
# once brought them all in, most of a second more CPU at each worker's start.
RUN_ONLY = ("spar_train.ppo.loop", "spar_train.ppo.warm_start", "spar_train.ppo.checkpoint",
            "spar_train.ppo.evaluation", "spar_train.evaluate", "onnx",
            "torch.utils.tensorboard")  # fmt: skip
PROBE = """\
import importlib, json, pickle, sys
importlib.import_module(sys.argv[1])  # as serve_on's command line does
with open(sys.argv[2], "rb") as f:
    make_worker, weights = pickle.load(f)
worker = make_worker()
worker.collect(weights, {"self": 0.5, "heuristic": 0.5}, 1, None, 1, None)
print(json.dumps(sorted(sys.modules)))
"""


def test_the_worker_process_imports_the_rollout_and_not_the_run(tmp_path: Path) -> None:
    import json
    import pickle
    import subprocess
    import sys
    from functools import partial

    from spar_train.ppo.sources.pools import weights_of
    from spar_train.ppo.wrappers.rpc import serve_on
    from spar_train.ppo.wrappers.shares import worker_args
    from spar_train.ppo.wrappers.worker import RolloutWorker

    config = load_config(TINY, ["rollout.overlap=true", "rollout.games=16"])
    mix = game_mix(config)
    _, (args,) = worker_args(config, mix, sources_of(config, mix, "float32"), 1, 1)
    blob = tmp_path / "worker.pkl"  # written here, read by the probe: no user file
    blob.write_bytes(pickle.dumps((partial(RolloutWorker, *args),
                                   weights_of(build_model(config, mix)))))  # fmt: skip
    done = subprocess.run([sys.executable, "-c", PROBE, serve_on.__module__, str(blob)],
                          capture_output=True, text=True, timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    loaded = set(json.loads(done.stdout))
    assert {"spar_train.ppo.sources.mix", "spar_train.ppo.sources.batch"} <= loaded  # it played
    assert sorted(loaded.intersection(RUN_ONLY)) == []


def test_each_update_sends_the_next_rollout_before_it_learns(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The order of a run's calls, not their times: the next rollout leaves for the worker
    (with one copy of the weights) before the update on this one begins, so the two overlap;
    the last update sends none."""
    import spar_train.ppo.loop as loop
    from spar_train.ppo.wrappers import shared

    events: list[str] = []

    def heard(name: str, inner):
        def call(*args, **kwargs):
            events.append(name)
            return inner(*args, **kwargs)

        return call

    monkeypatch.setattr(shared, "weights_of", heard("copy", shared.weights_of))
    for method in ("submit", "gather"):
        monkeypatch.setattr(shared.SharedSource, method,
                            heard(method, getattr(shared.SharedSource, method)))  # fmt: skip
    monkeypatch.setattr(loop, "learn", heard("learn", loop.learn))
    config = load_config(TINY, ["rollout.overlap=true", "run.updates=3", "warmstart.updates=0",
                                "rollout.games=32", "eval.every=3", "eval.deals=10"])  # fmt: skip
    assert train(config, tmp_path).counters.update == 3
    sent = ["submit", "copy"]
    assert events == [*sent, "gather", *sent, "learn", "gather", *sent, "learn", "gather",
                      "learn"]  # fmt: skip
