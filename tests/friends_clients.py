"""Scripted people at a table of friends, through the real endpoints of ``spar serve``: HTTP to
make the table and take the seats, one WebSocket per seat, every message each seat is sent
kept. The wire tests and the browser test share them."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any

import httpx
from websockets.sync.client import ClientConnection, connect

from spar_env.rules.cards import SUIT_SYMBOLS


@dataclass
class Person:
    """One seat's browser: its key, its connection and every message it was sent."""

    seat: int
    key: str
    socket: ClientConnection
    messages: list[dict[str, Any]] = field(default_factory=list)
    view: dict[str, Any] | None = None  # the last view it was sent

    def read(self, timeout: float = 0.0) -> bool:
        """Keep the messages that have come; whether any did."""
        got = False
        try:
            while True:
                message = json.loads(self.socket.recv(timeout=timeout))
                self.messages.append(message)
                if message["type"] == "view":
                    self.view = message["view"]
                got, timeout = True, 0.0
        except TimeoutError:
            return got

    def send(self, message: dict[str, Any]) -> None:
        self.socket.send(json.dumps(message))


def live_url(url: str, table: str) -> str:
    return url.replace("http://", "ws://").rstrip("/") + f"/api/tables/{table}/live"


def seat_people(
    url: str, form: dict[str, Any], people: int, lang: str = "en"
) -> tuple[str, list[Person]]:
    """Make a table of ``form`` and seat ``people`` people at it (the maker first), each
    connected and greeted; returns the table id and the people."""
    with httpx.Client(base_url=url, timeout=30) as http:
        made = http.post("/api/tables", json={**form, "people": people, "name": "P0"})
        assert made.status_code == 201, made.text
        table = made.json()["table"]
        keys = [made.json()["key"]]
        for k in range(1, people):
            taken = http.post(f"/api/tables/{table}/seats", json={"name": f"P{k}"})
            assert taken.status_code == 201, taken.text
            assert taken.json()["seat"] == k
            keys.append(taken.json()["key"])
    crowd = []
    for seat, key in enumerate(keys):
        socket = connect(live_url(url, table), open_timeout=30)
        socket.send(json.dumps({"key": key, "lang": lang}))
        crowd.append(Person(seat, key, socket))
    return table, crowd


def move_of(view: dict[str, Any]) -> str:
    """A legal move of the seat's view: exchange when it may (the hidden stock then moves),
    else its first legal card, sent as the page sends it: with its suit symbol, which every
    language reads alike (in French, ``10C`` is 10 de cœur)."""
    if view["phase"] == "exchange":
        legal = [c["action"] for c in view["choices"] if c["legal"]]
        return "exchange" if "exchange" in legal else legal[0]
    card = next(h["card"] for h in view["hand"] if h["legal"])
    return card[:-1] + SUIT_SYMBOLS[card[-1]]


def play_out(crowd: list[Person], seconds: float = 120.0, matches: int = 1) -> None:
    """Every person plays a legal move whenever their view says it is their turn, a moment
    after the view came (each seat well within the server's message rate), and the maker deals
    each next hand, until ``matches`` matches are over (the maker asks for each new one)."""
    think = 0.06 / len(crowd)  # the moves go round the people: each sends under 20 a second
    stop = time.monotonic() + seconds
    sent: set[tuple[str, int, int]] = set()  # (match, seat, turn) already answered
    fresh = True  # views already read are answered too
    while time.monotonic() < stop:
        if not any([person.read() for person in crowd]) and not fresh:
            time.sleep(0.003)
            continue
        fresh = False
        views = [p.view for p in crowd]
        over = all(v is not None and v.get("session_over") for v in views)
        if over and views[0]["friends"]["match"] >= matches:  # type: ignore[index]
            return
        for person, view in zip(crowd, views, strict=True):
            if view is None or view["phase"] == "waiting":
                continue
            if (view["game"], person.seat, view["turn"]) in sent:
                continue
            if over and person.seat == 0:
                message: dict[str, Any] = {"do": "again"}
            elif view["phase"] == "over" and not view["session_over"] and person.seat == 0:
                message = {"do": "next", "turn": view["turn"]}
            elif view["phase"] != "over" and view["my_turn"]:
                message = {"do": "move", "move": move_of(view), "turn": view["turn"]}
            else:
                continue
            time.sleep(think)
            person.send(message)
            sent.add((view["game"], person.seat, view["turn"]))
    raise AssertionError(f"the match did not end in {seconds:g} s")
