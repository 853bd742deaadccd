"""Game records: recording, replaying, the record format and every kind of broken record.

Recorded hands are checked twice: they must replay through the batch core to
the result they claim, and the pure-Python reference (``tests/helpers/reference.py``)
must play the same cards to the same result and face-down plays.
"""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest
from helpers.reference import RefHand
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import spar_env
from spar_env.core import tables_for
from spar_env.core.deal import deck_for_hands
from spar_env.records import RecordError, record_hands, replay, replay_many
from spar_env.rules import PRESETS, Ruleset, make_rules

# docs/rules.md, "Game records": the seed 001 example, completed into a full legal hand.
# Seat 3 deals, so seat 0 leads. Seat 0 wins tricks 1-4 with KH, 9C, 7S and AD,
# then leads 6H to the last trick; nobody else holds a heart.
SEED_001 = {
    "variant": "spar",
    "options": {},
    "players": 4,
    "dealer": 3,
    "hands": [
        ["6H", "KH", "9C", "AD", "7S"],
        ["QH", "8C", "6S", "KD", "QD"],
        ["JH", "7C", "KC", "QC", "JC"],
        ["10H", "6C", "JD", "10D", "9D"],
    ],
    "plays": [
        "KH", "QH", "JH", "10H",
        "9C", "8C", "7C", "6C",
        "7S", "6S", "KC", "9D",
        "AD", "KD", "QC", "JD",
        "6H", "QD", "JC", "10D",
    ],
    "result": {"winner": 0, "points": 3, "payoffs": [9, -3, -3, -3]},
}  # fmt: skip
# The 15 cards of the 35-card deck that SEED_001 does not deal.
SEED_001_STOCK = [
    "AC", "10C", "AH", "9H", "8H", "7H", "8D", "7D", "6D", "KS", "QS", "JS", "10S", "9S", "8S",
]  # fmt: skip
HIGH_RANKS = {"10", "J", "Q", "K", "A"}  # docs/rules.md: a weak hand holds none of these


def rules_of(record: dict) -> Ruleset:
    return make_rules(record["variant"], players=record["players"], **record["options"])


def check_with_reference(record: dict) -> None:
    """The reference plays the record's cards to the record's result and face-down plays."""
    rules = rules_of(record)
    ids = lambda cards: [rules.card_id(c) for c in cards]  # noqa: E731
    stock = ids(record["stock"]) if "stock" in record else None
    deck = deck_for_hands(
        tables_for(rules), [ids(h) for h in record["hands"]], record["dealer"], stock
    )
    ref = RefHand(rules, deck.tolist(), record["dealer"])
    assert [sorted(h) for h in ref.dealt] == [sorted(ids(h)) for h in record["hands"]]
    if stock is not None:
        assert ref.stock == stock
    plays = iter(ids(record["plays"]))
    exchanges = record.get("exchanges", [None] * rules.players)
    while not ref.done:
        if ref.phase == "exchange":
            seat = ref.current_player
            swap = exchanges[seat] is not None
            ref.apply(rules.exchange_action if swap else rules.keep_action)
            if swap:
                assert sorted(ref.hands[seat]) == sorted(ids(exchanges[seat]))
        else:
            ref.apply(next(plays))
    assert next(plays, None) is None
    assert [hand is not None for hand in exchanges] == ref.exchanged
    result = record["result"]
    assert (result["winner"], result["points"]) == (ref.winner, ref.points)
    assert result["payoffs"] == ref.payoffs
    down = [k for k, is_down in enumerate(ref.face_down) if is_down]
    assert record.get("face_down", []) == down


def round_trip(rules: Ruleset, count: int, seed: int) -> list[dict]:
    """Record hands; each must survive JSON, replay to its result and agree with the reference."""
    records = list(record_hands(rules, count, np.random.default_rng(seed), batch=16))
    assert len(records) == count
    decoded = [json.loads(json.dumps(r)) for r in records]
    assert decoded == records
    for record, outcome in zip(records, replay_many(decoded), strict=True):
        assert isinstance(outcome, dict), outcome
        for key, value in record["result"].items():
            assert outcome[key] == value
        assert outcome.get("face_down", []) == record.get("face_down", [])
        assert outcome["tricks"][-1] == record["result"]["winner"]
        check_with_reference(record)
    return records


