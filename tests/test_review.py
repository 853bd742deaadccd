"""Hand review (:mod:`spar_apps.table.review`): a known blunder is a mistake with its cost, the
values are the search's own, the reasons are facts of the position, and ``spar review``
reads records with one-line errors."""

from __future__ import annotations

import json
import math
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from spar_agents import Situation, make_agent
from spar_agents.belief import public_facts
from spar_agents.card_estimates import CardEstimates
from spar_agents.search import SearchAgent
from spar_agents.worlds import seat_views
from spar_apps.cli import main
from spar_apps.table.review import (
    MISTAKE_MARGIN,
    MISTAKE_Z,
    MatchState,
    review_hand,
    reviewer,
)
from spar_apps.table.review_reasons import reasons_for
from spar_apps.table.review_text import review_texts
from spar_env import core
from spar_env.core import tables_for
from spar_env.core.deal import deck_for_hands
from spar_env.history import History, step_with_history
from spar_env.rules import make_rules

SPAR2 = make_rules("spar", players=2)
C = SPAR2.card_id
# Seat 0 holds four clubs and 6♠; seat 1 only diamonds, so it can never follow a club or a
# spade. Seat 0 wins every trick. Kept for the last trick, the 6♠ wins it for 3 points; led
# at trick 4 instead (play 6), the last trick falls to J♣ for 1 point: the blunder.
BLUNDER = {
    "variant": "spar", "players": 2, "dealer": 1,
    "hands": [["AC", "KC", "QC", "JC", "6S"], ["10D", "9D", "8D", "7D", "6D"]],
    "plays": ["AC", "10D", "KC", "9D", "QC", "8D", "6S", "7D", "JC", "6D"],
}  # fmt: skip
THROWN = 6  # the index of the 6♠ in plays


@pytest.fixture(scope="module")
def bot():
    return make_agent("onnx:spar2", SPAR2)


@pytest.fixture(scope="module")
def search(bot) -> SearchAgent:
    return reviewer(SPAR2, bot, "onnx:spar2", seed=0)


@pytest.fixture(scope="module")
def blunder(search):
    return review_hand(BLUNDER, 0, search, MatchState((0, 0)))


def test_throwing_the_six_that_would_win_the_last_trick_is_a_mistake_with_its_cost(blunder):
    (mistake,) = blunder.mistakes
    assert mistake.play == THROWN and mistake.played == C("6S") and mistake.best == C("JC")
    kept, thrown = mistake.value(C("JC")), mistake.value(C("6S"))
    assert mistake.gap == pytest.approx(kept.value - thrown.value)
    assert mistake.gap > MISTAKE_MARGIN and mistake.gap > MISTAKE_Z * mistake.gap_stderr
    assert mistake.gap > 1  # the 6 would score 3 where J♣ scores 1, in most believed worlds
    assert mistake.chance_gap == pytest.approx(kept.chance - thrown.chance)
    assert mistake.chance_gap > 0  # a match to 10 is on: the points are worth match chance
    assert blunder.cost == mistake.gap
    kinds = {(r.kind, r.card) for r in mistake.reasons}
    assert ("keeps_void", C("JC")) in kinds  # no one else holds spades: true in the deal
    assert ("scorer", C("6S")) in kinds
    # every other decision played a card as good as the best, within the search's noise
    others = [d for d in blunder.decisions if d.play != THROWN]
    assert len(others) == 4 and not any(d.mistake for d in others)
    assert others[-1].forced and others[-1].cards[0].card == C("JC")  # the last card is forced


def test_the_review_in_words_in_english_and_french(blunder):
    english = review_texts(blunder, "en", "onnx:spar2")
    french = review_texts(blunder, "fr", "onnx:spar2")
    trick = english["tricks"][3]
    assert trick["line"] == "trick 4 of 5: you 6♠, seat 1 7♦; you won it with 6♠"
    verdict = trick["decision"]["verdict"]
    # stakes: the values are payoffs, what the hand pays the seat, and the review says so
    assert verdict.startswith(f"mistake: 6♠ cost {blunder.cost:.2f} of payoff against J♣ (± ")
    assert "of match chance" in verdict
    assert "J♣ keeps 6♠ for the last trick: no one else holds ♠" in trick["decision"]["reasons"]
    assert english["summary"] == f"1 mistake in 5 decisions, costing {blunder.cost:.2f} of payoff"
    assert english["labels"]["col_value"] == "value (payoff)"
    assert "what the hand pays you" in english["notes"][0]
    assert french["tricks"][3]["decision"]["verdict"].startswith(
        f"erreur\u00a0: 6♠ a coûté {blunder.cost:.2f} de gain face à V♣".replace(".", ",")
    )
    points = review_texts(replace(blunder, rules=replace(SPAR2, payoff="points")), "en", "x")
    assert points["summary"].endswith(f"costing {blunder.cost:.2f} points")
    assert points["labels"]["col_value"] == "value (points)"
    assert "pli 4 sur 5\u00a0: vous 6♠, siège 1 7♦" in french["tricks"][3]["line"]
    assert json.loads(json.dumps(english)) == english  # plain JSON, as the web sends it


