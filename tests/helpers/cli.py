"""What the tests of careless and hostile runs share: ``spar`` in a subprocess or in-process,
the one-line error check, a tiny run to copy, and a run's TensorBoard points.

Cases about the command line run the installed ``spar`` in a subprocess (with a cap on its
memory where the old behaviour was to eat it all); the others call :func:`spar_apps.cli.main`
in-process, which is faster and runs the same code.
"""

from __future__ import annotations

import os
import resource
import shutil
import signal
import subprocess
import sys
from pathlib import Path

from spar_apps.cli import main
from spar_env import __version__

ROOT = Path(__file__).resolve().parents[2]
TINY = ROOT / "configs" / "ppo_tiny.toml"
SPAR = Path(sys.executable).parent / "spar"
SHIPPED_BOT = ROOT / "checkpoints" / "spar4.onnx"
MEMORY_CAP = 6 << 30  # bytes of address space for a subprocess that might try to eat them all


def default_sigint() -> None:
    """A child's ``preexec_fn``: Ctrl-C (SIGINT) reaches it with its default action.

    An ignored signal stays ignored across exec, and a test run can leave SIGINT ignored
    in its worker (seen in random order): a child that is sent SIGINT must not inherit that.
    """
    signal.signal(signal.SIGINT, signal.SIG_DFL)


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


def make_tiny_run(tmp_path_factory) -> Path:
    """A tiny PPO run of 2 updates (checkpoints 0 and 2): a module fixture's, copied by tests."""
    from spar_train.config import load_config
    from spar_train.ppo.loop import train

    runs = tmp_path_factory.mktemp("runs")
    config = load_config(TINY, ["run.updates=2", "run.name=base"])
    train(config, runs)
    return runs / "base"


def copy_run(tiny_run: Path, tmp_path: Path, monkeypatch) -> Path:
    """A copy of the tiny run at ``runs/t``, with ``tmp_path`` the current folder."""
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
    from spar_train.config import dump_config, load_config

    run_dir.mkdir(parents=True)
    (run_dir / "config.toml").write_text(dump_config(load_config(path, overrides), __version__))


def scalars(run_dir: Path) -> dict[str, list[tuple[int, float]]]:
    """Every TensorBoard scalar tag of a run, in all its event folders, as (step, value), in
    the order they were logged.

    By wall time, not by file: two sessions of one test process within the same second write
    files whose names sort by a process-wide counter as text (``.10`` before ``.9``).
    """
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    tags: dict[str, list[tuple[float, int, float]]] = {}
    folders = {p.parent for p in run_dir.rglob("events.out.tfevents.*")}
    for folder in sorted(folders):
        events = EventAccumulator(str(folder))
        events.Reload()
        for tag in events.Tags()["scalars"]:
            points = ((e.wall_time, e.step, e.value) for e in events.Scalars(tag))
            tags.setdefault(tag, []).extend(points)
    return {
        tag: [(step, value) for _, step, value in sorted(points)] for tag, points in tags.items()
    }
