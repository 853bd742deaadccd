"""``spar serve``'s wire: whole sessions played through the HTTP interface, in process, with
every message checked against what the person's seat may know.

At least 1,000 hands, over every preset, 2 to 7 players, the weak-hand
exchange and the turned-up stock card, against cheap opponents (random,
heuristic) and one session against the shipped bot. A message may name a card
only if seat 0 holds it, dealt it, played it, saw it played face up or saw
it turned up from the stock; once a hand is over, its dealt hands too. The
hidden cards (other hands, face-down plays of others, a hand given up in the
exchange, the stock) are read from the core's state, not from the view code.
"""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any

import httpx
import numpy as np
import pytest

from spar_agents.shipped import default_bot_specs
from spar_apps.web import Limits, Lobby, create_app
from spar_apps.web.view import rules_texts

CODE = re.compile(r"(?:10|[2-9JQKA])[CDHS]")
SYMBOL = re.compile(r"(?:10|[2-9JQKA])[♣♦♥♠]")
TO_LETTER = str.maketrans("♣♦♥♠", "CDHS")
UNLIMITED = Limits(game_burst=1e9, game_rate=1e9, new_burst=1e9, games=100_000)
HANDS = 1000
OPEN_SESSION_HANDS = 6  # hands played of a session that never ends by itself

# (variant, players, opponents) of the plain server, then of the server with the exchange on.
PLAIN = [
    ("spar", 4, "random"), ("spar", 2, "heuristic"), ("spar_classic", 3, "random"),
    ("essilfy", 3, "random"), ("jeu_de_carte", 4, "random"), ("sipa", 3, "heuristic"),
    ("sipa", 6, "random"), ("agram", 5, "random"), ("sink_sink", 7, "random"),
    ("fapfap", 2, "random"), ("agram_mali", 4, "heuristic"), ("mini", 2, "random"),
    ("micro", 2, "random"),
]  # fmt: skip
EXCHANGE = [("spar", 3, "random"), ("sipa", 4, "heuristic"), ("jeu_de_carte", 2, "random")]


def strings(value: Any):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)


def named_cards(message: dict, rules) -> set[int]:
    """Every card a message names: a whole string that is a card code, or a card in text."""
    out = set()
    for text in strings(message):
        if CODE.fullmatch(text):
            out.add(rules.card_id(text))
        out.update(rules.card_id(m.translate(TO_LETTER)) for m in SYMBOL.findall(text))
    return out


def bits(value) -> set[int]:
    value = int(value)
    return {c for c in range(64) if value >> c & 1}


def known_to_seat_0(table) -> set[int]:
    """What seat 0 may know, from the core's state (not from the view)."""
    s = table.state
    own = bits(s.dealt[0, 0]) | bits(s.hands[0, 0]) | bits(s.held[0, 0]) | bits(s.played_down[0, 0])
    face_up = set()
    for seat in range(table.rules.players):
        face_up |= bits(s.played_up[0, seat])
    known = own | face_up
    if int(s.revealed[0]) >= 0:
        known.add(int(s.revealed[0]))
    if table.hand_over:
        for seat in range(table.rules.players):
            known |= bits(s.dealt[0, seat])
    return known


_NO_MATCH = ("open", "one_hand")  # session ends with no match to win over several hands


class Checker:
    """Checks each message against the seat's knowledge in the server's own game."""

    def __init__(self, app) -> None:
        self.store = app.state.store
        self.messages = 0

    def check(self, message: dict, game_id: str) -> None:
        table = self.store.get(game_id).table
        rules = table.rules
        # The variant's texts (its rules, typing examples) name cards of the deck, not of the
        # deal: they must be the ruleset's own, the same in every message of every game.
        texts = rules_texts(rules)
        if "rules" in message:
            assert {k: message[k] for k in texts} == texts
        dealt = {k: v for k, v in message.items() if k not in texts}
        leaked = named_cards(dealt, rules) - known_to_seat_0(table)
        assert not leaked, (
            f"message names hidden cards {sorted(rules.card_name(c) for c in leaked)}"
        )
        if "seats" in message:  # another seat's face-down plays are backs, as many as it made
            for seat in message["seats"]:
                if seat["seat"] != 0:
                    backs = sum(p["card"] is None for p in seat["played"])
                    assert backs == int(table.state.down_count[0, seat["seat"]])
            assert [h["card"] for h in message["hand"]] == [
                rules.card_name(c) for c in table.hand()
            ]
            assert (message["summary"] is None) == (not table.hand_over)
            if message["summary"] is not None:
                chances = message["summary"]["match_chances"]
                assert (chances is None) == (table.session_over or rules.end_kind in _NO_MATCH)
                if chances is not None:
                    assert len(chances) == rules.players and sum(chances) < 1.02
                    if rules.end_kind != "hands":  # there, a tie wins nobody the match
                        assert sum(chances) > 0.98
        self.messages += 1


