"""Scripted hands from the seeds, played through the core and checked against the reference.

Each hand is written out in card notation: the hands by seat, the dealer, and
the plays as ``seat:card`` (or ``seat:KEEP`` / ``seat:EXCHANGE``), so a reader
can follow it trick by trick. The helper deals the hand with
``deck_for_hands`` and ``reset(..., decks=..., dealers=...)``, checks at every
move that the named seat is the one to act in both the core and the
reference, that they agree on the legal actions, and then applies the move.
Expected results come from docs/rules.md, worked out by hand in the comments.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest
from helpers.engine import bits, final_disagreements
from helpers.reference import RefHand

from spar_env.core import reset, step, tables_for
from spar_env.core.deal import deck_for_hands
from spar_env.core.state import State
from spar_env.rules import Ruleset, make_rules


def ids(rules: Ruleset, text: str) -> list[int]:
    """Card ids of space-separated cards, such as ``"6H KH 9C"``."""
    return [rules.card_id(card) for card in text.split()]


def names(rules: Ruleset, cards: set[int] | list[int]) -> set[str]:
    return {rules.card_name(c) for c in cards}


@dataclass
class Table:
    """One scripted hand, dealt to the core (a batch of one) and to the reference."""

    rules: Ruleset
    state: State
    ref: RefHand
    rewards: np.ndarray

    def action(self, move: str) -> int:
        if move == "KEEP":
            return self.rules.keep_action
        if move == "EXCHANGE":
            return self.rules.exchange_action
        return self.rules.card_id(move)

    def play(self, moves: str) -> None:
        """Play ``seat:card`` moves (``|`` between tricks is ignored), checking turn and legality."""
        for move in moves.replace("|", " ").split():
            seat, _, what = move.partition(":")
            action = self.action(what)
            assert int(self.state.current_player[0]) == int(seat), f"core: not seat {seat}'s turn"
            assert self.ref.current_player == int(seat), f"reference: not seat {seat}'s turn"
            assert bits(self.state.legal[0]) == set(self.ref.legal_actions()), f"legal at {move}"
            self.rewards = step(self.state, np.array([action])).copy()
            self.ref.apply(action)

    def check_result(self) -> None:
        """The hand is over in both, and the core agrees with the reference in every detail."""
        assert bool(self.state.terminated[0]) and self.ref.done
        problems = final_disagreements(self.state, 0, self.ref, self.rewards[0])
        assert not problems, problems

    @property
    def winner(self) -> int:
        return int(self.state.winner[0])

    @property
    def points(self) -> int:
        return int(self.state.points[0])

    @property
    def payoffs(self) -> list[float]:
        return self.rewards[0].tolist()

    def down_cards(self, seat: int) -> set[str]:
        return names(self.rules, bits(self.state.played_down[0, seat]))


def deal(rules: Ruleset, hands: list[str], dealer: int, stock: str | None = None) -> Table:
    """Deal ``hands`` (by seat) with ``dealer`` dealing; ``stock`` top first (default: id order)."""
    dealt = [ids(rules, h) for h in hands]
    deck = deck_for_hands(
        tables_for(rules), dealt, dealer, None if stock is None else ids(rules, stock)
    )
    state = reset(
        rules, 1, np.random.default_rng(0), decks=deck[None, :], dealers=np.array([dealer])
    )
    ref = RefHand(rules, [int(c) for c in deck], dealer)
    for seat, hand in enumerate(dealt):
        assert bits(state.dealt[0, seat]) == set(hand) == set(ref.dealt[seat])
    return Table(rules, state, ref, np.zeros((1, rules.players), dtype=np.float32))


# ----- seed 001: the worked example ------------------------------------------------
SEED_001_HANDS = [
    "6H KH 9C AD 7S",  # seat 0, "player 1": keeps 6H for the last trick
    "7H AC 8D 6S 10S",
    "8H 6C 9D KS JS",
    "9H 7C KD QS 8S",
]
SEED_001_PLAYS = (
    "0:KH 1:7H 2:8H 3:9H"  # trick 1: seat 0 wins with KH, and every heart but 6H is gone
    " | 0:9C 1:AC 2:6C 3:7C"  # trick 2: seat 1 wins with AC
    " | 1:10S 2:KS 3:QS 0:7S"  # trick 3: seat 2 wins with KS
    " | 2:9D 3:KD 0:AD 1:8D"  # trick 4: seat 0 wins with AD and so leads the last trick
    " | 0:6H 1:6S 2:JS 3:8S"  # trick 5: 6H led, nobody can follow: the 6 wins, 3 points
)


def test_seed_001_example_scores_three() -> None:
    table = deal(make_rules("spar", players=4), SEED_001_HANDS, dealer=3)
    table.play(SEED_001_PLAYS)
    table.check_result()
    assert table.state.trick_winner[0].tolist() == [0, 1, 2, 0, 0]
    assert (table.winner, table.points) == (0, 3)
    assert table.payoffs == [9, -3, -3, -3]  # stakes: every other seat pays W 3


def test_seed_001_example_with_points_payoff() -> None:
    table = deal(make_rules("spar", players=4, payoff="points"), SEED_001_HANDS, dealer=3)
    table.play(SEED_001_PLAYS)
    table.check_result()
    assert table.payoffs == [3, 0, 0, 0]
    assert table.state.scores[0].tolist() == [3, 0, 0, 0]


def test_a_six_that_is_led_and_followed_loses() -> None:
    table = deal(make_rules("spar", players=2), ["AC AD KS QS 6H", "KC KD JS 10S 7H"], dealer=1)
    table.play("0:AC 1:KC | 0:AD 1:KD | 0:KS 1:JS | 0:QS 1:10S | 0:6H 1:7H")
    table.check_result()
    assert (table.winner, table.points) == (1, 2)  # 7H beats 6H: 2 points to seat 1
    assert table.payoffs == [-2, 2]


def test_won_with_an_eight_or_higher_scores_one() -> None:
    table = deal(make_rules("spar", players=2), ["AC AD KS QS 6H", "KC KD JS 10S 8H"], dealer=1)
    table.play("0:AC 1:KC | 0:AD 1:KD | 0:KS 1:JS | 0:QS 1:10S | 0:6H 1:8H")
    table.check_result()
    assert (table.winner, table.points) == (1, 1)


# ----- Sipa: sevens on the last three tricks ---------------------------------------
# Two players; seat 1 holds only clubs, so seat 0's sevens cannot be followed.
@pytest.mark.parametrize(
    ("hand", "plays", "points"),
    [
        # the last three tricks won with 7H, 7S, 7D: 6
        ("AC AD 7H 7S 7D", "0:AC 1:KC | 0:AD 1:QC | 0:7H 1:JC | 0:7S 1:10C | 0:7D 1:9C", 6),
        # trick 3 won with KH, then two sevens: 4
        ("AC AD KH 7S 7D", "0:AC 1:KC | 0:AD 1:QC | 0:KH 1:JC | 0:7S 1:10C | 0:7D 1:9C", 4),
        # only the last trick won with a 7: 2
        ("AC AD KH KS 7D", "0:AC 1:KC | 0:AD 1:QC | 0:KH 1:JC | 0:KS 1:10C | 0:7D 1:9C", 2),
        # no seven: 1
        ("AC AD KH KS 8D", "0:AC 1:KC | 0:AD 1:QC | 0:KH 1:JC | 0:KS 1:10C | 0:8D 1:9C", 1),
    ],
)
def test_sipa_sevens(hand: str, plays: str, points: int) -> None:
    table = deal(make_rules("sipa", players=2), [hand, "KC QC JC 10C 9C"], dealer=1)
    table.play(plays)
    table.check_result()
    assert (table.winner, table.points) == (0, points)
    assert table.payoffs == [points, -points]
    # non_winning: every card of seat 1 (KC does not beat AC, and so on) lay face down
    assert table.down_cards(1) == {"KC", "QC", "JC", "10C", "9C"}
    assert table.down_cards(0) == set()


# ----- Essilfy: the last two tricks with sixes and sevens --------------------------
# Seat 1 holds only clubs; seat 0 leads AC AD AH, then the two cards named.
@pytest.mark.parametrize(
    ("fourth", "fifth", "sum_points", "bonus_points"),
    [
        ("6S", "7D", 5, 7),  # 6 then 7: 5, or 5 + the 7's own 2 = 7
        ("6S", "6D", 6, 9),  # two sixes: 6, or 6 + 3 = 9
        ("7S", "6D", 5, 8),  # 7 then 6: 5, or 5 + 3 = 8
        ("7S", "7D", 4, 6),  # two sevens: 4, or 4 + 2 = 6
        ("8S", "6D", 3, 3),  # only the last trick counts: the 6 alone scores 3
    ],
)
@pytest.mark.parametrize("last_two", ["sum", "bonus"])
def test_essilfy_last_two(
    fourth: str, fifth: str, sum_points: int, bonus_points: int, last_two: str
) -> None:
    rules = make_rules("essilfy", players=2, last_two=last_two)
    table = deal(rules, [f"AC AD AH {fourth} {fifth}", "KC QC JC 10C 9C"], dealer=1)
    table.play(f"0:AC 1:KC | 0:AD 1:QC | 0:AH 1:JC | 0:{fourth} 1:10C | 0:{fifth} 1:9C")
    table.check_result()
    expected = sum_points if last_two == "sum" else bonus_points
    assert (table.winner, table.points) == (0, expected)


def test_essilfy_needs_the_same_winner_on_both_tricks() -> None:
    # Seat 1 wins trick 4 with 7C (seat 0 has no club); seat 1 then leads 6H and
    # seat 0 wins the last trick by following with 7H: a 7 alone, 2 points.
    rules = make_rules("essilfy", players=2, last_two="bonus")
    table = deal(rules, ["AD KD QS 9S 7H", "JD 10D KS 7C 6H"], dealer=1)
    table.play("0:AD 1:JD | 0:KD 1:10D | 0:QS 1:KS | 1:7C 0:9S | 1:6H 0:7H")
    table.check_result()
    assert table.state.trick_winner[0].tolist() == [0, 0, 1, 1, 0]
    assert (table.winner, table.points) == (0, 2)


# ----- Fapfap: threes --------------------------------------------------------------
FAPFAP_OPENING = "0:10C 1:8C | 0:10S 1:7C | 0:9S 1:6C | 0:8S 1:5C"


@pytest.mark.parametrize(
    ("fifth", "sixth", "points"),
    [
        ("3D", "3H", 4),  # the last two tricks with threes
        ("4D", "3H", 2),  # only the last with a three
        ("3D", "4H", 1),  # the last with a four: a three on trick 5 alone is nothing
    ],
)
def test_fapfap_threes(fifth: str, sixth: str, points: int) -> None:
    # Counter-clockwise with two seats: dealer 1, so seat 0 leads. Seat 1 holds only clubs.
    hands = [f"10C 10S 9S 8S {fifth} {sixth}", "8C 7C 6C 5C 4C AC"]
    table = deal(make_rules("fapfap", players=2), hands, dealer=1)
    table.play(f"{FAPFAP_OPENING} | 0:{fifth} 1:4C | 0:{sixth} 1:AC")
    table.check_result()
    assert (table.winner, table.points) == (0, points)


# ----- rank orders ----------------------------------------------------------------
def test_agram_ten_high_ace_low() -> None:
    # Agram ranks 10 9 8 7 6 5 4 3 A: the ace is the lowest card of its suit.
    rules = make_rules("agram", players=2)
    table = deal(rules, ["AH 9C 3D 4S 5S 6S", "3H 10C AD 7S 8S 9S"], dealer=1)
    table.play("0:AH 1:3H")  # 3H beats AH
    table.play("1:10C 0:9C")  # 10C beats 9C
    table.play("1:AD 0:3D")  # 3D beats AD
    table.play("0:4S 1:7S | 1:8S 0:5S | 1:9S 0:6S")
    table.check_result()
    assert table.state.trick_winner[0].tolist() == [1, 1, 0, 1, 1, 1]
    assert (table.winner, table.points) == (1, 1)  # scoring "one"


def test_agram_mali_order() -> None:
    # agram_mali ranks, high to low: 7 J 8 9 Q 10 K A.
    rules = make_rules("agram_mali", players=2)
    table = deal(rules, ["AC QD JH 8S 10S KD", "KC 9D 7H QS 9S AD"], dealer=1)
    table.play("0:AC 1:KC")  # K beats A
    table.play("1:9D 0:QD")  # 9 beats Q
    table.play("1:7H 0:JH")  # 7 beats J: the highest rank
    table.play("1:QS 0:10S")  # Q beats 10
    table.play("1:9S 0:8S")  # 8 beats 9
    table.play("0:KD 1:AD")  # K beats A
    table.check_result()
    assert table.state.trick_winner[0].tolist() == [1, 1, 1, 1, 0, 0]
    assert table.winner == 0


# ----- turn order and dealing --------------------------------------------------------
def test_counter_clockwise_turn_order() -> None:
    # Sipa plays counter-clockwise: with seat 0 dealing, seat 3 leads, then 2, 1, 0.
    rules = make_rules("sipa", players=4)
    hands = ["7C 7D 7H 8S 9S", "8C 8D 8H 10S JS", "9C 9D 9H QS KS", "10C 10D 10H JC QC"]
    table = deal(rules, hands, dealer=0)
    table.play("3:10C 2:9C 1:8C 0:7C")  # 10C wins: seat 3 leads again
    table.play("3:10D 2:9D 1:8D 0:7D")
    table.play("3:10H 2:9H 1:8H 0:7H")
    table.play("3:JC 2:QS 1:10S 0:8S")  # nobody else holds clubs: JC wins
    table.play("3:QC 2:KS 1:JS 0:9S")
    table.check_result()
    assert (table.winner, table.points) == (3, 1)


def test_clockwise_turn_order() -> None:
    rules = make_rules("spar", players=4)
    hands = ["7C 7D 7H 8S 9S", "8C 8D 8H 10S JS", "9C 9D 9H QS KS", "10C 10D 10H JC QC"]
    table = deal(rules, hands, dealer=2)  # seat 3 leads, then 0, 1, 2
    table.play("3:10C 0:7C 1:8C 2:9C | 3:10D 0:7D 1:8D 2:9D | 3:10H 0:7H 1:8H 2:9H")
    table.play("3:JC 0:8S 1:10S 2:QS | 3:QC 0:9S 1:JS 2:KS")
    table.check_result()
    assert table.winner == 3


@pytest.mark.parametrize(
    ("variant", "dealt"),
    [
        # spar, clockwise, dealer 0, pattern 3+2: seat 1 first, then 2, 3, 0.
        (
            "spar",
            {1: "6C 7C 8C 9D 10D", 2: "9C 10C JC JD QD", 3: "QC KC AC KD AD", 0: "6D 7D 8D 6H 7H"},
        ),
        # sipa, counter-clockwise, dealer 0, pattern 3+2: seat 3 first, then 2, 1, 0.
        (
            "sipa",
            {3: "7C 8C 9C JD QD", 2: "10C JC QC KD AD", 1: "KC AC 7D 7H 8H", 0: "8D 9D 10D 9H 10H"},
        ),
        # sink_sink, counter-clockwise, dealer 0, pattern 2+3.
        (
            "sink_sink",
            {3: "AC 3C 10C AD 3D", 2: "4C 5C 4D 5D 6D", 1: "6C 7C 7D 8D 9D", 0: "8C 9C 10D AH 3H"},
        ),
    ],
)
def test_deal_pattern_from_the_top_of_the_deck(variant: str, dealt: dict[int, str]) -> None:
    """The deck is dealt top first in the pattern's batches, from the seat after the dealer."""
    rules = make_rules(variant, players=4)
    suit_order = {"C": 0, "D": 1, "H": 2, "S": 3}
    # The deck, top first: by suit C D H S, each suit from its lowest rank up.
    deck = sorted(
        rules.deck,
        key=lambda c: (suit_order[rules.card_suit(c)], -rules.ranks.index(rules.card_rank(c))),
    )
    state = reset(rules, 1, np.random.default_rng(0), decks=np.array([deck]), dealers=np.array([0]))
    ref = RefHand(rules, deck, 0)
    for seat, hand in dealt.items():
        assert names(rules, bits(state.hands[0, seat])) == set(hand.split()), seat
        assert names(rules, ref.hands[seat]) == set(hand.split()), seat
    assert names(rules, ref.stock) == names(rules, deck[20:])


