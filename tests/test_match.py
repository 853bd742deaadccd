"""Match play: the equity of a session from a hand model, and the bench of whole matches."""

from __future__ import annotations

import functools
import json
from pathlib import Path

import numpy as np
import pytest

from spar_env.rules import make_rules
from spar_train.match.bench import MatchDecks, run_match_bench
from spar_train.match.equity import (
    equity_table,
    match_equity,
    simulate_equity,
)
from spar_train.match.model import HandModel, estimate_hand_model
from spar_train.tournament import Batch

ROOT = Path(__file__).parents[1]


def random_model(players: int, points: int, seed: int) -> HandModel:
    """A lopsided model: every (dealer, winner, points) chance differs."""
    p = np.random.default_rng(seed).random((players, players, points)) ** 2
    return HandModel(p / p.sum(axis=(1, 2), keepdims=True))


def brute_force(model: HandModel, target: int, scores: tuple[int, ...], dealer: int) -> np.ndarray:
    """The match equity by plain recursion over every hand's outcome."""
    n = model.players

    @functools.cache
    def win(scores: tuple[int, ...], dealer: int) -> tuple[float, ...]:
        total = np.zeros(n)
        for w in range(n):
            for p in range(1, model.max_points + 1):
                chance = model.probs[dealer, w, p - 1]
                after = list(scores)
                after[w] += p
                if after[w] >= target:
                    total[w] += chance
                else:
                    total += chance * np.array(win(tuple(after), w))
        return tuple(total)

    return np.array(win(scores, dealer))


@pytest.mark.parametrize(("players", "target"), [(2, 5), (3, 4), (4, 3)])
def test_the_equity_table_is_the_brute_force_recursion(players: int, target: int) -> None:
    model = random_model(players, 3, seed=players)
    table = equity_table(model, target)
    for scores in np.ndindex(*(target,) * players):
        for dealer in range(players):
            np.testing.assert_allclose(
                table.at(scores, dealer), brute_force(model, target, scores, dealer), atol=1e-12
            )
            assert table.at(scores, dealer).sum() == pytest.approx(1.0)


def test_the_table_agrees_with_a_simulation_of_the_same_model() -> None:
    """Every checked cell lies inside the simulation's 95% interval (some 1 in 20 may not:
    the seed is fixed, and the count of misses is what is checked)."""
    model = random_model(3, 3, seed=7)
    rules = make_rules("spar", players=3, end="target:6")
    table = equity_table(model, 6)
    misses, checked = 0, 0
    for k, (scores, dealer) in enumerate(
        [((0, 0, 0), 0), ((5, 0, 0), 1), ((3, 4, 2), 2), ((1, 5, 5), 0), ((2, 2, 2), 1)]
    ):
        sampled = simulate_equity(model, rules, scores, dealer, matches=40_000, seed=k)
        exact = table.at(scores, dealer)
        misses += int((np.abs(sampled.win - exact) > sampled.ci95).sum())
        checked += exact.size
        np.testing.assert_allclose(sampled.win, exact, atol=4 * sampled.ci95.max())
    assert misses <= 2, f"{misses} of {checked} cells outside their 95% interval"


def test_equity_refuses_what_it_cannot_answer() -> None:
    model = random_model(2, 2, seed=1)
    table = equity_table(model, 5)
    with pytest.raises(ValueError, match="reached the target 5"):
        table.at((5, 0), 0)
    with pytest.raises(ValueError, match="dealer must be a seat 0..1"):
        table.at((0, 0), 2)
    with pytest.raises(ValueError, match="give 2 scores"):
        table.at((0, 0, 0), 0)
    with pytest.raises(ValueError, match="cells"):
        equity_table(random_model(7, 1, seed=1), 30)
    with pytest.raises(ValueError, match="open session"):
        simulate_equity(model, make_rules("spar", players=2, end="open"))
    with pytest.raises(ValueError, match="hand model is of 2 seats"):
        simulate_equity(model, make_rules("spar", players=3))
    with pytest.raises(ValueError, match="sum to 1"):
        HandModel(np.ones((2, 2, 1)))


