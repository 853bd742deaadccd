"""Ruleset validation, the presets of docs/rules.md, ``options()`` round trips and card notation."""

from __future__ import annotations

import re

import pytest
from helpers.engine import rulesets
from hypothesis import given, settings

from spar_env.rules import PRESETS, Ruleset, c_notation, format_card, make_rules, parse_card

# The presets table of docs/rules.md: deck size, ranks high -> low, hand size, deal
# pattern, most players the deck allows, direction, scoring, last_two, face-down
# mode and the default end of the game.
SPAR_RANKS = "A K Q J 10 9 8 7 6"
SEVEN_UP_RANKS = "A K Q J 10 9 8 7"
AGRAM_RANKS = "10 9 8 7 6 5 4 3 A"
CW, CCW = "clockwise", "counterclockwise"
PRESET_TABLE = {
    "spar": (35, SPAR_RANKS, 5, (3, 2), 7, CW, "spar", "off", "none", "target:10"),
    "spar_classic": (36, SPAR_RANKS, 7, (1,) * 7, 5, CW, "spar", "off", "none", "open"),
    "essilfy": (35, SPAR_RANKS, 5, (3, 2), 7, CW, "spar", "sum", "none", "target:30"),
    "jeu_de_carte": (31, SEVEN_UP_RANKS, 5, (3, 2), 6, CW, "seven", "off", "off_suit", "target:24"),
    "sipa": (31, SEVEN_UP_RANKS, 5, (3, 2), 6, CCW, "sipa", "off", "non_winning", "target:10"),
    "agram": (35, AGRAM_RANKS, 6, (3, 3), 5, CCW, "one", "off", "none", "one_hand"),
    "sink_sink": (35, AGRAM_RANKS, 5, (2, 3), 7, CCW, "one", "off", "none", "one_hand"),
    "fapfap": (35, AGRAM_RANKS, 6, (3, 3), 5, CCW, "fapfap", "off", "none", "open"),
    "agram_mali": (31, "7 J 8 9 Q 10 K A", 6, (3, 3), 5, CCW, "one", "off", "none", "one_hand"),
}


@pytest.mark.parametrize("variant", sorted(PRESETS))
def test_every_preset_builds_at_every_player_count(variant: str) -> None:
    base = make_rules(variant)
    for players in range(2, base.max_players + 1):
        rules = make_rules(variant, players=players)
        assert rules.players * rules.hand_size <= rules.deck_size
        assert rules.stock_size == rules.deck_size - players * rules.hand_size
    with pytest.raises(ValueError, match=f"at most {base.max_players} players"):
        make_rules(variant, players=base.max_players + 1)


@pytest.mark.parametrize("variant", sorted(PRESET_TABLE))
def test_presets_match_rules_md(variant: str) -> None:
    deck, ranks, hand, pattern, most, direction, scoring, last_two, face_down, end = PRESET_TABLE[
        variant
    ]
    rules = make_rules(variant)
    assert rules.deck_size == deck
    assert rules.ranks == tuple(ranks.split())
    assert (rules.hand_size, rules.deal_pattern) == (hand, pattern)
    assert rules.max_players == most
    assert (rules.direction, rules.scoring, rules.last_two) == (direction, scoring, last_two)
    assert (rules.face_down, rules.end) == (face_down, end)
    assert rules.payoff == "stakes"
    # A♠ is left out of every deck but the 36-card pack.
    has_ace_of_spades = any(rules.card_name(c) == "AS" for c in rules.deck)
    assert has_ace_of_spades == (variant == "spar_classic")


def test_spar_defaults_and_small_variants() -> None:
    assert make_rules("spar").players == 4
    assert make_rules("essilfy").c_notation
    mini, micro = make_rules("mini"), make_rules("micro")
    assert (mini.deck_size, mini.players, mini.hand_size, mini.first_dealer) == (12, 2, 3, 1)
    assert (micro.deck_size, micro.players, micro.hand_size, micro.first_dealer) == (6, 2, 2, 1)
    assert {mini.card_name(c) for c in mini.deck} == {
        r + s for r in ("A", "K", "7", "6") for s in ("C", "D", "H")
    }
    assert {micro.card_name(c) for c in micro.deck} == {
        r + s for r in ("K", "7", "6") for s in ("C", "D")
    }


def test_ace_of_spades_option() -> None:
    assert make_rules("spar", ace_of_spades=True).deck_size == 36
    assert make_rules("spar", ace_of_spades=True).max_players == 7
    assert make_rules("spar", ace_of_spades=True, hand_size=7).max_players == 5
    with pytest.raises(ValueError, match="ace_of_spades"):
        make_rules("micro", ace_of_spades=True)  # no aces or spades on the grid


def test_hand_size_alone_deals_one_at_a_time() -> None:
    rules = make_rules("spar", hand_size=7, players=5)
    assert rules.deal_pattern == (1,) * 7
    assert make_rules("spar", num_players=3).players == 3


def raises_naming(*parts: str):
    """pytest.raises(ValueError) whose message contains every part."""
    return pytest.raises(ValueError, match="(?s)" + "".join(f"(?=.*{re.escape(p)})" for p in parts))


