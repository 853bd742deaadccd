"""Per-ruleset lookup tables for the batch core, computed once per ruleset.

Cards are ids on the ruleset's suit x rank grid (see :mod:`spar_env.rules.ruleset`);
sets of cards (and of actions) are ``uint64`` bit sets, bit ``c`` for id ``c``.
Seats in a hand are a ``uint8`` bit set too (``active``): every seat plays,
except in the tie-break hands of a ``stones`` session, where only the tied
seats do.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from spar_env.rules import Ruleset

NO_CARD = -1  # empty slot in an int8 card array

# The ruleset's numbers for the compiled kernels: indices into the lookup's code (int64).
(PLAYERS, HAND, SIGN, FACE_DOWN, SIT_OUT, REVEAL, EXCHANGE_ON, KEEP, SWAP, CHAIN, BONUS,
 STAKES, END, END_VALUE, ALL_ACTIVE, HIGH, DECK) = range(17)  # fmt: skip
FACE_DOWN_CODES = {"none": 0, "off_suit": 1, "non_winning": 2}
OFF_SUIT, NON_WINNING = 1, 2
END_CODES = {"open": 0, "one_hand": 1, "target": 2, "hands": 3, "stones": 4}
END_OPEN, END_ONE_HAND, END_TARGET, END_HANDS, END_STONES = range(5)


# The arrays of Tables.lookup, in order: compiled kernels read them by these names.
LOOKUP_FIELDS = ("code", "card_bit", "card_suit", "card_key", "card_points", "suit_bits")
LOOKUP_FIELDS += ("order", "deal_at")




@dataclass(frozen=True, eq=False)
class Tables:
    rules: Ruleset
    num_players: int
    hand_size: int
    num_cards: int  # size of the card-id grid
    deck: np.ndarray  # int8 [deck_size] ids of the cards in the deck
    card_bit: np.ndarray  # uint64 [num_actions] 1 << id
    card_suit: np.ndarray  # int64 [num_cards] suit index
    card_strength: np.ndarray  # int64 [num_cards] 0 = lowest rank
    card_key: np.ndarray  # int64 [num_cards] KEY_SEATS * strength + 1: orders cards in a trick
    next_seat: np.ndarray  # int64 [N] the next seat when every seat plays
    card_points: np.ndarray  # int64 [num_cards + 1] scoring-rank points, 0 if none; [-1] = 0
    suit_bits: np.ndarray  # uint64 [num_suits + 1] cards of each suit; [-1] = all (no led suit)
    high_bits: np.ndarray  # uint64 scalar: cards that make a hand strong for the exchange
    order: np.ndarray  # int64 [N, N] k-th seat after seat s in play direction (every seat in)
    deal_positions: dict[int, np.ndarray]  # m seats -> int64 [m, H] deck positions of k-th seat
    turn_of_seat: np.ndarray  # int64 [N dealer, N seat] k: seat is the k-th after the dealer
    all_active: int  # bit set with every seat
    sit_out: bool  # seats may sit a hand out (tie-break hands of a stones session)
    # The arrays the compiled kernels read besides the state's (LOOKUP_FIELDS): code, int64 [17]
    # the ruleset's numbers (indexed by PLAYERS, HAND, ...); card_bit ... order as above;
    # deal_at, int64 [N + 1, N, H]: deal_positions[m] in rows [m, :m].
    lookup: tuple[np.ndarray, ...]

    def __reduce__(self):
        return tables_for, (self.rules,)  # pickled as its ruleset: the tables are rebuilt


# The key that orders the cards of a trick is KEY_SEATS * strength + seat + 1, so that
# it holds the winning seat too (decks have at most 48 cards, so at most 48 seats).
KEY_SEATS = 64


def seats_in(active: np.ndarray) -> np.ndarray:
    """int64 [G]: how many seats an ``active`` bit set holds."""
    return np.bitwise_count(active).astype(np.int64)


def nth_after(t: Tables, active: np.ndarray, seat: np.ndarray, k: int | np.ndarray) -> np.ndarray:
    """int64 [G]: the ``k``-th (0-based) seat of ``active`` after ``seat`` in play direction.

    -1 where ``active`` holds fewer than ``k + 1`` other seats (``seat`` itself
    counts last, as the N-th seat after itself).
    """
    n = t.num_players
    active, seat = np.asarray(active), np.asarray(seat)
    if np.all(active == t.all_active):
        return np.where(np.asarray(k) < n, t.order[seat, np.minimum(k, n - 1)], -1)
    out = np.full(np.broadcast(active, seat).shape, -1, dtype=np.int64)
    count = np.zeros_like(out)
    for j in range(1, n + 1):
        cand = (seat + t.rules.sign * j) % n
        inside = (active >> cand) & 1
        count += inside
        out = np.where((out < 0) & (inside == 1) & (count == np.asarray(k) + 1), cand, out)
    return out


def _deal_positions(m: int, pattern: tuple[int, ...]) -> np.ndarray:
    """Deck positions (top = 0) dealt to the k-th seat after the dealer, batch by batch."""
    pos = np.zeros((m, sum(pattern)), dtype=np.int64)
    top, filled = 0, 0
    for batch in pattern:
        for k in range(m):
            pos[k, filled : filled + batch] = np.arange(top, top + batch)
            top += batch
        filled += batch
    return pos


@lru_cache(maxsize=64)
def tables_for(rules: Ruleset) -> Tables:
    """Lookup tables of one ruleset (cached: rulesets are frozen and hashable)."""
    n, r = rules.players, rules.num_ranks
    ids = np.arange(rules.num_card_ids)
    card_bit = np.left_shift(np.uint64(1), np.arange(rules.num_actions, dtype=np.uint64))
    suit_bits = np.zeros(rules.num_suits + 1, dtype=np.uint64)
    for s in range(rules.num_suits):
        suit_bits[s] = np.bitwise_or.reduce(card_bit[s * r : (s + 1) * r])
    suit_bits[-1] = np.bitwise_or.reduce(card_bit[: rules.num_card_ids])
    points = np.zeros(rules.num_card_ids + 1, dtype=np.int64)
    high = np.uint64(0)
    for c in ids:
        points[c] = rules.rank_points.get(rules.card_rank(int(c)), 0)
        if rules.is_high_rank(rules.card_rank(int(c))):
            high |= card_bit[c]
    order = (np.arange(n)[:, None] + rules.sign * np.arange(1, n + 1)[None, :]) % n
    deal_positions = {m: _deal_positions(m, rules.deal_pattern) for m in range(2, n + 1)}
    deal_at = np.zeros((n + 1, n, rules.hand_size), dtype=np.int64)
    for m, positions in deal_positions.items():
        deal_at[m, :m] = positions
    code = np.zeros(17, dtype=np.int64)
    code[[PLAYERS, HAND, SIGN, FACE_DOWN, SIT_OUT, REVEAL, EXCHANGE_ON]] = [
        n,
        rules.hand_size,
        rules.sign,
        FACE_DOWN_CODES[rules.face_down],
        rules.end_kind == "stones",
        rules.reveal_stock_bottom,
        rules.weak_hand_exchange,
    ]
    code[[KEEP, SWAP, CHAIN, BONUS, STAKES, END, END_VALUE, ALL_ACTIVE, HIGH, DECK]] = [
        rules.keep_action if rules.weak_hand_exchange else -1,
        rules.exchange_action if rules.weak_hand_exchange else -1,
        min(rules.chain, rules.hand_size),
        rules.last_two == "bonus" and rules.hand_size >= 2,
        rules.payoff == "stakes",
        END_CODES[rules.end_kind],
        rules.end_value or 0,
        (1 << n) - 1,
        int(high),  # card bits below 2**63
        rules.deck_size,
    ]
    card_suit, card_key = ids // r, KEY_SEATS * (r - 1 - ids % r) + 1
    return Tables(
        rules=rules,
        num_players=n,
        hand_size=rules.hand_size,
        num_cards=rules.num_card_ids,
        deck=np.array(rules.deck, dtype=np.int8),
        card_bit=card_bit,
        card_suit=card_suit,
        card_strength=r - 1 - ids % r,
        card_key=card_key,
        next_seat=(np.arange(n) + rules.sign) % n,
        card_points=points,
        suit_bits=suit_bits,
        high_bits=high,
        order=order,
        deal_positions=deal_positions,
        turn_of_seat=(rules.sign * (np.arange(n)[None, :] - np.arange(n)[:, None]) - 1) % n,
        all_active=(1 << n) - 1,
        sit_out=rules.end_kind == "stones",
        lookup=(code, card_bit, card_suit, card_key, points, suit_bits, order, deal_at),
    )
