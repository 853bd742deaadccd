"""The weak-hand exchange tells no seat whose hand is weak, unless that seat exchanged.

A seat's hand is weak when it holds no 10 or better. The relabelling check in
``test_observe`` permutes hidden cards in a frozen state, so it cannot see a
leak through the order of turns. Here the hidden cards are permuted in the
deal itself, across weak and strong hands, and both deals are played on with
the same public actions (every seat keeps): the observer must see the same
observations, the same seats to move, the same rendering and the same AEC
turn order in both. The world sampler of ``pimc`` must build the same view.
"""

from __future__ import annotations

import numpy as np

from spar_agents.base import Situation
from spar_agents.worlds import DISCARD, HAND, seat_views
from spar_env import make_rules, raw_env
from spar_env.core import EXCHANGE, PLAY, reset, step, tables_for
from spar_env.core.deal import deck_for_hands
from spar_env.envs.render import render_table
from spar_env.history import History
from spar_env.observation.per_game import encode

RULES = make_rules("spar", players=4, weak_hand_exchange=True)
# Two-card hands are often weak (about one in five), so both kinds meet in most deals.
SHORT = make_rules("spar", players=4, hand_size=2, weak_hand_exchange=True)


def _dealt(rules, hands: list[str], dealer: int):
    t = tables_for(rules)
    deck = deck_for_hands(t, [[rules.card_id(c) for c in h.split()] for h in hands], dealer)
    return reset(rules, 1, np.random.default_rng(0), decks=deck[None], dealers=np.array([dealer]))


def _weak(state) -> np.ndarray:
    """``bool [B, N]``: the seat's hand holds no 10 or better."""
    return (state.hands & state.tables.high_bits) == 0


def _keep_through_the_exchange(state_a, state_b, observer: int) -> int:
    """Every seat keeps in both batches; check the observer sees the same at each turn."""
    keep = np.full(state_a.batch_size, state_a.tables.rules.keep_action)
    turns = 0
    while (state_a.phase == EXCHANGE).any() or (state_b.phase == EXCHANGE).any():
        np.testing.assert_array_equal(state_a.current_player, state_b.current_player)
        np.testing.assert_array_equal(encode(state_a, observer), encode(state_b, observer))
        step(state_a, keep)
        step(state_b, keep)
        turns += 1
    np.testing.assert_array_equal(state_a.phase, state_b.phase)
    np.testing.assert_array_equal(encode(state_a, observer), encode(state_b, observer))
    return turns


def test_the_issue_case_seat_2_cannot_tell_which_of_seats_0_and_1_is_weak() -> None:
    strong, weak = "AC 6C 7D 8D 9D", "9C 6D 7C 8C 9S"
    rest = ["10H JH QH KH AH", "10S JS QS KS 6H"]
    deal_a = _dealt(RULES, [strong, weak, *rest], dealer=3)
    deal_b = _dealt(RULES, [weak, strong, *rest], dealer=3)
    assert _weak(deal_a)[0, :2].tolist() == [False, True]
    assert _weak(deal_b)[0, :2].tolist() == [True, False]
    # Before anyone acts, and at every turn after, seat 2 sees the same things.
    assert render_table(deal_a, 0, view=2) == render_table(deal_b, 0, view=2)
    turns = _keep_through_the_exchange(deal_a, deal_b, observer=2)
    assert turns == 4  # every seat was asked
    assert (deal_a.phase == PLAY).all()


def test_every_seat_is_asked_and_only_a_weak_hand_may_exchange() -> None:
    state = reset(RULES, 2048, np.random.default_rng(1))
    t = state.tables
    exchange_bit = np.uint64(1) << np.uint64(RULES.exchange_action)
    keep_bit = np.uint64(1) << np.uint64(RULES.keep_action)
    seen = np.zeros((state.batch_size, RULES.players), dtype=bool)
    rows = np.arange(state.batch_size)
    while (state.phase == EXCHANGE).any():
        asking = state.phase == EXCHANGE
        seat = state.current_player
        weak = (state.hands[rows, seat.clip(0)] & t.high_bits) == 0
        may_swap = (state.legal & exchange_bit) != 0
        assert ((state.legal[asking] & keep_bit) != 0).all()
        np.testing.assert_array_equal(may_swap[asking], weak[asking])
        seen[rows[asking], seat[asking]] = True
        step(state, np.full(state.batch_size, RULES.keep_action))
    assert seen.all()  # 35 cards, 4 hands of 5: the stock always holds a hand, so all are asked


