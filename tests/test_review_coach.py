"""The review as a coach: it draws more worlds where two cards are not yet told apart, gives
only the reasons that tell the best card from the card played (from the position and from
the search's worlds), and a session report counts the mistakes by kind."""

from __future__ import annotations

import numpy as np
import pytest

from spar_agents import make_agent
from spar_agents.card_estimates import CardEstimates, HandEnds, joined
from spar_apps.cli import main
from spar_apps.table.review import review_hand, reviewer
from spar_apps.table.review_reasons import reasons_for
from spar_apps.table.review_report import UNEXPLAINED, kind_of, report_texts, session_report
from spar_apps.table.review_text import review_texts
from spar_apps.table.review_worlds import seen_reasons
from spar_env.records import record_hands
from spar_env.rules import make_rules
from tests.test_review import BLUNDER, SPAR2, THROWN, _situation_at

SPAR4 = make_rules("spar", players=4)
C = SPAR2.card_id


@pytest.fixture(scope="module")
def search4():
    return reviewer(SPAR4, make_agent("onnx:exit4", SPAR4), "onnx:exit4")


@pytest.fixture(scope="module")
def hands4():
    return list(record_hands(SPAR4, 9, np.random.default_rng(0)))


def test_a_reason_true_of_both_cards_is_not_given() -> None:
    # as the blunder, but seat 0 holds 7♣ for J♣: at trick 4 both 7♣ and 6♠ score, and both
    # are sure to win trick 4 (seat 1 holds only diamonds)
    hands = [["AC", "KC", "QC", "7C", "6S"], BLUNDER["hands"][1]]
    plays = [("7C" if p == "JC" else p) for p in BLUNDER["plays"]]
    spot = _situation_at(SPAR2, {**BLUNDER, "hands": hands, "plays": plays}, THROWN)
    kinds = [r.kind for r in reasons_for(spot, C("7C"), C("6S"), forced=False)]
    assert "scorer" not in kinds  # "6♠ scores 3 only by winning the last trick": so does 7♣
    assert "wins_lead" not in kinds and "loses_lead" not in kinds  # both win trick 4
    assert kinds == ["keeps_void"]  # 7♣ keeps 6♠: true of 7♣ alone


def _estimates(best_yes: np.ndarray, played_yes: np.ndarray, seat: int = 0) -> CardEstimates:
    """Worlds where the seat leads the last trick (``*_yes``) after card 0 (best) and 1."""
    w, c = best_yes.size, SPAR2.num_card_ids
    leader = np.full((w, c), 1)
    leader[:, 0] = np.where(best_yes, seat, 1)
    leader[:, 1] = np.where(played_yes, seat, 1)
    ends = HandEnds(
        winner=np.ones((w, c), dtype=np.int64),
        points=np.ones((w, c), dtype=np.int64),
        scores=np.zeros((w, c, 2), dtype=np.int64),
        stones=np.zeros((w, c, 2), dtype=np.int64),
        hands_played=np.ones((w, c), dtype=np.int64),
        session_over=np.zeros((w, c), dtype=bool),
        session_winner=np.full((w, c), -1),
        last_leader=leader,
        last_winner=np.ones((w, c), dtype=np.int64),
        last_card=np.full((w, c), C("AC")),
    )
    legal = np.zeros(c, dtype=bool)
    legal[[0, 1]] = True
    return CardEstimates(np.zeros((w, c)), np.ones(w, dtype=np.int64), legal, ends)


def test_a_count_of_the_worlds_is_a_reason_only_where_it_tells_the_cards_apart() -> None:
    rng = np.random.default_rng(0)
    same = rng.random(100) < 0.6
    assert seen_reasons(SPAR2, _estimates(same, same), 0, 1, 0, 1, set()) == []
    apart = _estimates(rng.random(100) < 0.7, rng.random(100) < 0.2)
    (reason,) = seen_reasons(SPAR2, apart, 0, 1, 0, 1, set())
    assert reason.kind == "seen_lead" and reason.out_of == 10
    mine, theirs = reason.counts
    assert mine - theirs >= 2 and reason.category(0) == "gave_lead"
    # what the position already proves of the lead is not counted again from the worlds
    assert seen_reasons(SPAR2, apart, 0, 1, 0, 1, {"wins_lead"}) == []
    # nor is it a reason at the last trick, where nobody leads any more
    assert all(r.kind != "seen_lead" for r in seen_reasons(SPAR2, apart, 0, 4, 0, 1, set()))
    twice = joined(apart, apart)
    assert twice.draws == 2 * apart.draws and twice.ends.last_leader.shape[0] == 200


def test_more_worlds_decide_a_gap_that_64_leave_open(search4, hands4) -> None:
    few = review_hand(hands4[8], 0, search4, max_worlds=64)
    many = review_hand(hands4[8], 0, search4)
    open_at_64 = [d for d in few.decisions if d.undecided]
    assert open_at_64 and all(d.worlds == 64 for d in few.decisions if not d.forced)
    for d in many.decisions:
        if d.play in {o.play for o in open_at_64}:
            assert d.worlds > 64 and (not d.undecided or d.worlds >= many.max_worlds)
        elif not d.forced:
            assert d.worlds == 64  # a decision already told apart is not searched again
    again = review_hand(hands4[8], 0, search4)  # seeded: the same review again
    assert review_texts(again, "en", "x") == review_texts(many, "en", "x")