def test_match_equity_says_how_it_found_the_answer() -> None:
    model = random_model(2, 3, seed=2)
    exact = match_equity(model, make_rules("spar", players=2, end="target:5"), (3, 1), 0)
    assert exact.method == "exact" and not exact.ci95.any()
    sampled = match_equity(model, make_rules("spar", players=2, end="stones:5"), matches=20_000)
    assert sampled.method == "sampled" and (sampled.ci95 > 0).all()
    assert sampled.win.sum() == pytest.approx(1.0)  # stones always end with a winner


def test_a_tie_in_hands_sessions_is_nobodys_win() -> None:
    model = HandModel.symmetric(np.array([[0.5], [0.5]]))
    two_hands = simulate_equity(model, make_rules("spar", players=2, end="hands:2"), matches=20_000)
    assert two_hands.ties == pytest.approx(0.5, abs=0.02)  # 1-1 after two one-point hands
    assert two_hands.win.sum() + two_hands.ties == pytest.approx(1.0)


def test_the_hand_model_of_play() -> None:
    rules = make_rules("spar", players=3)
    model = estimate_hand_model(["heuristic"], rules, 300, seed=1)
    assert model.hands == 900 and model.players == 3 and model.max_points == 3
    np.testing.assert_allclose(model.probs.sum(axis=(1, 2)), 1.0)
    # one agent everywhere: only the place after the dealer matters
    np.testing.assert_allclose(model.probs[1], np.roll(model.probs[0], 1, axis=0))
    assert HandModel.from_dict(json.loads(json.dumps(model.to_dict()))).probs.tolist() == (
        model.probs.tolist()
    )
    mixed = estimate_hand_model(["heuristic", "random"], rules, 300, seed=1)
    wins = mixed.win_chances()
    assert wins[:, [0, 2]].sum() > wins[:, 1].sum()  # two heuristic seats outplay one random


def test_a_match_meets_the_same_cards_in_every_batch_it_may_fall_in() -> None:
    rules = make_rules("spar")
    whole = MatchDecks(rules, 3, Batch(0, 0, 2000))
    part = MatchDecks(rules, 3, Batch(1, 1500, 500))
    assert np.array_equal(whole.hand(4)[1500:], part.hand(4))
    assert np.array_equal(whole.first_dealers(rules)[1500:], part.first_dealers(rules))
    assert not np.array_equal(whole.hand(4), whole.hand(5))


@pytest.mark.parametrize("players", [2, 3, 4])
def test_rotations_make_equal_agents_win_their_seats_share_exactly(players: int) -> None:
    """Two specs of one deterministic agent play the same matches in every rotation, so
    each wins exactly the share of the seats it holds."""
    rules = make_rules("spar", players=players, end="target:5")
    result = run_match_bench(["heuristic", "heuristic:exchange=True"], rules, 60, seed=3, chunk=25)
    for agent in result.agents:
        assert agent.match_share == pytest.approx(agent.seats / players, abs=1e-12)
        assert agent.match_ci95 == pytest.approx(0.0, abs=1e-12)


def test_the_match_bench_is_fixed_by_its_seed_and_tells_strong_from_weak() -> None:
    rules = make_rules("spar", players=2, end="target:5")
    first = run_match_bench(["heuristic", "random"], rules, 120, seed=5, chunk=50)
    again = run_match_bench(["heuristic", "random"], rules, 120, seed=5, chunk=50)
    other = run_match_bench(["heuristic", "random"], rules, 120, seed=6, chunk=50)
    assert first.to_dict() == again.to_dict()
    assert first.to_dict() != other.to_dict()
    heuristic, random = first.agents
    assert heuristic.match_share - heuristic.match_ci95 > 0.5
    assert heuristic.match_share + random.match_share == pytest.approx(1.0)
    assert first.mean_hands >= 2  # at most 3 points a hand: no match to 5 ends in one


@pytest.mark.parametrize("end", ["stones:6", "hands:3", "one_hand"])
def test_every_session_end_plays_to_a_finish(end: str) -> None:
    rules = make_rules("spar", players=3, end=end)
    result = run_match_bench(["heuristic", "random"], rules, 40, seed=2)
    shares = sum(a.match_share for a in result.agents)
    assert shares + result.ties == pytest.approx(1.0)
    if end == "hands:3":
        assert result.mean_hands == 3
    if end == "one_hand":
        assert result.mean_hands == 1 and result.ties == 0


def test_a_match_needs_a_session_that_ends() -> None:
    with pytest.raises(ValueError, match="open session"):
        run_match_bench(["heuristic", "random"], make_rules("spar_classic"), 10)


