"""Run folders that are never a dead end: what a run needs is checked before its folder
exists, a run that stops before its first checkpoint is removed or restarted, the folder is
locked while trained into, checkpoints are only the trainer's files, the warm-start curve and
the earlier checkpoints survive a resume or a full disk, and a checkpoint that does not fit is
one line.
"""

from __future__ import annotations

import errno
import io
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest
from helpers.cli import (
    ROOT,
    SHIPPED_BOT,
    SPAR,
    TINY,
    cli,
    dead_pid,
    one_line,
    scalars,
    spar,
    write_config,
)


# ----- 1. every agent a config names is checked before the run folder exists -----------------
def test_a_missing_eval_opponent_file_is_refused_before_training(tmp_path: Path) -> None:
    done = spar("train", TINY, "--name", "e1", "--set", 'eval.opponents=["ppo:/nonexistent"]',
                cwd=tmp_path)  # fmt: skip
    one_line(done.returncode, done.stderr, "eval.opponents[0]", "/nonexistent")
    assert not (tmp_path / "runs").exists()
    # no progress line: neither a warm-start step nor an update was trained
    assert "warm start: imitation" not in done.stdout and "update " not in done.stdout


@pytest.mark.parametrize(
    "override, key",
    [
        ('warmstart.imitate="ppo:/nonexistent"', "warmstart.imitate"),
        ('pool.mix={self = 0.5, "ppo:/nonexistent" = 0.5}', "pool.mix.ppo:/nonexistent"),
        (f'eval.opponents=["onnx:{SHIPPED_BOT}"]', "eval.opponents[0]"),  # a bot for 4 players
    ],
)
def test_every_agent_of_a_ppo_config_is_checked_first(capsys, tmp_path, monkeypatch, override,
                                                      key) -> None:  # fmt: skip
    monkeypatch.chdir(tmp_path)
    status, _, err = cli(capsys, "train", TINY, "--name", "e", "--set", override)
    one_line(status, err, key)
    assert not (tmp_path / "runs").exists()


