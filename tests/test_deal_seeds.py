"""The seeds a server deals from (spar_apps.web.seeds): 128 bits for every game, table and
match, so that no seat can search the seeds for the one that dealt its hand; ``--seed``
still fixes every deal, on purpose; no seed ever reaches a seat; and a saved table or game
keeps its big seed whole."""

from __future__ import annotations

import json

import pytest
from starlette.testclient import TestClient

from spar_apps.web import Limits, Lobby, create_app
from spar_apps.web.friends import FriendsTable, table_form
from spar_apps.web.friends_store import FriendsTables
from spar_apps.web.seeds import Seeds, spread

CALM = Limits(game_burst=1e6, game_rate=1e6, new_burst=1e6)
BIG = 2**96  # a seed of 128 bits is below this once in 2^32


@pytest.fixture(scope="module")
def lobby() -> Lobby:
    return Lobby([], ["random"])


def table_of(lobby: Lobby, seed: int | None, people: int = 2) -> FriendsTable:
    tables = FriendsTables(10, 3600)
    if seed is not None:
        tables.seed_with(seed)
    setup, form, n, timer, _ = table_form(lobby, {"people": people, "name": "Ama",
                                                  "end": "target:5"}, 5.0)  # fmt: skip
    table = tables.new(setup, form, n, timer)
    table.take("Ama")
    table.take("Kofi")
    return table


@pytest.mark.parametrize("seed", [None, 0, 7])
def test_game_table_and_match_seeds_carry_128_bits(lobby, seed) -> None:
    seeds = Seeds(seed)
    drawn = [seeds.next() for _ in range(8)]
    assert all(BIG <= s < 2**128 for s in drawn) and len(set(drawn)) == 8
    table = table_of(lobby, seed)
    assert BIG <= table.seed < 2**128
    assert BIG <= table.game.seed < 2**128  # the match's, drawn from the table's and its number
    app = create_app(lobby, CALM, seed=seed)
    game = TestClient(app, base_url="http://127.0.0.1").post("/api/games", json={"players": 2})
    assert BIG <= app.state.store.get(game.json()["game"]).seed < 2**128


def test_spread_is_a_function_of_all_its_entropy() -> None:
    assert spread(2**200 + 1, 0) != spread(1, 0) and spread(5, 0) != spread(5, 1)
    assert spread(5, 0) == spread(5, 0)


def hands_of(table: FriendsTable) -> list[list[str]]:
    return [[c["card"] for c in table.view(s)["hand"]] for s in (0, 1)]


def test_a_servers_seed_still_fixes_the_deals(lobby) -> None:
    assert hands_of(table_of(lobby, 5)) == hands_of(table_of(lobby, 5))
    assert hands_of(table_of(lobby, 5)) != hands_of(table_of(lobby, 6))
    assert hands_of(table_of(lobby, None)) != hands_of(table_of(lobby, None))


def test_no_seed_reaches_a_seat(lobby) -> None:
    """Every view and every table's info a seat is sent in a whole match, in both languages,
    and the records: none holds a seed of the table or its matches, in any form."""
    table = table_of(lobby, None)
    game = table.game
    seen = []
    while not game.table.session_over:
        seen += [table.view(s, lang) for s in (0, 1) for lang in ("en", "fr")]
        seen.append(table.info())
        if game.table.hand_over:
            game.next_hand(game.turn)
        else:
            game.stand_in()
    seen += [table.view(s) for s in (0, 1)] + game.records
    sent = json.dumps(seen)
    for seed in (table.seed, game.seed):
        for form in (str(seed), hex(seed)[2:], str(seed % 2**32), str(seed % 2**64)):
            assert form not in sent


def test_a_solo_games_seed_reaches_no_view_nor_record(lobby) -> None:
    app = create_app(lobby, CALM)
    client = TestClient(app, base_url="http://127.0.0.1")
    view = client.post("/api/games", json={"players": 2, "end": "target:5"}).json()
    game = app.state.store.get(view["game"])
    sent = [view]
    while not view["session_over"]:
        legal = [c["card"] for c in view["hand"] if c["legal"]]
        path, body = ("move", {"move": legal[0]}) if legal else ("next", {})
        view = client.post(f"/api/games/{game.id}/{path}", json={**body, "turn": view["turn"]})
        view = view.json()
        sent.append(view)
    sent.append(client.get(f"/api/games/{game.id}/records").text)
    assert str(game.seed) not in json.dumps(sent)


def test_a_duplicate_games_shown_seed_is_not_the_games_own(lobby) -> None:
    app = create_app(lobby, CALM)
    client = TestClient(app, base_url="http://127.0.0.1")
    view = client.post("/api/games", json={"players": 2, "duplicate": True}).json()
    shown = view["duplicate"]["seed"]
    own = app.state.store.get(view["game"]).seed
    assert 0 <= shown < 2**63 and str(own) not in json.dumps(view)


def test_big_seeds_are_kept_whole_on_disk(lobby) -> None:
    table = table_of(lobby, None)
    game = table.game
    while not game.table.hand_over:
        game.stand_in()
    data = json.loads(json.dumps(table.saved()))
    again = FriendsTable.restore(data, lobby.setup(data["form"], data["overrides"]))
    assert again.seed == table.seed and again.game.seed == game.seed >= BIG
    assert again.game.records == game.records
    for kept in (table, again):  # the next hand, dealt from the seed's generator as it was
        kept.game.next_hand(kept.game.turn)
    assert hands_of(again) == hands_of(table)
