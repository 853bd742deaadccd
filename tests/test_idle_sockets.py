"""The silent-sockets benchmark of ``spar serve`` (``benchmarks/idle_sockets.py``) at a small
size: 60 WebSockets that never say hello against the real command allowed 96 open files; every
new player is answered, the server never holds more files than it may, and the silent sockets
end as the server says (refused past its caps, closed at the hello deadline). No time is
asserted: only the counts and the report's shape."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "idle_sockets.py"


def test_silent_sockets_leave_every_new_player_answered(tmp_path: Path) -> None:
    out = tmp_path / "report.json"
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--sockets", "60", "--addresses", "20", "--files", "96",
         "--seconds", "7", "--every", "1", "--reopen", "1", "--json", str(out)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(out.read_text())
    assert (report["sockets"], report["files"]) == (60, 96)
    assert report["opening"]["failed"] == 0, report["opening"]  # while they first open
    for when in ("before", "during"):
        assert report[when]["failed"] == 0 and report[when]["players"] >= 3, report[when]
        assert list(report[when]["both_ms"]) == ["p50", "p99", "max"]
    assert 0 < report["server_most_files"] <= 96
    ends = report["silent_ends"]
    # every silent socket the server took was closed: at the hello deadline (5 s), or let go
    # for a newer connection; those past the caps were refused
    assert ends.get("4408", 0) + ends.get("closed", 0) > 0
    assert ends.get("4503", 0) + ends.get("dropped", 0) > 0
    known = {"4408", "closed", "4503", "4429", "dropped", "open at the end", "no answer"}
    assert all(end in known or end.startswith("error ") for end in ends), ends  # a reset
    assert sum(ends.values()) >= report["silent_opened"]  # each opened one ended somehow
    assert "new players during" in done.stdout
