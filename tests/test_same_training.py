"""The PPO run's refactor moved code, not what it computes: every case trains as it did at BASE.

``benchmarks/same_training.py`` takes the source tree of ``BASE`` out of git and runs the same
cut-down shipped configs on it and on this tree, here, in fresh interpreters: a single game,
a mix, each stopped and resumed, the overlap (one game, stopped and resumed; a mix), the match
reward, the magnet, the warm start from a bot's actor, a run that only imitates, and sampled
CFR. Every checkpoint's digest (weights, optimiser, generators, pool, games, counters) and
every curve a run computes must be the same.

Why against a commit, not stored digests: the PPO digests hold only on the CPU they were taken
on (torch's float kernels differ in the last bits between instruction sets,
``tests/test_fingerprints.py``), so both sides are computed on the machine that runs the test.
``BASE`` is the commit the refactor was checked against (``main`` as it was merged in); a later
change that means to train differently moves ``BASE`` to the commit it starts from, and says so
in its message. A checkout without that commit (a source archive, a shallow clone) skips.
"""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BASE = "bbf8e9772bb52d9ab4f4d058ead2014c73096244"  # main as merged into the refactor (it changed no run)


def _has_commit(commit: str) -> bool:
    if shutil.which("git") is None:
        return False
    found = subprocess.run(["git", "-C", str(ROOT), "cat-file", "-e", f"{commit}^{{commit}}"],
                           capture_output=True)  # fmt: skip
    return found.returncode == 0


@pytest.mark.slow
@pytest.mark.skipif(not _has_commit(BASE), reason=f"no git history holding {BASE[:7]}")
def test_every_case_trains_bit_for_bit_as_at_the_base_commit(tmp_path: Path) -> None:
    spec = importlib.util.spec_from_file_location("same_training",
                                                  ROOT / "benchmarks" / "same_training.py")  # fmt: skip
    assert spec is not None and spec.loader is not None
    same = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = same  # its dataclasses look their module up
    spec.loader.exec_module(same)
    report = same.compare(BASE, same.CASES, tmp_path)
    assert set(report) == {case.name for case in same.CASES}
    assert {name: lines for name, lines in report.items() if lines} == {}


def test_the_comparison_finds_a_run_that_trains_otherwise(tmp_path: Path) -> None:
    """The digests the comparison reads tell two seeds apart (the check is not vacuous)."""
    from helpers.fingerprint import checkpoint_digests

    import spar_train
    from spar_train.config import load_config

    tiny = ROOT / "configs" / "ppo_tiny.toml"
    short = ["run.updates=1", "warmstart.updates=0", "rollout.games=16", "eval.deals=4"]
    digests = [
        checkpoint_digests(
            spar_train.run(load_config(tiny, short), tmp_path / str(seed), seed=seed).run_dir
            / "checkpoints"
        )  # fmt: skip
        for seed in (0, 1)
    ]
    assert digests[0].keys() == digests[1].keys() and digests[0] != digests[1]
