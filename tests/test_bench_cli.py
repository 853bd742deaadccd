"""``spar bench`` on tiny budgets: the table, JSON, CSV, the PNG chart, and one-line errors."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from spar_apps.cli import main
from spar_apps.cli.bench import CSV_FIELDS

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def bench(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """``spar bench argv``: the exit status, stdout and stderr."""
    status = main(["bench", *argv])
    out, err = capsys.readouterr()
    return status, out, err


def test_json_has_one_entry_per_agent_and_is_deterministic(capsys) -> None:
    argv = ("heuristic", "random", "random", "random", "--deals", "30", "--seed", "3", "--json")
    status, out, err = bench(capsys, *argv)
    assert status == 0 and err == ""
    data = json.loads(out)
    assert (data["variant"], data["players"], data["deals"], data["seed"]) == ("spar", 4, 30, 3)
    assert data["lineup"] == ["heuristic", "random", "random", "random"]
    assert data["rotations"] == 4 and data["games"] == 120
    assert [a["spec"] for a in data["agents"]] == ["heuristic", "random"]
    assert [a["seats"] for a in data["agents"]] == [1, 3]
    assert [a["hands"] for a in data["agents"]] == [120, 360]
    for a in data["agents"]:
        low, high = a["ci95"]
        assert low < a["mean_payoff"] < high
        assert high - a["mean_payoff"] == pytest.approx(a["ci95_halfwidth"])
        assert 0 <= a["win_share"] <= 1 and 0 <= a["low_card_kept"] <= 1
    matrix = data["head_to_head"]["mean"]
    assert data["head_to_head"]["agents"] == ["heuristic", "random"]
    assert len(matrix) == 2 and all(len(row) == 2 for row in matrix)
    assert matrix[0][1] == pytest.approx(-matrix[1][0])
    assert json.loads(bench(capsys, *argv)[1]) == data
    assert json.loads(bench(capsys, *argv[:-3], "--seed", "4", "--json")[1]) != data


def test_rules_options_reach_the_tournament(capsys) -> None:
    status, out, _ = bench(
        capsys, "heuristic", "low", "--variant", "sipa", "--players", "3",
        "--set", "weak_hand_exchange=true", "--deals", "10", "--json",
    )  # fmt: skip
    assert status == 0
    data = json.loads(out)
    assert (data["variant"], data["players"]) == ("sipa", 3)
    assert data["options"] == {"weak_hand_exchange": True}
    assert data["rotations"] == 3 and data["seating"][0] == [0, 1, 0]


def test_a_variant_without_scoring_ranks_reports_null_low_card_rates(capsys) -> None:
    status, out, _ = bench(
        capsys, "heuristic", "random", "--variant", "agram", "--deals", "5", "--json"
    )
    assert status == 0
    assert all(a["low_card_wins"] is None for a in json.loads(out)["agents"])


def test_the_table_names_the_agents_and_the_head_to_head(capsys) -> None:
    status, out, err = bench(capsys, "heuristic", "high", "--deals", "10")
    assert status == 0 and err == ""
    assert "heuristic" in out and "high" in out and "head to head" in out
    assert "won 6/7" in out and "mean payoff" in out


def test_csv_has_a_row_per_agent_with_the_json_figures(capsys, tmp_path: Path) -> None:
    path = tmp_path / "bench.csv"
    status, out, _ = bench(
        capsys, "heuristic", "low", "--deals", "12", "--csv", str(path), "--json"
    )
    assert status == 0
    data = json.loads(out)
    with path.open() as f:
        rows = list(csv.DictReader(f))
    assert list(rows[0]) == list(CSV_FIELDS)
    assert [r["spec"] for r in rows] == ["heuristic", "low"]
    for row, agent in zip(rows, data["agents"], strict=True):
        assert float(row["mean_payoff"]) == pytest.approx(agent["mean_payoff"])
        assert float(row["ci95_low"]) == pytest.approx(agent["ci95"][0])
        assert int(row["hands"]) == agent["hands"] and row["variant"] == "spar"


def test_plot_writes_a_png(capsys, tmp_path: Path) -> None:
    path = tmp_path / "means.png"
    status, _, _ = bench(capsys, "heuristic", "random", "low", "--deals", "8", "--plot", str(path))
    assert status == 0
    data = path.read_bytes()
    assert data.startswith(PNG_SIGNATURE) and len(data) > 5000


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (("nobody", "random"), "unknown agent 'nobody'"),
        (("heuristic:exchange=maybe", "random"), "exchange must be true or false"),
        (("heuristic", "random", "--set", "colour=red"), "unknown option 'colour'"),
        (("heuristic", "random", "--players", "9"), "at most 7 players"),
        (("a", "b", "c", "--variant", "mini"), "does not fit 2 seats"),
        (("random", "random"), "at least two different agents"),
        (("heuristic", "random", "--deals", "0"), "argument --deals: must be at least 1"),
        (("heuristic", "random", "--plot", "/no/such/dir/x.png"), "no such directory"),
    ],
)
def test_bad_options_are_one_line_errors(capsys, argv: tuple[str, ...], message: str) -> None:
    status, out, err = bench(capsys, *argv)
    assert status == 2 and out == ""
    assert err.startswith("spar bench: error: ") and message in err
    assert err.count("\n") == 1


def test_no_agents_is_a_usage_error(capsys) -> None:
    status, _, err = bench(capsys)
    assert status == 2 and "AGENT" in err


def test_matches_bench_whole_sessions_as_a_table_json_csv_and_chart(capsys, tmp_path) -> None:
    argv = ("heuristic", "random", "--players", "2", "--set", "end=target:5", "--seed", "2")
    status, out, err = bench(capsys, *argv, "--matches", "40", "--json")
    assert status == 0 and err == ""
    data = json.loads(out)
    assert (data["matches"], data["rotations"], data["games"], data["end"]) == (
        40, 2, 80, "target:5",
    )  # fmt: skip
    heuristic, random = data["agents"]
    assert heuristic["match_share"] + random["match_share"] == pytest.approx(1.0)
    assert heuristic["fair_share"] == 0.5 and data["mean_hands"] >= 2
    low, high = heuristic["match_ci95"]
    assert low < heuristic["match_share"] < high
    status, out, _ = bench(
        capsys, *argv, "--matches", "40", "--csv", str(tmp_path / "m.csv"),
        "--plot", str(tmp_path / "m.png"),
    )  # fmt: skip
    assert status == 0
    assert "matches won" in out and "hands per match" in out
    rows = list(csv.DictReader((tmp_path / "m.csv").open()))
    assert [r["spec"] for r in rows] == ["heuristic", "random"]
    assert float(rows[0]["match_share"]) == pytest.approx(heuristic["match_share"])
    assert (tmp_path / "m.png").read_bytes().startswith(PNG_SIGNATURE)


def test_matches_need_a_session_end_and_exclude_deals(capsys) -> None:
    status, _, err = bench(capsys, "heuristic", "random", "--variant", "fapfap", "--matches", "5")
    assert status == 2
    assert "open session" in err and "--set end=target:10" in err and len(err.splitlines()) == 1
    assert main(["bench", "heuristic", "random", "--matches", "5", "--deals", "5"]) == 2
    assert "not allowed with argument" in capsys.readouterr().err


def test_a_bots_spec_is_read_once_and_its_session_built_once(capsys, monkeypatch) -> None:
    """``spar bench onnx:spar4 ...`` takes its game from the bot and plays it: the spec is read
    once, and the one ONNX session is the agent's (the game comes from the metadata alone)."""
    import functools

    import onnxruntime

    from spar_agents.registry.spec import AgentSpec

    counts = {"sessions": 0, "reads": []}
    real = onnxruntime.InferenceSession

    def counting_session(*args, **kwargs):
        counts["sessions"] += 1
        return real(*args, **kwargs)

    read = AgentSpec.__dict__["_read"].func

    def counting_read(spec: AgentSpec):
        counts["reads"].append(spec.text)
        return read(spec)

    reads = functools.cached_property(counting_read)
    reads.__set_name__(AgentSpec, "_read")
    monkeypatch.setattr(onnxruntime, "InferenceSession", counting_session)
    monkeypatch.setattr(AgentSpec, "_read", reads)
    status, out, err = bench(capsys, "onnx:spar4", "heuristic", "heuristic", "heuristic",
                             "--deals", "20", "--json")  # fmt: skip
    assert status == 0 and "as onnx:spar4 was made for" in err
    assert json.loads(out)["agents"][0]["spec"] == "onnx:spar4"
    assert counts == {"sessions": 1, "reads": ["onnx:spar4", "heuristic"]}
