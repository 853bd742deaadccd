"""Observation v2: one fixed-size vector for every game of the family, so one network plays them all.

``encode_v2(state, seats)`` gives ``uint8 [B, D]`` with ``D = OBS_V2_SIZE`` for
any preset at 2 to 7 players with any option. It holds what observation v1
(:mod:`spar_env.observation.per_game`) holds, laid out on fixed axes, plus a block of the
rules in force:

- cards on one grid of :data:`NUM_CARDS` = 48 (suits ``C D H S`` x ranks
  ``3 .. 10 J Q K A``): card ``suit * 12 + rank``, whatever the preset's deck;
  a card the deck lacks stays 0 and its ``in_deck`` entry says so;
- seats padded to :data:`MAX_SEATS` = 7, relative to the observer in the
  direction of play (``k = 0`` is the observer; ``seat_in_game`` marks the
  seats that exist);
- tricks padded to :data:`MAX_TRICKS` = 8 (``tricks_left`` counts from the end:
  only the last tricks score);
- every optional block of v1 always present (all 0 when the option is off).

The vector is v1's with its columns moved (a fixed column map per ruleset)
and the rules block written from constants, so it can leak nothing v1 does
not (the tests permute every hidden card to check it). Actions live on the
same grid: card ``u`` is action ``u``, then KEEP (48) and EXCHANGE (49):
:data:`NUM_ACTIONS_V2` = 50 for every game (:class:`UniversalView` maps them).

Observation version: ``OBS_V2 = 2``. Symbols: ``U = 48`` cards, ``P = 7``
seats, ``T = 8`` tricks. Entries lie in ``[0, high]`` (``high`` of
:data:`OBS_V2_HIGH`, the same for every game; session counts are clipped at
255 like v1's, and may pass ``high``: the network scales by it, nothing clips).

===============  =====  ====  ==========================================================
block            width  off   meaning
===============  =====  ====  ==========================================================
hand             U      0     cards I hold
played_up        P*U    48    face-up cards each seat played this hand (seat-major)
trick_cards      P*U    384   card each seat played to this trick (my own even face down)
my_face_down     U      720   cards I played face down
my_discard       U      768   the hand I gave up in the exchange
stock_card       U      816   the stock's bottom card, once turned up
to_move          P      864   seat to act (all 0 once the hand is over)
leader           P      871   seat that led this trick
led_suit         4      878   suit led to this trick (C D H S)
winning          P      882   seat winning this trick so far
trick_number     T+1    889   tricks played (one-hot; index T: hand over)
tricks_left      T+1    898   tricks still to play (one-hot; 0: hand over)
trick_winners    T*P    907   seat that won each trick so far (trick-major)
trick_points     T      963   scoring points of each trick's winning card
dealer           P      971   seat that dealt this hand
down_count       P      978   face-down plays of each seat (count)
trick_down       P      985   seat played face down to this trick
exchanged        P      992   seat exchanged its hand
exchange_phase   1      999   exchange decisions are still being taken
stock_left       1      1000  cards left in the stock (count; 0 without the exchange)
scores           P      1001  session points of each seat (target and hands sessions)
hands_left       1      1008  hands still to play in a hands:K session
stones           P      1009  stones each seat holds (stones sessions)
pool             1      1016  stones left in the pool
in_hand          P      1017  seat is dealt into this hand (stones sessions)
seat_in_game     P      1024  rules: relative seat k exists (k < players)
players          6      1031  rules: player count, one-hot (index players - 2)
hand_size        T      1037  rules: cards per hand, one-hot (index hand_size - 1)
in_deck          U      1045  rules: card is in the deck
strength         U      1093  rules: rank order within a suit (1 lowest; 0: not on the grid)
card_points      U      1141  rules: points of a final trick won with this card
chain            1      1189  rules: final tricks that can add up (1: only the last)
last_two         3      1190  rules: last_two off, sum, bonus (one-hot)
scoring          5      1193  rules: scoring spar, seven, sipa, fapfap, one (one-hot)
face_down        3      1198  rules: face-down play none, off_suit, non_winning (one-hot)
clockwise        1      1201  rules: play goes clockwise
exchange_rule    1      1202  rules: the weak-hand exchange is on
reveal_rule      1      1203  rules: the stock's bottom card is turned up
payoff           2      1204  rules: payoff stakes, points (one-hot)
session_end      5      1206  rules: session end open, one_hand, hands, target, stones
end_value        1      1211  rules: the end's value (T of target:T, K of hands:K; clipped)
===============  =====  ====  ==========================================================

``D = 1212``. :func:`view_for` raises ``ValueError`` for a ruleset v2 cannot
hold (more than 7 players or 8 tricks).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import TYPE_CHECKING

import numpy as np

from spar_env.core import State, unpack
from spar_env.observation.per_game import Encoder, layout_for
from spar_env.rules import Ruleset
from spar_env.rules.cards import RANKS, SUITS
from spar_env.rules.ruleset import DIRECTIONS, END_KINDS, FACE_DOWN, LAST_TWO, PAYOFFS, SCORINGS

if TYPE_CHECKING:
    from spar_env.situation import Situation

OBS_V2 = 2
MAX_SEATS = 7
MAX_TRICKS = 8
NUM_CARDS = len(SUITS) * len(RANKS)  # 48
KEEP_V2, EXCHANGE_V2 = NUM_CARDS, NUM_CARDS + 1
NUM_ACTIONS_V2 = NUM_CARDS + 2
_P, _U, _T = MAX_SEATS, NUM_CARDS, MAX_TRICKS

# (name, width, high) in the order of the vector (the table above).
_BLOCKS: tuple[tuple[str, int, int], ...] = (
    ("hand", _U, 1), ("played_up", _P * _U, 1), ("trick_cards", _P * _U, 1),
    ("my_face_down", _U, 1), ("my_discard", _U, 1), ("stock_card", _U, 1), ("to_move", _P, 1),
    ("leader", _P, 1), ("led_suit", len(SUITS), 1), ("winning", _P, 1),
    ("trick_number", _T + 1, 1), ("tricks_left", _T + 1, 1), ("trick_winners", _T * _P, 1),
    ("trick_points", _T, 3), ("dealer", _P, 1), ("down_count", _P, _T), ("trick_down", _P, 1),
    ("exchanged", _P, 1), ("exchange_phase", 1, 1), ("stock_left", 1, 32), ("scores", _P, 30),
    ("hands_left", 1, 10), ("stones", _P, 30), ("pool", 1, 30), ("in_hand", _P, 1),
    ("seat_in_game", _P, 1), ("players", _P - 1, 1), ("hand_size", _T, 1), ("in_deck", _U, 1),
    ("strength", _U, len(RANKS)), ("card_points", _U, 3), ("chain", 1, 3),
    ("last_two", len(LAST_TWO), 1), ("scoring", len(SCORINGS), 1),
    ("face_down", len(FACE_DOWN), 1), ("clockwise", 1, 1), ("exchange_rule", 1, 1),
    ("reveal_rule", 1, 1), ("payoff", len(PAYOFFS), 1), ("session_end", len(END_KINDS), 1),
    ("end_value", 1, 30),
)  # fmt: skip
OFFSETS: dict[str, int] = {}
_at = 0
for _name, _width, _ in _BLOCKS:
    OFFSETS[_name] = _at
    _at += _width
OBS_V2_SIZE = _at
OBS_V2_HIGH = np.concatenate([np.full(w, h, dtype=np.uint8) for _, w, h in _BLOCKS])

# v1 blocks by how their columns move: per card, per seat and card, per seat, per trick, as is.
_CARD_BLOCKS = ("hand", "my_face_down", "my_discard", "stock_card")
_SEAT_CARD_BLOCKS = ("played_up", "trick_cards")
_SEAT_BLOCKS = ("to_move", "leader", "winning", "dealer", "down_count", "trick_down",
                "exchanged", "scores", "stones", "in_hand")  # fmt: skip
_SCALAR_BLOCKS = ("exchange_phase", "stock_left", "hands_left", "pool")


def universal_card(rules: Ruleset, cid: int) -> int:
    """The v2 card index of the ruleset's card id ``cid``."""
    return SUITS.index(rules.card_suit(cid)) * len(RANKS) + RANKS.index(rules.card_rank(cid))


