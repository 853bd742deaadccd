"""Text rendering: Unicode suits, the trick and its leader, card backs, c-notation scores."""

from __future__ import annotations

import numpy as np
import pytest

from spar_env.core import random_member, reset, step, tables_for
from spar_env.core.deal import deck_for_hands
from spar_env.envs.aec import raw_env
from spar_env.envs.render import BACK, render_table
from spar_env.rules import make_rules


def _scripted(variant: str, hands: list[list[str]], dealer: int, **options):
    rules = make_rules(variant, **options)
    ids = [[rules.card_id(c) for c in hand] for hand in hands]
    deck = deck_for_hands(tables_for(rules), ids, dealer)
    state = reset(rules, 1, np.random.default_rng(0), decks=deck[None], dealers=np.array([dealer]))
    return rules, state


JEU_HANDS = [
    ["7H", "KH", "9C", "AD", "7S"],
    ["8C", "9D", "10D", "JS", "QC"],
    ["8H", "9S", "JC", "KS", "QD"],
    ["9H", "10C", "JD", "QS", "KC"],
]


def _after_a_face_down_play():
    rules, state = _scripted("jeu_de_carte", JEU_HANDS, dealer=3)
    step(state, np.array([rules.card_id("7H")]))
    step(state, np.array([rules.card_id("8C")]))  # seat 1 cannot follow: face down
    return rules, state


def test_the_trick_its_leader_and_unicode_suits():
    _, state = _after_a_face_down_play()
    text = render_table(state, 0, view=0)
    assert "trick 1: seat 0 leads, suit led ♥; seat 0 7♥, seat 1 🂠" in text
    assert "hand: 9♣ A♦ K♥ 7♠" in text  # the viewer's cards, by suit
    assert "▶" in text.splitlines()[3]  # seat 2 is to move


def test_face_down_cards_are_backs_to_the_others_and_bracketed_for_their_owner():
    _, state = _after_a_face_down_play()
    owner = render_table(state, 0, view=1)
    assert "seat 1 [8♣]" in owner and "played: [8♣]" in owner
    for view in (None, 0, 2, 3):
        text = render_table(state, 0, view=view)
        assert "8♣" not in text
        assert f"seat 1 {BACK}" in text


def test_a_spectator_sees_no_hidden_card_in_random_games():
    rules = make_rules("sipa", weak_hand_exchange=True, reveal_stock_bottom=True)
    rng = np.random.default_rng(0)
    state = reset(rules, 40, rng)
    for depth in range(12):
        live = ~state.terminated
        step(state, np.where(live, random_member(state.legal, rng), 0))
        for g in range(state.batch_size):
            text = render_table(state, g)
            hidden = int(
                np.bitwise_or.reduce(state.hands[g]) | np.bitwise_or.reduce(state.played_down[g])
            )
            stock = {int(c) for c in state.deck[g, int(state.stock_top[g]) :]} - {
                int(state.revealed[g])
            }
            for c in [c for c in range(rules.num_card_ids) if hidden >> c & 1] + sorted(stock):
                assert rules.card_name(c, unicode=True) not in text, (depth, g, text)


def test_scores_use_c_notation_for_essilfy():
    rules, state = _scripted("essilfy", JEU_HANDS, dealer=3)
    state.scores[0] = [14, 9, 2, 0]
    text = render_table(state, 0)
    assert "score c12 2" in text and "score c9" in text and "score 2" in text
    plain = make_rules("spar")
    other = reset(plain, 1, np.random.default_rng(0))
    other.scores[0] = [14, 9, 2, 0]
    assert "score 14" in render_table(other, 0)


def test_the_end_of_a_hand_names_the_winner_and_points():
    rules = make_rules("spar")
    rng = np.random.default_rng(6)
    state = reset(rules, 1, rng)
    while not state.terminated[0]:
        step(state, random_member(state.legal, rng))
    text = render_table(state, 0)
    card = rules.card_name(int(state.trick_card[0, -1]), unicode=True)
    assert (
        f"seat {int(state.winner[0])} won the last trick with {card} and scores "
        f"{int(state.points[0])}" in text
    )


def test_human_mode_prints_and_returns_none(capsys):
    aec = raw_env(variant="spar", render_mode="human", render_seat=1)
    aec.reset(seed=0)
    capsys.readouterr()
    assert aec.render() is None
    assert "seat 1 (you)" in capsys.readouterr().out


def test_bad_views_are_refused():
    state = reset(make_rules("spar"), 1, np.random.default_rng(0))
    with pytest.raises(ValueError, match="view must be a seat 0..3"):
        render_table(state, 0, view=4)
