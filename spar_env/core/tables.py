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
    return Tables(
        rules=rules,
        num_players=n,
        hand_size=rules.hand_size,
        num_cards=rules.num_card_ids,
        deck=np.array(rules.deck, dtype=np.int8),
        card_bit=card_bit,
        card_suit=ids // r,
        card_strength=r - 1 - ids % r,
        card_key=KEY_SEATS * (r - 1 - ids % r) + 1,
        next_seat=(np.arange(n) + rules.sign) % n,
        card_points=points,
        suit_bits=suit_bits,
        high_bits=high,
        order=(np.arange(n)[:, None] + rules.sign * np.arange(1, n + 1)[None, :]) % n,
        deal_positions={m: _deal_positions(m, rules.deal_pattern) for m in range(2, n + 1)},
        turn_of_seat=(rules.sign * (np.arange(n)[None, :] - np.arange(n)[:, None]) - 1) % n,
        all_active=(1 << n) - 1,
        sit_out=rules.end_kind == "stones",
    )
