"""The duplicate challenge on ``spar serve``'s wire (Starlette's TestClient, in process): the
form's seed field, the view's ``duplicate`` block hand by hand, the same seed dealing the same
hands to two players, refused seeds in the request's language, and a restart."""

from __future__ import annotations

import pytest
from starlette.testclient import TestClient

from spar_agents import make_agent
from spar_apps.table.duplicate import DuplicateTable
from spar_apps.web import Limits, Lobby, create_app
from spar_apps.web.saved import GameFolder
from spar_env.rules import make_rules

CALM = Limits(game_burst=1e6, game_rate=1e6, new_burst=1e6)
HANDS = 3
FORM = {"variant": "spar", "players": 4, "opponents": "heuristic"}


def client(seed: int = 0, folder: GameFolder | None = None) -> TestClient:
    lobby = Lobby([], ["heuristic", "random"], {"end": f"hands:{HANDS}"})
    app = create_app(lobby, CALM, seed=seed, folder=folder)
    return TestClient(app, base_url="http://127.0.0.1", raise_server_exceptions=False)


def new_game(c: TestClient, **form) -> dict:
    answer = c.post("/api/games", json={**FORM, **form})
    assert answer.status_code == 201, answer.text
    return answer.json()


def play_hand(c: TestClient, view: dict) -> dict:
    """Play the person's first legal card until the hand is over; the last view."""
    while view["phase"] != "over":
        if view["duplicate"] is not None:  # the bot's result of a hand waits for its end
            assert len(view["duplicate"]["hands"]) == view["hand_number"] - 1
        card = next(h["card"] for h in view["hand"] if h["legal"])
        answer = c.post(
            f"/api/games/{view['game']}/move", json={"move": card, "turn": view["turn"]}
        )
        assert answer.status_code == 200, answer.text
        view = answer.json()
    return view


def next_hand(c: TestClient, view: dict) -> dict:
    answer = c.post(f"/api/games/{view['game']}/next", json={"turn": view["turn"]})
    assert answer.status_code == 200, answer.text
    return answer.json()


def play_session(c: TestClient, view: dict) -> list[dict]:
    """Every hand's last view, to the session's end."""
    ends = []
    while True:
        view = play_hand(c, view)
        ends.append(view)
        if view["session_over"]:
            return ends
        view = next_hand(c, view)


def test_a_duplicate_game_shows_both_results_hand_by_hand_as_the_table_scores_them() -> None:
    c = client()
    view = new_game(c, duplicate="42")
    board = view["duplicate"]
    assert board["seed"] == 42 and board["hands"] == [] and board["title"] == "Duplicate challenge"
    assert board["bot"] == "the bot in your seat: heuristic"
    ends = play_session(c, view)
    assert len(ends) == HANDS
    for k, end in enumerate(ends, 1):
        pairs = end["duplicate"]["hands"]
        assert [p["hand"] for p in pairs] == list(range(1, k + 1))
        assert pairs[-1]["you"] == end["summary"]["payoffs"][0]  # the person's payoff
    # The same session played on the table itself: the web's bot results are the table's.
    rules = make_rules("spar", players=4, end=f"hands:{HANDS}")
    bot = make_agent("heuristic", rules)
    table = DuplicateTable(rules, 0, {1: bot, 2: bot, 3: bot}, bot, 42)
    while True:
        table.advance()
        while not table.hand_over:
            table.play(table.legal()[0])  # the first legal card: the page's choice above
            table.advance()
        if table.session_over:
            break
        table.next_hand()
    final = ends[-1]["duplicate"]
    assert [(p["you"], p["bot"]) for p in final["hands"]] == [
        (p.you, p.bot) for p in table.results()
    ]
    you, bot_total = table.totals()
    assert (final["total"]["you"], final["total"]["bot"]) == (you, bot_total)
    assert final["total"]["line"] == f"in all: you {you:+d}, the bot in your seat {bot_total:+d}"