# ----- round trips ---------------------------------------------------------------------------
@pytest.mark.parametrize("variant", list(PRESETS))
def test_every_preset_round_trips(variant: str) -> None:
    rules = make_rules(variant)
    round_trip(rules, 40, seed=1)
    round_trip(make_rules(variant, players=2), 20, seed=2)


@pytest.mark.parametrize(
    ("variant", "options"),
    [
        ("spar", {"ace_of_spades": True}),
        ("spar", {"direction": "counterclockwise"}),
        ("spar", {"payoff": "points"}),
        ("spar", {"face_down": "off_suit"}),
        ("spar", {"face_down": "non_winning"}),
        ("sipa", {"face_down": "none"}),
        ("essilfy", {"last_two": "bonus"}),
        ("spar", {"reveal_stock_bottom": True}),
        ("spar", {"hand_size": 7, "end": "stones:30"}),
        ("spar_classic", {"players": 5}),
        ("jeu_de_carte", {"weak_hand_exchange": True, "reveal_stock_bottom": True}),
    ],
)
def test_options_round_trip(variant: str, options: dict) -> None:
    rules = make_rules(variant, **options)
    records = round_trip(rules, 40, seed=3)
    assert rules_of(records[0]) == rules
    if rules.face_down != "none":
        assert any(r["face_down"] for r in records)


def test_exchanges_round_trip_and_happen() -> None:
    rules = make_rules("spar", players=3, weak_hand_exchange=True)
    records = round_trip(rules, 200, seed=4)
    exchanged = [r for r in records if any(r["exchanges"])]
    assert exchanged, "no hand had an exchange; the test needs some"
    for record in exchanged:
        stock = record["stock"]
        taken = [hand for hand in record["exchanges"] if hand is not None]
        # Exchanges take whole hands from the top of the stock, in turn.
        assert sorted(c for hand in taken for c in hand) == sorted(stock[: 5 * len(taken)])


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    variant=st.sampled_from(sorted(PRESETS)),
    players=st.integers(2, 7),
    exchange=st.booleans(),
    reveal=st.booleans(),
    face_down=st.sampled_from(["none", "off_suit", "non_winning"]),
    direction=st.sampled_from(["clockwise", "counterclockwise"]),
    seed=st.integers(0, 2**32 - 1),
)
def test_any_ruleset_round_trips(variant, players, exchange, reveal, face_down, direction, seed):
    try:
        rules = make_rules(
            variant,
            players=players,
            weak_hand_exchange=exchange,
            reveal_stock_bottom=reveal,
            face_down=face_down,
            direction=direction,
        )
    except ValueError:
        assume(False)
    round_trip(rules, 8, seed)


# ----- the record format ---------------------------------------------------------------------
@pytest.mark.parametrize(
    ("variant", "options"),
    [
        ("spar", {}),
        ("sipa", {"players": 3}),
        ("spar", {"weak_hand_exchange": True, "players": 3}),
        ("agram_mali", {"reveal_stock_bottom": True}),
    ],
)
def test_records_have_the_documented_shape(variant: str, options: dict) -> None:
    rules = make_rules(variant, **options)
    n, h = rules.players, rules.hand_size
    for record in record_hands(rules, 10, np.random.default_rng(5)):
        keys = ["variant", "options", "players", "dealer", "hands"]
        keys += ["exchanges"] if rules.weak_hand_exchange else []
        keys += ["stock"] if rules.weak_hand_exchange or rules.reveal_stock_bottom else []
        keys += ["plays"] + (["face_down"] if rules.face_down != "none" else []) + ["result"]
        assert list(record) == keys
        assert record["variant"] == variant
        assert record["options"] == {k: v for k, v in options.items() if k != "players"}
        assert record["players"] == n and 0 <= record["dealer"] < n
        assert len(record["hands"]) == n and all(len(hand) == h for hand in record["hands"])
        for hand in record["hands"]:  # by suit in the ruleset's order, then rank high to low
            order = [(rules.suits.index(c[-1]), rules.ranks.index(c[:-1])) for c in hand]
            assert order == sorted(order)
        dealt = [c for hand in record["hands"] for c in hand]
        everything = dealt + record.get("stock", [])
        assert len(set(everything)) == len(everything)
        if "stock" in record:
            assert sorted(everything) == sorted(rules.card_name(c) for c in rules.deck)
        assert sorted(record["plays"]) == sorted(
            c
            for seat, hand in enumerate(record["hands"])
            for c in (record.get("exchanges") or [None] * n)[seat] or hand
        )
        assert set(record["result"]) == {"winner", "points", "payoffs"}
        assert sum(record["result"]["payoffs"]) == 0