def test_seven_card_hands_dealt_one_at_a_time() -> None:
    rules = make_rules("spar_classic", players=2)  # 36 cards, 7 each, one at a time
    deck = list(rules.deck)
    state = reset(rules, 1, np.random.default_rng(0), decks=np.array([deck]), dealers=np.array([0]))
    # seat 1 (after dealer 0) takes deck positions 0, 2, 4, ...; seat 0 takes 1, 3, 5, ...
    assert bits(state.hands[0, 1]) == set(deck[0:14:2])
    assert bits(state.hands[0, 0]) == set(deck[1:14:2])
    assert RefHand(rules, deck, 0).hands[1] == deck[0:14:2]


# ----- face-down cards ---------------------------------------------------------------
def test_jeu_de_carte_off_suit_face_down() -> None:
    # Clockwise, dealer 2: seat 0 leads.
    rules = make_rules("jeu_de_carte", players=3)
    table = deal(rules, ["9H 8C 7D KS QS", "KH 10C 8D JS 10S", "7C AD 9D 8S 9S"], dealer=2)
    table.play("0:9H 1:KH 2:7C")  # seat 2 has no heart: 7C face down; KH wins
    assert table.down_cards(2) == {"7C"} and table.down_cards(1) == set()
    assert table.state.trick_winner[0, 0] == 1
    table.play("1:10C 2:AD 0:8C")  # AD off-suit, face down, wins nothing; 8C follows, face up
    assert table.down_cards(2) == {"7C", "AD"} and table.down_cards(0) == set()
    assert table.state.trick_winner[0, 1] == 1
    table.play("1:8D 2:9D 0:7D")  # all follow: all face up, even the losing 7D
    table.play("2:8S 0:KS 1:JS | 0:QS 1:10S 2:9S")
    table.check_result()
    assert table.down_cards(0) == set()
    assert table.state.down_count[0].tolist() == [0, 0, 2]
    assert (table.winner, table.points) == (0, 1)


