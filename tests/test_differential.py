"""The batch core agrees with the pure-Python reference on random hands of every preset.

Hypothesis draws a preset, a player count that fits the deck, option overrides
and a seed; the core plays a batch of hands with random legal actions, and
every hand is replayed through :class:`reference.RefHand` from the same deck
and dealer. At every step the current player, the legal set and the revealed
card must agree; at the end the winner, points, payoffs (the rewards of the
final step), trick winners, face-down cards, exchanges and stock must agree.
A second, fixed test plays thousands of hands of every preset.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers.engine import check_against_reference, play_random_hands, rulesets, with_stock_options
from hypothesis import given, settings
from hypothesis import strategies as st

from spar_env.rules import PRESETS, Ruleset, make_rules


@settings(max_examples=300, deadline=None)
@given(rules=rulesets(), seed=st.integers(0, 2**32 - 1))
def test_core_agrees_with_reference_on_drawn_rules(rules: Ruleset, seed: int) -> None:
    trace = play_random_hands(rules, 32, np.random.default_rng(seed))
    assert check_against_reference(trace) == 32


def _player_counts(rules: Ruleset) -> list[int]:
    return list(range(2, rules.max_players + 1))


HANDS_PER_PRESET = 4096
BATCH = 512


@pytest.mark.parametrize("variant", sorted(PRESETS))
def test_thousands_of_hands_per_preset(variant: str) -> None:
    """4,096 hands of each preset, in batches of 512 over the preset's player counts."""
    base = make_rules(variant)
    counts = _player_counts(base)
    rng = np.random.default_rng(sum(map(ord, variant)))
    checked = 0
    for k in range(HANDS_PER_PRESET // BATCH):
        rules = make_rules(variant, players=counts[k % len(counts)])
        checked += check_against_reference(play_random_hands(rules, BATCH, rng))
    assert checked == HANDS_PER_PRESET


# Options that add decisions and hidden cards, switched on for every preset
# whose deck leaves a stock at this player count.
@pytest.mark.parametrize("variant", sorted(PRESETS))
@pytest.mark.parametrize("face_down", ["off_suit", "non_winning"])
def test_options_on_per_preset(variant: str, face_down: str) -> None:
    rules = with_stock_options(variant, face_down=face_down, payoff="points")
    rng = np.random.default_rng(len(variant) * 7 + len(face_down))
    assert check_against_reference(play_random_hands(rules, 256, rng)) == 256


def test_exchanges_happen_and_agree() -> None:
    """Short hands from a big stock: many seats are weak, so exchanges are exercised often."""
    rules = make_rules(
        "spar_classic", players=3, hand_size=2, weak_hand_exchange=True, reveal_stock_bottom=True
    )
    trace = play_random_hands(rules, 512, np.random.default_rng(7))
    assert check_against_reference(trace) == 512
    exchanges = int(trace.state.exchanged.sum())
    asked = int((trace.actions[trace.live] >= rules.keep_action).sum())
    assert asked > 100 and exchanges > 50, (asked, exchanges)


@pytest.mark.parametrize(("variant", "players", "hand_size"), [("spar", 9, 3), ("mini", 12, 1)])
def test_more_than_eight_players(variant: str, players: int, hand_size: int) -> None:
    """docs/rules.md allows any count with H x N <= deck size, e.g. 9 players of 3 cards from 35."""
    rules = make_rules(variant, players=players, hand_size=hand_size)
    assert check_against_reference(play_random_hands(rules, 128, np.random.default_rng(9))) == 128