def test_stock_on_request() -> None:
    rules = make_rules("spar")
    record = next(record_hands(rules, 1, np.random.default_rng(0), with_stock=True))
    assert len(record["stock"]) == 35 - 4 * 5
    assert replay(record)["winner"] == record["result"]["winner"]


def test_recording_is_deterministic() -> None:
    rules = make_rules("essilfy", players=3, weak_hand_exchange=True)
    first = list(record_hands(rules, 30, np.random.default_rng(7), batch=8))
    again = list(record_hands(rules, 30, np.random.default_rng(7), batch=8))
    other = list(record_hands(rules, 30, np.random.default_rng(8), batch=8))
    assert first == again
    assert first != other


def test_first_records_do_not_depend_on_the_count() -> None:
    rules = make_rules("sipa", players=3)
    few = list(record_hands(rules, 5, np.random.default_rng(3), batch=16))
    many = list(record_hands(rules, 40, np.random.default_rng(3), batch=16))
    assert few == many[:5]


def test_recording_refuses_bad_counts() -> None:
    with pytest.raises(ValueError, match="count"):
        list(record_hands(make_rules("spar"), -1, np.random.default_rng(0)))
    with pytest.raises(ValueError, match="batch"):
        list(record_hands(make_rules("spar"), 3, np.random.default_rng(0), batch=0))


# ----- the seed 001 example ------------------------------------------------------------------
def test_seed_001_example_scores_three() -> None:
    result = replay(SEED_001)
    assert result["winner"] == 0
    assert result["points"] == 3
    assert result["payoffs"] == [9, -3, -3, -3]
    assert result["tricks"] == [0, 0, 0, 0, 0]
    assert result["winning_cards"] == ["KH", "9C", "7S", "AD", "6H"]
    assert spar_env.replay(SEED_001) == result
    check_with_reference(SEED_001)


def test_seed_001_with_stock_and_other_spellings() -> None:
    record = copy.deepcopy(SEED_001)
    record["stock"] = SEED_001_STOCK
    record["plays"] = [c.lower().replace("10", "t") for c in record["plays"]]
    del record["options"]
    assert replay(record)["payoffs"] == [9, -3, -3, -3]


def test_result_may_be_left_out() -> None:
    record = {k: v for k, v in SEED_001.items() if k != "result"}
    assert replay(record)["points"] == 3


# ----- broken records ------------------------------------------------------------------------
def broken(**changes) -> dict:
    """SEED_001 with some fields replaced (a value of None removes the field)."""
    record = copy.deepcopy(SEED_001)
    for key, value in changes.items():
        if value is None:
            record.pop(key, None)
        else:
            record[key] = value
    return record


def with_play(index: int, card: str) -> dict:
    record = broken()
    record["plays"][index] = card
    return record


def with_card_dealt(seat: int, index: int, card: str) -> dict:
    record = broken()
    record["hands"][seat][index] = card
    return record


