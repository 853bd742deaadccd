"""One game at a time: the compiled paths give the same games as a batch, and refuse bad input.

The core, the observation encoder, the agents' views and ``heuristic`` are
compiled loops over the games of a batch (Numba). A batch of one is the case
the single-agent and AEC envs step; these tests check that playing games one
at a time gives the same hands, observations and decisions as one batch, and
that input which compiled code would read out of bounds is refused instead.
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from helpers.observe_reference import reference_encode
from test_observe import CONFIGS, random_states

from spar_agents import Situation, make_agent
from spar_agents.knowledge import knowledge, trick_view
from spar_env.core import random_member, reset, shuffle_decks, step, tables_for
from spar_env.core.bits import unpack, unpack_into
from spar_env.history import History
from spar_env.observation.per_game import _BLOCK_NAMES, Encoder, encode, layout_for
from spar_env.rules import make_rules

RULESETS = [
    make_rules("spar"),
    make_rules("essilfy", weak_hand_exchange=True, reveal_stock_bottom=True, last_two="bonus"),
    make_rules("jeu_de_carte", weak_hand_exchange=True, players=3),
    make_rules("agram", players=3, end="stones:10"),
    make_rules("spar_classic", face_down="non_winning", direction="counterclockwise"),
]


def play_with(agent_spec: str, rules, decks, dealers, batches) -> tuple[np.ndarray, np.ndarray]:
    """Play the deals with ``agent_spec`` in every seat, in batches of the given row groups.

    Returns every game's actions (``[G, steps]``) and final rewards.
    """
    agent = make_agent(agent_spec, rules)
    games = decks.shape[0]
    steps = rules.players * (rules.hand_size + 1)
    actions = np.full((games, steps), -1, dtype=np.int64)
    rewards = np.zeros((games, rules.players), dtype=np.float32)
    for rows in batches:
        rng = np.random.default_rng(0)
        state = reset(rules, rows.size, rng, decks=decks[rows], dealers=dealers[rows])
        history = History(state)
        for t in range(steps):
            live = np.flatnonzero(~state.terminated)
            if live.size == 0:
                break
            chosen = np.zeros(rows.size, dtype=np.int64)
            chosen[live] = agent.act(Situation(state, history, live), rng).actions
            actions[rows[live], t] = chosen[live]
            history.record(state, chosen)
            paid = step(state, chosen)
            history.settle(state)
            ended = np.flatnonzero(state.terminated)
            rewards[rows[ended]] += paid[ended]
    return actions, rewards


@pytest.mark.parametrize("rules", RULESETS, ids=lambda r: r.variant)
def test_one_game_at_a_time_plays_the_same_hands_as_one_batch(rules) -> None:
    t = tables_for(rules)
    rng = np.random.default_rng(4)
    games = 40
    decks = shuffle_decks(t, games, rng)
    dealers = rng.integers(0, rules.players, games)
    together = play_with("heuristic", rules, decks, dealers, [np.arange(games)])
    alone = play_with("heuristic", rules, decks, dealers, [np.array([g]) for g in range(games)])
    np.testing.assert_array_equal(alone[0], together[0])
    np.testing.assert_array_equal(alone[1], together[1])
    assert (together[0] >= 0).sum() > games * rules.players  # hands were played


@pytest.mark.parametrize(("variant", "options"), CONFIGS[:8])
def test_views_of_one_game_equal_the_batch_views(variant, options) -> None:
    rules = make_rules(variant, **options)
    state = random_states(rules, 30, np.random.default_rng(8))
    live = np.flatnonzero(~state.terminated)
    history = History(state)  # no plays recorded: the views still read the state
    whole = knowledge(Situation(state, history, live)), trick_view(Situation(state, history, live))
    for i, g in enumerate(live):
        one = Situation(state, history, np.array([g]))
        for view, batch in zip((knowledge(one), trick_view(one)), whole, strict=True):
            for name in batch.__dataclass_fields__:
                np.testing.assert_array_equal(getattr(view, name)[0], getattr(batch, name)[i])
    encoder = Encoder(layout_for(rules))
    seats = np.arange(state.batch_size) % rules.players
    want = encode(state, seats)
    for g in range(state.batch_size):
        got = encoder.encode(state, seats[g : g + 1], np.array([g]))
        np.testing.assert_array_equal(got[0], want[g])


def test_the_encoder_knows_every_block_in_vector_order() -> None:
    for variant, options in CONFIGS:
        lay = layout_for(make_rules(variant, **options))
        names = [b.name for b in lay.blocks]
        assert names == [n for n in _BLOCK_NAMES if n in names]


def test_replacing_a_field_rebuilds_the_compiled_view() -> None:
    rules = make_rules("spar")
    rng = np.random.default_rng(0)
    state = reset(rules, 4, rng)
    copy = state.take(np.arange(4))
    copy.hands = copy.hands.copy()  # a new array: the kernels must see it, not the old one
    step(copy, random_member(copy.legal, rng))
    assert (copy.hands != state.hands).any() and (copy.pos == 1).all()
    before = encode(copy, 0)
    copy.hands = np.zeros_like(copy.hands)
    assert encode(copy, 0)[:, : rules.num_card_ids].sum() == 0 and before.sum() > 0


def test_a_state_pickles_without_its_compiled_view() -> None:
    state = reset(make_rules("spar"), 3, np.random.default_rng(0))
    step(state, random_member(state.legal, np.random.default_rng(1)))
    back = pickle.loads(pickle.dumps(state))
    np.testing.assert_array_equal(encode(back, 1), encode(state, 1))


def test_unchecked_steps_still_refuse_actions_that_are_no_action() -> None:
    state = reset(make_rules("spar"), 2, np.random.default_rng(0))
    hands = state.hands.copy()
    for bad in (-1, 36, 10**9):
        with pytest.raises(ValueError, match="game 1"):
            step(
                state,
                np.array([int(random_member(state.legal[:1], np.random.default_rng(0))[0]), bad]),
                check=False,
            )
    np.testing.assert_array_equal(state.hands, hands)  # refused before any game moved


def test_decks_with_unknown_cards_are_refused() -> None:
    rules = make_rules("spar")
    decks = shuffle_decks(tables_for(rules), 2, np.random.default_rng(0))
    decks[1, 3] = 60
    with pytest.raises(ValueError, match="deck 1"):
        reset(rules, 2, np.random.default_rng(0), decks=decks)


def test_encoding_games_outside_the_batch_is_refused() -> None:
    state = reset(make_rules("spar"), 2, np.random.default_rng(0))
    with pytest.raises(IndexError, match="game 5"):
        encode(state, np.array([0]), np.array([5]))


def test_a_history_longer_than_a_hand_is_refused() -> None:
    rules = make_rules("micro")
    state = reset(rules, 1, np.random.default_rng(0))
    history = History(state)
    actions = random_member(state.legal, np.random.default_rng(0))
    with pytest.raises(IndexError, match="more plays than a hand"):
        for _ in range(rules.players * rules.hand_size + 1):
            history.record(state, actions)  # the same play again and again, never stepped


def test_unpacking_checks_its_output_and_agrees_with_numpy() -> None:
    bits = np.random.default_rng(0).integers(0, 2**40, 50).astype(np.uint64)
    np.testing.assert_array_equal(
        unpack_into(bits, np.empty((50, 40), dtype=bool)), unpack(bits, 40)
    )
    with pytest.raises(ValueError, match="shape"):
        unpack_into(bits, np.empty((49, 40), dtype=bool))


def test_random_member_picks_the_kth_bit_of_the_raw_draw() -> None:
    rng = np.random.default_rng(3)
    bits = rng.integers(1, 2**48, 200).astype(np.uint64)
    draws = np.random.default_rng(9).bit_generator.random_raw(200)
    picked = random_member(bits, np.random.default_rng(9))
    for x, d, got in zip(bits.tolist(), draws.tolist(), picked.tolist(), strict=True):
        members = [i for i in range(64) if x >> i & 1]
        assert got == members[((d >> 32) * len(members)) >> 32]


def test_the_reference_encoder_is_not_vacuous() -> None:
    """The reference sees a change that the compiled encoder must also see."""
    rules = make_rules("spar")
    state = random_states(rules, 20, np.random.default_rng(1))
    moved = state.take(np.arange(20))
    moved.hands = moved.hands[:, [1, 0, 2, 3]]  # swap two seats' hands
    lay = layout_for(rules)
    assert (reference_encode(lay, moved, 0) != reference_encode(lay, state, 0)).any()
    np.testing.assert_array_equal(encode(moved, 0), reference_encode(lay, moved, 0))
