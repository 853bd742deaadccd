"""Runs that survive careless and hostile use: every failure is one line, found early, and leaves
no dead-end run folder, lost curve or unbounded use of memory or time.

Cases about the command line run the installed ``spar`` in a subprocess (with a cap on its
memory where the old behaviour was to eat it all); the others call :func:`spar_env.cli.main`
in-process, which is faster and runs the same code.
"""

from __future__ import annotations

import errno
import io
import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from spar_env import __version__
from spar_env.cli import main

ROOT = Path(__file__).resolve().parents[1]
TINY = ROOT / "configs" / "ppo_tiny.toml"
SPAR = Path(sys.executable).parent / "spar"
SHIPPED_BOT = ROOT / "checkpoints" / "spar4.onnx"
MEMORY_CAP = 6 << 30  # bytes of address space for a subprocess that might try to eat them all


def spar(*argv: str, cwd: Path, timeout: float = 180, cap: bool = False, **kwargs):
    """The installed ``spar`` in a subprocess; ``cap``: with at most ``MEMORY_CAP`` of memory."""

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))

    env = {**os.environ, "COLUMNS": "200"}
    return subprocess.run(
        [SPAR, *map(str, argv)], cwd=cwd, capture_output=True, text=True, timeout=timeout,
        preexec_fn=limit if cap else None, env=env, check=False, **kwargs,
    )  # fmt: skip


def cli(capsys, *argv: object) -> tuple[int, str, str]:
    """``spar argv`` in-process (in the current folder): the exit status, stdout and stderr."""
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


def one_line(status: int, err: str, *names: str, code: int = 2) -> None:
    """Exit ``code`` and one stderr line, no traceback, naming every one of ``names``."""
    assert status == code, err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    assert "Traceback" not in err, err
    for name in names:
        assert name in err, (name, err)


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory) -> Path:
    """A tiny PPO run of 2 updates (checkpoints 0 and 2), made once; tests copy it."""
    from train.config import load_config
    from train.ppo import train

    runs = tmp_path_factory.mktemp("runs")
    config = load_config(TINY, ["run.updates=2", "run.name=base"])
    train(config, runs)
    return runs / "base"


@pytest.fixture
def run_copy(tiny_run: Path, tmp_path: Path, monkeypatch) -> Path:
    """A copy of the tiny run at ``runs/t`` in a fresh current folder."""
    monkeypatch.chdir(tmp_path)
    copy = tmp_path / "runs" / "t"
    shutil.copytree(tiny_run, copy)
    (copy / ".lock").unlink(missing_ok=True)
    return copy


def dead_pid() -> int:
    """The process id of a process that has ended."""
    proc = subprocess.Popen(["true"])
    proc.wait()
    return proc.pid


def write_config(run_dir: Path, path: Path, overrides: list[str]) -> None:
    """``run_dir/config.toml`` as a new run of ``path`` writes it first."""
    from train.config import dump_config, load_config

    run_dir.mkdir(parents=True)
    (run_dir / "config.toml").write_text(dump_config(load_config(path, overrides), __version__))


