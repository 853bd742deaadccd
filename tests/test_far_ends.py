"""Session ends far away and match states given by hand: one bound on an end's value wherever
it enters, a bounded cost for the match chances and the equity, the state a stones or
hands:K session is in, and long matches on the bench (issues #58, defects 1, 4 and 5, and
#52, the far-end bench and equity)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from spar_env.limits import MAX_SESSION_END
from spar_env.rules import make_rules
from spar_train.match import equity as equity_module
from spar_train.match import table_chances
from spar_train.match.bench import run_match_bench
from spar_train.match.equity import match_equity, simulate_equity
from spar_train.match.model import HandModel, most_hands
from tests.helpers.cli import cli, one_line

HUGE = str(2**63)  # the first value int64 cannot hold: an OverflowError once, deep inside
EVEN = HandModel.symmetric(np.array([[0.2, 0.05], [0.2, 0.05], [0.2, 0.05], [0.2, 0.05]]))
TWO = HandModel.symmetric(np.array([[0.4, 0.1], [0.4, 0.1]]))


@pytest.fixture
def no_work(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make the hand model, the bench and the table fail if started: a far end is refused
    before any of them."""

    def started(*args, **kwargs):
        raise AssertionError("the work started before the session end was checked")

    for target in ("spar_train.match.model.estimate_hand_model",
                   "spar_train.match.bench.play_matches",
                   "spar_train.tournament.run_tournament",
                   "spar_apps.terminal.play_session"):  # fmt: skip
        monkeypatch.setattr(target, started)


@pytest.mark.parametrize("value", [HUGE, str(MAX_SESSION_END + 1), "1" + "0" * 5000])
@pytest.mark.parametrize(
    "argv",
    [
        ("rules", "--set", "end=target:{}"),
        ("play", "--target", "{}"),
        ("bench", "heuristic", "random", "--deals", "4", "--set", "end=target:{}"),
        ("bench", "heuristic", "random", "--matches", "10", "--set", "end=target:{}"),
        ("bench", "heuristic", "random", "--matches", "10", "--set", "end=stones:{}"),
        ("equity", "random", "--deals", "50", "--set", "end=target:{}"),
        ("equity", "random", "--deals", "50", "--set", "end=hands:{}"),
        ("league", "add", "LEAGUE", "random", "low", "--set", "end=stones:{}"),
    ],
)
def test_a_far_session_end_is_refused_at_once_in_one_line(
    capsys, tmp_path: Path, no_work, argv: tuple[str, ...], value: str
) -> None:
    """#58 defect 5 (an OverflowError traceback at 2^63; spar rules took it) and #52 (a match
    bench that failed after 10,000 hands; an equity that ran without bound)."""
    argv = tuple(a.replace("LEAGUE", str(tmp_path / "lg")).format(value) for a in argv)
    status, _, err = cli(capsys, *argv)
    one_line(status, err, f"{MAX_SESSION_END:,}", "a limit of spar-rl")
    assert len(err) < 300  # a value of 5,000 digits is not printed whole
    assert not (tmp_path / "lg").exists()


def test_a_league_file_with_a_far_end_is_refused(tmp_path: Path, capsys) -> None:
    """The bound holds for an end read from a file as for one typed."""
    folder = tmp_path / "lg"
    assert cli(capsys, "league", "add", folder, "random", "low")[0] == 0
    data = json.loads((folder / "league.json").read_text())
    data["game"]["options"]["end"] = f"target:{HUGE}"
    (folder / "league.json").write_text(json.dumps(data))
    status, _, err = cli(capsys, "league", "show", folder)
    one_line(status, err, "league.json", f"at most {MAX_SESSION_END:,}")


@pytest.mark.parametrize("end", ["target", "stones", "hands"])
def test_the_farthest_end_fits_the_match_bench(end: str) -> None:
    """Every match the rules take ends within the bench's own bound on hands."""
    rules = make_rules("spar", players=7, end=f"{end}:{MAX_SESSION_END}")
    assert most_hands(rules) <= 7 * MAX_SESSION_END
    assert most_hands(make_rules("spar", players=2, end="target:3")) == 5  # 1-1, 2-2, then 3


