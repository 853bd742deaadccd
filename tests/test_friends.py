"""A table of friends in process (spar_apps.web.friends): seats and keys, the start of a match,
the turn timer, another match, a table kept and taken up again, and the forms refused."""

from __future__ import annotations

import json

import pytest
from friends_clients import move_of

from spar_apps.web.friends import FriendsTable, key_hash, read_name, table_form
from spar_apps.web.friends_store import FriendsTables
from spar_apps.web.game_store import GameError
from spar_apps.web.lobby import FormError, Lobby
from spar_env.records.schema import RecordError, parse_record


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture(scope="module")
def lobby() -> Lobby:
    return Lobby([], ["random"])


def make_table(lobby, clock=None, seed=0, **form) -> FriendsTable:
    setup, game_form, people, timer, _ = table_form(lobby, {"people": 2, "name": "Ama", **form},
                                                    1.0)  # fmt: skip
    tables = FriendsTables(10, 3600, clock=clock or Clock())
    tables.seed_with(seed)
    return tables.new(setup, game_form, people, timer)


def test_seats_fill_then_the_match_starts_and_a_full_table_says_so(lobby):
    table = make_table(lobby, variant="spar", players=4, people=3)
    seat, key = table.take("Ama")
    assert (seat, table.game) == (0, None)
    assert table.view(0)["phase"] == "waiting"
    assert table.take("Kofi")[0] == 1 and table.game is None
    assert table.take("Esi")[0] == 2
    assert table.game is not None and table.game.table.people == {0, 1, 2}
    with pytest.raises(GameError, match="full") as refused:
        table.take("late")
    assert refused.value.status == 409
    assert table.seat_of(key) == 0
    with pytest.raises(GameError) as bad:
        table.seat_of("x" + key)
    assert bad.value.status == 403
    saved = json.dumps(table.saved())
    assert key not in saved and key_hash(key) in saved  # the key kept only as its hash


def test_the_maker_starts_early_and_the_free_seats_are_the_bots(lobby):
    table = make_table(lobby, variant="spar", players=4, people=3)
    table.take("Ama")
    table.take("Kofi")
    with pytest.raises(GameError) as refused:
        table.start(1)
    assert refused.value.status == 403
    table.start(0)
    assert table.game.table.people == {0, 1}
    late, _ = table.take("Esi")  # a seat taken during the match plays from the next one
    assert table.view(late)["phase"] == "waiting"
    with pytest.raises(GameError, match="next one"):
        table.act(late, {"do": "move", "move": "1", "turn": 0}, "en")
    names = table.view(0)["names"]
    assert names[:2] == ["you", "Kofi"] and names[2] == "seat 2"


def test_a_move_out_of_turn_is_refused_and_each_seat_sees_its_own_hand(lobby):
    table = make_table(lobby, variant="spar", players=3, people=2)
    table.take("Ama")
    table.take("Kofi")
    game = table.game
    waiting = 1 - game.table.to_move if game.table.to_move in (0, 1) else 0
    with pytest.raises(GameError, match="not your turn"):
        table.act(waiting, {"do": "move", "move": "1", "turn": game.turn}, "en")
    hands = [{h["card"] for h in table.view(s)["hand"]} for s in (0, 1)]
    assert hands[0] and hands[1] and not hands[0] & hands[1]