def test_the_reviews_values_are_the_searchs_own_for_the_same_decision_and_seed(
    bot, search, blunder
):
    """The values of a decision equal :meth:`SearchAgent.card_values` and
    :meth:`SearchAgent.search_values` at that decision, replayed apart from the review."""
    rules = SPAR2
    state = core.reset(rules, 1, np.random.default_rng(0),
                       decks=deck_for_hands(tables_for(rules), [[C(c) for c in h]
                                            for h in BLUNDER["hands"]], 1)[None, :],
                       dealers=np.array([1]))  # fmt: skip
    history = History(state)
    checked = 0
    for index, card in enumerate(BLUNDER["plays"]):
        decision = next((d for d in blunder.decisions if d.play == index), None)
        if decision is not None and not decision.forced:
            situation = Situation(state, history, np.array([0]))
            values = search.card_values(situation)[0]
            alone = search.search_values(seat_views(situation)[0], public_facts(state, 0))
            for c in decision.cards:
                assert c.value == values[c.card] == alone[c.card]
            assert sum(np.isfinite(values)) == len(decision.cards)
            searched = SearchAgent(rules, search.policy, seed=0, prior=0.0)  # no prior: by value
            assert searched.act(situation).actions[0] == decision.best
            checked += 1
        step_with_history(state, np.array([C(card)]), history)
    assert checked == 4
    again = review_hand(BLUNDER, 0, search, MatchState((0, 0)))  # seeded: the same review
    assert review_texts(again, "en", "x") == review_texts(blunder, "en", "x")
    other = review_hand(BLUNDER, 0, reviewer(rules, bot, "onnx:spar2", seed=1), MatchState((0, 0)))
    assert [c.value for c in other.decisions[1].cards] != [
        c.value for c in blunder.decisions[1].cards
    ]  # another seed, other worlds


def test_card_estimates_weigh_each_world_by_its_draws_and_pair_the_gaps() -> None:
    values = np.array([[3.0, 1.0, 0.0], [1.0, 1.0, 0.0], [3.0, -1.0, 0.0]])
    estimates = CardEstimates(values, np.array([2, 1, 1]), np.array([True, True, False]))
    assert estimates.mean[:2].tolist() == [2.5, 0.5] and estimates.mean[2] == -np.inf
    spread = np.sqrt(((2 * 0.5**2 + 1.5**2 + 0.5**2) / 3) / 4)  # weighted, n = 4 draws
    assert estimates.stderr[0] == pytest.approx(spread) and estimates.stderr[2] == np.inf
    gap, gap_se = estimates.gap(0, 1)
    assert gap == pytest.approx(2.0)
    assert gap_se == pytest.approx(np.sqrt(((2 * 0.0 + 2.0**2 + 2.0**2) / 3) / 4))
    one = CardEstimates(values[:1], np.array([1]), np.array([True, True, False]))
    assert math.isinf(one.stderr[0])  # one draw says nothing of the spread
    with pytest.raises(ValueError, match="must both be legal"):
        estimates.gap(0, 2)


def _situation_at(rules, record: dict, index: int) -> Situation:
    state = core.reset(rules, 1, np.random.default_rng(0),
                       decks=deck_for_hands(tables_for(rules), [[rules.card_id(c) for c in h]
                                            for h in record["hands"]], record["dealer"])[None, :],
                       dealers=np.array([record["dealer"]]))  # fmt: skip
    history = History(state)
    for card in record["plays"][:index]:
        step_with_history(state, np.array([rules.card_id(card)]), history)
    return Situation(state, history, np.array([0]))


