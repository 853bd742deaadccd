"""`spar train` through the real command: a tiny run, its files, resume, bad input, and bench."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
TINY = ROOT / "configs" / "ppo_tiny.toml"
SPAR = [sys.executable, "-c", "import sys; from spar_apps.cli import main; sys.exit(main())"]


def spar(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "COLUMNS": "120"}
    return subprocess.run(
        [*SPAR, *args], cwd=cwd, capture_output=True, text=True, timeout=300, env=env
    )


def test_a_tiny_run_trains_writes_its_files_resumes_and_benches(tmp_path: Path) -> None:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    done = spar("train", str(TINY), "--set", "run.updates=2", "--name", "t", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    run = tmp_path / "runs" / "t"
    assert "evaluation after update 2" in done.stdout
    assert f"spar bench ppo:{Path('runs') / 't'} heuristic --deals" in done.stdout  # 2 players
    assert (run / "config.toml").is_file()
    assert sorted(p.name for p in (run / "checkpoints").iterdir()) == [
        "update_000000.pt",  # after the warm start
        "update_000002.pt",
    ]
    events = EventAccumulator(str(run))
    events.Reload()
    losses = [e.value for e in events.Scalars("losses/value_loss")]
    assert len(losses) == 2 and np.isfinite(losses).all()

    more = spar("train", "--resume", "runs/t", "--set", "run.updates=4", cwd=tmp_path)
    assert more.returncode == 0, more.stderr
    assert "evaluation after update 4" in more.stdout
    events.Reload()
    assert [e.step for e in events.Scalars("losses/value_loss")] == [1, 2, 3, 4]

    bench = spar("bench", "ppo:runs/t", "random", "--players", "2", "--deals", "20", "--json",
                 cwd=tmp_path)  # fmt: skip
    assert bench.returncode == 0, bench.stderr
    assert json.loads(bench.stdout)["lineup"] == ["ppo:runs/t", "random"]


def test_a_run_that_only_imitates_says_so_and_its_export_command_works(tmp_path: Path) -> None:
    """``run.updates = 0``: the summary says the run only imitated, and the export command it
    prints writes the bot."""
    done = spar("train", str(TINY), "--set", "run.updates=0", "--set", "warmstart.updates=1",
                "--set", "rollout.games=32", "--name", "d", cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "d: imitation only (run.updates = 0), no PPO update" in done.stdout
    assert "evaluation after update" not in done.stdout
    export = next(line for line in done.stdout.splitlines() if line.startswith("export:"))
    command = export.removeprefix("export:").split()
    assert command[:2] == ["spar", "export"]
    exported = spar(*command[1:], cwd=tmp_path)
    assert exported.returncode == 0, exported.stderr
    assert (tmp_path / "d.onnx").stat().st_size > 0


def test_bad_input_is_one_line_and_exit_status_2(tmp_path: Path) -> None:
    cases = [
        (["train", str(TINY), "--set", "ppo.lr=abc"], "ppo.lr: expected a number"),
        (["train", str(TINY), "--set", "ppo.nosuch=1"], "ppo.nosuch: unknown key"),
        (["train", "nope.toml"], "nope.toml: no such config file"),
        (["train", "--resume", "runs/none"], "no config.toml there"),
        (["train", str(TINY), "--resume", "x"], "--resume takes the run's own config"),
    ]
    for args, message in cases:
        done = spar(*args, cwd=tmp_path)
        assert done.returncode == 2, (args, done.stderr)
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and message in lines[0], (args, done.stderr)
    assert not (tmp_path / "runs").exists()  # nothing was trained or written


def test_a_run_name_in_use_is_refused(tmp_path: Path) -> None:
    first = spar("train", str(TINY), "--set", "run.updates=1", cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    again = spar("train", str(TINY), "--set", "run.updates=1", cwd=tmp_path)
    assert again.returncode == 2
    assert "already exists; resume it with --resume" in again.stderr


def test_exact_solves_run_through_spar_train_and_their_policy_benches(tmp_path: Path) -> None:
    cfr = spar("train", str(ROOT / "configs" / "cfr_micro.toml"), "--name", "c", cwd=tmp_path)
    assert cfr.returncode == 0, cfr.stderr
    assert "seat 0's value 0.777778" in cfr.stdout  # 7/9, as the LP finds
    assert (tmp_path / "runs" / "c" / "policy.npz").is_file()
    assert (tmp_path / "runs" / "c" / "config.toml").read_text().count("[solver]") == 1
    lp = spar(
        "train", str(ROOT / "configs" / "lp_mini.toml"), "--set", 'game.variant="micro"',
        "--name", "l", cwd=tmp_path,
    )  # fmt: skip
    assert lp.returncode == 0, lp.stderr
    assert "micro, lp: seat 0's value 0.777778" in lp.stdout
    bench = spar("bench", "cfr:runs/c/policy.npz", "random", "--variant", "micro",
                 "--players", "2", "--deals", "200", "--json", cwd=tmp_path)  # fmt: skip
    assert bench.returncode == 0, bench.stderr
    assert json.loads(bench.stdout)["agents"][0]["mean_payoff"] > 0


def test_a_run_in_a_log_says_it_started_shows_the_warm_start_and_what_cut_it_short(
    tmp_path: Path,
) -> None:
    """In a log (not a terminal): a first line at once, how run.max_minutes is shared, the
    table's columns in spar bench's order, and a run cut by run.max_minutes says how to finish
    it (the warm start, cut at its share of the budget, says so)."""
    done = spar("train", str(TINY), "--name", "cut", "--set", "run.max_minutes=0.0001",
                "--set", "warmstart.updates=20", cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("spar train: starting;")
    assert lines[1].startswith("spar train: run.max_minutes 0.0001: the warm start may take up to")
    assert lines[2].startswith("spar train: the warm start took ")
    assert " min (1 of 20 imitation steps, stopped at its share of run.max_minutes); PPO has " \
        in lines[2]  # fmt: skip
    header = next(line for line in lines if "mean payoff" in line)
    assert header.index("won 6/7") < header.index("kept 6/7")  # as spar bench has them
    said = " ".join(done.stdout.split())
    assert "run.max_minutes (0.0001) ended the run after update 1 of 4" in said
    assert "the learning rate was scheduled for 4" in said
    finish = f"spar train --resume {Path('runs') / 'cut'} --set run.max_minutes=0"
    assert finish in said
    more = spar(*finish.split()[1:], cwd=tmp_path)
    assert more.returncode == 0, more.stderr
    assert "evaluation after update 4" in more.stdout and "ended the run" not in more.stdout


def test_a_log_shows_the_warm_start_by_tenths(capsys) -> None:
    from rich.console import Console

    from spar_apps.cli.train import _Bar
    from spar_train.progress import Progress

    with _Bar(Console(file=sys.stdout, force_terminal=False)) as bar:
        for step in range(1, 21):
            bar.update(Progress("imitation", step, 20, {"cross_entropy": 1.0}))
    lines = capsys.readouterr().out.splitlines()
    steps = [line.split()[3] for line in lines if line.startswith("warm start: imitation")]
    assert steps == [f"{k}/20," for k in range(2, 21, 2)]  # each tenth


def test_the_progress_bar_keeps_to_one_line_on_a_narrow_terminal() -> None:
    import io

    from rich.console import Console

    from spar_apps.cli.train import _progress

    figures = "12,345 decisions/s  KL 0.0012  vs heuristic +0.123  vs onnx:universal -0.004"
    for width in (30, 50, 80, 200):
        console = Console(file=io.StringIO(), width=width, force_terminal=True, color_system=None)
        bar = _progress(console)
        bar.update(bar.add_task("warm start", total=500, figures=figures), completed=123)
        lines = console.render_lines(bar.get_renderable(), console.options)
        assert len(lines) == 1, width
        text = "".join(segment.text for segment in lines[0]).rstrip()
        assert len(text) <= width and text.startswith("warm start")
        assert "123/500" in text or width < 40  # the count shows wherever there is room
