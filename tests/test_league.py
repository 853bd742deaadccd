"""spar league: the ratings' arithmetic, the schedule, and the ladder through the real CLI
(add, play, show, resume after a kill, the lock, a spec that stops loading, damaged files)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import numpy as np
import pytest

from spar_train.league import load, standings
from spar_train.league.ratings import PairResult, PairTotals, fit, plan
from spar_train.league.store import locked, save
from tests.helpers.cli import SPAR, cli, default_sigint, one_line

FOUR = ("heuristic", "random", "low", "high")


def _pair(a: int, b: int, margins: np.ndarray) -> PairResult:
    return PairResult(a, b, margins.size, float(margins.sum()), float((margins**2).sum()),
                      (float(margins.sum() / 2), float(-margins.sum() / 2)))  # fmt: skip


def _synthetic(truth: np.ndarray, deals: int, noise: float, seed: int) -> PairTotals:
    rng = np.random.default_rng(seed)
    k = truth.size
    results = [_pair(i, j, truth[i] - truth[j] + noise * rng.standard_normal(deals))
               for i in range(k) for j in range(i + 1, k)]  # fmt: skip
    return PairTotals(k, results)


def test_the_fit_finds_additive_ratings_and_its_intervals_cover_them() -> None:
    truth = np.array([0.6, 0.2, 0.0, -0.3, -0.5])
    truth -= truth.mean()
    covered = 0
    for seed in range(40):
        r = fit(_synthetic(truth, 200, 1.5, seed), range(5))
        assert np.allclose(r.rating.sum(), 0, atol=1e-9)
        covered += int(np.sum(np.abs(r.rating - truth) <= r.halfwidth))
    assert covered / 200 > 0.88  # 95% intervals: about 190 of 200 cover the truth


def test_two_entrants_are_rated_half_their_margin_apart_from_zero() -> None:
    margins = np.array([1.0, 3.0, 2.0, 2.0])
    r = fit(PairTotals(2, [_pair(0, 1, margins)]), [0, 1])
    assert r.rating[0] == pytest.approx(1.0) and r.rating[1] == pytest.approx(-1.0)
    var_of_mean = margins.var(ddof=1) / margins.size
    assert r.halfwidth[0] == pytest.approx(1.959964 * np.sqrt(var_of_mean / 4), rel=1e-5)


def test_a_cycle_widens_the_intervals_rather_than_overclaiming() -> None:
    rng = np.random.default_rng(0)
    beats = [(0, 1), (1, 2), (2, 0)]  # rock, paper, scissors: no additive ratings fit
    totals = PairTotals(3, [_pair(a, b, 1.0 + 0.5 * rng.standard_normal(400)) for a, b in beats])
    r = fit(totals, range(3))
    assert r.dispersion > 100
    assert np.all(r.halfwidth > 0.5)  # none of the three is told apart from the others


def test_unlinked_groups_are_not_rated_against_each_other() -> None:
    m = np.ones(10)
    r = fit(PairTotals(5, [_pair(0, 1, m), _pair(2, 3, m), _pair(3, 4, m)]), range(5))
    assert r.rated == (2, 3, 4)
    assert np.isnan(r.rating[[0, 1]]).all() and np.isfinite(r.rating[[2, 3, 4]]).all()


def test_the_schedule_plays_new_pairs_first_then_the_widest_interval() -> None:
    truth = np.zeros(4)
    totals = _synthetic(truth[:3], 100, 1.0, 0)
    grown = PairTotals(4, [PairResult(m.a, m.b, m.deals, m.margin_sum, m.margin_sumsq, m.payoff_sum)
                           for m in _results(totals)])  # fmt: skip
    assert plan(grown, range(4), 3, 100) == [(0, 3), (1, 3), (2, 3)]  # the newcomer's pairs
    noisy = PairTotals(3, [_pair(0, 1, np.random.default_rng(1).standard_normal(100)),
                           _pair(0, 2, np.random.default_rng(2).standard_normal(100)),
                           _pair(1, 2, 8 * np.random.default_rng(3).standard_normal(100))])  # fmt: skip
    first = plan(noisy, range(3), 1, 100)[0]
    assert 2 in first  # entrant 2's interval is the widest: only noisy matches hold it
    assert plan(noisy, [0, 1], 2, 100) == [(0, 1), (0, 1)]  # only loadable entrants meet


def _results(totals: PairTotals) -> list[PairResult]:
    k = totals.entrants
    return [PairResult(i, j, int(totals.deals[i, j]), float(totals.margin_sum[i, j]),
                       float(totals.margin_sumsq[i, j]), (0.0, 0.0))
            for i in range(k) for j in range(i + 1, k) if totals.deals[i, j]]  # fmt: skip


def _league(capsys, folder: Path, *more: str, deals: int = 1200) -> None:
    status, out, err = cli(capsys, "league", "add", folder, *FOUR, *more)
    assert status == 0, err
    status, out, err = cli(capsys, "league", "play", folder, "--deals", deals, "--match", 100)
    assert status == 0, err
    assert f"played {deals:,} deals" in out


def test_a_league_through_the_cli_rates_the_agents_as_their_matches_say(
    tmp_path: Path, capsys
) -> None:
    folder = tmp_path / "lg"
    _league(capsys, folder)
    status, out, err = cli(capsys, "league", "show", folder, "--json", "--plot", tmp_path / "l.png")
    assert status == 0, err
    table = json.loads(out)
    assert table["matches"] == 12 and table["game"]["players"] == 4
    assert [e["spec"] for e in table["entrants"]][0] == "heuristic"  # the best of the four
    assert table["decided"] >= 4 and table["agree"] == table["decided"]
    assert all(e["deals"] >= 100 and e["ci95_halfwidth"] > 0 for e in table["entrants"])
    assert (tmp_path / "l.png").read_bytes()[:4] == b"\x89PNG"
    status, out, err = cli(capsys, "league", "show", folder)
    assert "heuristic" in out and "pair margins" in out and f"{table['agree']} of the" in out


def test_a_newcomer_joins_without_replaying_earlier_matches(tmp_path: Path, capsys) -> None:
    folder = tmp_path / "lg"
    _league(capsys, folder, deals=600)
    before = json.loads((folder / "league.json").read_text())["played"]
    status, out, err = cli(capsys, "league", "add", folder, "onnx:spar4", "heuristic")
    assert status == 0 and "added onnx:spar4" in out and "already in: heuristic" in out
    status, out, err = cli(capsys, "league", "play", folder, "--deals", 400, "--match", 100)
    assert status == 0, err
    after = json.loads((folder / "league.json").read_text())["played"]
    assert after[: len(before)] == before
    assert all(4 in m["pair"] for m in after[len(before) :])  # the newcomer's pairs come first


def test_a_killed_play_loses_only_its_match_under_way_and_resumes(tmp_path: Path, capsys) -> None:
    whole, broken = tmp_path / "whole", tmp_path / "broken"
    for folder in (whole, broken):
        assert cli(capsys, "league", "add", folder, *FOUR)[0] == 0
    argv = ["league", "play", "--deals", 6000, "--match", 1000, "--round", 3]
    assert cli(capsys, argv[0], argv[1], whole, *argv[2:])[0] == 0
    child = subprocess.Popen([SPAR, argv[0], argv[1], broken, *map(str, argv[2:])],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                             preexec_fn=default_sigint)  # fmt: skip
    try:
        while not load(broken).played and child.poll() is None:
            time.sleep(0.05)
        child.send_signal(signal.SIGKILL)
    finally:
        child.wait(timeout=60)
    kept = load(broken)
    assert kept.played and len(kept.played) < 6  # a complete file, cut short
    assert len(kept.played) + len(kept.planned) in (3, 6)  # a planned round is kept
    left = 6000 - sum(m.deals for m in kept.played)
    assert cli(capsys, argv[0], argv[1], broken, "--deals", left, *argv[4:])[0] == 0
    assert load(broken).played == load(whole).played
    assert standings(load(broken)).to_dict() == standings(load(whole)).to_dict()


def test_a_second_process_is_refused_while_one_holds_the_league(tmp_path: Path, capsys) -> None:
    folder = tmp_path / "lg"
    assert cli(capsys, "league", "add", folder, *FOUR)[0] == 0
    with locked(folder):
        status, _, err = cli(capsys, "league", "play", folder, "--deals", 10)
        one_line(status, err, "in use by process", str(os.getpid()))
        status, _, err = cli(capsys, "league", "add", folder, "random")
        one_line(status, err, "in use by process")
    assert cli(capsys, "league", "show", folder)[0] == 0  # reading needs no lock


def test_a_spec_that_no_longer_loads_is_skipped_with_one_line(tmp_path: Path, capsys) -> None:
    folder = tmp_path / "lg"
    bot = tmp_path / "bot.onnx"
    bot.write_bytes((Path(__file__).parents[1] / "checkpoints" / "spar4.onnx").read_bytes())
    bot.with_suffix(".json").write_bytes(
        (Path(__file__).parents[1] / "checkpoints" / "spar4.json").read_bytes()
    )
    _league(capsys, folder, f"onnx:{bot}", deals=400)
    bot.unlink()
    status, out, err = cli(capsys, "league", "play", folder, "--deals", 200, "--match", 100)
    assert status == 0, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and f"skipping onnx:{bot}: it does not load" in lines[0]
    status, out, err = cli(capsys, "league", "show", folder)
    assert status == 0 and f"onnx:{bot} (does not load)" in out


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (lambda d: "not json", "not a league file"),
        (lambda d: {**d, "format": "x"}, "format is not"),
        (lambda d: {**d, "entrants": ["random", "random"]}, "listed twice"),
        (lambda d: {**d, "played": [{**d["played"][0], "pair": [0, 9]}]}, "does not name two"),
        (lambda d: {**d, "played": [{**d["played"][0], "seed": 1}]}, "seed is not the league's"),
        (lambda d: {**d, "played": [{**d["played"][0], "margin_sum": "nan"}]}, "finite number"),
        (lambda d: {**d, "game": {**d["game"], "players": 99}}, "players"),
    ],
)
def test_a_damaged_league_file_is_refused_naming_what_is_wrong(
    tmp_path: Path, capsys, damage, message
) -> None:
    folder = tmp_path / "lg"
    assert cli(capsys, "league", "add", folder, "heuristic", "random")[0] == 0
    assert cli(capsys, "league", "play", folder, "--deals", 20, "--match", 10)[0] == 0
    data = json.loads((folder / "league.json").read_text())
    damaged = damage(data)
    (folder / "league.json").write_text(
        damaged if isinstance(damaged, str) else json.dumps(damaged)
    )
    status, _, err = cli(capsys, "league", "show", folder)
    one_line(status, err, "league.json", message)


def test_a_league_keeps_to_its_game(tmp_path: Path, capsys) -> None:
    folder = tmp_path / "lg"
    assert cli(capsys, "league", "add", folder, "heuristic", "random", "--players", "3")[0] == 0
    status, _, err = cli(capsys, "league", "add", folder, "low", "--players", "4")
    one_line(status, err, "spar with 3 players", "not spar with 4 players")
    status, _, err = cli(capsys, "league", "add", folder, "onnx:spar4")
    one_line(status, err, "spar4.onnx was trained for spar with 4 players")
    status, out, _ = cli(capsys, "league", "add", folder, "low")  # joining: the league's game
    assert status == 0 and "3 entrants" in out
    league = load(folder)
    league.entrants.append("random")  # a file whose entrants repeat is refused on reading
    save(folder, league)
    with pytest.raises(ValueError, match="listed twice"):
        load(folder)


def test_spar_train_adds_its_run_to_a_league(tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    status, out, err = cli(capsys, "train", "ppo_tiny", "--set", "run.updates=1", "--name", "t",
                           "--league", "lg")  # fmt: skip
    assert status == 0, err
    assert "spar train: ppo:runs/t joined the league lg" in out
    league = load(Path("lg"))
    assert league.entrants == ["ppo:runs/t"] and league.game["players"] == 2


def test_the_league_guide_runs_as_written(tmp_path: Path) -> None:
    import re
    import shlex

    page = (Path(__file__).parents[1] / "docs" / "guide" / "league.md").read_text()
    commands = re.search(r"```bash\n(.*?)```", page, re.S)[1].splitlines()
    shown = re.search(r"```text\n(.*?)```", page, re.S)[1]
    out = ""
    for line in commands:
        argv = shlex.split(line)
        assert argv[0] == "spar"
        done = subprocess.run([SPAR, *argv[1:]], cwd=tmp_path, capture_output=True, text=True,
                              timeout=300, check=True)  # fmt: skip
        out = done.stdout
    assert [x.rstrip() for x in out.splitlines()] == shown.splitlines()


SMALL = {  # each command of the tutorial, made small: the same command with sizes appended
    "train": ["--set", "run.updates=1", "--set", "warmstart.updates=1", "--set", "rollout.games=64",
              "--set", "eval.deals=20"],
    "bench": ["--deals", "20"],
}  # fmt: skip


def test_the_another_game_tutorial_runs_with_small_sizes(tmp_path: Path) -> None:
    """The tutorial's three commands (and its variation) run as written, with smaller sizes."""
    import re
    import shlex

    page = (Path(__file__).parents[1] / "docs" / "guide" / "tutorial-another-game.md").read_text()
    lines = [line for block in re.findall(r"```bash\n(.*?)```", page, re.S)
             for line in block.splitlines()]  # fmt: skip
    assert len(lines) == 4 and lines[0] == "spar train ppo_sipa3"
    for line in lines:
        argv = shlex.split(line)
        argv += SMALL.get(argv[1], [])
        done = subprocess.run([SPAR, *argv[1:]], cwd=tmp_path, capture_output=True, text=True,
                              timeout=600, check=False)  # fmt: skip
        assert done.returncode == 0, (line, done.stderr)
    assert load(tmp_path / "sipa-league").game == {"variant": "sipa", "players": 3, "options": {}}


