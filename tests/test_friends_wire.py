"""Tables of friends through the real endpoints of ``spar serve``: whole matches of 2 to 4 people
and bots, every message each seat is sent kept, and no message to a seat holds a card that
seat may not know (the exchange's stock and the face-down variants included). The records
the server writes say which seats were people, and ``spar replay`` reads them."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import httpx
import pytest
from friends_clients import Person, live_url, move_of, play_out, seat_people
from test_web_browser import serve, stop
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import connect

from spar_apps.table.messages import Language
from spar_apps.table.voice import RANK_WORDS
from spar_apps.web.rules_view import rules_view
from spar_env.records.schema import parse_record

CODE = re.compile(r"(10|[2-9JQKA])([CDHS])")
LABEL = re.compile(r"(10|[2-9JQKARDV])([♣♦♥♠])")
SUIT_OF_SYMBOL = {"♣": "C", "♦": "D", "♥": "H", "♠": "S"}
STATIC = ("title", "tagline", "rules", "typing", "typed")  # the ruleset's texts, the same for all


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    state = tmp_path_factory.mktemp("state")
    process, url = serve("--state", str(state))
    yield url, state
    stop(process)


@pytest.fixture(scope="module")
def exchange_server(tmp_path_factory):
    """A server whose games have the weak-hand exchange and the stock's bottom card turned up;
    its seed deals a person a weak hand in the first match (a hand with no 10 or higher: one
    seat in 80 or so), so that the exchange is played."""
    state = tmp_path_factory.mktemp("state")
    process, url = serve("--state", str(state), "--set", "weak_hand_exchange=true",
                         "--set", "reveal_stock_bottom=true", "--seed", "79")  # fmt: skip
    yield url, state
    stop(process)


def cards_in(value: Any, language: Language) -> set[str]:
    """Every card a message names: its card codes (``KD``) and the cards in its texts
    (``K♦``; ``R♦`` in French)."""
    found: set[str] = set()
    if isinstance(value, dict):
        for item in value.values():
            found |= cards_in(item, language)
    elif isinstance(value, list):
        for item in value:
            found |= cards_in(item, language)
    elif isinstance(value, str):
        if CODE.fullmatch(value):
            found.add(value)
        back = {word: rank for rank, word in RANK_WORDS.get(language, {}).items()}
        for rank, symbol in LABEL.findall(value):
            found.add(back.get(rank, rank) + SUIT_OF_SYMBOL[symbol])
    return found


def knowable(record: dict[str, Any], seat: int, played: int) -> set[str]:
    """The cards ``seat`` may know in the hand of ``record`` once ``played`` cards are down:
    its hands (as dealt, and the new one of an exchange), every card played face up so far,
    and the stock's bottom card once it is turned up (as trick H - 1 starts)."""
    parsed = parse_record(record)
    rules = parsed.rules
    mine = set(parsed.hands[seat]) | set(parsed.exchanges[seat] or ())
    down = set(parsed.face_down or ())
    known = mine | {card for k, card in enumerate(parsed.plays[:played]) if k not in down}
    turned_up = played >= (rules.hand_size - 2) * rules.players
    if rules.reveal_stock_bottom and parsed.stock and turned_up:
        known.add(parsed.stock[-1])
    return {rules.card_name(c) for c in known}


def played_in(view: dict[str, Any]) -> int:
    """How many cards are down in the hand of a view (each seat's plays; counts say nothing of
    which cards)."""
    return sum(len(seat["played"]) for seat in view["seats"])


def records_of(state: Path, table: str) -> dict[str, list[dict[str, Any]]]:
    """The records the server wrote for a table's matches, by match (its game id)."""
    files = sorted((state / "records").glob(f"{table}-*.jsonl"))
    assert files, f"no records of table {table} in {state / 'records'}"
    return {f.stem: [json.loads(line) for line in f.read_text().splitlines()] for f in files}


def played(url: str, form: dict[str, Any], people: int, matches: int = 1, language="en"):
    """A table of ``form`` with ``people`` people, played to the end of ``matches`` matches,
    its connections closed: the table id and the people, their messages kept."""
    table, crowd = seat_people(url, form, people, language)
    try:
        play_out(crowd, matches=matches)
    finally:
        for person in crowd:
            person.socket.close()
    return table, crowd