@dataclass(frozen=True, eq=False)
class UniversalView:
    """Observation v2 and the shared action grid for one ruleset (build with :func:`view_for`)."""

    rules: Ruleset

    size = OBS_V2_SIZE
    high = OBS_V2_HIGH
    num_actions = NUM_ACTIONS_V2

    @cached_property
    def card_of(self) -> np.ndarray:
        """``int64 [C]``: v2 card index of each of the ruleset's card ids."""
        return np.array([universal_card(self.rules, c) for c in range(self.rules.num_card_ids)])

    @cached_property
    def action_of(self) -> np.ndarray:
        """``int64 [A]``: v2 action of each of the game's actions."""
        extra = [KEEP_V2, EXCHANGE_V2] if self.rules.weak_hand_exchange else []
        return np.concatenate([self.card_of, np.array(extra, dtype=np.int64)])

    @cached_property
    def game_action(self) -> np.ndarray:
        """``int64 [50]``: the game's action of each v2 action (-1: none in this game)."""
        out = np.full(NUM_ACTIONS_V2, -1, dtype=np.int64)
        out[self.action_of] = np.arange(self.action_of.shape[0])
        return out

    @cached_property
    def column_map(self) -> tuple[np.ndarray, np.ndarray]:
        """``(src, dst)``: v1 column ``src[i]`` goes to v2 column ``dst[i]`` (each ``dst``
        once; every v2 column outside ``dst`` holds :attr:`constants`)."""
        r, layout = self.rules, layout_for(self.rules)
        n, c, h = r.players, r.num_card_ids, r.hand_size
        pairs: list[tuple[int, int]] = []

        def add(name: str, src: np.ndarray, dst: np.ndarray, v2: str | None = None) -> None:
            if layout.has(name):
                base, to = layout.offset(name), OFFSETS[v2 or name]
                pairs.extend(zip((base + src).tolist(), (to + dst).tolist(), strict=True))

        cards, seats, tricks = np.arange(c), np.arange(n), np.arange(h)
        for name in _CARD_BLOCKS:
            add(name, cards, self.card_of)
        for name in _SEAT_CARD_BLOCKS:
            k, card = np.divmod(np.arange(n * c), c)
            add(name, k * c + card, k * _U + self.card_of[card])
        for name in _SEAT_BLOCKS:
            add(name, seats, seats)
        for name in _SCALAR_BLOCKS:
            add(name, np.zeros(1, np.int64), np.zeros(1, np.int64))
        add("led_suit", np.arange(r.num_suits), np.array([SUITS.index(s) for s in r.suits]))
        played = np.arange(h + 1)
        add("trick_number", played, np.where(played == h, _T, played))
        add("trick_number", played, h - played, "tricks_left")
        t, k = np.divmod(np.arange(h * n), n)
        add("trick_winners", t * n + k, t * _P + k)
        add("trick_points", tricks, tricks)
        src, dst = np.array(pairs, dtype=np.int64).reshape(-1, 2).T
        return src, dst

    @cached_property
    def hidden_columns(self) -> np.ndarray:
        """``int64 [(N-1)*C]``: the columns of :meth:`hidden`'s output this game fills."""
        n, c = self.rules.players, self.rules.num_card_ids
        k, card = np.divmod(np.arange((n - 1) * c), c)
        return k * _U + self.card_of[card]

    @cached_property
    def constants(self) -> np.ndarray:
        """``uint8 [D]``: the rules block (every other entry 0)."""
        r, row = self.rules, np.zeros(OBS_V2_SIZE, dtype=np.uint8)

        def put(name: str, index: int, value: int = 1) -> None:
            row[OFFSETS[name] + index] = min(value, 255)

        for k in range(r.players):
            put("seat_in_game", k)
        put("players", r.players - 2)
        put("hand_size", r.hand_size - 1)
        for cid in range(r.num_card_ids):
            u = int(self.card_of[cid])
            put("strength", u, r.card_strength(cid) + 1)
            put("card_points", u, r.rank_points.get(r.card_rank(cid), 0))
        for cid in r.deck:
            put("in_deck", int(self.card_of[cid]))
        put("chain", 0, r.chain)
        put("last_two", LAST_TWO.index(r.last_two))
        put("scoring", SCORINGS.index(r.scoring))
        put("face_down", FACE_DOWN.index(r.face_down))
        put("clockwise", 0, int(r.direction == DIRECTIONS[0]))
        put("exchange_rule", 0, int(r.weak_hand_exchange))
        put("reveal_rule", 0, int(r.reveal_stock_bottom))
        put("payoff", PAYOFFS.index(r.payoff))
        put("session_end", END_KINDS.index(r.end_kind))
        put("end_value", 0, r.end_value or 0)
        return row

    @cached_property
    def _encoder(self) -> Encoder:
        return Encoder(layout_for(self.rules))

    def encode(
        self, state: State, seats: np.ndarray | int, games: np.ndarray | None = None
    ) -> np.ndarray:
        """A new ``uint8 [G, D]``: the v2 observations of ``seats`` (as :func:`encode_v2`)."""
        return self.from_v1(self._encoder.encode(state, seats, games))

    def from_v1(self, v1: np.ndarray) -> np.ndarray:
        """A new ``uint8 [G, D]``: the v2 observations of the game's v1 observations."""
        src, dst = self.column_map
        out = np.repeat(self.constants[None, :], v1.shape[0], axis=0)
        out[:, dst] = v1[:, src]
        return out

    def inputs(self, situation: Situation) -> tuple[np.ndarray, np.ndarray]:
        """What a universal policy reads of a situation: v2 observations and v2 legal masks."""
        obs = self.encode(situation.state, situation.seats, situation.games)
        return obs, self.mask(situation.legal)

    def legal(self, bits: np.ndarray) -> np.ndarray:
        """``uint64 [G]``: the game's legal-action bit sets moved onto the v2 action grid."""
        mask = unpack(bits, self.rules.num_actions).astype(np.uint64)
        return (mask << self.action_of.astype(np.uint64)).sum(axis=1, dtype=np.uint64)

    def mask(self, bits: np.ndarray) -> np.ndarray:
        """``bool [G, 50]``: the legal v2 actions of the game's bit sets."""
        return self.widen_mask(unpack(bits, self.rules.num_actions))

    def widen_mask(self, mask: np.ndarray) -> np.ndarray:
        """``bool [G, 50]``: the game's own legal-action mask ``[G, A]`` on the v2 grid."""
        out = np.zeros((mask.shape[0], NUM_ACTIONS_V2), dtype=bool)
        out[:, self.action_of] = mask
        return out

    def to_game(self, actions: np.ndarray) -> np.ndarray:
        """The game's actions of v2 actions (each must exist in this game)."""
        out = self.game_action[np.asarray(actions, dtype=np.int64)]
        if (out < 0).any():
            raise ValueError(f"v2 action {int(actions[np.argmax(out < 0)])} is not in this game")
        return out

    def game_probs(self, probs: np.ndarray) -> np.ndarray:
        """``[G, A]``: a v2 policy over the game's own actions."""
        return np.ascontiguousarray(probs[:, self.action_of])

    def hidden(self, hands: np.ndarray) -> np.ndarray:
        """``uint8 [G, (P-1)*U]``: v1's other-seat hands ``[G, (N-1)*C]`` on the padded axes."""
        out = np.zeros((hands.shape[0], (_P - 1) * _U), dtype=np.uint8)
        out[:, self.hidden_columns] = hands
        return out


HIDDEN_V2 = (MAX_SEATS - 1) * NUM_CARDS  # width of :meth:`UniversalView.hidden`


def check_v2(rules: Ruleset) -> None:
    """Raise ``ValueError`` if observation v2 cannot hold ``rules``."""
    if rules.players > MAX_SEATS:
        raise ValueError(f"observation v2 holds at most {MAX_SEATS} players; got {rules.players}")
    if rules.hand_size > MAX_TRICKS:
        raise ValueError(
            f"observation v2 holds hands of at most {MAX_TRICKS} cards; got {rules.hand_size}"
        )


@lru_cache(maxsize=256)
def view_for(rules: Ruleset) -> UniversalView:
    """The v2 view of a ruleset (cached: rulesets are frozen).

    Raises:
        ValueError: if observation v2 cannot hold the ruleset (:func:`check_v2`).
    """
    check_v2(rules)
    return UniversalView(rules)


def encode_v2(state: State, seats: np.ndarray | int, games: np.ndarray | None = None) -> np.ndarray:
    """The v2 observations of ``seats`` (one observer per game), a new ``uint8 [G, D]`` array."""
    return view_for(state.tables.rules).encode(state, seats, games)