async def play_session(client, checker, form, rng, hint: bool) -> tuple[int, int]:
    """One session (or the first hands of an open one); returns hands played and records."""
    response = await client.post("/api/games", json=form)
    assert response.status_code == 201, response.text
    view = response.json()
    game = view["game"]
    checker.check(view, game)
    hands = 0
    while True:
        if view["phase"] == "over":
            hands += 1
            if view["session_over"] or hands >= OPEN_SESSION_HANDS:
                break
            response = await client.post(f"/api/games/{game}/next", json={"turn": view["turn"]})
        else:
            if hint and view["hint"] and rng.random() < 0.2:
                answer = await client.get(f"/api/games/{game}/hint")
                assert answer.status_code == 200, answer.text
                checker.check(answer.json(), game)
            moves = [h["card"] for h in view["hand"] if h["legal"]] or [
                c["action"] for c in view["choices"]
            ]
            move = moves[rng.integers(len(moves))]
            if rng.random() < 0.3:  # the keyboard's way: the move's number
                move = str(moves.index(move) + 1)
            response = await client.post(
                f"/api/games/{game}/move", json={"move": move, "turn": view["turn"]}
            )
        assert response.status_code == 200, response.text
        view = response.json()
        checker.check(view, game)
    records = await client.get(f"/api/games/{game}/records")
    lines = [json.loads(line) for line in records.text.splitlines()]
    assert len(lines) == view["records"]
    return hands, len(lines)


async def play_hands(total: int) -> tuple[int, int]:
    servers = [
        (create_app(Lobby(default_bot_specs(), ["random"]), UNLIMITED, seed=1), PLAIN),
        (
            create_app(
                Lobby(
                    default_bot_specs(),
                    ["random"],
                    {"weak_hand_exchange": True, "reveal_stock_bottom": True},
                ),
                UNLIMITED,
                seed=2,
            ),
            EXCHANGE,
        ),
    ]
    rng = np.random.default_rng(0)
    hands = messages = 0
    for app, lineup in servers:
        checker = Checker(app)
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
            if lineup is PLAIN:  # one session against the shipped bot, with hints
                form = {"variant": "spar", "players": 4, "opponents": "shipped"}
                hands += (await play_session(client, checker, form, rng, True))[0]
            share = total // 4 if lineup is EXCHANGE else total
            played = 0
            for k in range(10_000):
                if played >= share or hands >= total:
                    break
                variant, players, opponents = lineup[k % len(lineup)]
                form = {"variant": variant, "players": players, "opponents": opponents}
                got, _ = await play_session(client, checker, form, rng, False)
                played += got
                hands += got
        messages += checker.messages
    return hands, messages


def test_no_hidden_card_in_any_message_over_a_thousand_hands():
    hands, messages = asyncio.run(play_hands(HANDS))
    assert hands >= HANDS
    assert messages > 5 * HANDS


@pytest.mark.parametrize("hidden", ["another's hand", "face-down", "exchanged", "stock"])
def test_the_checker_finds_a_hidden_card(hidden):
    """The check could fail: a message naming a hidden card of each kind is caught."""
    app = create_app(
        Lobby(
            default_bot_specs(),
            ["random"],
            {"weak_hand_exchange": True, "reveal_stock_bottom": True},
        ),
        UNLIMITED,
        seed=3,
    )
    checker = Checker(app)

    async def find() -> None:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
            variant = "sipa" if hidden == "face-down" else "spar"
            for _ in range(200):
                form = {"variant": variant, "players": 4, "opponents": "random"}
                view = (await client.post("/api/games", json=form)).json()
                table = app.state.store.get(view["game"]).table
                s = table.state
                while view["phase"] != "over":
                    card = _hidden_card(table, hidden)
                    if card is not None:
                        forged = {
                            **view,
                            "events": [f"seat 1 plays {table.rules.card_name(card, unicode=True)}"],
                        }
                        with pytest.raises(AssertionError, match="hidden cards"):
                            checker.check(forged, view["game"])
                        return
                    moves = [h["card"] for h in view["hand"] if h["legal"]] or [
                        c["action"] for c in view["choices"]
                    ]
                    body = {"move": moves[0], "turn": view["turn"]}
                    view = (await client.post(f"/api/games/{view['game']}/move", json=body)).json()
                assert s is table.state
            raise AssertionError(f"no {hidden} card found to forge")

    asyncio.run(find())


def _hidden_card(table, hidden: str) -> int | None:
    s = table.state
    if hidden == "another's hand":
        return min(bits(s.hands[0, 1]), default=None)
    if hidden == "face-down":
        return min(bits(s.played_down[0, 2]) | bits(s.played_down[0, 1]), default=None)
    if hidden == "exchanged":
        for seat in (1, 2, 3):
            if s.exchanged[0, seat]:
                return min(bits(s.discarded[0, seat]), default=None)
        return None
    stock = [int(c) for c in s.deck[0, int(s.stock_top[0]) :] if int(c) != int(s.revealed[0])]
    return stock[0] if stock else None