BROKEN = {
    "card not held": (
        with_play(1, "JH"),
        ["plays[1] JH", "seat 1", "does not hold", "seat 2 holds"],
    ),
    "card in the stock": (with_play(2, "AH"), ["plays[2] AH", "seat 2", "in the stock"]),
    "no follow": (with_play(1, "KD"), ["plays[1] KD", "seat 1", "follow suit", "hearts", "QH"]),
    "no follow later": (
        with_play(7, "JD"),
        ["plays[7] JD", "trick 2", "follow suit", "clubs", "6C"],
    ),
    "card played twice": (with_play(4, "KH"), ["plays[4] KH", "duplicated", "plays[0]"]),
    "card dealt twice": (
        with_card_dealt(1, 0, "6H"),
        ["hands[1][0]", "duplicated", "6H", "seat 0"],
    ),
    "card twice in a hand": (with_card_dealt(1, 1, "QH"), ["hands[1][1]", "twice", "QH"]),
    "bad card text": (with_play(3, "1X"), ["plays[3]", "'1X' is not a card"]),
    "card not in deck": (with_card_dealt(0, 4, "AS"), ["hands[0][4]", "not in the spar deck"]),
    "three hands": (broken(hands=SEED_001["hands"][:3]), ["hands has 3 hands", "4 players"]),
    "short hand": (
        broken(hands=[h if s != 2 else h[:4] for s, h in enumerate(SEED_001["hands"])]),
        ["hands[2] has 4 cards", "5"],
    ),
    "too few plays": (broken(plays=SEED_001["plays"][:-1]), ["plays has 19 cards", "20"]),
    "too many plays": (broken(plays=SEED_001["plays"] + ["AC"]), ["plays has 21 cards", "20"]),
    "unknown variant": (broken(variant="whist"), ["unknown variant 'whist'"]),
    "unknown option": (broken(options={"trumps": "H"}), ["unknown option 'trumps'"]),
    "bad option value": (broken(options={"last_two": "double"}), ["last_two", "'double'"]),
    "players in options": (broken(options={"players": 4}), ["options may not set players"]),
    "too many players": (broken(players=8), ["at most 7 players"]),
    "players not a number": (broken(players=True), ["players must be a whole number"]),
    "dealer off the table": (broken(dealer=4), ["dealer must be a seat 0..3", "got 4"]),
    "missing field": (broken(plays=None), ["no 'plays' field"]),
    "unknown field": (broken(comment="hi"), ["unknown field 'comment'"]),
    "stock missing for reveal": (
        broken(options={"reveal_stock_bottom": True}),
        ["stock is missing", "reveal_stock_bottom"],
    ),
    "stock missing for exchange": (
        broken(options={"weak_hand_exchange": True}, exchanges=[None] * 4),
        ["stock is missing", "weak_hand_exchange"],
    ),
    "exchanges missing": (
        broken(options={"weak_hand_exchange": True}, stock=SEED_001_STOCK),
        ["exchanges is missing"],
    ),
    "exchange without the option": (
        broken(exchanges=[None, SEED_001_STOCK[:5], None, None]),
        ["exchanges[1]", "no weak_hand_exchange"],
    ),
    "short stock": (broken(stock=SEED_001_STOCK[:-1]), ["stock has 14 cards", "15"]),
    "stock repeats a dealt card": (
        broken(stock=["6H"] + SEED_001_STOCK[1:]),
        ["stock[0]", "duplicated", "6H", "seat 0", "stock"],
    ),
    "wrong winner": (
        broken(result={"winner": 1, "points": 3, "payoffs": [9, -3, -3, -3]}),
        ["result says winner is 1", "replay gives 0"],
    ),
    "wrong points": (broken(result={"points": 2}), ["points is 2", "gives 3"]),
    "wrong payoffs": (broken(result={"payoffs": [3, -1, -1, -1]}), ["payoffs", "[9, -3, -3, -3]"]),
    "unknown result field": (broken(result={"winner": 0, "bonus": 1}), ["unknown field 'bonus'"]),
    "result not an object": (broken(result=[0, 3]), ["result must be a JSON object"]),
    "face_down where none is": (broken(face_down=[3]), ["face_down is [3]", "[]"]),
    "face_down out of range": (broken(face_down=[20]), ["face_down[0] is 20"]),
}


@pytest.mark.parametrize("name", list(BROKEN))
def test_broken_record_is_refused_with_a_specific_error(name: str) -> None:
    record, words = BROKEN[name]
    with pytest.raises(RecordError) as caught:
        replay(record)
    for word in words:
        assert word in str(caught.value), f"{word!r} not in {caught.value}"


def test_a_record_must_be_an_object() -> None:
    with pytest.raises(RecordError, match="JSON object; got a list"):
        replay([SEED_001])  # type: ignore[arg-type]


