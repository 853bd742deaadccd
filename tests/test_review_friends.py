"""The review of a record from a table of friends: the moves the bot made for a person away
(``seats[s].stood_in``) are shown as stand-in moves and never judged as the person's, nor
counted by the session report; the seats' people are named as the record names them."""

from __future__ import annotations

import pytest

from spar_agents import make_agent
from spar_apps.table.review import review_hand, reviewer
from spar_apps.table.review_report import session_report
from spar_apps.table.review_text import review_texts
from spar_env.rules import make_rules

SPAR2 = make_rules("spar", players=2)
# Seat 0 throws the 6♠ at trick 4 (play 6) that would have won the last trick for 3 points:
# a clear mistake when the person plays it (tests/test_review.py's blunder).
HAND = {
    "variant": "spar", "players": 2, "dealer": 1,
    "hands": [["AC", "KC", "QC", "JC", "6S"], ["10D", "9D", "8D", "7D", "6D"]],
    "plays": ["AC", "10D", "KC", "9D", "QC", "8D", "6S", "7D", "JC", "6D"],
}  # fmt: skip
THROWN = 6


@pytest.fixture(scope="module")
def search():
    return reviewer(SPAR2, make_agent("onnx:spar2", SPAR2), "onnx:spar2", seed=0)


def with_seats(*seats: dict) -> dict:
    return {**HAND, "seats": list(seats)}


def test_a_stand_in_move_is_shown_as_such_and_never_judged_as_the_persons(search) -> None:
    played = review_hand(with_seats({"person": "Ama"}, {"person": "Kofi"}), 0, search)
    assert [d.play for d in played.mistakes] == [THROWN]  # the person's throw is a mistake
    stood = review_hand(with_seats({"person": "Ama", "stood_in": [THROWN]},
                                   {"person": "Kofi", "stood_in": [7]}), 0, search)  # fmt: skip
    assert stood.mistakes == [] and stood.cost == 0
    (stand_in,) = stood.stood_in
    assert stand_in.play == THROWN and not stand_in.mistake and stand_in.worlds == 0
    assert THROWN not in [d.play for d in stood.decisions]
    assert len(stood.decisions) == len(played.decisions) - 1
    for language, words in (("en", "stand-in move"), ("fr", "coup de remplacement")):
        texts = review_texts(stood, language, "onnx:spar2")
        decision = texts["tricks"][3]["decision"]
        assert decision["stood_in"] and not decision["mistake"] and decision["cost"] is None
        assert words in decision["verdict"] and not any(c["best"] for c in decision["cards"])
        assert texts["mistakes"] == 0 and texts["stood_in"] == 1
        assert any("bot" in note for note in texts["notes"][2:])
        # the other seat's stand-in play is marked in its trick, with its person's name
        assert [p["stood_in"] for p in texts["tricks"][3]["plays"]] == [True, True]
        assert "Kofi (" in texts["tricks"][3]["line"]
    # the session report counts the person's own decisions and mistakes only
    report = session_report([stood, stood])
    assert report.mistakes == 0 and report.cost == 0
    assert report.decisions == 2 * len(stood.decisions)
    assert session_report([played]).mistakes == 1


def test_the_review_of_a_friends_record_names_its_people(search) -> None:
    record = with_seats({"person": "Ama"}, {"person": "Kofi"})
    for language in ("en", "fr"):
        for seat, other in ((0, "Kofi"), (1, "Ama")):
            texts = review_texts(review_hand(record, seat, search), language, "onnx:spar2")
            names = {p["seat"]: p["name"] for t in texts["tricks"] for p in t["plays"]}
            assert names[1 - seat] == other and texts["names"][str(1 - seat)] == other
            assert all(other in t["line"] for t in texts["tricks"])
            assert not any("seat 1" in t["line"] or "siège" in t["line"] for t in texts["tricks"])
        ama_won = review_texts(review_hand(record, 1, search), language, "onnx:spar2")
        assert ama_won["tricks"][0]["won"].startswith("Ama ")  # seat 0 wins every trick
    # a bot's seat, and a record with no seats, keep "seat N"
    bot = with_seats({"person": "Ama"}, {"bot": "random"})
    texts = review_texts(review_hand(bot, 0, search), "en", "onnx:spar2")
    assert texts["tricks"][0]["plays"][1]["name"] == "seat 1"
    texts = review_texts(review_hand(HAND, 1, search), "en", "onnx:spar2")
    assert texts["tricks"][0]["won"] == "seat 0 won it with A♣"