def test_the_reasons_are_facts_of_the_position() -> None:
    # Seat 1 leads; seat 0, void in diamonds, throws clubs, then at trick 4 may win the
    # heart trick with A♥ (and lead the last) or lose it with 8♥.
    record = {"variant": "spar", "players": 2, "dealer": 0,
              "hands": [["AH", "8H", "AC", "KC", "QC"], ["9H", "10D", "9D", "8D", "7D"]],
              "plays": ["10D", "QC", "9D", "KC", "8D", "AC", "9H", "8H", "7D", "AH"]}  # fmt: skip
    at = _situation_at(SPAR2, record, 7)
    reasons = reasons_for(at, C("AH"), C("8H"), forced=False)
    assert [(r.kind, r.card, r.trick) for r in reasons] == [
        ("wins_lead", C("AH"), 4),
        ("loses_lead", C("8H"), 4),
    ]
    # at trick 1 seat 0 discards: A♥ could still be beaten by nobody, but nothing is sure yet
    assert reasons_for(_situation_at(SPAR2, record, 1), C("QC"), C("AH"), forced=False) == []
    # the blunder's spot: seat 1 has shown no clubs but not that it lacks spades
    spot = _situation_at(SPAR2, BLUNDER, THROWN)
    (keeps, scorer) = reasons_for(spot, C("JC"), C("6S"), forced=False)
    assert keeps.kind == "keeps_void" and keeps.other == C("6S")
    assert scorer.kind == "scorer" and scorer.points == 3
    # where the last two tricks may score (essilfy), "for the last trick" is not said
    essilfy = make_rules("essilfy", players=2)
    record = {**BLUNDER, "variant": "essilfy"}
    assert reasons_for(_situation_at(essilfy, record, THROWN), essilfy.card_id("JC"),
                       essilfy.card_id("6S"), forced=False) == []  # fmt: skip


def test_a_review_refuses_what_it_cannot_review(search) -> None:
    from spar_env.records import RecordError

    with pytest.raises(ValueError, match="the seat must be 0..1"):
        review_hand(BLUNDER, 2, search)
    with pytest.raises(RecordError, match="plays\\[1\\]"):
        review_hand({**BLUNDER, "plays": ["AC", "6S", *BLUNDER["plays"][2:]]}, 0, search)
    with pytest.raises(ValueError, match="made for spar with 2 players"):
        review_hand({**BLUNDER, "variant": "sipa"} | _sipa_hand(), 0, search)


def _sipa_hand() -> dict:
    return {"hands": [["AC", "KC", "QC", "JC", "7S"], ["10D", "9D", "8D", "7D", "QD"]],
            "plays": ["AC", "10D", "KC", "9D", "QC", "8D", "7S", "7D", "JC", "QD"]}  # fmt: skip


# ----- spar review ---------------------------------------------------------------------
def run(capsys, *argv: str) -> tuple[int, str, str]:
    status = main(["review", *argv])
    out, err = capsys.readouterr()
    return status, out, err


def test_spar_review_reads_a_record_file(capsys, tmp_path: Path) -> None:
    games = tmp_path / "games.jsonl"
    games.write_text(json.dumps(BLUNDER) + "\n\n" + json.dumps(BLUNDER) + "\n")
    status, out, err = run(capsys, str(games), "--hand", "2", "--lang", "en")
    assert status == 0, err
    assert "games.jsonl:3" in out and "trick 4 of 5" in out
    assert "mistake: 6♠ cost" in out and "1 mistake in 5 decisions" in out
    assert "match chance" not in out  # no --scores: the hand alone
    status, out, err = run(capsys, str(games), "--json", "--scores", "0,0", "--lang", "fr")
    assert status == 0, err
    lines = [json.loads(line) for line in out.splitlines()]
    assert len(lines) == 2 and lines[0] == {**lines[1], "record": lines[0]["record"]}
    assert lines[0]["mistakes"] == 1 and lines[0]["match"] and lines[0]["language"] == "fr"
    assert lines[0]["tricks"][3]["decision"]["verdict"].startswith("erreur\u00a0: 6♠ a coûté")


@pytest.mark.parametrize(
    ("text", "argv", "status", "words"),
    [
        (None, [], 2, "cannot read"),
        ("", [], 1, "holds no record"),
        ("{oops\n", [], 1, "line 1: not JSON"),
        (json.dumps({**BLUNDER, "plays": ["AC", "6S"] + BLUNDER["plays"][2:]}), [], 1,
         "line 1: plays[1]"),
        (json.dumps(BLUNDER), ["--hand", "3"], 2, "--hand 3"),
        (json.dumps(BLUNDER), ["--bot", "heuristic"], 2, "needs an onnx or ppo bot"),
        (json.dumps(BLUNDER), ["--scores", "1,2,3"], 2, "--scores: 2 scores"),
        (json.dumps(BLUNDER), ["--seat", "5"], 2, "the seat must be 0..1"),
    ],
)  # fmt: skip
def test_spar_review_refuses_a_missing_or_broken_record_in_one_line(
    capsys, tmp_path: Path, text, argv, status, words
) -> None:
    games = tmp_path / "games.jsonl"
    if text is not None:
        games.write_text(text)
    got, out, err = run(capsys, str(games), *argv)
    assert got == status
    assert err.startswith("spar review: error: ") and words in err and err.count("\n") == 1