def test_broken_records_give_no_result_and_leave_others_alone() -> None:
    good = list(record_hands(make_rules("spar"), 6, np.random.default_rng(9)))
    bad = with_play(1, "KD")
    outcomes = replay_many([good[0], bad, *good[1:], SEED_001, bad])
    assert isinstance(outcomes[1], RecordError) and isinstance(outcomes[-1], RecordError)
    assert all(isinstance(o, dict) for o in outcomes[:1] + outcomes[2:-1])
    assert outcomes[0] == replay(good[0]) and outcomes[-2] == replay(SEED_001)
    assert [o["payoffs"] for o in outcomes[2:-2]] == [g["result"]["payoffs"] for g in good[1:]]


def test_records_of_different_rulesets_replay_in_order() -> None:
    rng = np.random.default_rng(10)
    sipa = list(record_hands(make_rules("sipa", players=3), 5, rng))
    spar = list(record_hands(make_rules("spar", ace_of_spades=True), 5, rng))
    mixed = [r for pair in zip(sipa, spar, strict=True) for r in pair]
    outcomes = replay_many(mixed, batch=2)
    assert [o["payoffs"] for o in outcomes] == [r["result"]["payoffs"] for r in mixed]
    assert [len(o["payoffs"]) for o in outcomes] == [3, 4] * 5


# ----- broken exchanges ----------------------------------------------------------------------
@pytest.fixture(scope="module")
def exchange_record() -> dict:
    """A recorded 3-player hand in which some seat exchanged and some seat holds a high card."""
    rules = make_rules("spar", players=3, weak_hand_exchange=True)
    for record in record_hands(rules, 400, np.random.default_rng(11)):
        strong = [any(c[:-1] in HIGH_RANKS for c in hand) for hand in record["hands"]]
        if any(record["exchanges"]) and any(strong):
            return record
    raise AssertionError("no recorded hand with an exchange and a strong hand")


def test_exchange_must_take_the_top_of_the_stock(exchange_record: dict) -> None:
    record = copy.deepcopy(exchange_record)
    seat = next(s for s, hand in enumerate(record["exchanges"]) if hand is not None)
    record["exchanges"][seat] = record["stock"][-5:]  # 20-card stock: never the top 15
    with pytest.raises(RecordError, match=rf"exchanges\[{seat}\] is not the top of the stock"):
        replay(record)


def test_a_strong_hand_may_not_exchange(exchange_record: dict) -> None:
    record = copy.deepcopy(exchange_record)
    seat, hand = next(
        (s, h) for s, h in enumerate(record["hands"]) if any(c[:-1] in HIGH_RANKS for c in h)
    )
    record["exchanges"][seat] = record["stock"][:5]
    with pytest.raises(RecordError) as caught:
        replay(record)
    message = str(caught.value)
    assert f"exchanges[{seat}]: seat {seat} may not exchange" in message
    assert "9 or lower" in message
    assert all(c in message for c in hand if c[:-1] in HIGH_RANKS)


def test_no_exchange_from_a_short_stock() -> None:
    # Seven players deal all 35 cards: the stock is empty, so even a weak hand must keep.
    rules = make_rules("spar", players=7, weak_hand_exchange=True)
    deck = [rules.card_name(c) for c in rules.deck]
    weak = ["9C", "8C", "7C", "6C", "9D"]
    rest = [c for c in deck if c not in weak]
    hands = [weak] + [rest[5 * i : 5 * i + 5] for i in range(6)]
    record = {
        "variant": "spar",
        "options": {"weak_hand_exchange": True},
        "players": 7,
        "dealer": 6,
        "hands": hands,
        "exchanges": [["AC", "KC", "QC", "JC", "10C"]] + [None] * 6,
        "stock": [],
        "plays": deck,
    }
    with pytest.raises(
        RecordError, match="exchanges.0.: seat 0 may not exchange: the stock holds 0"
    ):
        replay(record)


def test_a_kept_weak_hand_replays(exchange_record: dict) -> None:
    result = replay(exchange_record)
    assert result["payoffs"] == exchange_record["result"]["payoffs"]