def test_sipa_non_winning_face_down() -> None:
    # Counter-clockwise, dealer 0: seat 2 leads, then 1, 0.
    rules = make_rules("sipa", players=3)
    table = deal(rules, ["KH 8C 7D QS JS", "9H AC 8D 10S 9S", "10H 7C 9D KS 8S"], dealer=0)
    table.play("2:10H 1:9H 0:KH")  # the lead is face up; 9H does not beat 10H: face down; KH beats
    assert table.down_cards(1) == {"9H"} and table.down_cards(0) == set()
    assert table.down_cards(2) == set()
    assert table.state.trick_winner[0, 0] == 0
    table.play("0:8C 2:7C 1:AC")  # 7C lower: down; AC beats 8C: up and wins
    assert table.down_cards(2) == {"7C"} and table.down_cards(1) == {"9H"}
    table.play("1:8D 0:7D 2:9D")  # 7D down; 9D up and wins
    table.play("2:KS 1:10S 0:QS | 2:8S 1:9S 0:JS")  # 10S, QS down; then 9S and JS each beat
    table.check_result()
    assert table.down_cards(0) == {"7D", "QS"}
    assert table.down_cards(1) == {"9H", "10S"}
    assert (table.winner, table.points) == (0, 1)


# ----- the weak-hand exchange and the reveal --------------------------------------
# Dealer 2, so seats are asked from seat 0. Seat 1 holds a king: not asked.
EXCHANGE_HANDS = ["9C 8D 7H 6S 6C", "KC 9D 8H 7S 7C", "9H 8S 6D 7D 8C"]
EXCHANGE_STOCK = "AC AD AH KD KH QC QD QH QS JC JD JH JS 10C 10D 10H 10S 9S 6H KS"