def test_the_session_report_counts_the_mistakes_by_kind(search4, hands4) -> None:
    reviews = [review_hand(r, 0, search4) for r in hands4]
    mistakes = [d for r in reviews for d in r.mistakes]
    report = session_report(reviews)
    assert report.hands == 9 and report.mistakes == len(mistakes) > 0
    assert sum(t.count for t in report.kinds) == len(mistakes)
    assert report.cost == pytest.approx(sum(d.gap for d in mistakes))
    for tally in report.kinds:
        of_kind = [d for d in mistakes if kind_of(d) == tally.kind]
        assert tally.count == len(of_kind) and tally.cost == pytest.approx(
            sum(d.gap for d in of_kind)
        )
    assert all(kind_of(d) == UNEXPLAINED for d in mistakes if not d.reasons)
    english, french = report_texts(report, "en"), report_texts(report, "fr")
    assert english["summary"].startswith("9 hands reviewed: ")
    assert french["summary"].startswith("9 mains revues\u00a0: ")
    first = report.kinds[0]
    assert english["kinds"][0]["text"].endswith(f", -{first.cost:.2f} of payoff")
    assert len(french["kinds"]) == len(report.kinds)
    with pytest.raises(ValueError, match="one game"):
        session_report([reviews[0], review_hand(BLUNDER, 0, reviewer(
            SPAR2, make_agent("onnx:spar2", SPAR2), "onnx:spar2"))])  # fmt: skip


def test_spar_review_of_several_records_ends_with_the_session_report(
    capsys, tmp_path, hands4
) -> None:
    import json

    path = tmp_path / "games.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in hands4[:3]))
    assert main(["review", str(path), "--lang", "fr"]) == 0
    out = capsys.readouterr().out
    assert "Vos erreurs de la session" in out and "3 mains revues" in out
    assert main(["review", str(path), "--hand", "1"]) == 0  # one hand: no report
    assert "session" not in capsys.readouterr().out


def test_spar_play_shows_the_session_report_at_its_end_with_report() -> None:
    """The loop's report: after the final scores, the mistakes of every hand played."""
    from spar_apps.cli.play import _builder, _report, _searcher
    from spar_apps.terminal import play_session
    from tests.test_play import Script, table_for

    rules = make_rules("spar", players=2, end="hands:2")
    table = table_for(rules, seed=3)
    searcher = _searcher({1: "random"}, rules, _builder(rules))
    script = Script([], then=lambda: "1")
    outcome = play_session(table, script, report=_report(searcher), language="fr")
    assert outcome.hands == 2 and not outcome.left
    shown = "".join(script.shown)
    assert shown.index("scores finaux") < shown.index("Vos erreurs de la session")
    assert "2 mains revues" in shown


def test_the_review_draws_another_seats_face_down_card_as_the_table_does() -> None:
    from spar_apps.terminal.screen import BACK

    rules = make_rules("jeu_de_carte", players=2)
    (record,) = record_hands(rules, 1, np.random.default_rng(0))
    assert 3 in record["face_down"]  # seat 1's card in trick 2
    search = reviewer(rules, make_agent("onnx:universal", rules), "onnx:universal")
    texts = review_texts(review_hand(record, 0, search), "en", "onnx:universal")
    line = texts["tricks"][1]["line"]
    assert f"seat 1 {BACK}" in line and BACK == "░░" and "🂠" not in line


def test_a_card_sure_to_lose_the_trick_is_no_reason_against_one_that_may_lose_it_too() -> None:
    # 3 players; seat 2 leads 10♥ at trick 4, seat 0 holds Q♥ and 8♥, and seat 1, still to
    # play, holds A♥ and 7♥: 8♥ cannot win trick 4, but Q♥ may lose it as well
    spar3 = make_rules("spar", players=3)
    record = {"variant": "spar", "players": 3, "dealer": 2,
              "hands": [["AC", "KC", "7D", "QH", "8H"], ["QC", "JC", "AH", "7H", "9D"],
                        ["10C", "9C", "KD", "10H", "9H"]],
              "plays": ["AC", "QC", "10C", "KC", "JC", "9C", "7D", "9D", "KD", "10H"]}  # fmt: skip
    spot = _situation_at(spar3, record, 10)
    c = spar3.card_id
    assert reasons_for(spot, c("8H"), c("QH"), forced=False) == []
    assert reasons_for(spot, c("QH"), c("8H"), forced=False) == []


def test_the_review_says_where_the_bot_and_search_disagree(search4, hands4) -> None:
    said = 0
    (disagreeing,) = list(record_hands(SPAR4, 18, np.random.default_rng(0)))[17:]
    for record in [*hands4, disagreeing]:
        texts = review_texts(review_hand(record, 0, search4), "en", "onnx:exit4")
        review = review_hand(record, 0, search4)
        for trick, d in zip(texts["tricks"], review.tricks, strict=True):
            decision = d.decision
            if decision is None or decision.forced:
                continue
            apart = decision.value(decision.best).value - decision.value(decision.bot_first).value
            line = trick["decision"]["disagree"]
            assert (line is not None) == (decision.bot_first != decision.best and apart > 0.25)
            if line is not None:
                said += 1
                assert "was the bot's first choice" in line and "searching its worlds finds" in line
    assert said > 0