def test_spar_equity_prints_the_table_and_answers_one_state(capsys, tmp_path) -> None:
    from spar_apps.cli import main

    argv = ["equity", "heuristic", "--players", "2", "--set", "end=target:5", "--deals", "200"]
    assert main([*argv, "--scores", "4,0", "--dealer", "1", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["start"]["method"] == "exact" and data["start"]["win"] == pytest.approx([0.5] * 2)
    assert data["state"]["scores"] == [4, 0] and data["state"]["win"][0] > 0.6
    grid = np.array(data["grid"])
    assert grid.shape == (5, 5) and grid[4, 0] > grid[0, 4]
    model = HandModel.from_dict(data["hand_model"])
    np.testing.assert_allclose(equity_table(model, 5).at((4, 0), 1), data["state"]["win"])
    assert main([*argv, "--plot", str(tmp_path / "eq.png")]) == 0
    out = capsys.readouterr().out
    assert "exact (dynamic programming)" in out and "its score down" in out
    assert (tmp_path / "eq.png").read_bytes().startswith(b"\x89PNG")
    assert main(["equity", "heuristic", "--players", "3", "--set", "end=stones:5",
                 "--deals", "100", "--scores", "1,0,0", "--dealer", "0"]) == 0  # fmt: skip
    out = capsys.readouterr().out
    assert "sampled (Monte Carlo, 100,000 matches, 95% CI)" in out and "±" in out
    assert "at 1-0-0 stones:" in out  # a stones session is decided on stones


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--variant", "fapfap"], "open session"),
        (["--scores", "1,2"], "needs 4 scores"),
        (["--scores", "a,b,c,d", "--dealer", "0"], "whole numbers"),
        (["--dealer", "1"], "--dealer goes with --scores"),
        (["--scores", "1,0,0,0", "--dealer", "4"], "dealer must be a seat 0..3"),
        (["--scores", "10,0,0,0", "--dealer", "0"], "reached the target 10"),
        (["--set", "end=stones:9", "--plot", "x.png"], "needs an exact table"),
    ],
)
def test_spar_equity_refuses_in_one_line(capsys, argv: list[str], message: str) -> None:
    from spar_apps.cli import main

    assert main(["equity", "heuristic", "--deals", "20", *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.splitlines()) == 1


def test_a_tiny_match_reward_run_through_spar_train_logs_match_wins(tmp_path, capsys) -> None:
    """``ppo.reward = "match"``: hands pay the change of match equity; the evaluation plays
    whole matches and logs ``eval/match_win_vs_*``."""
    from helpers.cli import TINY, cli, scalars

    status, out, err = cli(
        capsys, "train", TINY, "--runs-dir", tmp_path, "--name", "m",
        "--set", "run.updates=2", "--set", "ppo.reward=match", "--set", "ppo.match_model=heuristic",
        "--set", "ppo.match_deals=50", "--set", "eval.matches=12", "--set", "game.options.end=target:5",
    )  # fmt: skip
    assert status == 0, err
    logged = scalars(tmp_path / "m")
    for tag in ("eval/match_win_vs_random", "eval/match_win_vs_heuristic"):
        (step, share), *_ = logged[tag]
        assert step == 2 and 0 <= share <= 1
    assert "eval/payoff_vs_heuristic" in logged  # the hand figures stay


def test_the_match_reward_sums_over_a_match_to_its_result() -> None:
    """Each hand pays the change of the seat's chance; over a whole match that is the result
    less the chance at the start."""
    from spar_env.core import next_hand, reset, step
    from spar_train.match.reward import chances_now, match_reward_table

    rules = make_rules("spar", players=3, end="target:4")
    table = match_reward_table(rules, "heuristic", 100, seed=0)
    rng = np.random.default_rng(1)
    state = reset(rules, 64, rng)
    start = chances_now(table, state)
    paid = np.zeros((64, 3))
    while not state.session_over.all():
        before = chances_now(table, state)
        while not state.terminated.all():
            legal = state.legal_mask()
            step(state, np.array([rng.choice(np.flatnonzero(row)) if row.any() else 0
                                  for row in legal]))  # fmt: skip
        paid += chances_now(table, state) - before
        going = np.flatnonzero(~state.session_over)
        if going.size:
            next_hand(state, going, rng)  # finished matches wait, their hands over
    result = np.eye(3)[state.session_winner]
    np.testing.assert_allclose(paid, result - start, atol=1e-12)


def test_the_match_reward_is_refused_where_it_cannot_be_read(tmp_path, capsys) -> None:
    from helpers.cli import TINY, cli, one_line

    for override, named in (
        ("game.options.end=stones:10", "end = target:T"),
        ("ray.enabled=true", "ray.enabled"),
    ):
        status, _, err = cli(capsys, "train", TINY, "--runs-dir", tmp_path,
                             "--set", "ppo.reward=match", "--set", override)  # fmt: skip
        one_line(status, err, named)
    status, _, err = cli(capsys, "train", TINY, "--runs-dir", tmp_path, "--set", "ppo.reward=win")
    one_line(status, err, "ppo.reward", "hand or match")
    for starts, named in (("0.5", "unless ppo.reward = match"), ("1.5", "a share from 0 to 1")):
        status, _, err = cli(capsys, "train", TINY, "--runs-dir", tmp_path,
                             "--set", f"ppo.match_starts={starts}")  # fmt: skip
        one_line(status, err, "ppo.match_starts", named)


def test_random_starts_begin_that_share_of_sessions_below_the_target() -> None:
    """``ppo.match_starts``: new sessions start at scores drawn below the target, in about
    that share of the games, and the sessions still play to the target."""
    from spar_train.games import OwnView
    from spar_train.match.reward import match_reward_table
    from spar_train.ppo.sources.batch import GameBatch

    rules = make_rules("spar", players=4, end="target:10")
    table = match_reward_table(rules, "heuristic", 50, seed=0)
    view = OwnView(rules)
    plain = GameBatch(rules, 2000, np.random.default_rng(0), view, 1.0, match_table=table)
    assert not plain.state.scores.any()
    mixed = GameBatch(rules, 2000, np.random.default_rng(0), view, 1.0, match_table=table,
                      random_starts=0.5)  # fmt: skip
    scores = mixed.state.scores
    started = scores.any(axis=1)
    assert 0.45 < started.mean() < 0.55  # a random start is all zeros with chance 1e-4
    assert scores.min() == 0 and scores.max() == 9  # every score below the target, none at it
    whole = GameBatch(rules, 200, np.random.default_rng(1), view, 1.0, match_table=table,
                      random_starts=1.0)  # fmt: skip
    whole.state.session_over[:] = True  # the next deal starts new sessions everywhere
    whole._deal_next(np.random.default_rng(2))
    assert whole.state.scores.any(axis=1).all() and not whole.state.session_over.any()


@pytest.mark.parametrize("score_inputs", [False, True])
def test_the_actor_of_the_shipped_universal_bot_loads_into_a_mix_network(
    score_inputs: bool,
) -> None:
    """``warmstart.actor``: the network then plays the bot's very policy (with
    ``model.score_inputs``, which the bot lacks, they start at zero weight: the same policy
    where every one of them is on); a network of another shape is refused, naming the part
    that differs."""
    from spar_agents import make_agent
    from spar_agents.ppo.agent import PPOAgent
    from spar_env.core import reset
    from spar_env.history import History
    from spar_env.situation import Situation
    from spar_train.config import GameSection, ModelSection, load_config
    from spar_train.games import build_model, game_mix
    from spar_train.ppo.warm_start import load_actor
    from spar_train.tournament import draw_deals

    config = load_config(
        ROOT / "configs" / "ppo_spar_match.toml",
        [f"model.score_inputs={str(score_inputs).lower()}"],
    )
    rules = make_rules("spar")
    model = build_model(config, game_mix(config))
    load_actor(model, "universal")
    decks, dealers = draw_deals(rules, 0, 0, 64)
    state = reset(rules, 64, np.random.default_rng(0), decks=decks, dealers=dealers)
    if score_inputs:
        state.scores[:] = 9  # every seat one point from the target: every score input on
    situation = Situation(state, History(state), np.arange(64))
    learner = PPOAgent(rules, model, greedy=True, universal=True)
    bot = make_agent("onnx:universal", rules)
    rng = np.random.default_rng(0)
    np.testing.assert_allclose(
        learner.act(situation, rng).probs, bot.act(situation, rng).probs, atol=1e-5
    )
    # The one game of [game], in its own observation (which has no score inputs).
    alone = config.replace(game=GameSection(), model=ModelSection(hidden=config.model.hidden))
    single = build_model(alone, game_mix(alone))
    with pytest.raises(ValueError, match=r"no actor\.0\.weight of shape"):
        load_actor(single, "universal")


SMALL = {
    "equity": ["--deals", "30"],
    "bench": ["--matches", "10"],
}  # appended: argparse's last wins


def test_the_match_page_commands_run_with_small_sizes(tmp_path, monkeypatch, capsys) -> None:
    """Every command of docs/guide/match.md runs as written, with smaller sizes appended."""
    import re
    import shlex

    from spar_apps.cli import main

    page = (ROOT / "docs" / "guide" / "match.md").read_text()
    lines = [
        line.partition("#")[0].strip()
        for block in re.findall(r"```bash\n(.*?)```", page, re.S)
        for line in block.splitlines()
    ]
    monkeypatch.chdir(tmp_path)
    ran = 0
    for line in filter(None, lines):
        argv = shlex.split(line)
        assert argv[0] == "spar", line
        assert main([*argv[1:], *SMALL[argv[1]]]) == 0, (line, capsys.readouterr().err)
        ran += 1
    assert ran == 6
    assert (tmp_path / "equity.png").read_bytes().startswith(b"\x89PNG")


def test_the_score_probe_counts_changed_decisions_and_gives_the_widest_as_a_record() -> None:
    """benchmarks/score_decisions.py: the same hands at two scores; its example is the hand's
    true record, and the decision it names is the card played there at the first scores."""
    import sys

    from spar_env.records import replay

    sys.path.insert(0, str(ROOT / "benchmarks"))
    import score_decisions

    out = score_decisions.compare("onnx:universal", 40, [0, 0, 0, 0], [9, 9, 9, 9], seed=0)
    same = score_decisions.compare("onnx:universal", 40, [0, 0, 0, 0], [0, 0, 0, 0], seed=0)
    assert same["decided_otherwise"] == 0 and same["example"] is None  # a score is all that differs
    assert same["decisions_with_a_choice"] == out["decisions_with_a_choice"] > 0
    assert 0 < out["decided_otherwise"] < out["decisions_with_a_choice"]
    example = out["example"]
    record = example["record"]
    assert replay(record)["payoffs"] == record["result"]["payoffs"]
    rules = make_rules("spar", players=4)
    played = record["plays"][example["play_index"]]
    assert rules.card_name(rules.card_id(played), unicode=True) == example["at_scores"]["plays"]
    assert example["at_other"]["plays"] != example["at_scores"]["plays"]
    assert 0 < example["policy_shift"] <= 1


def test_the_worked_example_of_the_match_page_is_the_match_bots_own_choice() -> None:
    """docs/guide/match.md: the record's third trick, led by seat 3, at two scores."""
    import re

    from spar_agents import make_agent
    from spar_env.core import reset, tables_for
    from spar_env.core.deal import deck_for_hands
    from spar_env.history import History, step_with_history
    from spar_env.records import replay
    from spar_env.records.schema import parse_record
    from spar_env.situation import Situation

    page = (ROOT / "docs" / "guide" / "match.md").read_text()
    (text,) = re.findall(r"```json\n(.*?)```", page, re.S)
    record = json.loads(text)
    assert replay(record)["payoffs"] == record["result"]["payoffs"]
    parsed = parse_record(record)
    rules = parsed.rules
    bot = make_agent("onnx:match", rules)
    chosen = {}
    for scores in ((0, 0, 0, 0), (9, 9, 9, 9)):
        deck = deck_for_hands(tables_for(rules), parsed.hands, parsed.dealer, parsed.stock)
        state = reset(rules, 1, np.random.default_rng(0), decks=deck[None], dealers=[parsed.dealer])
        state.scores[:] = scores
        history = History(state)
        for card in parsed.plays[:8]:
            step_with_history(state, np.array([card]), history)
        assert int(state.current_player[0]) == 3
        probs = bot.act(Situation(state, history, np.array([0])), np.random.default_rng(0)).probs
        chosen[scores] = {rules.card_name(c): round(float(probs[0, c]), 2) for c in
                          np.flatnonzero(probs[0])}  # fmt: skip
    assert chosen[(0, 0, 0, 0)] == {"10D": 0.31, "JH": 0.68, "6S": 0.01}
    assert chosen[(9, 9, 9, 9)]["6S"] == 0.97
