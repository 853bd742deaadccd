"""A table of friends that everyone has left pauses after the hand in progress: the bot
finishes that hand for the people away and its record is kept, but no next hand is dealt
(nor recorded) until someone comes back; then the table goes on. In process with a clock of
the test's, and over the WebSocket of a real ``spar serve``."""

from __future__ import annotations

import json
import time

import httpx
from friends_clients import Person, live_url, move_of, seat_people
from test_friends import Clock, make_table
from test_web_browser import serve, stop
from websockets.sync.client import connect

from spar_apps.web.lobby import Lobby

TIMER = 5  # seconds: the shortest turn timer spar serve allows


def test_a_deserted_table_finishes_its_hand_then_deals_no_more_until_someone_is_back() -> None:
    clock = Clock()
    table = make_table(Lobby([], ["random"]), clock, variant="spar", players=3, people=2,
                       timer=30)  # fmt: skip
    table.take("Ama")
    table.take("Kofi")
    game = table.game
    assert game is not None
    table.deserted = True  # everyone has left, in the middle of the first hand
    while not game.table.hand_over:  # the hand in progress: the bot moves for the people
        clock.now += 31
        assert table.timed_out()
    assert len(game.records) == 1 and game.records[0]["seats"][0].get("stood_in")
    assert table.deadline() is None  # paused: no timer deals the next hand
    clock.now += 10_000
    assert not table.timed_out()
    assert game.table.hand_over and len(game.records) == 1
    clock.now = 20_000.0
    table.back()  # someone is connected again: the timer counts from now
    assert table.deadline() == 20_030.0
    clock.now += 31
    assert table.timed_out() and not game.table.hand_over  # the next hand is dealt
    assert int(game.table.state.hands_played[0]) == 1


def _until(person: Person, done, seconds: float) -> dict:
    """Read ``person``'s messages until its view satisfies ``done``; that view."""
    stop_at = time.monotonic() + seconds
    while time.monotonic() < stop_at:
        if person.view is not None and done(person.view):
            return person.view
        person.read(timeout=0.2)
    raise AssertionError(f"no such view in {seconds:g} s; the last: {person.view}")


def test_a_table_everyone_left_deals_no_hand_until_someone_comes_back_over_the_wire(tmp_path):
    state = tmp_path / "state"
    process, url = serve("--state", str(state))
    try:
        form = {"variant": "spar", "players": 2, "end": "target:15", "timer": TIMER}
        table, crowd = seat_people(url, form, 2)
        turns: set[tuple[int, int]] = set()
        stop_at = time.monotonic() + 60
        while not all(p.view is not None and p.view["phase"] == "over" for p in crowd):
            assert time.monotonic() < stop_at, "the first hand did not end"
            for person in crowd:
                person.read(timeout=0.05)
                view = person.view
                mine = view and view["phase"] == "play" and view["my_turn"]
                if mine and (person.seat, view["turn"]) not in turns:
                    turns.add((person.seat, view["turn"]))
                    person.send({"do": "move", "move": move_of(view), "turn": view["turn"]})
        hand = crowd[0].view["hand_number"]
        for person in crowd:  # everyone leaves at the hand's end
            person.socket.close()
        time.sleep(2 * TIMER + 1)  # twice the timer that would deal the next hand
        records = state / "records" / f"{table}-0.jsonl"
        assert len(records.read_text().splitlines()) == 1
        socket = connect(live_url(url, table), open_timeout=30)
        back = Person(0, crowd[0].key, socket)
        try:
            socket.send(json.dumps({"key": back.key}))
            view = _until(back, lambda v: True, 10)
            assert view["phase"] == "over" and view["hand_number"] == hand  # it waited
            # back at the table: its timer deals the next hand, as it would with anyone there
            view = _until(back, lambda v: v["phase"] != "over", 3 * TIMER)
            assert view["hand_number"] == hand + 1
        finally:
            socket.close()
        with httpx.Client(base_url=url, timeout=30) as http:
            assert http.get(f"/api/tables/{table}").json()["started"]
    finally:
        stop(process)
