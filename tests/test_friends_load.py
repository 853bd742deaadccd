"""The load benchmark of the tables of friends (``benchmarks/friends_load.py``) at a small size:
three tables of four people play through the real ``spar serve`` to their budget of moves
(the next hands dealt, a match short enough that another may start), and its report holds
every move seen by every other person, every view sent, no error and nothing out of order.
No time is asserted: only the counts and the report's shape."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "friends_load.py"
TABLES, MOVES, PEOPLE = 3, 60, 4


def test_the_friends_load_benchmark_reports_every_move_to_every_other_person(
    tmp_path: Path,
) -> None:
    out = tmp_path / "report.json"
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--tables", str(TABLES), "--moves", str(MOVES),
         "--think", "0.05", "--end", "target:5", "--time-limit", "150", "--json", str(out)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(out.read_text())
    assert (report["tables"], report["people"], report["end"]) == (TABLES, PEOPLE, "target:5")
    assert (report["errors"], report["out_of_order"], report["lost"]) == (0, 0, 0), report
    assert report["error_examples"] == []
    assert report["moves"] == TABLES * MOVES  # every table played its budget, none stalled
    assert report["next_hands"] >= TABLES  # a hand is 20 moves: each table dealt the next
    # every move reached each of the three other people once, and its mover once
    assert report["latency_count"] == (PEOPLE - 1) * report["moves"]
    actions = report["moves"] + report["next_hands"] + report["new_matches"]
    # each seat's first view as it connects, then one view to every seat per action
    assert report["views"] == report["messages"] == PEOPLE * (TABLES + actions)
    for spread in (report["latency_ms"], report["own_view_ms"]):
        assert list(spread) == ["p50", "p90", "p99", "max"]
        assert 0 < spread["p50"] <= spread["p90"] <= spread["p99"] <= spread["max"]
    assert set(report["cpu_per_second"]) == set(report["cores"]) == {"server", "people"}
    assert "to the others         p50 " in done.stdout