def test_the_manuals_review_commands_run_and_print_what_it_shows(tmp_path: Path) -> None:
    """docs/guide/export-and-play.md, Review: every command runs as written (in a folder of
    its own), and the blunder prints the page's text block (at 100 columns)."""
    import os
    import re
    import shlex
    import subprocess
    import sys

    page = (Path(__file__).parents[1] / "docs" / "guide" / "export-and-play.md").read_text()
    section = page[page.index("## Review") :]
    section = section[: section.index("\n## ")]
    first, blunder = re.findall(r"```bash\n(.*?)```", section, flags=re.S)
    (shown,) = re.findall(r"```text\n(.*?)```", section, flags=re.S)
    bin_dir = str(Path(sys.executable).parent)
    env = {**os.environ, "COLUMNS": "100", "PATH": f"{bin_dir}:{os.environ['PATH']}"}
    for line in first.splitlines():
        words = shlex.split(line.split("#", 1)[0])
        assert words[0] == "spar", line
        done = subprocess.run(words, capture_output=True, text=True, cwd=tmp_path, env=env,
                              timeout=300)  # fmt: skip
        assert done.returncode == 0, (line, done.stderr)
        if "--json" in words:
            (review,) = [json.loads(x) for x in done.stdout.splitlines()]
            assert review["match"] and review["record"].endswith(":3")
    done = subprocess.run(["bash", "-c", blunder], capture_output=True, text=True, env=env,
                          timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr
    printed = [x.rstrip() for x in done.stdout.splitlines()]
    wanted = shown.rstrip("\n").splitlines()
    start = printed.index(wanted[0])
    assert printed[start : start + len(wanted)] == wanted


@pytest.mark.parametrize("end", ["target:4", "stones:4", "hands:3", "open"])
def test_a_tables_second_hand_is_reviewed_with_the_match_as_it_stood_at_its_deal(end) -> None:
    from spar_apps.table import HumanTable
    from spar_apps.table.review import review_table_hand
    from spar_train.match.table_chances import table_chances

    rules = make_rules("spar", players=3, end=end)
    bot = make_agent("onnx:universal", rules)
    rng = np.random.default_rng
    table = HumanTable(rules, 0, {1: bot, 2: bot}, rng([5, 0]), rng([5, 1]))
    for hand in range(2):
        table.advance()
        while not table.hand_over:
            table.play(table.legal()[-1])
            table.advance()
        if hand == 0:
            assert not table.session_over  # no first hand of seed 5 ends these sessions
            table.next_hand()
    scores, stones, played = table.at_deal
    assert played == 1 and sum(scores) > 0  # the first hand's points count at the second's deal
    review = review_table_hand(table, reviewer(rules, bot, "onnx:universal", worlds=16))
    if end == "open":
        assert review.chance_before is None
        assert all(c.chance is None for d in review.decisions for c in d.cards)
        return
    kept = stones if end.startswith("stones") else None
    at_deal = table_chances(rules, scores, int(table.state.dealer[0]), stones=kept,
                            hands_played=1)  # fmt: skip
    assert review.chance_before == pytest.approx(at_deal[0])
    chances = [c.chance for d in review.decisions if not d.forced for c in d.cards]
    assert chances and all(0 <= c <= 1 for c in chances)


def test_a_card_worth_exactly_the_best_is_the_best(search) -> None:
    """At trick 1 every club is worth the same (seat 0 wins with any): K♣ led is no mistake,
    and the review names it best rather than A♣, the search's pick among equals."""
    record = {**BLUNDER, "plays": ["KC", "10D", "AC", *BLUNDER["plays"][3:]]}
    first = review_hand(record, 0, search).decisions[0]
    assert first.value(C("KC")).value == first.value(C("AC")).value
    assert first.best == first.played == C("KC") and first.gap == 0 and not first.mistake
    assert first.cards[0].card == C("KC")  # the best first
