"""A PPO run killed with SIGKILL anywhere and resumed ends as an unbroken run does.

The run is killed four times, each at a chosen point (in the warm start,
after an update past the last checkpoint, half-way through writing a
checkpoint, and after the last update), and resumed with ``spar train
--resume`` after each. Its final weights must equal, bit for bit, those of
the same config trained without a break, and every TensorBoard tag must keep
all its points (the same steps, and for the figures that do not measure time,
the same values).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from helpers.cli import TINY, scalars

from spar_agents.ppo.agent import latest_checkpoint
from spar_agents.ppo.checkpoint import load_checkpoint
from spar_train.config import load_config
from spar_train.ppo.loop import train

SETTINGS = ["run.updates=5", "warmstart.updates=6", "run.checkpoint_every=2", "eval.every=2",
            "run.keep_checkpoints=10"]  # fmt: skip
TIMED = ("time/", "charts/SPS")  # figures of wall-clock time: they differ run to run

# `spar` with a SIGKILL at the point SPAR_KILL_AT names:
#   warmstart:K  once the warm start has logged its step K
#   update:N     once update N has been logged (and flushed)
#   write:N      half-way through writing the checkpoint of update N
KILLER = r"""
import os, signal, sys

point, _, arg = os.environ["SPAR_KILL_AT"].partition(":")
n = int(arg)

def die():
    os.kill(os.getpid(), signal.SIGKILL)

if point in ("warmstart", "update"):
    from torch.utils.tensorboard import SummaryWriter

    tag = "warmstart/cross_entropy" if point == "warmstart" else "charts/decisions"
    add_scalar = SummaryWriter.add_scalar

    def logged(self, name, value, step=None, *args, **kwargs):
        add_scalar(self, name, value, step, *args, **kwargs)
        if name == tag and step == n:
            self.flush()
            die()

    SummaryWriter.add_scalar = logged
elif point == "write":
    fdopen = os.fdopen

    class HalfWritten:
        def __init__(self, f):
            self.f = f
        def __enter__(self):
            return self
        def __exit__(self, *exc):
            return self.f.__exit__(*exc)
        def write(self, data):
            data = memoryview(data).cast("B")
            self.f.write(data[: len(data) // 2])
            self.f.flush()
            os.fsync(self.f.fileno())
            die()
        def __getattr__(self, name):
            return getattr(self.f, name)

    def opened(fd, *args, **kwargs):
        f = fdopen(fd, *args, **kwargs)
        if f".update_{n:06d}.pt." in os.readlink(f"/proc/self/fd/{fd}"):
            return HalfWritten(f)
        return f

    os.fdopen = opened

from spar_apps.cli import main

sys.exit(main(sys.argv[1:]))
"""


def spar_killed_at(point: str | None, *argv: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "SPAR_KILL_AT": point or "none:0"}
    return subprocess.run(
        [sys.executable, "-c", KILLER, *argv], cwd=cwd, env=env, capture_output=True, text=True,
        timeout=300, check=False,
    )  # fmt: skip


@pytest.mark.parametrize(
    "game",
    [[], ['game.mix=[{variant="jeu_de_carte",players=2},{variant="sipa",players=3}]']],
    ids=["one game", "a mix without the config's own game"],
)
def test_a_run_killed_anywhere_and_resumed_ends_as_an_unbroken_one(
    game: list[str], tmp_path: Path
) -> None:
    settings = [*SETTINGS, *game]
    unbroken = train(load_config(TINY, [*settings, "run.name=whole"]), tmp_path / "runs")
    sets = [arg for s in settings for arg in ("--set", s)]
    kills = [
        ("warmstart:3", ["train", str(TINY), "--name", "broken", *sets]),
        ("update:1", ["train", "--resume", "runs/broken"]),  # past checkpoint 0
        ("write:4", ["train", "--resume", "runs/broken"]),  # checkpoint 2 kept, 4 half written
        ("update:5", ["train", "--resume", "runs/broken"]),  # the last update, before its save
    ]
    for point, argv in kills:
        done = spar_killed_at(point, *argv, cwd=tmp_path)
        assert done.returncode == -9, (point, done.stderr)
    done = spar_killed_at(None, "train", "--resume", "runs/broken", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "evaluation after update 5" in done.stdout

    run = tmp_path / "runs" / "broken"
    whole = load_checkpoint(latest_checkpoint(unbroken.run_dir))
    broken = load_checkpoint(latest_checkpoint(run))
    assert broken["counters"]["update"] == whole["counters"]["update"] == 5
    assert broken["counters"]["decisions"] == whole["counters"]["decisions"]
    assert whole["weights"].keys() == broken["weights"].keys()
    for name, weights in whole["weights"].items():
        assert torch.equal(weights, broken["weights"][name]), name
    assert broken["rng"] == whole["rng"]
    assert not list(run.rglob("*.tmp"))  # the half-written checkpoint's temporary file is gone

    expected, found = scalars(unbroken.run_dir), scalars(run)
    assert found.keys() == expected.keys()
    assert len(expected["warmstart/cross_entropy"]) == 6
    for tag, points in expected.items():
        assert [s for s, _ in found[tag]] == [s for s, _ in points], tag
        if not tag.startswith(TIMED):
            assert [v for _, v in found[tag]] == [v for _, v in points], tag