def test_weak_hand_exchange() -> None:
    rules = make_rules("spar", players=3, weak_hand_exchange=True)
    hands = EXCHANGE_HANDS
    table = deal(rules, hands, dealer=2, stock=EXCHANGE_STOCK)
    table.play("0:EXCHANGE")  # seat 0 takes AC AD AH KD KH from the top of the stock
    assert names(rules, bits(table.state.hands[0, 0])) == {"AC", "AD", "AH", "KD", "KH"}
    assert names(rules, bits(table.state.discarded[0, 0])) == set(hands[0].split())
    # Seat 1 holds a K: it is asked all the same (so nobody learns that it is strong),
    # and may only keep.
    assert int(table.state.current_player[0]) == 1
    assert bits(table.state.legal[0]) == {rules.keep_action}
    assert table.ref.legal_actions() == [rules.keep_action]
    table.play("1:KEEP")
    table.play("2:KEEP")  # seat 2 is weak and keeps; play starts with seat 0
    assert table.state.exchanged[0].tolist() == [True, False, False]
    assert int(table.state.stock_top[0]) == 15 + 5
    table.play("0:AC 1:KC 2:8C | 0:AD 1:9D 2:6D | 0:AH 1:8H 2:9H")
    table.play("0:KD 1:7S 2:7D | 0:KH 1:7C 2:8S")
    table.check_result()
    assert (table.winner, table.points) == (0, 1)


