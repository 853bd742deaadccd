"""Where each block of an observation lies: the layout of :mod:`spar_env.observation.per_game`'s vector
for a ruleset (which blocks are present, their offsets and widths, the bound of every entry,
and the tables the compiled encoder reads). :mod:`spar_env.observation.per_game`'s docstring is the table
of the blocks.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property, lru_cache

import numpy as np

from spar_env.core import Tables, tables_for
from spar_env.rules import Ruleset

OBS_VERSION = 1

SCORE_CAP = 255  # scores, stones and hand counts are clipped here to fit in uint8
# Every block, in the order of the vector (the table above); a ruleset leaves some out.
_BLOCK_NAMES = (
    "hand", "played_up", "trick_cards", "my_face_down", "my_discard", "stock_card", "to_move",
    "leader", "led_suit", "winning", "trick_number", "trick_winners", "trick_points", "dealer",
    "down_count", "trick_down", "exchanged", "exchange_phase", "stock_left", "scores",
    "hands_left", "stones", "pool", "in_hand",
)  # fmt: skip


@dataclass(frozen=True)
class Block:
    """One block of the observation vector."""

    name: str
    offset: int
    width: int
    high: int  # every entry lies in [0, high]
    meaning: str


@dataclass(frozen=True, eq=False)
class ObservationLayout:
    """The blocks of the observation of one ruleset, and the lookup tables to fill them."""

    rules: Ruleset
    blocks: tuple[Block, ...]

    @property
    def size(self) -> int:
        return self.blocks[-1].offset + self.blocks[-1].width

    def has(self, name: str) -> bool:
        return name in self.offsets

    @cached_property
    def offsets(self) -> dict[str, int]:
        """Offset of each present block, by name."""
        return {b.name: b.offset for b in self.blocks}

    @property
    def face_down(self) -> bool:
        return self.rules.face_down != "none"

    @property
    def exchange(self) -> bool:
        return self.rules.weak_hand_exchange

    @cached_property
    def card_points(self) -> np.ndarray:
        """``uint8 [C + 1]``: scoring points of each card; index ``-1`` (no card) gives 0."""
        return tables_for(self.rules).card_points.astype(np.uint8)

    def block(self, name: str) -> Block:
        for b in self.blocks:
            if b.name == name:
                return b
        raise ValueError(
            f"the {self.rules.variant} observation has no block {name!r}; "
            f"blocks: {', '.join(b.name for b in self.blocks)}"
        )

    def offset(self, name: str) -> int:
        return self.block(name).offset

    @cached_property
    def high(self) -> np.ndarray:
        """Upper bound of each entry, ``uint8 [D]`` (the lower bound is 0)."""
        out = np.zeros(self.size, dtype=np.uint8)
        for b in self.blocks:
            out[b.offset : b.offset + b.width] = b.high
        return out

    @cached_property
    def rel_to_abs(self) -> np.ndarray:
        """``int64 [N, N]``: absolute seat of relative seat ``k`` for observer ``o``."""
        n, sign = self.rules.players, self.rules.sign
        return (np.arange(n)[:, None] + sign * np.arange(n)[None, :]) % n

    @cached_property
    def abs_to_rel(self) -> np.ndarray:
        """``int64 [N, N + 1]``: relative seat of absolute seat ``s`` for observer ``o``.

        Column ``N`` (index ``-1``) maps "no seat" to ``-1``.
        """
        n = self.rules.players
        out = np.full((n, n + 1), -1, dtype=np.int64)
        rows = np.arange(n)[:, None]
        out[rows, self.rel_to_abs] = np.arange(n)[None, :]
        return out

    @cached_property
    def kernel_tables(self) -> tuple[np.ndarray, ...]:
        """What the compiled encoder reads: each block's offset (-1: absent, in the order
        of ``_BLOCK_NAMES``) then N, C, H and the session's end value; ``rel_to_abs``,
        ``abs_to_rel`` and ``card_points``."""
        r = self.rules
        at = [self.offsets.get(name, -1) for name in _BLOCK_NAMES]
        at += [r.players, r.num_card_ids, r.hand_size, r.end_value or 0]
        return np.array(at, dtype=np.int64), self.rel_to_abs, self.abs_to_rel, self.card_points

    def describe(self) -> str:
        """The block table of this ruleset with its exact offsets."""
        lines = [
            f"observation v{OBS_VERSION} of {self.rules.variant}, "
            f"{self.rules.players} players: {self.size} entries"
        ]
        lines += [f"{b.offset:>5} {b.width:>5}  {b.name:<15} {b.meaning}" for b in self.blocks]
        return "\n".join(lines)


def max_hand_points(rules: Ruleset) -> int:
    """The most points one hand can score under ``rules``."""
    best = max(rules.rank_points.values(), default=0)
    if best == 0:
        return 1
    run = min(rules.chain, rules.hand_size)
    bonus = best if rules.last_two == "bonus" and rules.hand_size >= 2 else 0
    return max(1, run * best + bonus)


def _score_bound(rules: Ruleset) -> float:
    value = rules.end_value or 0
    if rules.end_kind == "target":
        return float(value - 1 + max_hand_points(rules))
    return float(value * max_hand_points(rules))  # hands:K


@lru_cache(maxsize=64)
def layout_for(rules: Ruleset) -> ObservationLayout:
    """The observation layout of a ruleset (cached: rulesets are frozen)."""
    c, n, s, h = rules.num_card_ids, rules.players, rules.num_suits, rules.hand_size
    face_down = rules.face_down != "none"
    exchange = rules.weak_hand_exchange
    end = rules.end_kind
    spec: list[tuple[str, int, int, bool, str]] = [
        ("hand", c, 1, True, "cards I hold"),
        ("played_up", n * c, 1, True, "face-up cards each seat played this hand"),
        ("trick_cards", n * c, 1, True, "card each seat played to this trick"),
        ("my_face_down", c, 1, face_down, "cards I played face down"),
        ("my_discard", c, 1, exchange, "the hand I gave up in the exchange"),
        ("stock_card", c, 1, rules.reveal_stock_bottom, "the stock's bottom card, once turned up"),
        ("to_move", n, 1, True, "seat to act"),
        ("leader", n, 1, True, "seat that led this trick"),
        ("led_suit", s, 1, True, "suit led to this trick"),
        ("winning", n, 1, True, "seat winning this trick so far"),
        ("trick_number", h + 1, 1, True, "tricks played (index H: hand over)"),
        ("trick_winners", h * n, 1, True, "seat that won each trick so far"),
        (
            "trick_points",
            h,
            max(rules.rank_points.values(), default=0) or 1,
            True,
            "scoring points of each trick's winning card",
        ),
        ("dealer", n, 1, True, "seat that dealt this hand"),
        ("down_count", n, h, face_down, "face-down plays of each seat"),
        ("trick_down", n, 1, face_down, "seat played face down to this trick"),
        ("exchanged", n, 1, exchange, "seat exchanged its hand"),
        ("exchange_phase", 1, 1, exchange, "exchange decisions are still being taken"),
        ("stock_left", 1, max(rules.stock_size, 1), exchange, "cards left in the stock"),
        (
            "scores",
            n,
            _score_bound(rules),
            end in ("target", "hands"),
            "session points of each seat",
        ),
        ("hands_left", 1, rules.end_value or 1, end == "hands", "hands still to play"),
        ("stones", n, rules.end_value or 1, end == "stones", "stones each seat holds"),
        ("pool", 1, rules.end_value or 1, end == "stones", "stones left in the pool"),
        ("in_hand", n, 1, end == "stones", "seat is dealt into this hand"),
    ]
    blocks, offset = [], 0
    for name, width, high, present, meaning in spec:
        if present:
            blocks.append(Block(name, offset, width, min(int(high), SCORE_CAP), meaning))
            offset += width
    return ObservationLayout(rules=rules, blocks=tuple(blocks))


@lru_cache(maxsize=64)
def _layout_of(tables: Tables) -> ObservationLayout:
    """The layout for a core's tables (hashed by identity: cheaper than hashing the rules)."""
    return layout_for(tables.rules)
