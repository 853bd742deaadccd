"""The observation encoder: its layout table, its contents, and that no hidden card leaks."""

from __future__ import annotations

import dataclasses
import re

import numpy as np
import pytest
from helpers.observe_reference import reference_encode

import spar_env.observation.per_game as observe
from spar_env.core import next_hand, reset, step, unpack
from spar_env.core.bits import pack
from spar_env.core.deal import deck_for_hands
from spar_env.envs.batch import GameBatch
from spar_env.observation.per_game import Encoder, encode, layout_for
from spar_env.observation.universal import encode_v2
from spar_env.rules import PRESETS, make_rules

# Rulesets that between them switch on every block and option.
CONFIGS = [(name, {}) for name in PRESETS] + [
    ("spar", {"players": 2}),
    ("spar", {"players": 7, "end": "hands:3"}),
    ("essilfy", {"weak_hand_exchange": True, "reveal_stock_bottom": True, "last_two": "bonus"}),
    ("agram", {"weak_hand_exchange": True, "players": 3, "end": "stones:10"}),
    ("jeu_de_carte", {"weak_hand_exchange": True, "reveal_stock_bottom": True, "players": 3}),
    ("sipa", {"end": "stones:10", "players": 3}),
    ("spar_classic", {"face_down": "non_winning", "direction": "counterclockwise"}),
]
IDS = [f"{v}-{'-'.join(f'{k}={x}' for k, x in o.items())}" for v, o in CONFIGS]

# State fields that hold card ids (besides the uint64 card sets, relabelled wholesale).
CARD_ID_FIELDS = ("deck", "trick_card", "trick_cards", "revealed")


def random_states(rules, batch: int, rng: np.random.Generator):
    """``batch`` games stopped at random points of a session: earlier hands, then some plays."""
    games = GameBatch(rules, batch, rng, episode="hand")
    state = games.state
    depth = rng.integers(0, rules.players * (rules.hand_size + 2) * 3, batch)
    for t in range(int(depth.max(initial=0))):
        redeal = (depth > t) & state.terminated & ~state.session_over
        if redeal.any():
            next_hand(state, np.flatnonzero(redeal), rng)
        moving = (depth > t) & ~state.terminated
        if not moving.any():
            break
        actions = np.zeros(batch, dtype=np.int64)
        idx = np.flatnonzero(moving)
        for i in idx:  # a uniformly random legal action
            legal = np.flatnonzero(unpack(state.legal[i : i + 1], rules.num_actions)[0])
            actions[i] = rng.choice(legal)
        games.step(actions, moving)
    return state


def relabel_hidden(state, observer: int, rng: np.random.Generator):
    """A copy of ``state`` in which the cards ``observer`` cannot see are permuted, per game.

    Every card set and card id in the state goes through the same permutation,
    which moves only the cards hidden from ``observer``: other hands, their
    face-down cards and discarded hands, the stock. What the observer sees is
    unchanged; everything else about the hidden cards may change.
    """
    t = state.tables
    b, c = state.batch_size, t.num_cards
    rows = np.arange(b)
    visible = (
        state.hands[:, observer]
        | np.bitwise_or.reduce(state.played_up, axis=1)
        | state.played_down[:, observer]
        | state.discarded[:, observer]
    )
    visible |= np.where(
        state.revealed >= 0, np.uint64(1) << state.revealed.clip(0).astype(np.uint64), 0
    )
    in_deck = np.zeros(64, dtype=bool)
    in_deck[t.deck] = True
    hidden = in_deck & ~unpack(visible, 64)  # [B, 64]
    perm = np.tile(np.arange(64), (b, 1))
    for g in range(b):
        cards = np.flatnonzero(hidden[g])
        perm[g, cards] = rng.permutation(cards)
    out = state.take(rows)

    def move_bits(bits: np.ndarray) -> np.ndarray:
        shape = bits.shape
        flat = bits.reshape(b, -1)
        unpacked = unpack(flat, 64)  # [B, K, 64]
        moved = np.zeros_like(unpacked)
        np.put_along_axis(
            moved, np.broadcast_to(perm[:, None, :], unpacked.shape), unpacked, axis=2
        )
        return pack(moved).reshape(shape)

    for f in dataclasses.fields(out):
        value = getattr(out, f.name)
        if not isinstance(value, np.ndarray) or value.ndim == 0:
            continue
        if value.dtype == np.uint64:
            setattr(out, f.name, move_bits(value))
        elif f.name in CARD_ID_FIELDS:
            ids = value.astype(np.int64)
            shaped = ids.reshape(b, -1)
            moved = np.where(shaped >= 0, np.take_along_axis(perm, shaped.clip(0), axis=1), shaped)
            setattr(out, f.name, moved.reshape(value.shape).astype(value.dtype))
    assert c <= 64
    return out