def test_nothing_is_played_during_the_exchange() -> None:
    """Before trick 1 no card has been played: nothing face up, no card in the trick."""
    rules = make_rules("spar", players=3, weak_hand_exchange=True)
    table = deal(rules, EXCHANGE_HANDS, dealer=2, stock=EXCHANGE_STOCK)
    for move in ("0:EXCHANGE", "1:KEEP", "2:KEEP"):
        assert table.state.played_up[0].tolist() == [0, 0, 0], f"before {move}"
        assert table.state.trick_cards[0].tolist() == [-1, -1, -1], f"before {move}"
        table.play(move)
    assert table.state.played_up[0].tolist() == [0, 0, 0]
    assert table.state.trick_cards[0].tolist() == [-1, -1, -1]


def test_exchange_only_while_the_stock_holds_a_hand() -> None:
    # Six players of five cards leave five in the stock: one exchange empties it,
    # so nobody after it is asked, weak or not (the stock is public).
    rules = make_rules("spar", players=6, weak_hand_exchange=True)
    hands = [
        "6C 7C 8C 6D 7D",  # seat 0: weak
        "9C 8D 9D 6H 7H",  # seat 1: weak
        "AC KC QC JC 10C",
        "AD KD QD JD 10D",
        "AH KH QH JH 10H",
        "KS QS JS 10S 9S",
    ]
    table = deal(rules, hands, dealer=5, stock="8H 9H 6S 7S 8S")
    assert int(table.state.current_player[0]) == 0
    assert set(table.ref.legal_actions()) == {rules.keep_action, rules.exchange_action}
    table.play("0:EXCHANGE")
    assert names(rules, bits(table.state.hands[0, 0])) == {"8H", "9H", "6S", "7S", "8S"}
    # seat 1 is weak but the stock is empty: trick 1 starts, led by seat 0
    assert int(table.state.current_player[0]) == 0
    assert bits(table.state.legal[0]) == set(ids(rules, "8H 9H 6S 7S 8S"))
    assert table.ref.legal_actions() == sorted(ids(rules, "8H 9H 6S 7S 8S"))


