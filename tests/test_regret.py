"""The regret against a strong search (:mod:`spar_train.regret`, ``benchmarks/regret.py``): an
agent that plays the judge's card has none, random has more than search on the same
positions, the breakdown sums to the total, a seed fixes everything whatever the chunks, and a
search judged by its own worlds is refused."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from spar_agents import make_agent
from spar_env.rules import make_rules
from spar_train.regret import (
    Judged,
    Positions,
    check_judge,
    clustered_mean,
    difference,
    judge_positions,
    regret_of,
    self_play,
)

ROOT = Path(__file__).resolve().parents[1]
RULES = make_rules("spar", players=4)
JUDGE = "search:worlds=24,candidates=2,prior=0,seed=11"


@pytest.fixture(scope="module")
def positions() -> Positions:
    return self_play(RULES, 120, seed=3, player=make_agent("onnx:universal", RULES))


@pytest.fixture(scope="module")
def judged(positions: Positions) -> Judged:
    return judge_positions(positions, make_agent(JUDGE, RULES))


def test_an_agent_that_plays_the_judge_s_card_has_no_regret(judged: Judged) -> None:
    twin = make_agent(JUDGE, RULES)  # the judge's own worlds and, with no prior, its own choice
    report = regret_of(twin, judged)
    assert report.mean == 0.0 and report.agreement == 1.0
    assert (report.per_decision == 0).all()
    other = regret_of(make_agent("onnx:universal", RULES), judged)
    assert other.mean > 0 and other.agreement < 1  # the check could fail: others do regret


def test_random_regrets_more_than_search_on_the_same_positions(judged: Judged) -> None:
    rand = regret_of(make_agent("random", RULES), judged, seed=1)
    search = regret_of(make_agent("search:worlds=8,candidates=2", RULES), judged)
    gap = difference(rand, search)
    assert gap.mean == pytest.approx(rand.mean - search.mean)
    assert gap.mean - gap.half > 0
    for groups in (gap.by_trick, gap.by_role):
        assert sum(g.contribution for g in groups) == pytest.approx(gap.mean)
    assert (rand.per_decision >= 0).all() and (search.per_decision >= 0).all()


def test_the_breakdown_sums_to_the_total(positions: Positions, judged: Judged) -> None:
    report = regret_of(make_agent("random", RULES), judged, seed=2)
    with_choice = int(positions.choice.sum())
    assert report.decisions == positions.count == 120
    assert report.forced == positions.count - with_choice > 0
    assert report.mean == pytest.approx(report.per_decision[positions.choice].mean())
    for groups in (report.by_trick, report.by_role):
        assert sum(g.contribution for g in groups) == pytest.approx(report.mean)
        assert sum(g.decisions for g in groups) == with_choice
        assert sum(g.forced for g in groups) == report.forced
        assert sum(g.share for g in groups) == pytest.approx(1.0)
    last = report.by_trick[-1]  # the last trick: every seat holds one card
    assert last.decisions == 0 and last.forced > 0 and last.contribution == 0
    assert report.by_role[0].name == "lead" and report.by_role[0].decisions > 0
    tags = report.scalars()
    assert tags["eval/regret"] == report.mean and "eval/regret_trick5" not in tags
    assert tags["eval/regret_trick1"] == report.by_trick[0].mean


def test_a_seed_fixes_every_figure_whatever_the_chunks(
    positions: Positions, judged: Judged
) -> None:
    again = self_play(RULES, 120, seed=3, player=make_agent("onnx:universal", RULES))
    assert (again.state.hands == positions.state.hands).all()
    assert (again.history.cards == positions.history.cards).all()
    told: list[int] = []
    rejudged = judge_positions(again, make_agent(JUDGE, RULES), chunk=7, progress=told.append)
    assert sum(told) == int(again.choice.sum()) and max(told) == 7
    assert np.array_equal(rejudged.values, judged.values)
    assert np.array_equal(rejudged.best, judged.best)
    one = regret_of(make_agent("random", RULES), judged, seed=4, chunk=1000)
    two = regret_of(make_agent("random", RULES), rejudged, seed=4, chunk=1000)
    assert np.array_equal(one.per_decision, two.per_decision)
    other = self_play(RULES, 120, seed=4, player=make_agent("onnx:universal", RULES))
    assert not (other.state.hands[0] == positions.state.hands[0]).all()


def test_each_hand_is_one_draw_of_the_interval() -> None:
    values = np.array([0.1, 0.4, 0.0, 0.7, 0.3])
    mean, half = clustered_mean(values, np.arange(5))  # one decision a hand: the usual interval
    assert mean == pytest.approx(0.3)
    assert half == pytest.approx(1.959964 * values.std(ddof=1) / np.sqrt(5), rel=1e-6)
    _, together = clustered_mean(np.array([0.0, 0.0, 1.0, 1.0]), np.array([0, 0, 1, 1]))
    _, apart = clustered_mean(np.array([0.0, 0.0, 1.0, 1.0]), np.arange(4))
    assert together > apart  # alike decisions of one hand are worth less than independent ones
    assert np.isinf(clustered_mean(values, np.zeros(5))[1])


def test_a_search_judged_by_its_own_worlds_is_refused() -> None:
    judge = make_agent(JUDGE, RULES)
    check_judge(judge, {"search": make_agent("search:worlds=8", RULES)})  # fewer worlds, seed 0
    with pytest.raises(ValueError, match="share the seed 11"):
        check_judge(judge, {"search": make_agent("search:worlds=8,seed=11", RULES)})
    with pytest.raises(ValueError, match="more worlds than search"):
        check_judge(judge, {"search": make_agent("search:worlds=24,seed=1", RULES)})
    with pytest.raises(ValueError, match="must be a search"):
        check_judge(make_agent("pimc:worlds=64", RULES), {})
    with pytest.raises(ValueError, match="weak-hand exchange"):
        self_play(make_rules("spar", players=4, weak_hand_exchange=True), 10, 0,
                  make_agent("random", RULES))  # fmt: skip


def test_the_benchmark_prints_and_writes_every_figure(tmp_path: Path) -> None:
    out = tmp_path / "regret.json"
    done = _bench("--agent", "random", "--agent", "onnx:universal", "--players", "2,4",
                  "--positions", "40", "--worlds", "8", "--candidates", "1", "--json", str(out))  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(out.read_text())
    assert set(report) == {"2", "4"}
    for n, figures in report.items():
        assert figures["players"] == int(n) and figures["positions"] == 40
        rand, bot = figures["agents"]
        assert rand["less_first"]["mean"] == rand["less_above"]["ci95"] == 0.0
        assert bot["less_first"]["mean"] == pytest.approx(bot["mean"] - rand["mean"])
        assert bot["less_above"] == bot["less_first"]
        trick = bot["less_first"]["by_trick"][0]
        assert trick["mean"] == pytest.approx(
            bot["by_trick"][0]["mean"] - rand["by_trick"][0]["mean"]
        )
        assert len(rand["by_trick"]) == RULES.hand_size and len(rand["by_role"]) == 2
    assert "less random" in done.stdout and "trick1" in done.stdout
    assert "onnx:universal less random" in done.stdout  # where it gains on the row above


def test_the_benchmark_records_each_agent_and_each_gap(monkeypatch) -> None:
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    import regret as bench  # benchmarks/regret.py

    written = {}
    monkeypatch.setattr(bench, "record", lambda name, value, half, **kw: written.update(
        {name: (value, half)}))  # fmt: skip

    def row(spec: str, mean: float, first: list[float], above: list[float]) -> dict:
        return {"agent": spec, "mean": mean, "ci95": 0.01,
                "less_first": {"mean": first[0], "ci95": first[1]},
                "less_above": {"mean": above[0], "ci95": above[1]}}  # fmt: skip

    agents = [row("onnx:universal", 0.3, [0.0, 0.0], [0.0, 0.0]),
              row("onnx:exit4", 0.2, [-0.1, 0.02], [-0.1, 0.02]),
              row("search", 0.1, [-0.2, 0.02], [-0.1, 0.03])]  # fmt: skip
    bench.write_records("regret.spar4", {"agents": agents, "positions": 10, "players": 4,
                                         "by": "random", "seed": 0, "judge": "a judge"})  # fmt: skip
    assert written == {
        "regret.spar4.onnx_universal": (0.3, 0.01),
        "regret.spar4.onnx_exit4": (0.2, 0.01),
        "regret.spar4.search": (0.1, 0.01),
        "regret.spar4.onnx_exit4_less_onnx_universal": (-0.1, 0.02),
        "regret.spar4.search_less_onnx_universal": (-0.2, 0.02),
        "regret.spar4.search_less_onnx_exit4": (-0.1, 0.03),
    }


def test_the_printed_tables_are_recorded_as_a_transcript(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    import figures

    lines = ["agent   regret", "random  0.388 ± 0.036"]
    figures.record_output("regret.demo", lines, results=tmp_path)
    figures.record("regret.demo.random", 0.388, 0.036, results=tmp_path)  # beside an entry
    shown = figures.Figures(tmp_path)
    assert shown.output_block("regret.demo") == "```text\n" + "\n".join(lines) + "\n```"
    assert shown.outputs["regret.demo"].command.startswith("python")
    assert shown.entry("regret.demo.random").text() == "+0.388 ± 0.036"
    figures.record("regret.demo.random", 0.387, 0.036, signed=False, results=tmp_path)
    figures.record("regret.demo.random", 0.386, 0.036, results=tmp_path)  # it stays unsigned
    assert figures.Figures(tmp_path).entry("regret.demo.random").text() == "0.386 ± 0.036"
    with pytest.raises(ValueError, match="a transcript name is FILE.KEY"):
        figures.record_output("Regret", lines, results=tmp_path)


def test_the_benchmark_refuses_bad_input_in_one_line() -> None:
    for argv, said in ((["--players", "4,x"], "--players takes counts"),
                       (["--agent", "search:worlds=16", "--worlds", "16"], "more worlds"),
                       (["--players", "2,4", "--record", "regret.x"], "one player count"),
                       (["--agent", "random", "--agent", "random"], "each --agent once")):  # fmt: skip
        done = _bench(*argv, "--positions", "20")
        assert done.returncode == 2
        assert done.stderr.count("\n") == 1 and said in done.stderr, done.stderr


def _bench(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / "benchmarks" / "regret.py"), *argv],
                          capture_output=True, text=True, timeout=300, cwd=ROOT)  # fmt: skip