@pytest.mark.parametrize("encode", [encode, encode_v2], ids=["v1", "v2"])
@pytest.mark.parametrize(("variant", "options"), CONFIGS, ids=IDS)
def test_no_hidden_card_leaks(variant, options, encode):
    """Relabelling the cards a seat cannot see never changes that seat's observation
    (v1, and v2, the observation every game shares)."""
    rules = make_rules(variant, **options)
    rng = np.random.default_rng(7)
    state = random_states(rules, 160, rng)
    changed_other_views = 0
    for observer in range(rules.players):
        before = encode(state, observer)
        moved = relabel_hidden(state, observer, rng)
        np.testing.assert_array_equal(encode(moved, observer), before, err_msg=f"seat {observer}")
        others = [s for s in range(rules.players) if s != observer]
        changed_other_views += sum(
            int((encode(moved, s) != encode(state, s)).any(axis=1).sum()) for s in others
        )
    # The relabelling is not vacuous: the other seats see their own hidden cards move.
    assert changed_other_views > state.batch_size // 10


def test_relabelling_would_catch_a_leak():
    """An encoder that also showed another seat's hand fails the relabelling check."""
    rules = make_rules("spar")
    rng = np.random.default_rng(3)
    state = random_states(rules, 64, rng)
    moved = relabel_hidden(state, 0, rng)
    leaky_before = unpack(state.hands[:, 1], rules.num_card_ids)
    leaky_after = unpack(moved.hands[:, 1], rules.num_card_ids)
    assert (leaky_before != leaky_after).any(axis=1).mean() > 0.5


def test_module_docstring_table_matches_the_spar_layout():
    rules = make_rules("spar", players=4)
    lay = layout_for(rules)
    rows = re.findall(r"^(\w+)\s+(\S+)\s+.*?\s(\d+|-)\s*$", observe.__doc__, flags=re.M)
    table = {
        name: spar
        for name, _width, spar in rows
        if name in {b.name for b in lay.blocks} or spar == "-"
    }
    documented = {name: int(at) for name, at in table.items() if at != "-"}
    assert documented == lay.offsets
    absent = {name for name, at in table.items() if at == "-"}
    assert absent.isdisjoint(lay.offsets)
    assert f"D = {lay.size}" in observe.__doc__
    assert f"v{observe.OBS_VERSION}" in lay.describe()


@pytest.mark.parametrize(("variant", "options"), CONFIGS, ids=IDS)
def test_blocks_tile_the_vector_and_values_stay_in_bounds(variant, options):
    rules = make_rules(variant, **options)
    lay = layout_for(rules)
    ends = [b.offset + b.width for b in lay.blocks]
    assert [b.offset for b in lay.blocks] == [0] + ends[:-1]
    assert lay.has("my_face_down") == (rules.face_down != "none")
    assert lay.has("my_discard") == rules.weak_hand_exchange
    assert lay.has("stock_card") == rules.reveal_stock_bottom
    assert lay.has("scores") == (rules.end_kind in ("target", "hands"))
    assert lay.has("stones") == (rules.end_kind == "stones")
    state = random_states(rules, 96, np.random.default_rng(11))
    seats = np.random.default_rng(0).integers(0, rules.players, state.batch_size)
    obs = encode(state, seats)
    assert obs.shape == (state.batch_size, lay.size) and obs.dtype == np.uint8
    assert (obs <= lay.high).all()
    hand = obs[:, : rules.num_card_ids].astype(bool)
    np.testing.assert_array_equal(
        hand, unpack(state.hands[np.arange(96), seats], rules.num_card_ids)
    )


@pytest.mark.parametrize(("variant", "options"), CONFIGS[:4], ids=IDS[:4])
def test_kept_buffers_and_subsets_agree_with_a_fresh_encoding(variant, options):
    rules = make_rules(variant, **options)
    state = random_states(rules, 50, np.random.default_rng(5))
    seats = np.arange(50) % rules.players
    fresh = encode(state, seats)
    encoder = Encoder(layout_for(rules))
    np.testing.assert_array_equal(encoder.encode(state, seats), fresh)
    games = np.array([3, 17, 42])
    np.testing.assert_array_equal(encoder.encode(state, seats[games], games), fresh[games])


