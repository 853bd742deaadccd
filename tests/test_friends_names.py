"""The names people take at a table of friends (spar_apps.web.names): required, letters and
digits and the punctuation of names, no control or bidirectional character, not a number
alone, none of the page's words for a seat or a bot in either language, one name per table;
each refusal its own message, in the request's language. And a table's form is read
strictly: ``"duplicate": 0`` is no ``false``."""

from __future__ import annotations

import pytest
from starlette.testclient import TestClient

from spar_apps.table.messages import LANGUAGES, say
from spar_apps.web import Limits, Lobby, create_app
from spar_apps.web.friends import table_form
from spar_apps.web.friends_store import FriendsTables
from spar_apps.web.game_store import GameError
from spar_apps.web.lobby import FormError
from spar_apps.web.names import NAME_CHARS, PUNCTUATION, read_name

CALM = Limits(game_burst=1e6, game_rate=1e6, new_burst=1e6)
FORM = {"variant": "spar", "players": 4, "opponents": "random", "people": 3}


@pytest.fixture(scope="module")
def lobby() -> Lobby:
    return Lobby([], ["random"])


@pytest.fixture
def client(lobby) -> TestClient:
    return TestClient(create_app(lobby, CALM), base_url="http://127.0.0.1")


REFUSED = [
    (None, "friends.name_missing", {}),
    ("", "friends.name_missing", {}),
    ("   ", "friends.name_missing", {}),
    (7, "friends.name_missing", {}),
    ("x" * (NAME_CHARS + 1), "friends.name_long", {"n": NAME_CHARS}),
    ("x" * 10_000, "friends.name_long", {"n": NAME_CHARS}),
    ("42", "friends.name_letters", {}),
    ("٣٤", "friends.name_letters", {}),  # Arabic-Indic digits: a number too
    ("- 1 -", "friends.name_letters", {}),
    ("Ama\x1b[31m", "friends.name_chars", {"signs": " ".join(PUNCTUATION)}),
    ("Ama\x00", "friends.name_chars", {"signs": " ".join(PUNCTUATION)}),
    ("Ama\u202eKofi", "friends.name_chars", {"signs": " ".join(PUNCTUATION)}),  # bidi override
    ("Ama\u200fKofi", "friends.name_chars", {"signs": " ".join(PUNCTUATION)}),  # RLM
    ("Ama\u2066", "friends.name_chars", {"signs": " ".join(PUNCTUATION)}),  # bidi isolate
    ("Ama\u200b", "friends.name_chars", {"signs": " ".join(PUNCTUATION)}),  # zero width
    ("Ama\u001fKofi", "friends.name_chars", {"signs": " ".join(PUNCTUATION)}),  # a separator
    ("Ama (you)", "friends.name_chars", {"signs": " ".join(PUNCTUATION)}),
    ("<b>Ama</b>", "friends.name_chars", {"signs": " ".join(PUNCTUATION)}),
]
RESERVED = ["you", "YOU", "You!", "vous", "Vous", "à vous", "seat 3", "Seat 12", "seat-0",
            "siège 2", "SIEGE 2", "le siège 5", "au siège 1", "du siège 3", "a bot", "the bot",
            "Le bot", "un bot", "random", "Heuristic", "pimc", "search", "free", "libre",
            "a friend", "un ami", *(say("opponent.shipped", lang) for lang in LANGUAGES)]  # fmt: skip
ACCEPTED = {"Ama": "Ama", "  Ama   Mensah ": "Ama Mensah", "Jean-Luc": "Jean-Luc",
            "O'Brien": "O'Brien", "Zoë": "Zoë", "Åsa": "Åsa", "李雷": "李雷", "Ama 2": "Ama 2",
            "Dr. Who": "Dr. Who", "Bayou": "Bayou", "Youssef": "Youssef", "Seaton": "Seaton",
            "Ana & Bo": "Ana & Bo", "x" * NAME_CHARS: "x" * NAME_CHARS}  # fmt: skip


@pytest.mark.parametrize(("value", "key", "fields"), REFUSED, ids=repr)
def test_each_kind_of_name_refused_says_why(value, key, fields) -> None:
    with pytest.raises(FormError) as refused:
        read_name(value)
    for lang in LANGUAGES:
        assert refused.value.say(lang) == say(key, lang, **fields)


@pytest.mark.parametrize("value", RESERVED)
def test_a_word_the_page_uses_for_a_seat_or_a_bot_is_no_name(value) -> None:
    with pytest.raises(FormError) as refused:
        read_name(value)
    name = " ".join(value.split())
    assert refused.value.say("en") == say("friends.name_reserved", "en", name=name)
    assert refused.value.say("fr") == say("friends.name_reserved", "fr", name=name)


@pytest.mark.parametrize(("value", "name"), ACCEPTED.items())
def test_a_name_is_taken_trimmed(value, name) -> None:
    assert read_name(value) == name


def test_the_messages_of_the_refusals_differ() -> None:
    keys = {key for _, key, _ in REFUSED} | {"friends.name_reserved", "friends.name_taken"}
    for lang in LANGUAGES:
        said = {say(k, lang, n=NAME_CHARS, signs="", name="Ama") for k in keys}
        assert len(said) == len(keys), lang


def test_two_people_of_one_name_at_a_table_are_refused(lobby) -> None:
    setup, form, people, timer, name = table_form(lobby, {**FORM, "name": "Ama"}, 5.0)
    table = FriendsTables(10, 3600).new(setup, form, people, timer)
    table.take(name)
    for same in ("Ama", "AMA", "ama!", "Amá"):
        with pytest.raises(GameError) as refused:
            table.take(same)
        assert refused.value.status == 409 and refused.value.key == "friends.name_taken"
    assert table.take("Ama 2")[0] == 1  # a number tells two names apart
    assert table.take("Kofi")[0] == 2


def test_a_seat_named_like_a_seat_is_refused_over_http_in_french(client: TestClient) -> None:
    made = client.post("/api/tables", json={**FORM, "name": "Ama"})
    assert made.status_code == 201, made.text
    table = made.json()["table"]
    joined = client.post(f"/api/tables/{table}/seats", json={"name": "siège 1"},
                         headers={"Accept-Language": "fr"})  # fmt: skip
    assert joined.status_code == 400
    assert joined.json()["error"] == say("friends.name_reserved", "fr", name="siège 1")
    nameless = client.post(f"/api/tables/{table}/seats", json={})
    assert nameless.status_code == 400
    assert nameless.json()["error"] == say("friends.name_missing", "en")
    seats = client.get(f"/api/tables/{table}").json()["seats"]
    assert [s["name"] for s in seats if s["taken"]] == ["Ama"]


def test_a_table_needs_its_makers_name(client: TestClient) -> None:
    made = client.post("/api/tables", json=FORM)
    assert made.status_code == 400
    assert made.json()["error"] == say("friends.name_missing", "en")


@pytest.mark.parametrize("duplicate", [0, 0.0, "", [], {}, 1, True, "7"], ids=repr)
def test_a_table_form_with_any_duplicate_but_false_is_refused(client, duplicate) -> None:
    made = client.post("/api/tables", json={**FORM, "name": "Ama", "duplicate": duplicate})
    assert made.status_code == 400, made.text
    assert "duplicate" in made.json()["error"]
    assert len(client.app.state.tables) == 0


@pytest.mark.parametrize("duplicate", [False, None])
def test_a_table_form_with_duplicate_false_or_null_is_taken(client, duplicate) -> None:
    made = client.post("/api/tables", json={**FORM, "name": "Ama", "duplicate": duplicate})
    assert made.status_code == 201, made.text