def test_reveal_stock_bottom_at_trick_four() -> None:
    rules = make_rules("spar", players=4, reveal_stock_bottom=True)
    stock = "AH QH JH 10H 8C 10C JC QC KC 6D 7D 10D JD QD 9S"  # top first; 9S at the bottom
    table = deal(rules, SEED_001_HANDS, dealer=3, stock=stock)
    for trick in SEED_001_PLAYS.split("|")[:3]:
        assert int(table.state.revealed[0]) == -1 and table.ref.revealed is None
        table.play(trick)
    # trick 4 (= H - 1) starts: the stock's bottom card, 9S, is turned up
    assert rules.card_name(int(table.state.revealed[0])) == "9S"
    assert rules.card_name(table.ref.revealed) == "9S"
    table.play("|".join(SEED_001_PLAYS.split("|")[3:]))
    table.check_result()
    assert rules.card_name(int(table.state.revealed[0])) == "9S"


def test_reveal_after_exchange_shows_the_same_bottom_card() -> None:
    # Two-card hands: trick H-1 is trick 1, so the reveal comes right after the exchange.
    rules = make_rules(
        "spar", players=2, hand_size=2, weak_hand_exchange=True, reveal_stock_bottom=True
    )
    hands = ["6C 7D", "KC 8D"]  # dealer 1: seat 0 is weak and asked
    table = deal(rules, hands, dealer=1)
    assert int(table.state.revealed[0]) == -1
    bottom = int(table.state.deck[0, -1])
    table.play("0:EXCHANGE")
    assert int(table.state.revealed[0]) == -1  # seat 1 (strong) is still to be asked
    table.play("1:KEEP")
    assert int(table.state.revealed[0]) == bottom == table.ref.revealed