@pytest.mark.parametrize(("variant", "options"), CONFIGS, ids=IDS)
def test_the_compiled_encoder_agrees_with_the_numpy_reference(variant, options):
    rules = make_rules(variant, **options)
    state = random_states(rules, 120, np.random.default_rng(13))
    for seat in range(rules.players):
        want = reference_encode(layout_for(rules), state, seat)
        np.testing.assert_array_equal(encode(state, seat), want, err_msg=f"seat {seat}")
        for g in (0, 57, 119):  # one game at a time, as the AEC env encodes it
            got = encode(state, seat, np.array([g]))[0]
            np.testing.assert_array_equal(got, want[g], err_msg=f"game {g}")


def _scripted(variant: str, hands: list[list[str]], dealer: int, **options):
    rules = make_rules(variant, **options)
    from spar_env.core import tables_for

    ids = [[rules.card_id(c) for c in hand] for hand in hands]
    deck = deck_for_hands(tables_for(rules), ids, dealer)
    return rules, reset(
        rules, 1, np.random.default_rng(0), decks=deck[None], dealers=np.array([dealer])
    )


def _columns(rules, block: str, obs: np.ndarray) -> list[int]:
    lay = layout_for(rules)
    b = lay.block(block)
    return np.flatnonzero(obs[0, b.offset : b.offset + b.width]).tolist()


@pytest.mark.parametrize(("variant", "after_seat_0"), [("spar", 1), ("sipa", 3)])
def test_seats_are_relative_to_the_observer_in_the_direction_of_play(variant, after_seat_0):
    hands = [
        ["6H", "KH", "9C", "AD", "7S"],
        ["7H", "8C", "10D", "JS", "QC"],
        ["8H", "9D", "JC", "KS", "QD"],
        ["9H", "10C", "JD", "QS", "KC"],
    ]
    if variant == "sipa":  # no sixes in the 31-card deck
        hands[0][0] = "7D"
        hands[1][0] = "7H"
    rules, state = _scripted(variant, hands, dealer=3 if variant == "spar" else 1)
    c = rules.num_card_ids
    assert int(state.current_player[0]) == 0
    lead = rules.card_id(hands[0][0])
    step(state, np.array([lead]))
    assert int(state.current_player[0]) == after_seat_0
    # The next seat to play sees itself to move, and seat 0 (who played just before it)
    # as relative seat N - 1; seat 0 sees the seat to move as relative seat 1.
    mover = encode(state, after_seat_0)
    assert _columns(rules, "to_move", mover) == [0]
    assert _columns(rules, "trick_cards", mover) == [3 * c + lead]
    assert _columns(rules, "leader", mover) == [3]
    assert _columns(rules, "led_suit", mover) == [rules.card_suit_index(lead)]
    first = encode(state, 0)
    assert _columns(rules, "to_move", first) == [1]
    assert _columns(rules, "trick_cards", first) == [lead]
    assert _columns(rules, "played_up", first) == [lead]
    assert _columns(rules, "trick_number", first) == [0]


def test_a_face_down_card_is_seen_only_by_the_seat_that_played_it():
    # Jeu de Carte: a seat that cannot follow suit plays face down.
    hands = [
        ["7H", "KH", "9C", "AD", "7S"],
        ["8C", "9D", "10D", "JS", "QC"],
        ["8H", "9S", "JC", "KS", "QD"],
        ["9H", "10C", "JD", "QS", "KC"],
    ]
    rules, state = _scripted("jeu_de_carte", hands, dealer=3)
    c = rules.num_card_ids
    step(state, np.array([rules.card_id("7H")]))
    step(state, np.array([rules.card_id("8C")]))  # seat 1 has no heart: face down
    own, next_seat = encode(state, 1), encode(state, 2)
    assert _columns(rules, "trick_cards", own) == sorted(
        [rules.card_id("7H") + 3 * c, rules.card_id("8C")]
    )
    assert _columns(rules, "my_face_down", own) == [rules.card_id("8C")]
    assert _columns(rules, "trick_cards", next_seat) == [rules.card_id("7H") + 2 * c]
    assert _columns(rules, "trick_down", next_seat) == [3]
    lay = layout_for(rules)
    assert next_seat[0, lay.offset("down_count") + 3] == 1
    assert _columns(rules, "played_up", next_seat) == [rules.card_id("7H") + 2 * c]


def test_bad_seats_are_refused():
    state = reset(make_rules("spar"), 2, np.random.default_rng(0))
    with pytest.raises(ValueError, match="seats must be 0..3"):
        encode(state, np.array([0, 4]))