def test_permuting_hidden_cards_across_weak_and_strong_hands_changes_nothing_seen() -> None:
    """Random deals; the cards each observer cannot see are reshuffled among the other seats
    and the stock, which makes other hands weak or strong at random."""
    rng = np.random.default_rng(2)
    short_sipa = make_rules("sipa", players=3, hand_size=2, weak_hand_exchange=True)
    for rules in (SHORT, short_sipa, RULES):
        deal_a = reset(rules, 512, rng)
        t = tables_for(rules)
        for observer in range(rules.players):
            decks = deal_a.deck.astype(np.int64)
            mine = (t.card_bit[decks] & deal_a.hands[:, observer, None]) != 0
            decks_b = decks.copy()
            for g in range(decks.shape[0]):
                free = np.flatnonzero(~mine[g])
                decks_b[g, free] = rng.permutation(decks[g, free])
            state_a = reset(rules, 512, rng, decks=decks, dealers=deal_a.dealer)
            state_b = reset(rules, 512, rng, decks=decks_b, dealers=deal_a.dealer)
            others = np.arange(rules.players) != observer
            differs = (_weak(state_a) != _weak(state_b))[:, others].any(axis=1)
            assert differs.mean() > (0.02 if rules is RULES else 0.3)  # not vacuous
            _keep_through_the_exchange(state_a, state_b, observer)


def test_the_aec_turn_order_is_the_same_for_weak_and_strong_hands() -> None:
    """The AEC env asks every player in turn from the leader, whatever the hands."""
    weak_counts = set()
    for seed in range(8):
        aec = raw_env(variant="spar", num_players=4, hand_size=2, weak_hand_exchange=True)
        aec.reset(seed=seed)
        state = aec._batch.state
        weak_counts.add(int(_weak(state)[0].sum()))
        order = []
        while state.phase[0] == EXCHANGE:
            order.append(int(aec.agent_selection.removeprefix("player_")))
            aec.step(SHORT.keep_action)
        leader = int(state.leader[0])
        assert order == [(leader + SHORT.sign * k) % 4 for k in range(4)]
    assert len(weak_counts) > 1  # deals with different numbers of weak hands were seen


def test_the_world_sampler_reads_only_the_public_exchange_facts() -> None:
    """pimc's view is the same for deals that differ in hidden weak/strong hands, and it puts
    a rule on a discarded hand (weak) but none on the hand of a seat that kept."""
    strong, weak = "AC 6C 7D 8D 9D", "9C 6D 7C 8C 9S"
    rest = ["10H JH QH KH AH", "10S JS QS KS 6H"]
    views = []
    for hands in ([strong, weak, *rest], [weak, strong, *rest]):
        state = _dealt(RULES, hands, dealer=3)
        keep = np.array([RULES.keep_action])
        step(state, keep)  # seat 0 keeps
        step(state, keep)  # seat 1 keeps
        assert int(state.current_player[0]) == 2
        (view,) = seat_views(Situation(state, History(state), np.array([0])))
        views.append(view)
    a, b = views
    assert [(x.kind, x.seat, x.size, x.allowed) for x in a.locations] == [
        (x.kind, x.seat, x.size, x.allowed) for x in b.locations
    ]
    assert not any(loc.kind == DISCARD for loc in a.locations)
    for loc in a.locations:  # seats that kept: any unseen card may be in their hands
        if loc.kind == HAND:
            assert loc.allowed == a.unseen

    # Seat 0 exchanges: its discard may hold weak cards only; its new hand anything unseen.
    state = _dealt(RULES, [weak, strong, *rest], dealer=3)
    step(state, np.array([RULES.exchange_action]))
    step(state, np.array([RULES.keep_action]))
    (view,) = seat_views(Situation(state, History(state), np.array([0])))
    t = tables_for(RULES)
    (discard,) = [loc for loc in view.locations if loc.kind == DISCARD]
    assert discard.seat == 0 and discard.allowed == view.unseen & ~int(t.high_bits)
    (hand0,) = [loc for loc in view.locations if loc.kind == HAND and loc.seat == 0]
    assert hand0.allowed == view.unseen
