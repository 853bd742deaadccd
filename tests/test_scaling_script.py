"""``benchmarks/scaling.py``, the prepared call that measures every target of docs/scaling.md
on a GPU box: here its every case runs on the CPU, tiny, and its report has every figure."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_scaling_script_runs_every_case_and_writes_every_ratio(tmp_path: Path) -> None:
    out = tmp_path / "scaling.json"
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "scaling.py"), "--device",
                           "cpu", "--quick", "--updates", "1", "--out", str(out)],
                          capture_output=True, text=True, timeout=600)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(out.read_text())
    assert {"universal.cpu2", "universal.gpu", "universal.gpu_served", "default.cpu2",
            "default.gpu", "default.gpu_served", "universal.workers2"} <= set(report["figures"])  # fmt: skip
    assert all(v > 0 for v in report["figures"].values())
    assert len(report["ratios"]) == 5 and report["machine"]["quick"] is True
    assert "universal.gpu_served/cpu2" in done.stdout and "(target 10x:" in done.stdout
