"""The web table's review (``GET /api/games/{id}/review``) and its texts (``GET /api/messages``):
the hand just over, by search, in the browser's language; refused, in one JSON line, while
the hand runs, for a language the tables do not speak, and for a game it cannot review."""

from __future__ import annotations

from starlette.testclient import TestClient

from spar_agents.shipped import default_bot_specs
from spar_apps.table.messages import MESSAGES
from spar_apps.web import Limits, Lobby, create_app

CALM = Limits(game_burst=1e6, game_rate=1e6, new_burst=1e6)


def client(**overrides) -> TestClient:
    app = create_app(Lobby(default_bot_specs(), ["random"], overrides), CALM, seed=0)
    return TestClient(app, base_url="http://127.0.0.1", raise_server_exceptions=False)


def refused(response, status: int, words: str) -> None:
    assert response.status_code == status, response.text
    assert words in response.json()["error"] and "\n" not in response.json()["error"]


def play_a_hand(c: TestClient, **form) -> dict:
    view = c.post("/api/games", json={"variant": "spar", "opponents": "random", **form}).json()
    game = view["game"]
    assert not view["review"]  # nothing to review while the hand runs
    while view["phase"] != "over":
        move = {"move": "1", "turn": view["turn"]}
        view = c.post(f"/api/games/{game}/move", json=move).json()
    return view


def test_the_hand_just_over_is_reviewed_in_the_browsers_language() -> None:
    c = client()
    running = c.post("/api/games", json={"variant": "spar", "opponents": "random"}).json()
    refused(c.get(f"/api/games/{running['game']}/review"), 409, "still running")
    view = play_a_hand(c, players=2)
    assert view["review"]
    game = view["game"]
    answer = c.get(f"/api/games/{game}/review", headers={"accept-language": "fr-FR,fr;q=0.9"})
    assert answer.status_code == 200, answer.text
    french = answer.json()
    assert french["title"] == "Revue de la main" and french["hand"] == 1
    assert len(french["tricks"]) == 5 and french["match"]  # spar to 10: a match is on
    for trick in french["tricks"]:
        decision = trick["decision"]
        assert decision["verdict"] and decision["cards"]
        assert sum(card["played"] for card in decision["cards"]) == 1
    english = c.get(f"/api/games/{game}/review?lang=en").json()
    assert english["title"] == "Review of the hand"
    values = [[c["value"] for c in t["decision"]["cards"]] for t in english["tricks"]]
    assert values == [[c["value"] for c in t["decision"]["cards"]] for t in french["tricks"]]
    unspoken = c.get(f"/api/games/{game}/review?lang=de", headers={"accept-language": "fr"})
    assert unspoken.json()["title"] == "Revue de la main"  # a language not spoken: the browser's
    after = c.post(f"/api/games/{game}/next", json={"turn": view["turn"]}).json()
    assert not after["review"]


def test_a_game_with_the_exchange_is_not_reviewed_and_says_why() -> None:
    c = client(weak_hand_exchange=True)
    view = play_a_hand(c, players=3)
    assert not view["review"]
    refused(c.get(f"/api/games/{view['game']}/review?lang=en"), 404, "weak-hand exchange")


def test_the_page_gets_the_message_table_in_its_language() -> None:
    c = client()
    texts = c.get("/api/messages", headers={"accept-language": "fr"}).json()
    assert texts["language"] == "fr"
    assert texts["messages"]["review.button"] == MESSAGES["review.button"]["fr"]
    assert set(texts["messages"]) == set(MESSAGES)
    assert c.get("/api/messages?lang=en").json()["messages"]["review.button"] == "Review this hand"


def test_the_session_report_gathers_the_hands_played_in_both_languages() -> None:
    c = client()
    running = c.post("/api/games", json={"variant": "spar", "opponents": "random"}).json()
    refused(c.get(f"/api/games/{running['game']}/report?lang=en"), 409, "no hand")
    view = play_a_hand(c, players=2)
    game = view["game"]
    view = c.post(f"/api/games/{game}/next", json={"turn": view["turn"]}).json()
    while view["phase"] != "over":
        view = c.post(f"/api/games/{game}/move", json={"move": "1", "turn": view["turn"]}).json()
    english = c.get(f"/api/games/{game}/report?lang=en")
    assert english.status_code == 200, english.text
    report = english.json()
    assert report["hands"] == 2 and report["summary"].startswith("2 hands reviewed: ")
    assert sum(kind["count"] for kind in report["kinds"]) == report["mistakes"]
    french = c.get(f"/api/games/{game}/report?lang=fr").json()
    assert (
        french["title"] == "Vos erreurs de la session" and french["mistakes"] == report["mistakes"]
    )
