"""Invariants of the core over many random hands of every preset.

Checked along the way (before every step): hands are disjoint, no card is in
both a hand and the stock, every card of the deck is in exactly one place
(a hand, played, set aside, or the stock), and every card played follows
suit when the seat can. Checked at the end: every card held at trick 1 was
played exactly once, each seat played H cards, exactly one seat won, and
stakes payoffs sum to zero (points payoffs pay the winner alone).
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers.engine import play_out, with_stock_options

from spar_env.core import reset
from spar_env.core.state import State
from spar_env.rules import PRESETS, Ruleset, make_rules

ONE = np.uint64(1)


def card_set(cards) -> np.uint64:
    """A bit set of card ids, built from the rules (not from the core's tables)."""
    out = np.uint64(0)
    for c in cards:
        out |= ONE << np.uint64(c)
    return out


def count(x: np.ndarray) -> np.ndarray:
    return np.bitwise_count(x).astype(np.int64)


def stock_bits(state: State) -> np.ndarray:
    """uint64 [B] the cards of the stock, deck[stock_top:]."""
    size = state.deck.shape[1]
    in_stock = np.arange(size)[None, :] >= state.stock_top[:, None]
    card_bits = ONE << state.deck.astype(np.uint64)
    return np.bitwise_or.reduce(np.where(in_stock, card_bits, np.uint64(0)), axis=1)


class InvariantChecker:
    """Checks, before each step, the card bookkeeping and that the chosen card follows suit."""

    def __init__(self, rules: Ruleset) -> None:
        self.rules = rules
        self.deck = card_set(rules.deck)
        self.suit_bits = [
            card_set(c for c in rules.deck if rules.card_suit_index(c) == s)
            for s in range(rules.num_suits)
        ]
        self.plays_checked = 0

    def __call__(self, state: State, actions: np.ndarray) -> None:
        hands = state.hands
        held = np.bitwise_or.reduce(hands, axis=1)
        stock = stock_bits(state)
        played = state.played_up | state.played_down
        places = [hands, played, state.discarded]
        total = sum(count(p).sum(axis=1) for p in places) + count(stock)
        union = stock | np.bitwise_or.reduce(np.concatenate(places, axis=1), axis=1)
        self._expect(state, count(held) == count(hands).sum(axis=1), "two hands share a card")
        self._expect(state, (held & stock) == 0, "a card is in a hand and in the stock")
        self._expect(
            state,
            total == len(self.rules.deck),
            "not every card is in exactly one place (hand, played, set aside, stock)",
        )
        self._expect(state, union == self.deck, "a card outside the deck appeared")
        self._check_follow_suit(state, actions)

    def _expect(self, state: State, ok: np.ndarray, what: str) -> None:
        if ok.all():
            return
        g = int(np.flatnonzero(~ok)[0])
        name = self.rules.card_name
        show = lambda x: " ".join(sorted(name(c) for c in range(64) if int(x) >> c & 1))  # noqa: E731
        raise AssertionError(
            f"{what}: game {g}, phase {int(state.phase[g])}, trick {int(state.trick[g])}, "
            f"seat to act {int(state.current_player[g])}\n"
            f"hands {[show(x) for x in state.hands[g]]}\n"
            f"played face up {[show(x) for x in state.played_up[g]]}\n"
            f"played face down {[show(x) for x in state.played_down[g]]}\n"
            f"set aside {[show(x) for x in state.discarded[g]]}"
        )

    def _check_follow_suit(self, state: State, actions: np.ndarray) -> None:
        live = ~state.terminated & (actions < self.rules.num_card_ids)
        for g in np.flatnonzero(live):
            seat, card = int(state.current_player[g]), int(actions[g])
            hand = int(state.hands[g, seat])
            assert hand >> card & 1, f"game {g}: seat {seat} does not hold {card}"
            led = int(state.led_suit[g])
            if led < 0:
                continue
            holds_led = hand & int(self.suit_bits[led]) != 0
            follows = self.rules.card_suit_index(card) == led
            assert follows or not holds_led, f"game {g}: seat {seat} did not follow suit"
            self.plays_checked += 1


def check_hand_ends(rules: Ruleset, start: State, state: State, rewards: np.ndarray) -> None:
    h = rules.hand_size
    seats_in = ((start.active[:, None] >> np.arange(rules.players)) & 1).astype(bool)
    played = state.played_up | state.played_down
    # Every card held at trick 1 is played exactly once: hands are empty, each seat in
    # the hand played H cards, the seats' plays are disjoint.
    assert (state.hands == 0).all()
    assert (count(played) == np.where(seats_in, h, 0)).all()
    assert (count(np.bitwise_or.reduce(played, axis=1)) == count(played).sum(axis=1)).all()
    kept = ~state.exchanged
    assert (np.where(kept, played, state.discarded) == start.dealt).all()
    assert ((state.played_up & state.played_down) == 0).all()
    # Exactly one winner, who won the last trick and sits in the hand.
    w = state.winner
    rows = np.arange(state.batch_size)
    assert (w >= 0).all() and seats_in[rows, w].all()
    assert (state.trick_winner[:, -1] == w).all()
    assert ((rewards > 0).sum(axis=1) == 1).all()
    assert (rewards.argmax(axis=1) == w).all()
    assert (state.points >= 1).all()
    if rules.payoff == "stakes":
        assert (rewards.sum(axis=1) == 0).all()
        assert (rewards[rows, w] == state.points * (seats_in.sum(axis=1) - 1)).all()
    else:
        assert (rewards.sum(axis=1) == state.points).all()


VARIANTS = sorted(PRESETS)


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("options", ["preset", "exchange+reveal+points"])
def test_invariants_hold_over_random_hands(variant: str, options: str) -> None:
    rules = (
        make_rules(variant) if options == "preset" else with_stock_options(variant, payoff="points")
    )
    rng = np.random.default_rng(len(variant) + 100 * len(options))
    checker = InvariantChecker(rules)
    for _ in range(2):
        state = reset(rules, 512, rng)
        trace = play_out(state, rng, before_step=checker)
        check_hand_ends(rules, trace.start, trace.state, trace.final_rewards)
    assert checker.plays_checked > 512 * rules.hand_size  # the check did run