def scalars(run_dir: Path) -> dict[str, list[tuple[int, float]]]:
    """Every TensorBoard scalar tag of a run, in all its event folders, as (step, value)."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    tags: dict[str, list[tuple[int, float]]] = {}
    folders = {p.parent for p in run_dir.rglob("events.out.tfevents.*")}
    for folder in sorted(folders):
        events = EventAccumulator(str(folder))
        events.Reload()
        for tag in events.Tags()["scalars"]:
            tags.setdefault(tag, []).extend((e.step, e.value) for e in events.Scalars(tag))
    return tags


# ----- 1. every agent a config names is checked before the run folder exists -----------------
def test_a_missing_eval_opponent_file_is_refused_before_training(tmp_path: Path) -> None:
    done = spar("train", TINY, "--name", "e1", "--set", 'eval.opponents=["ppo:/nonexistent"]',
                cwd=tmp_path)  # fmt: skip
    one_line(done.returncode, done.stderr, "eval.opponents[0]", "/nonexistent")
    assert not (tmp_path / "runs").exists()
    assert "warm start" not in done.stdout and "update" not in done.stdout


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
    from train.config import load_config
    from train.ppo import build_model, rules_of

    if case == "a smaller network":
        config = load_config(TINY, ["model.hidden=[32, 32]"])
        small = build_model(config, rules_of(config))
        model = {"hidden": [32, 32], "privileged": small.privileged}
        return {**payload, "model": model, "weights": small.state_dict()}
    if case == "no game":
        return {k: v for k, v in payload.items() if k != "game"}
    return {**payload, "counters": {**payload["counters"], "update": "x"}}


@pytest.mark.parametrize("case", ["a smaller network", "no game", "bad counters"])
def test_resume_refuses_a_checkpoint_that_does_not_fit(capsys, run_copy: Path, case) -> None:
    from agents.ppo.checkpoint import load_checkpoint, save_checkpoint

    payload = load_checkpoint(run_copy / "checkpoints" / "update_000002.pt")
    save_checkpoint(run_copy / "checkpoints" / "update_000003.pt", _bad_payload(payload, case))
    status, _, err = cli(capsys, "train", "--resume", "runs/t", "--set", "run.updates=4")
    one_line(status, err, "update_000003.pt")


def test_resume_of_a_smaller_network_through_spar(run_copy: Path) -> None:
    from agents.ppo.checkpoint import load_checkpoint, save_checkpoint

    payload = load_checkpoint(run_copy / "checkpoints" / "update_000002.pt")
    bad = _bad_payload(payload, "a smaller network")
    save_checkpoint(run_copy / "checkpoints" / "update_000003.pt", bad)
    done = spar("train", "--resume", "runs/t", "--set", "run.updates=4", cwd=run_copy.parents[1])
    one_line(done.returncode, done.stderr, "update_000003.pt", "[32, 32]")


# ----- 5. the CFR policy loader: malformed files are one line ---------------------------------
def _npz(path: Path, meta: object, **arrays) -> Path:
    blob = np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)
    with open(path, "wb") as f:
        np.savez(f, meta=blob, **arrays)
    return path


def _policy_files(folder: Path) -> dict[str, Path]:
    good = {"format": "spar-cfr-policy/1", "variant": "micro", "players": 2, "options": {},
            "num_actions": 6, "sha256": ""}  # fmt: skip
    keys, probs = np.zeros((1, 4), np.uint8), np.zeros((1, 6))
    random = folder / "random.npz"
    random.write_bytes(np.random.default_rng(0).bytes(4096))
    plain = folder / "plain.npz"
    np.save(plain.open("wb"), np.arange(6))
    passwd = folder / "passwd.npz"
    passwd.write_text("root:x:0:0:root:/root:/bin/bash\n")
    no_variant = {k: v for k, v in good.items() if k != "variant"}
    return {
        "a list as the header": _npz(folder / "list.npz", [1, 2], keys=keys, probs=probs),
        "no variant": _npz(folder / "novariant.npz", no_variant, keys=keys, probs=probs),
        "options as a list": _npz(
            folder / "opts.npz", {**good, "options": [1]}, keys=keys, probs=probs
        ),  # fmt: skip
        "a plain .npy array": plain,
        "random bytes": random,
        "a text file": passwd,
    }


@pytest.mark.parametrize(
    "case",
    ["a list as the header", "no variant", "options as a list", "a plain .npy array",
     "random bytes", "a text file"],
)  # fmt: skip
def test_a_malformed_cfr_policy_file_is_one_line(capsys, tmp_path, case) -> None:
    path = _policy_files(tmp_path)[case]
    status, _, err = cli(capsys, "bench", f"cfr:{path}", "random", "--variant", "micro",
                         "--players", "2", "--deals", "4")  # fmt: skip
    one_line(status, err, str(path))
    assert "allow_pickle" not in err


def test_a_malformed_cfr_policy_through_spar(tmp_path: Path) -> None:
    path = _policy_files(tmp_path)["a list as the header"]
    done = spar("bench", f"cfr:{path}", "random", "--variant", "micro", "--players", "2",
                "--deals", "4", cwd=tmp_path)  # fmt: skip
    one_line(done.returncode, done.stderr, str(path))


# ----- 6 and 7. sizes past the limits are refused before any work -----------------------------
@pytest.mark.parametrize(
    "argv, names",
    [
        (["train", TINY, "--set", "eval.deals=1000000000000"], ["eval.deals"]),
        (["train", TINY, "--set", "run.threads=1000000"], ["run.threads", "512"]),
        (["bench", "random", "heuristic", "--deals", "1000000000000"], ["--deals"]),
        (["bench", "random", "heuristic", "--chunk", "100000000"], ["--chunk"]),
        (["speed", "--batch", "1000000000000", "--seconds", "0.1"], ["--batch"]),
    ],
)
def test_sizes_past_the_limits_are_refused(tmp_path: Path, argv, names) -> None:
    done = spar(*argv, cwd=tmp_path, cap=True, timeout=120)
    one_line(done.returncode, done.stderr, *names, "at most")
    assert not (tmp_path / "runs").exists()


@pytest.mark.parametrize(
    "override, names",
    [("model.hidden=[1000000000]", ["model.hidden", "16,384"]),
     ("rollout.games=1000000000000", ["rollout.games", "1,048,576"])],
)  # fmt: skip
def test_network_and_batch_sizes_past_the_limits_are_refused(
    capsys, tmp_path, monkeypatch, override, names
) -> None:
    monkeypatch.chdir(tmp_path)
    status, _, err = cli(capsys, "train", TINY, "--set", override)
    one_line(status, err, *names, "at most")
    assert not (tmp_path / "runs").exists()


def test_export_check_past_the_limit_is_refused(tmp_path: Path, tiny_run: Path) -> None:
    done = spar("export", tiny_run, "--out", "x.onnx", "--check", "99999999999999", cwd=tmp_path,
                cap=True, timeout=120)  # fmt: skip
    one_line(done.returncode, done.stderr, "--check", "at most")
    assert not (tmp_path / "x.onnx").exists()


# ----- 8. a Ray cluster that does not answer is given up in bounded time ----------------------
@pytest.mark.parametrize("command", ["bench", "train"])
def test_an_unreachable_ray_cluster_is_given_up(tmp_path: Path, command: str) -> None:
    pytest.importorskip("ray")
    argv = (
        ["bench", "random", "heuristic", "--players", "2", "--deals", "4"]
        if command == "bench"
        else ["train", TINY, "--name", "r"]
    )
    started = time.monotonic()
    done = spar(*argv, "--ray", "127.0.0.1:1", "--ray-timeout", "2", cwd=tmp_path, timeout=90)
    one_line(done.returncode, done.stderr, "127.0.0.1:1", "no Ray cluster answers")
    assert time.monotonic() - started < 60
    assert not (tmp_path / "runs" / "r").exists()


# ----- 9. loaders refuse files larger than any they write -------------------------------------
@pytest.mark.parametrize("command", ["bench", "export"])
def test_a_huge_file_is_refused_by_its_size(tmp_path: Path, command: str) -> None:
    big = tmp_path / "big.pt"
    with open(big, "wb") as f:
        f.truncate(8 << 30)  # sparse: no disk used
    argv = (
        ["bench", f"ppo:{big}", "random", "--players", "2", "--deals", "4"]
        if command == "bench"
        else ["export", big, "--out", tmp_path / "x.onnx"]
    )
    done = spar(*argv, cwd=tmp_path, cap=True, timeout=120)
    one_line(done.returncode, done.stderr, str(big), "larger than any checkpoint")


@pytest.mark.parametrize("spec, what", [("onnx", "ONNX bot"), ("cfr", "CFR policy")])
def test_a_huge_bot_or_policy_file_is_refused_by_its_size(tmp_path: Path, spec, what) -> None:
    big = tmp_path / f"big.{spec}"
    with open(big, "wb") as f:
        f.truncate(5 << 30)
    done = spar("bench", f"{spec}:{big}", "random", "--deals", "4", cwd=tmp_path, cap=True)
    one_line(done.returncode, done.stderr, str(big), what)


# ----- 10. a full disk while a checkpoint is written ------------------------------------------
def test_a_full_disk_during_a_checkpoint_write_says_the_earlier_ones_are_intact(
    capsys, tmp_path, monkeypatch
) -> None:
    from agents.ppo.checkpoint import load_checkpoint

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
    from agents.ppo.agent import latest_checkpoint

    folder = run_copy / "checkpoints"
    shutil.copy(folder / "update_000000.pt", folder / "update_best.pt")
    status, out, err = cli(capsys, "train", "--resume", "runs/t", "--set", "run.updates=4")
    assert status == 0, err
    assert latest_checkpoint(run_copy) == folder / "update_000004.pt"
    names = sorted(p.name for p in folder.iterdir())
    assert names == ["update_000000.pt", "update_000002.pt", "update_000004.pt", "update_best.pt"]


def test_checkpoints_are_ordered_by_update_not_by_name(tmp_path: Path) -> None:
    from agents.ppo.agent import latest_checkpoint

    folder = tmp_path / "run" / "checkpoints"
    folder.mkdir(parents=True)
    for name in ("update_999999.pt", "update_1000000.pt", "update_x.pt", "update_000001.pt.tmp"):
        (folder / name).write_bytes(b"")
    assert latest_checkpoint(tmp_path / "run").name == "update_1000000.pt"


# ----- 12. a diverged run or a broken bot is named, not an illegal move -----------------------
@pytest.mark.parametrize(
    "override, names",
    [
        ("ppo.lr=1e30", ["ppo.lr", "the last good checkpoint is", "update_000000.pt"]),
        ("ppo.reward_scale=1e300", ["reward scale", "no checkpoint yet", "removed"]),  # warm start
    ],
)
def test_a_diverged_run_stops_naming_the_cause_and_the_last_good_checkpoint(
    capsys, tmp_path, monkeypatch, override, names
) -> None:
    monkeypatch.chdir(tmp_path)
    status, _, err = cli(capsys, "train", TINY, "--name", "n", "--set", override)
    one_line(status, err, "diverged", *names)
    assert "cannot play" not in err


def _bot(path: Path, kind: str) -> Path:
    """A bot file with the shipped bot's metadata whose answer is broken in the way ``kind``
    says: NaN, weight on illegal cards, or a row 5 wide."""
    import onnx
    from onnx import TensorProto, helper

    shipped = onnx.load(str(SHIPPED_BOT))
    width = 5 if kind == "5 wide" else 36
    nodes = [helper.make_node("Cast", ["mask"], ["m"], to=TensorProto.FLOAT)]
    if kind == "NaN":
        nan = helper.make_tensor("k", TensorProto.FLOAT, [], [float("nan")])
        nodes.append(helper.make_node("Mul", ["m", "k"], ["probs"]))
        inits = [nan]
    elif kind == "illegal":
        flat = helper.make_tensor("k", TensorProto.FLOAT, [], [1 / 36])
        zero = helper.make_tensor("z", TensorProto.FLOAT, [], [0.0])
        nodes += [helper.make_node("Mul", ["m", "z"], ["m0"]),
                  helper.make_node("Add", ["m0", "k"], ["probs"])]  # fmt: skip
        inits = [flat, zero]
    else:
        starts = helper.make_tensor("s", TensorProto.INT64, [1], [0])
        ends = helper.make_tensor("e", TensorProto.INT64, [1], [5])
        axes = helper.make_tensor("a", TensorProto.INT64, [1], [1])
        nodes.append(helper.make_node("Slice", ["m", "s", "e", "a"], ["probs"]))
        inits = [starts, ends, axes]
    graph = helper.make_graph(
        nodes, "broken", list(shipped.graph.input),
        [helper.make_tensor_value_info("probs", TensorProto.FLOAT, ["batch", width])], inits,
    )  # fmt: skip
    model = helper.make_model(graph, opset_imports=list(shipped.opset_import))
    model.ir_version = shipped.ir_version
    for prop in shipped.metadata_props:
        model.metadata_props.add(key=prop.key, value=prop.value)
    onnx.save(model, str(path))
    return path


@pytest.mark.parametrize("kind", ["NaN", "illegal", "5 wide"])
def test_a_broken_bot_is_refused_by_name(capsys, tmp_path: Path, kind: str) -> None:
    bot = _bot(tmp_path / "broken.onnx", kind)
    status, _, err = cli(capsys, "bench", f"onnx:{bot}", "random", "--deals", "4")
    one_line(status, err, str(bot))
    assert "cannot play" not in err


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


# ----- 15. line reads are bounded -------------------------------------------------------------
@pytest.mark.parametrize(
    "argv, names, code",
    [(["replay", "/dev/zero"], ["/dev/zero", "line 1", "longer than"], 1),
     (["train", "/dev/zero"], ["/dev/zero", "larger than any config"], 2)],
)  # fmt: skip
def test_a_line_without_end_is_refused(tmp_path: Path, argv, names, code) -> None:
    done = spar(*argv, cwd=tmp_path, cap=True, timeout=120)
    one_line(done.returncode, done.stderr, *names, code=code)