def test_a_long_match_moves_the_bench_progress_before_any_match_ends() -> None:
    """#52: a bench of long matches reports how far they have come, hand by hand."""
    rules = make_rules("spar", players=2, end="target:40")
    seen: list[float] = []
    result = run_match_bench(
        ["heuristic", "random"], rules, 1, progress=lambda d, n: seen.append(d)
    )
    assert result.mean_hands > 20
    first_end = next(i for i, done in enumerate(seen) if done >= 1)
    assert first_end > 10 and 0 < seen[0] < seen[first_end // 2] < 1


@pytest.mark.parametrize(
    "scores", ["29,0,0,0", "0,29,0,0", "9,9,9,0", "0,0,0,0"], ids=lambda s: s.replace(",", "-")
)
def test_the_stones_each_seat_holds_are_the_state_of_a_stones_session(capsys, scores: str) -> None:
    """#58 defect 1: --scores of a stones session were ignored (every state gave the figures
    of 0-0-0-0)."""
    status, out, err = cli(capsys, "equity", "random", "--deals", "50", "--set", "end=stones:30",
                           "--scores", scores, "--dealer", "0", "--json")  # fmt: skip
    assert status == 0, err
    figures = json.loads(out)
    win = figures["state"]["win"]
    held = [int(s) for s in scores.split(",")]
    if max(held) == 29:  # one stone left: whoever takes it, the holder of 29 has most
        assert win[held.index(29)] == 1.0
    elif max(held) == 9:  # three stones left: three seats tied, the fourth out of reach
        assert win[3] == 0 and min(win[:3]) > 0.3
    else:
        assert win == pytest.approx([0.25] * 4, abs=0.02)
    assert figures["state"]["stones"] == held


@pytest.mark.parametrize(
    ("argv", "names"),
    [
        (("--set", "end=stones:30", "--scores", "40,0,0,0"), ("40 stones", "pool has 30")),
        (("--set", "end=stones:30", "--scores", "5,10,15,0"), ("empty", "won")),
        (("--set", "end=target:10", "--scores", "10,0,0,0"), ("reached the target 10",)),
        (("--set", "end=hands:10", "--scores", "3,1,0,0"), ("--played",)),
        (("--set", "end=hands:10", "--scores", "3,1,0,0", "--played", "10"), ("0 to 9",)),
        (("--set", "end=target:10", "--scores", "1,0,0,0", "--played", "1"), ("hands:K",)),
    ],
)
def test_a_state_no_match_can_be_in_is_refused_before_the_work(
    capsys, no_work, argv: tuple[str, ...], names: tuple[str, ...]
) -> None:
    status, _, err = cli(capsys, "equity", "random", "--deals", "50", "--dealer", "0", *argv)
    one_line(status, err, *names)


def test_the_hands_played_are_part_of_a_hands_session_state() -> None:
    rules = make_rules("spar", end="hands:10")
    early = match_equity(EVEN, rules, (3, 0, 0, 0), 0, matches=20_000, hands_played=3)
    late = match_equity(EVEN, rules, (3, 0, 0, 0), 0, matches=20_000, hands_played=9)
    assert late.win[0] > early.win[0] + 0.2  # one hand left to catch up, not seven


def test_a_simulation_keeps_to_its_budget_of_hands() -> None:
    """#58 defect 4 and #52: a far end cost time in proportion (31 s at target:1000), silently;
    the budget is known before the work and the matches say what was played."""
    rules = make_rules("spar", end=f"target:{MAX_SESSION_END}")
    planned = equity_module.simulated_matches(EVEN, rules, 100_000, 300_000)
    sampled = simulate_equity(EVEN, rules, matches=100_000, budget=300_000)
    assert sampled.matches == planned < 1000
    assert sampled.matches * sampled.mean_hands <= 300_000
    assert match_equity(EVEN, rules, budget=300_000).matches == planned


@pytest.mark.parametrize(("players", "target"), [(4, MAX_SESSION_END), (4, 39), (2, 1000)])
def test_the_tables_chances_cost_a_bounded_work_whatever_the_target(
    monkeypatch: pytest.MonkeyPatch, players: int, target: int
) -> None:
    """#58 defect 4: spar play --target 3000 paused 20 s after every hand (20,000 matches of
    thousands of hands), and a 4-player target of 39 built a 37-million-cell table."""
    work: list[float] = []
    simulate, exact = table_chances.simulate_equity, table_chances.equity_table

    def counted_simulation(*args, **kwargs):
        result = simulate(*args, **kwargs)
        work.append(result.matches * result.mean_hands)
        return result

    def counted_table(model, target):
        work.append(equity_module.table_cells(model.players, target))
        return exact(model, target)

    monkeypatch.setattr(table_chances, "simulate_equity", counted_simulation)
    monkeypatch.setattr(table_chances, "equity_table", counted_table)
    monkeypatch.setattr(table_chances, "table_model", lambda rules: EVEN if players == 4 else TWO)
    table_chances._exact.cache_clear()
    rules = make_rules("spar", players=players, end=f"target:{target}")
    chances = table_chances.table_chances(rules, [target // 2] + [0] * (players - 1), 1)
    assert chances[0] > 0.9
    assert work and max(work) <= 2_000_000  # hands or cells: a fraction of a second
    assert max(table_chances.TABLE_HANDS, table_chances.LIVE_EXACT_LIMIT) <= 2_000_000