def test_ctrl_c_stops_a_play_in_one_line_keeping_its_matches(tmp_path: Path, capsys) -> None:
    folder = tmp_path / "lg"
    assert cli(capsys, "league", "add", folder, *FOUR)[0] == 0
    child = subprocess.Popen([SPAR, "league", "play", folder, "--deals", "100000", "--match", "500"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                             preexec_fn=default_sigint)  # fmt: skip
    try:
        while not load(folder).played and child.poll() is None:
            time.sleep(0.05)
        child.send_signal(signal.SIGINT)
        _, err = child.communicate(timeout=60)
    finally:
        child.kill()
    assert child.returncode == 130
    assert err.strip().splitlines() == [
        f"spar league: stopped; every finished match is kept, and spar league play {folder} "
        "goes on with the round it had planned"
    ]
    assert load(folder).played


def test_minutes_alone_play_for_the_minutes(tmp_path: Path, capsys, monkeypatch) -> None:
    """``--minutes`` without ``--deals`` plays until the minutes pass: before, the default
    2,000 deals ended it first (``--minutes 1`` stopped after a second). The league's clock
    runs a second a look here; ``--deals`` with ``--minutes`` still stops at the deals."""
    import itertools
    from types import SimpleNamespace

    folder = tmp_path / "lg"
    assert cli(capsys, "league", "add", folder, "random", "low", "--players", "2")[0] == 0
    ticks = itertools.count()
    monkeypatch.setattr(
        "spar_train.league.ladder.time", SimpleNamespace(monotonic=lambda: next(ticks))
    )
    status, out, err = cli(capsys, "league", "play", folder, "--minutes", "0.5")
    assert status == 0, err
    played = int(out.split("played ")[1].split(" deals")[0].replace(",", ""))
    assert played > 2000 and played == sum(m.deals for m in load(folder).played)
    status, out, err = cli(capsys, "league", "play", folder, "--minutes", "0.5", "--deals", 400)
    assert status == 0 and "played 400 deals" in out, err


@pytest.mark.parametrize(
    ("make", "names"),
    [
        (lambda lg: lg.write_text("not a league"), ("is a file, not a folder",)),
        (lambda lg: lg.parent.write_text(""), ("lies under", "which is a file")),
        (
            lambda lg: cli_add(lg, "--players", "4"),
            ("a league of spar with 4 players", "trains for spar with 2 players"),
        ),
        (lambda lg: (lg.mkdir(), (lg / "league.json").write_text("{")), ("league.json",)),
    ],
    ids=["a file", "under a file", "another game", "damaged"],
)
def test_spar_train_refuses_a_league_it_could_not_join_before_training(
    tmp_path: Path, capsys, monkeypatch, make, names
) -> None:
    """Before, each was found only when the whole training was over."""
    monkeypatch.chdir(tmp_path)
    league = tmp_path / "lg" if "lies under" not in names else tmp_path / "f" / "lg"
    make(league)
    monkeypatch.setattr("spar_train.run", _no_training)
    status, _, err = cli(capsys, "train", "ppo_tiny", "--name", "t", "--league", league)
    one_line(status, err, "--league", *names)
    assert not (tmp_path / "runs").exists()


def test_a_resumed_run_checks_its_league_too(run_copy: Path, tmp_path: Path, capsys) -> None:
    league = tmp_path / "lg"
    cli_add(league, "--players", "3")
    status, _, err = cli(capsys, "train", "--resume", run_copy, "--league", league)
    one_line(status, err, "a league of spar with 3 players", "trains for spar with 2 players")


def cli_add(folder: Path, *options: str) -> None:
    from spar_apps.cli import main

    assert main(["league", "add", str(folder), "random", "low", *options]) == 0


def _no_training(*args, **kwargs):
    raise AssertionError("the run started before its league was checked")