def test_one_seed_deals_the_same_hands_to_two_players_on_two_servers() -> None:
    """Two friends, two servers with other seeds of their own: the duplicate seed alone
    fixes every hand's cards, even when their plays part."""
    friend = client(seed=1)
    first = play_session(friend, new_game(friend, duplicate=7))
    c = client(seed=2)
    view = new_game(c, duplicate=" 7 ")  # typed with spaces
    dealt = []
    while True:  # this friend plays the last legal card
        while view["phase"] != "over":
            card = [h["card"] for h in view["hand"] if h["legal"]][-1]
            view = c.post(f"/api/games/{view['game']}/move",
                          json={"move": card, "turn": view["turn"]}).json()  # fmt: skip
        dealt.append(view["summary"]["dealt"])
        if view["session_over"]:
            break
        view = next_hand(c, view)
    assert dealt == [end["summary"]["dealt"] for end in first]
    plain = [e["summary"]["dealt"] for e in play_session(c, new_game(c, duplicate=8))]
    assert plain != dealt  # another seed, other hands


def test_a_plain_game_has_no_duplicate_block_and_true_takes_the_games_own_seed() -> None:
    c = client(seed=3)
    assert new_game(c)["duplicate"] is None
    assert new_game(c, duplicate=False)["duplicate"] is None
    drawn = new_game(c, duplicate=True)["duplicate"]["seed"]  # the server's third game
    same = client(seed=3)  # a fresh server of the same --seed: its third game, the same seed
    new_game(same), new_game(same)
    assert new_game(same, duplicate=True)["duplicate"]["seed"] == drawn
    assert new_game(same, duplicate=True)["duplicate"]["seed"] != drawn  # its fourth: another
    assert new_game(c, duplicate="")["duplicate"] is not None  # nothing typed: a fresh seed


@pytest.mark.parametrize("bad", ["abc", -1, 1.5, "1e3", [], {"seed": 1}, "-2", 2**63, "٣"])
def test_a_bad_seed_is_refused_in_the_requests_language(bad) -> None:
    c = client()
    answer = c.post("/api/games", json={**FORM, "duplicate": bad})
    assert answer.status_code == 400
    error = answer.json()["error"]
    assert error.startswith("the duplicate seed must be a whole number from 0 to ")
    french = c.post("/api/games", json={**FORM, "duplicate": bad},
                    headers={"accept-language": "fr-FR,fr;q=0.9"})  # fmt: skip
    assert french.status_code == 400
    assert french.json()["error"].startswith("la graine du duplicate doit être un nombre entier")
    asked = c.post("/api/games?lang=fr", json={**FORM, "duplicate": bad})
    assert asked.json()["error"] == french.json()["error"]


def test_the_form_field_and_the_view_speak_the_requests_language() -> None:
    c = client()
    field = ("duplicate.form.on", "duplicate.form.seed", "duplicate.form.empty")
    english = c.get("/api/messages").json()["messages"]
    assert [english[k] for k in field] == ["Duplicate challenge", "seed", "new"]
    french = c.get("/api/messages", headers={"accept-language": "fr"}).json()["messages"]
    assert [french[k] for k in field] == ["Défi duplicate", "graine", "nouvelle"]
    view = new_game(c, duplicate=5)
    french = c.get(f"/api/games/{view['game']}?lang=fr").json()["duplicate"]
    assert french["title"] == "Défi duplicate" and french["columns"][1] == "vous"
    end = play_hand(c, view)
    line = c.get(f"/api/games/{view['game']}?lang=fr").json()["duplicate"]["hands"][0]["line"]
    pair = end["duplicate"]["hands"][0]
    assert line.startswith(f"main 1\u00a0: vous {pair['you']:+d}".replace("+0", "0"))


def test_a_duplicate_game_goes_on_after_a_restart_as_it_would_have(tmp_path) -> None:
    folder = GameFolder(tmp_path)
    c = client(folder=folder)
    view = new_game(c, duplicate=11)
    view = next_hand(c, play_hand(c, view))  # one hand done, the second dealt
    folder.close()
    again = client(folder=GameFolder(tmp_path))
    restored = again.get(f"/api/games/{view['game']}").json()
    assert restored["duplicate"] == view["duplicate"] and restored["hand"] == view["hand"]
    rest = play_session(again, restored)
    other = client(seed=99)
    whole = play_session(other, new_game(other, duplicate=11))
    assert rest[-1]["duplicate"]["hands"] == whole[-1]["duplicate"]["hands"]