def check_no_leak(crowd, matches: dict[str, list[dict[str, Any]]], language: Language) -> int:
    """Assert that no message to a seat names a card it may not know; the messages checked."""
    checked = 0
    rules = parse_record(next(iter(matches.values()))[0]).rules
    static = rules_view(rules, language)
    for person in crowd:
        for message in person.messages:
            assert message["type"] in ("view", "error"), message
            if message["type"] == "error":
                assert not cards_in(message, language), message
                continue
            view = dict(message["view"])
            if view["phase"] == "waiting":
                assert not cards_in(view, language), view
                continue
            for key in STATIC:
                assert view.pop(key) == static[key]
            hand = view["hand_number"]
            allowed = knowable(matches[view["game"]][hand - 1], person.seat, played_in(view))
            leaked = cards_in(view, language) - allowed
            assert not leaked, (f"seat {person.seat} was sent {sorted(leaked)} in hand {hand}, "
                                f"turn {view['turn']}")  # fmt: skip
            checked += 1
    return checked


@pytest.mark.parametrize(
    ("form", "people", "language"),
    [
        ({"variant": "spar", "players": 4, "end": "target:5"}, 4, "en"),
        ({"variant": "spar", "players": 3, "end": "target:5"}, 2, "fr"),
        ({"variant": "jeu_de_carte", "players": 4, "end": "target:5"}, 3, "en"),
        ({"variant": "sipa", "players": 3, "end": "target:5"}, 2, "fr"),
    ],
    ids=["spar4-4people", "spar3-2people-fr", "jeu_de_carte4-3people", "sipa3-2people-fr"],
)
def test_a_whole_match_sends_each_seat_only_cards_it_may_know(server, form, people, language):
    url, state = server
    table, crowd = played(url, form, people, language=language)
    matches = records_of(state, table)
    (records,) = matches.values()
    assert len(records) == crowd[0].view["hand_number"]  # every hand of the match recorded
    checked = check_no_leak(crowd, matches, language)
    assert checked > 10 * people
    for record in records:  # who sat where: the people by the names they chose, then the bots
        assert [s.get("person") for s in record["seats"]][:people] == [
            f"P{k}" for k in range(people)
        ]
        assert all(s == {"bot": "random"} for s in record["seats"][people:])
    if form["variant"] != "spar":  # the face-down variants did lay cards face down
        assert sum(len(r.get("face_down", [])) for r in records) > 0


def test_the_check_finds_a_card_of_another_hand_planted_in_a_message(server):
    url, state = server
    table, crowd = played(url, {"variant": "spar", "players": 3, "end": "target:5"}, 2)
    matches = records_of(state, table)
    check_no_leak(crowd, matches, "en")  # as sent: nothing to find
    record = matches[f"{table}-0"][0]
    message = next(m for m in crowd[0].messages
                   if m["type"] == "view" and m["view"]["phase"] == "play")  # fmt: skip
    unplayed = record["hands"][1][-1]  # seat 1's card, not yet played in the hand's first view
    planted = json.loads(json.dumps(message))
    planted["view"]["events"].append(
        f"seat 1 holds {unplayed[:-1]}{'♣♦♥♠'['CDHS'.index(unplayed[-1])]}"
    )
    crowd[0].messages.append(planted)
    with pytest.raises(AssertionError, match=unplayed):
        check_no_leak(crowd, matches, "en")


def test_the_exchange_and_the_turned_up_stock_card_stay_hidden_over_two_matches(
    exchange_server,
):
    url, state = exchange_server
    table, crowd = played(url, {"variant": "spar", "players": 4, "end": "target:5"}, 3, matches=2)
    matches = records_of(state, table)
    assert len(matches) == 2  # two matches at one table, a file each
    records = [r for match in matches.values() for r in match]
    exchanged = [s for r in records for s, e in enumerate(r["exchanges"]) if e is not None]
    assert any(s < 3 for s in exchanged)  # a person exchanged: the stock's cards came to them
    assert check_no_leak(crowd, matches, "en") > 100