def test_the_mccfr_opponents_are_checked_first(capsys, tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    config = ROOT / "configs" / "mccfr_spar2.toml"
    status, _, err = cli(capsys, "train", config, "--name", "m", "--set", "mccfr.deals=8",
                         "--set", 'mccfr.eval_opponents=["ppo:/nonexistent"]')  # fmt: skip
    one_line(status, err, "mccfr.eval_opponents[0]", "/nonexistent")
    assert not (tmp_path / "runs").exists()


# ----- 2. no run folder that can be neither resumed nor reused --------------------------------
def test_a_solve_that_fails_removes_its_folder_and_says_so(capsys, tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    config = ROOT / "configs" / "cfr_micro.toml"
    status, _, err = cli(capsys, "train", config, "--set", "game.variant=spar", "--name", "c")
    one_line(status, err, "removed")
    assert not (tmp_path / "runs" / "c").exists()


def test_a_run_killed_before_its_first_checkpoint_resumes_from_the_beginning(tmp_path) -> None:
    run = tmp_path / "runs" / "k"
    write_config(run, TINY, ["run.name=k"])  # what a SIGKILL during the warm start leaves
    (run / ".lock").write_text(f"{dead_pid()}\n")  # and its lock, stale
    again = spar("train", TINY, "--name", "k", cwd=tmp_path)
    one_line(again.returncode, again.stderr, "--resume", "from the beginning")
    done = spar("train", "--resume", "runs/k", "--set", "run.updates=1", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "from the beginning" in done.stderr
    assert (run / "checkpoints" / "update_000001.pt").is_file()


def test_an_mccfr_run_killed_before_its_first_save_resumes(capsys, tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    overrides = ["run.name=m", "mccfr.deals=8", "mccfr.batches=2", "mccfr.eval_every=1",
                 "mccfr.eval_deals=4", 'mccfr.eval_opponents=["random"]']  # fmt: skip
    write_config(tmp_path / "runs" / "m", ROOT / "configs" / "mccfr_spar2.toml", overrides)
    status, _, err = cli(capsys, "train", "--resume", "runs/m")
    assert status == 0, err
    assert (tmp_path / "runs" / "m" / "policy.npz").is_file()


def test_a_solve_killed_before_its_policy_is_solved_again_by_resume(capsys, tmp_path,
                                                                   monkeypatch) -> None:  # fmt: skip
    monkeypatch.chdir(tmp_path)
    write_config(tmp_path / "runs" / "c", ROOT / "configs" / "cfr_micro.toml",
                 ["run.name=c", "solver.iterations=100"])  # fmt: skip
    status, out, err = cli(capsys, "train", "--resume", "runs/c")
    assert status == 0, err
    assert (tmp_path / "runs" / "c" / "policy.npz").is_file()
    again = cli(capsys, "train", "--resume", "runs/c")
    one_line(again[0], again[2], "the solve is finished", "--name")


# ----- 3. resuming keeps the warm-start curve -------------------------------------------------
def test_resuming_keeps_every_warm_start_point(capsys, tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    first = cli(capsys, "train", TINY, "--name", "w", "--set", "warmstart.updates=12",
                "--set", "run.updates=2")  # fmt: skip
    assert first[0] == 0, first[2]
    more = cli(capsys, "train", "--resume", "runs/w", "--set", "run.updates=4")
    assert more[0] == 0, more[2]
    tags = scalars(tmp_path / "runs" / "w")
    assert [step for step, _ in tags["warmstart/cross_entropy"]] == list(range(12))
    assert [step for step, _ in tags["losses/value_loss"]] == [1, 2, 3, 4]


# ----- 4. --resume of a checkpoint that does not fit is one line ------------------------------
def _bad_payload(payload: dict, case: str) -> dict:
    from spar_train.config import load_config
    from spar_train.games import build_model, game_mix

    if case == "a smaller network":
        config = load_config(TINY, ["model.hidden=[32, 32]"])
        small = build_model(config, game_mix(config))
        model = {"hidden": [32, 32], "privileged": small.privileged}
        return {**payload, "model": model, "weights": small.state_dict()}
    if case == "no game":
        return {k: v for k, v in payload.items() if k != "game"}
    return {**payload, "counters": {**payload["counters"], "update": "x"}}


@pytest.mark.parametrize("case", ["a smaller network", "no game", "bad counters"])
def test_resume_refuses_a_checkpoint_that_does_not_fit(capsys, run_copy: Path, case) -> None:
    from spar_agents.ppo.checkpoint import load_checkpoint, save_checkpoint

    payload = load_checkpoint(run_copy / "checkpoints" / "update_000002.pt")
    save_checkpoint(run_copy / "checkpoints" / "update_000003.pt", _bad_payload(payload, case))
    status, _, err = cli(capsys, "train", "--resume", "runs/t", "--set", "run.updates=4")
    one_line(status, err, "update_000003.pt")


def test_resume_of_a_smaller_network_through_spar(run_copy: Path) -> None:
    from spar_agents.ppo.checkpoint import load_checkpoint, save_checkpoint

    payload = load_checkpoint(run_copy / "checkpoints" / "update_000002.pt")
    bad = _bad_payload(payload, "a smaller network")
    save_checkpoint(run_copy / "checkpoints" / "update_000003.pt", bad)
    done = spar("train", "--resume", "runs/t", "--set", "run.updates=4", cwd=run_copy.parents[1])
    one_line(done.returncode, done.stderr, "update_000003.pt", "[32, 32]")


# ----- 10. a full disk while a checkpoint is written ------------------------------------------
def test_a_full_disk_during_a_checkpoint_write_says_the_earlier_ones_are_intact(
    capsys, tmp_path, monkeypatch
) -> None:
    from spar_agents.ppo.checkpoint import load_checkpoint

    monkeypatch.chdir(tmp_path)
    real_fdopen = os.fdopen

    class FullDisk(io.RawIOBase):
        """A file that takes 1,000 bytes, then finds the disk full."""

        def __init__(self, f) -> None:
            self.f, self.taken = f, 0

        def writable(self) -> bool:
            return True

        def write(self, data) -> int:
            if self.taken + len(data) > 1000:
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            self.taken += len(data)
            return self.f.write(data)

        def fileno(self) -> int:
            return self.f.fileno()

        def close(self) -> None:
            self.f.close()
            super().close()

    def fdopen(fd, mode="r", *args, **kwargs):
        f = real_fdopen(fd, mode, *args, **kwargs)
        if ".update_000004.pt." in os.readlink(f"/proc/self/fd/{fd}"):
            return FullDisk(f)
        return f

    monkeypatch.setattr("spar_env.atomic.os.fdopen", fdopen)
    status, _, err = cli(capsys, "train", TINY, "--name", "d")
    one_line(status, err, "update_000004.pt", "No space left on device", "intact",
             "update_000002.pt", code=1)  # fmt: skip
    folder = tmp_path / "runs" / "d" / "checkpoints"
    assert sorted(p.name for p in folder.iterdir()) == ["update_000000.pt", "update_000002.pt"]
    assert load_checkpoint(folder / "update_000002.pt")["counters"]["update"] == 2


# ----- 11. checkpoints are only the trainer's files, by update number -------------------------
def test_a_user_file_named_like_a_checkpoint_is_not_one(capsys, run_copy: Path) -> None:
    from spar_agents.ppo.agent import latest_checkpoint

    folder = run_copy / "checkpoints"
    shutil.copy(folder / "update_000000.pt", folder / "update_best.pt")
    status, out, err = cli(capsys, "train", "--resume", "runs/t", "--set", "run.updates=4")
    assert status == 0, err
    assert latest_checkpoint(run_copy) == folder / "update_000004.pt"
    names = sorted(p.name for p in folder.iterdir())
    assert names == ["update_000000.pt", "update_000002.pt", "update_000004.pt", "update_best.pt"]


def test_checkpoints_are_ordered_by_update_not_by_name(tmp_path: Path) -> None:
    from spar_agents.ppo.agent import latest_checkpoint

    folder = tmp_path / "run" / "checkpoints"
    folder.mkdir(parents=True)
    for name in ("update_999999.pt", "update_1000000.pt", "update_x.pt", "update_000001.pt.tmp"):
        (folder / name).write_bytes(b"")
    assert latest_checkpoint(tmp_path / "run").name == "update_1000000.pt"


# ----- 13. temporary files of an interrupted write are cleaned on resume ----------------------
def test_stray_temp_files_are_removed_on_resume(capsys, run_copy: Path) -> None:
    stray = [run_copy / "checkpoints" / ".update_000004.pt.k2j4x9.tmp",
             run_copy / ".config.toml.a8d7q1.tmp"]  # fmt: skip
    for path in stray:
        path.write_bytes(b"half a checkpoint")
    status, _, err = cli(capsys, "train", "--resume", "runs/t", "--set", "run.updates=3")
    assert status == 0, err
    assert not any(path.exists() for path in stray)
    assert not list(run_copy.rglob("*.tmp"))


# ----- 14. one process at a time trains into a run folder -------------------------------------
def test_a_second_process_is_refused_while_one_trains_and_a_killed_one_does_not_block(
    capsys, run_copy: Path, monkeypatch
) -> None:
    cwd = run_copy.parents[1]
    first = subprocess.Popen(
        [SPAR, "train", "--resume", "runs/t", "--set", "run.updates=100000"], cwd=cwd,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        lock = run_copy / ".lock"
        while time.monotonic() < deadline:  # until it holds the folder (or a while, without locks)
            if lock.is_file() and lock.read_text().strip() == str(first.pid):
                break
            time.sleep(0.2)
        second = spar("train", "--resume", "runs/t", "--set", "run.updates=100000", cwd=cwd,
                      timeout=60)  # fmt: skip
        one_line(second.returncode, second.stderr, f"process {first.pid}", "in use")
    finally:
        first.send_signal(signal.SIGKILL)
        first.wait()
    monkeypatch.chdir(cwd)
    status, _, err = cli(capsys, "train", "--resume", "runs/t", "--set", "run.updates=3")
    assert status == 0, err  # the lock the killed process held does not block