@pytest.mark.parametrize(
    ("variant", "overrides", "parts"),
    [
        ("spar", {"players": 8}, ("players", "8", "at most 7", "35")),
        ("spar", {"hand_size": 7, "players": 6}, ("players", "6", "at most 5", "7-card")),
        ("sipa", {"players": 7}, ("players", "7", "at most 6", "31")),
        ("spar", {"players": 1}, ("players", "1")),
        ("spar", {"deal_pattern": (3, 3)}, ("deal_pattern", "[3, 3]", "hand_size 5")),
        ("spar", {"hand_size": 6, "deal_pattern": (4, 1)}, ("deal_pattern", "[4, 1]", "6")),
        ("spar", {"hand_size": 0}, ("hand_size", "0")),
        ("spar", {"direction": "widdershins"}, ("direction", "widdershins", "clockwise")),
        ("spar", {"scoring": "tens"}, ("scoring", "tens", "sipa")),
        ("spar", {"last_two": "double"}, ("last_two", "double", "bonus")),
        ("spar", {"face_down": "all"}, ("face_down", "all", "off_suit")),
        ("spar", {"payoff": "chips"}, ("payoff", "chips", "stakes")),
        ("spar", {"end": "stones"}, ("end", "stones")),
        ("spar", {"end": "forever"}, ("end", "forever")),
        ("spar", {"players": 7, "reveal_stock_bottom": True}, ("reveal_stock_bottom", "7")),
        ("sipa", {"last_two": "sum"}, ("last_two", "sum", "sipa")),
        ("spar", {"scoring": "seven", "last_two": "bonus"}, ("last_two", "bonus", "seven")),
        ("spar", {"first_dealer": 4}, ("first_dealer", "4")),
    ],
)
def test_impossible_rules_raise_naming_field_and_value(
    variant: str, overrides: dict[str, object], parts: tuple[str, ...]
) -> None:
    with raises_naming(*parts):
        make_rules(variant, **overrides)


def test_unknown_preset_and_option() -> None:
    with raises_naming("variant", "tarot", "spar"):
        make_rules("tarot")
    with raises_naming("option", "trumps"):
        make_rules("spar", trumps="S")


@pytest.mark.parametrize("variant", sorted(PRESETS))
def test_options_of_a_preset_are_empty(variant: str) -> None:
    assert make_rules(variant).options() == {}


def test_options_lists_what_differs() -> None:
    rules = make_rules("essilfy", players=3, last_two="bonus", hand_size=7)
    assert rules.options() == {"last_two": "bonus", "hand_size": 7, "deal_pattern": [1] * 7}


@settings(max_examples=150, deadline=None)
@given(rules=rulesets())
def test_options_round_trip(rules: Ruleset) -> None:
    again = make_rules(rules.variant, players=rules.players, **rules.options())
    assert again == rules


# ----- card notation -----------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "card"),
    [
        ("6H", ("6", "H")),
        ("10S", ("10", "S")),
        ("TS", ("10", "S")),
        ("ts", ("10", "S")),
        ("10s", ("10", "S")),
        ("qd", ("Q", "D")),
        ("Ac", ("A", "C")),
        (" 7d ", ("7", "D")),
        ("3C", ("3", "C")),
    ],
)
def test_parse_card(text: str, card: tuple[str, str]) -> None:
    assert parse_card(text) == card


@pytest.mark.parametrize("text", ["", "H", "1H", "11S", "2C", "6X", "TT", "10", "6HH"])
def test_parse_card_refuses_non_cards(text: str) -> None:
    with pytest.raises(ValueError, match=re.escape(repr(text))):
        parse_card(text)


def test_format_card_always_writes_10() -> None:
    assert format_card(*parse_card("th")) == "10H"
    assert format_card("10", "S", unicode=True) == "10♠"
    rules = make_rules("spar")
    assert rules.card_name(rules.card_id("tc")) == "10C"
    assert rules.card_id("10c") == rules.card_id("TC") == rules.card_id("10C")


def test_card_ids_follow_the_grid() -> None:
    rules = make_rules("spar")  # suits C D H S; ranks A K Q J 10 9 8 7 6 (high to low)
    assert rules.card_id("AC") == 0
    assert rules.card_id("6C") == 8
    assert rules.card_id("KD") == 9 + 1
    assert rules.card_id("6S") == 3 * 9 + 8
    for cid in rules.deck:
        assert rules.card_id(rules.card_name(cid)) == cid


def test_cards_outside_the_deck_are_refused() -> None:
    with raises_naming("AS", "spar"):
        make_rules("spar").card_id("AS")
    with raises_naming("6H", "sipa"):
        make_rules("sipa").card_id("6H")
    assert (
        make_rules("spar", ace_of_spades=True).card_name(
            make_rules("spar", ace_of_spades=True).card_id("as")
        )
        == "AS"
    )


@pytest.mark.parametrize(
    ("points", "text"),
    [(0, "0"), (1, "1"), (2, "2"), (3, "c3"), (4, "c3 1"), (9, "c9"), (14, "c12 2"), (30, "c30")],
)
def test_c_notation(points: int, text: str) -> None:
    assert c_notation(points) == text