def test_the_records_of_a_table_replay(server):
    url, state = server
    table, crowd = played(url, {"variant": "spar", "players": 2, "end": "target:5"}, 2)
    files = sorted((state / "records").glob(f"{table}-*.jsonl"))
    done = subprocess.run(["spar", "replay", str(files[0])], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "P0" not in done.stderr


def test_a_bad_key_an_unknown_table_and_a_full_table_are_told_why(server):
    url, _ = server
    table, crowd = seat_people(url, {"variant": "spar", "players": 3}, 2)
    for person in crowd:
        person.socket.close()
    with connect(live_url(url, table)) as socket:
        socket.send(json.dumps({"key": "not-a-key"}))
        said = json.loads(socket.recv(timeout=10))
        assert said["status"] == 403 and "link" in said["error"]
    with connect(live_url(url, "no-such-table")) as socket:
        said = json.loads(socket.recv(timeout=10))
        assert said["status"] == 404 and "no such table" in said["error"]
    with httpx.Client(base_url=url) as http:
        full = http.post(f"/api/tables/{table}/seats", json={"name": "late"})
        assert full.status_code == 409 and "full" in full.json()["error"]
        info = http.get(f"/api/tables/{table}").json()
        assert [s["name"] for s in info["seats"]] == ["P0", "P1", ""]
        assert "key" not in json.dumps(info)
        forged = http.post(
            "/api/tables", json={"people": 2}, headers={"Origin": "http://evil.example"}
        )
        assert forged.status_code == 403


def test_a_restarted_server_takes_up_a_table_and_its_people_come_back_with_their_links(
    tmp_path,
):
    state = tmp_path / "state"
    process, url = serve("--state", str(state))
    try:
        table, crowd = seat_people(url, {"variant": "spar", "players": 3, "end": "target:5"}, 2)
        for person in crowd:
            person.read(timeout=5)
        mover = next(p for p in crowd if p.view["my_turn"])
        mover.send({"do": "move", "move": move_of(mover.view), "turn": mover.view["turn"]})
        for person in crowd:
            person.read(timeout=5)
        before = [person.view for person in crowd]
        assert before[0]["turn"] == 1
        for person in crowd:
            person.socket.close()
    finally:
        stop(process)
    process, url = serve("--state", str(state))
    try:
        again = []
        for person in crowd:
            socket = connect(live_url(url, table), open_timeout=30)
            socket.send(json.dumps({"key": person.key}))
            again.append(Person(person.seat, person.key, socket))
            again[-1].read(timeout=10)
        for old, new in zip(crowd, again, strict=True):
            assert new.view["hand"] == old.view["hand"] and new.view["turn"] == 1
        play_out(again)  # and the match goes on to its end
        assert all(p.view["session_over"] for p in again)
    finally:
        for person in again:
            person.socket.close()
        stop(process)


def test_a_websocket_from_another_origin_is_refused(server):
    url, _ = server
    table, crowd = seat_people(url, {"variant": "spar", "players": 3}, 2)
    for person in crowd:
        person.socket.close()
    with pytest.raises(InvalidStatus) as refused:
        connect(live_url(url, table), origin="http://evil.example", open_timeout=10)
    assert refused.value.response.status_code == 403


def test_a_flood_of_messages_closes_the_connection_and_a_fourth_tab_closes_the_first(server):
    url, _ = server
    table, crowd = seat_people(url, {"variant": "spar", "players": 3}, 2)
    maker = crowd[0]
    tabs = []
    for _ in range(3):  # the seat's second, third and fourth connection
        tab = connect(live_url(url, table), open_timeout=10)
        tab.send(json.dumps({"key": maker.key}))
        tabs.append(tab)
        json.loads(tab.recv(timeout=10))
    with pytest.raises(ConnectionClosed) as closed:
        while True:
            maker.socket.recv(timeout=10)
    assert closed.value.rcvd.code == 4409  # the oldest of four tabs was closed
    flood = tabs[-1]
    with pytest.raises(ConnectionClosed) as closed:
        for _ in range(200):
            flood.send(json.dumps({"lang": "en"}))
        while True:
            flood.recv(timeout=10)
    assert closed.value.rcvd.code == 4429
    for tab in (*tabs[:-1], crowd[1].socket):
        tab.close()