def test_the_timer_has_the_bot_move_for_a_person_away_and_the_record_says_so(lobby):
    clock = Clock()
    table = make_table(lobby, clock, variant="spar", players=3, people=2, timer=30)
    table.take("Ama")
    table.take("Kofi")
    game = table.game
    away = game.table.to_move
    assert away in (0, 1)
    assert table.deadline() == pytest.approx(30.0)
    clock.now = 29.0
    assert not table.timed_out()
    clock.now = 30.5
    turn = game.turn
    assert table.timed_out()
    assert game.turn == turn + 1
    other = 1 - away
    assert "the bot played for you" in table.view(away)["texts"]["happened"] or any(
        "the bot played for you" in e for e in table.view(away)["events"]
    )
    said = table.view(other, "fr")["events"]
    name = ["Ama", "Kofi"][away]
    assert any(f"{name} était absent" in e for e in said), said
    while not game.table.hand_over:  # the rest of the hand: the timer moves every person
        clock.now += 31
        assert table.timed_out()
    record = game.records[-1]
    stood_in = record["seats"][away]["stood_in"]
    assert stood_in and stood_in[0] >= 0
    assert parse_record(record).seats == record["seats"]
    hands = int(game.table.state.hands_played[0])
    clock.now += 31  # the hand is over: the timer deals the next one
    assert table.timed_out()
    assert not game.table.hand_over or int(game.table.state.hands_played[0]) > hands


def test_another_match_at_the_table_once_one_is_over(lobby):
    clock = Clock()
    table = make_table(lobby, clock, variant="spar", players=2, people=2, end="target:5")
    table.take("Ama")
    _, key = table.take("Kofi")
    with pytest.raises(GameError, match="still running"):
        table.again(0)
    first = table.game
    while not first.table.session_over:
        clock.now += 61
        table.timed_out()
    assert table.deadline() is None  # nothing left to time
    table.again(1)
    assert table.game is not first and table.match == 2
    assert table.game.id.endswith("-1") and table.seat_of(key) == 1


def test_a_table_kept_as_json_is_taken_up_where_it_was(lobby):
    clock = Clock()
    table = make_table(lobby, clock, seed=4, variant="jeu_de_carte", players=4, people=3)
    for name in ("Ama", "Kofi", "Esi"):
        table.take(name)
    game = table.game
    for _ in range(6):
        mover = game.table.to_move
        table.act(
            mover, {"do": "move", "move": move_of(table.view(mover)), "turn": game.turn}, "en"
        )
    data = json.loads(json.dumps(table.saved()))
    taken_up = FriendsTable.restore(data, lobby.setup(data["form"], data["overrides"]), clock)
    for seat in range(3):
        assert taken_up.view(seat) == table.view(seat)
    assert taken_up.seats == table.seats


@pytest.mark.parametrize(
    ("form", "field"),
    [
        ({"people": 1}, "people"),
        ({"people": 5, "players": 4}, "people"),
        ({"people": True}, "people"),
        ({"timer": 0.5}, "timer"),
        ({"timer": 601}, "timer"),
        ({"timer": "60"}, "timer"),
        ({"name": "x" * 25}, "name"),
        ({"name": 3}, "name"),
        ({"duplicate": 7}, "duplicate"),
        ({"seats": 2}, "unknown field"),
    ],
)
def test_a_table_form_that_cannot_be_played_names_its_field(lobby, form, field):
    with pytest.raises(FormError, match=field):
        table_form(lobby, {"variant": "spar", "players": 4, **form}, 1.0)


def test_a_name_is_trimmed_and_control_characters_are_refused():
    assert read_name("  Ama   Mensah ") == "Ama Mensah"
    with pytest.raises(FormError):
        read_name("Ama\x1b[31m")


@pytest.mark.parametrize(
    "seats",
    [
        [{"person": "A"}, {"person": "B"}],  # one entry short
        [{"person": "A"}, {"robot": "x"}, {"bot": "random"}],
        [{"person": "A", "stood_in": [99]}, {"bot": "r"}, {"bot": "r"}],
        [{"person": 7}, {"bot": "r"}, {"bot": "r"}],
    ],
)
def test_a_records_seats_are_checked(seats):
    record = {
        "variant": "spar",
        "players": 3,
        "dealer": 0,
        "hands": [
            ["6H", "KH", "9C", "AD", "7S"],
            ["6C", "7C", "8C", "10C", "JC"],
            ["6D", "7D", "8D", "9D", "10D"],
        ],  # fmt: skip
        "plays": ["6H"] * 15,
        "seats": seats,
    }
    with pytest.raises(RecordError, match="seats"):
        parse_record(record)
