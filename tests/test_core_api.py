"""The batch core's public API: stepping some games only, errors, memory, shuffling."""

from __future__ import annotations

import numpy as np
import pytest

from spar_env import make_rules
from spar_env.core import random_member, reset, shuffle_decks, step, tables_for


def test_games_left_out_of_moving_wait() -> None:
    rules = make_rules("spar")
    rng = np.random.default_rng(0)
    state = reset(rules, 6, rng)
    moving = np.array([True, False, True, False, True, False])
    before = state.take(np.flatnonzero(~moving))
    step(state, random_member(state.legal, rng), moving=moving)
    after = state.take(np.flatnonzero(~moving))
    assert (after.hands == before.hands).all()
    assert (after.current_player == before.current_player).all()
    assert (state.pos[moving] == 1).all() and (state.pos[~moving] == 0).all()


def test_illegal_card_names_the_card_and_the_legal_cards() -> None:
    rules = make_rules("spar")
    state = reset(rules, 3, np.random.default_rng(1))
    actions = random_member(state.legal, np.random.default_rng(2))
    held = int(state.hands[1, state.current_player[1]])
    not_held = next(c for c in rules.deck if not held >> c & 1)
    actions[1] = not_held
    with pytest.raises(
        ValueError, match=rf"game 1: seat \d cannot play {rules.card_name(not_held)}; legal: "
    ):
        step(state, actions)


def test_out_of_range_action_is_refused() -> None:
    state = reset(make_rules("micro"), 1, np.random.default_rng(0))
    with pytest.raises(ValueError, match="action 99"):
        step(state, np.array([99]))
    with pytest.raises(ValueError, match="shape"):
        step(state, np.array([0, 1]))


def test_finished_games_ignore_their_actions() -> None:
    rules = make_rules("micro")
    rng = np.random.default_rng(0)
    state = reset(rules, 4, rng)
    while not state.terminated.all():
        step(state, random_member(state.legal, rng))
    winners = state.winner.copy()
    rewards = step(state, np.full(4, -1))
    assert (rewards == 0).all() and (state.winner == winners).all()


def test_state_of_65536_four_player_games_fits_in_64_mib() -> None:
    state = reset(make_rules("spar", players=4), 65536, np.random.default_rng(0))
    assert state.nbytes < 64 * 2**20


def test_shuffle_is_a_permutation_and_roughly_uniform() -> None:
    tables = tables_for(make_rules("spar"))
    decks = shuffle_decks(tables, 20000, np.random.default_rng(0))
    assert (np.sort(decks, axis=1) == np.sort(tables.deck)).all()
    # Where the first card of the deck lands: each of 35 positions about 1/35 of the time.
    first = np.argmax(decks == tables.deck[0], axis=1)
    counts = np.bincount(first, minlength=35)
    expected = 20000 / 35
    chi2 = ((counts - expected) ** 2 / expected).sum()
    assert chi2 < 80  # 34 degrees of freedom: p < 1e-4 above this


def test_same_seed_same_games() -> None:
    rules = make_rules("sipa", players=3)
    a = reset(rules, 50, np.random.default_rng(5))
    b = reset(rules, 50, np.random.default_rng(5))
    c = reset(rules, 50, np.random.default_rng(6))
    assert (a.deck == b.deck).all() and (a.dealer == b.dealer).all()
    assert not (a.deck == c.deck).all()