# ----- illegal actions -------------------------------------------------------------
def test_illegal_actions_raise_value_error_naming_the_card() -> None:
    table = deal(make_rules("spar", players=4), SEED_001_HANDS, dealer=3)
    rules = table.rules
    with pytest.raises(ValueError, match="QD"):  # seat 0 does not hold QD
        step(table.state, np.array([rules.card_id("QD")]))
    with pytest.raises(ValueError, match="QD"):
        table.ref.apply(rules.card_id("QD"))
    table.play("0:KH")
    with pytest.raises(ValueError, match="AC"):  # seat 1 holds 7H and must follow hearts
        step(table.state, np.array([rules.card_id("AC")]))
    with pytest.raises(ValueError, match="AC"):
        table.ref.apply(rules.card_id("AC"))
    table.play("1:7H")  # the refused moves changed nothing


def test_keep_is_illegal_outside_the_exchange() -> None:
    rules = make_rules("spar", players=2, weak_hand_exchange=True)
    table = deal(rules, ["AC AD AH KS QS", "KC KD KH JS 10S"], dealer=1)  # nobody is weak
    for seat in (0, 1):  # both are asked, and may only keep
        with pytest.raises(ValueError, match="EXCHANGE"):
            step(table.state, np.array([rules.exchange_action]))
        with pytest.raises(ValueError, match="EXCHANGE"):
            table.ref.apply(rules.exchange_action)
        table.play(f"{seat}:KEEP")
    with pytest.raises(ValueError, match="KEEP"):
        step(table.state, np.array([rules.keep_action]))
    with pytest.raises(ValueError, match="KEEP"):
        table.ref.apply(rules.keep_action)
