"""What a seat may know: one seat's information state as a flat ``uint8`` vector.

``encode(state, seats)`` gives ``[B, D]``: for each game of a batch, the
observation of one seat (the *observer*). Seats are relative to the observer
in the direction of play: relative seat ``k`` is the ``k``-th seat after the
observer (``k = 0`` is the observer itself), so the vector reads the same in
clockwise and counter-clockwise variants. Hidden cards never enter it: other
seats' hands, their face-down cards, a hand given up in the exchange, and the
stock (except its bottom card once turned up).

Observation version: ``OBS_VERSION = 1``.

Symbols: ``C`` is the size of the card-id grid (suits x ranks; a card left
out of the deck, such as A♠, keeps its column and stays 0), ``N`` the players,
``S`` the suits, ``H`` the hand size. Blocks come in this order; a block whose
"present" condition fails is left out, and each offset is the sum of the
widths of the present blocks above it. A block is present ``always``, or
when ``face_down`` is not ``none``, when ``weak_hand_exchange`` (``exchange``)
or ``reveal_stock_bottom`` (``reveal``) is on, or when the session ends at a
``target:T``, after ``hands:K`` or with ``stones:K``. The last column gives
the offsets for ``spar`` with 4 players (C = 36, N = 4, S = 4, H = 5,
D = 379); ``layout_for(rules).describe()`` prints them for any ruleset.

===============  =====  =============  =====================================================  ====
block            width  present        meaning                                                spar
===============  =====  =============  =====================================================  ====
hand             C      always         cards I hold                                           0
played_up        N*C    always         face-up cards each seat played this hand               36
trick_cards      N*C    always         card each seat played to this trick (face up; my own   180
                                       card even if face down)
my_face_down     C      face_down      cards I played face down                               -
my_discard       C      exchange       the hand I gave up in the exchange                     -
stock_card       C      reveal         the stock's bottom card, once turned up                -
to_move          N      always         seat to act (all 0 once the hand is over)              324
leader           N      always         seat that led this trick                               328
led_suit         S      always         suit led to this trick (all 0 before the lead)         332
winning          N      always         seat winning this trick so far                         336
trick_number     H+1    always         tricks played (one-hot; index H: hand over)            340
trick_winners    H*N    always         seat that won each trick so far (trick-major)          346
trick_points     H      always         scoring points of each trick's winning card            366
dealer           N      always         seat that dealt this hand                              371
down_count       N      face_down      face-down plays of each seat (count)                   -
trick_down       N      face_down      seat played face down to this trick                    -
exchanged        N      exchange       seat exchanged its hand                                -
exchange_phase   1      exchange       exchange decisions are still being taken               -
stock_left       1      exchange       cards left in the stock (count)                        -
scores           N      target, hands  session points of each seat                            375
hands_left       1      hands          hands still to play in the session                     -
stones           N      stones         stones each seat holds                                 -
pool             1      stones         stones left in the pool                                -
in_hand          N      stones         seat is dealt into this hand (tie-breaks)              -
===============  =====  =============  =====================================================  ====

:func:`encode` returns a new array; an :class:`Encoder` keeps its buffers
between calls (the hot path of the vector env). Per-seat blocks of width
``N*C`` or ``H*N`` are seat-major or trick-major (``[k, card]``,
``[trick, k]``). Every entry lies in ``[0, high]`` with
``high`` from :attr:`ObservationLayout.high` (1 for flags, ``H`` for counts,
the most a session score can reach before the session ends, at most
255: counts beyond that are clipped).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property, lru_cache

import numpy as np
from numba import njit

from spar_env.core import EXCHANGE, State, Tables, tables_for
from spar_env.core.bits import lowest_of
from spar_env.core.tables import KEY_SEATS
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


def encode(
    state: State,
    seats: np.ndarray | int,
    games: np.ndarray | None = None,
) -> np.ndarray:
    """The observations of ``seats`` (one observer per game), a new ``uint8 [G, D]`` array.

    Args:
        state: the batch (read only).
        seats: the observer of each game (``int [G]``), or one seat for all.
        games: optional ``int [G]`` indices of the games to encode; all by default.
    """
    return Encoder(_layout_of(state.tables)).encode(state, seats, games, reuse=False)


class Encoder:
    """Encodes observations into a buffer it keeps, for the hot loops of the envs.

    The encoding is compiled (:func:`_encode_games`): one pass over the games
    writes each row, so one game costs one call, and a batch of thousands
    reuses one output buffer (fresh multi-megabyte arrays on every step cost
    page faults that dwarf the encoding itself).
    """

    def __init__(self, layout: ObservationLayout) -> None:
        self.layout = layout
        self._tables = layout.kernel_tables
        self._out = np.empty((0, layout.size), dtype=np.uint8)
        self._rows = np.empty(0, dtype=np.int64)

    def encode(
        self,
        state: State,
        seats: np.ndarray | int,
        games: np.ndarray | None = None,
        *,
        reuse: bool = True,
    ) -> np.ndarray:
        """Observations ``uint8 [G, D]`` of ``seats``; see :func:`encode`.

        With ``reuse`` (the default) the result is a view of the encoder's own
        buffer, overwritten by its next call: copy it to keep it.
        """
        if games is None:
            g = state.batch_size
            if self._rows.shape[0] != g:
                self._rows = np.arange(g, dtype=np.int64)
            rows = self._rows
        else:
            rows = np.asarray(games, dtype=np.int64)
            g = rows.shape[0]
        obs = np.asarray(seats, dtype=np.int64)
        if obs.shape != (g,):
            obs = np.full(g, obs, dtype=np.int64)
        if reuse:
            if self._out.shape[0] < g:
                self._out = np.empty((g, self.layout.size), dtype=np.uint8)
            out = self._out[:g]
        else:
            out = np.empty((g, self.layout.size), dtype=np.uint8)
        bad = _encode_games(state.compiled, *self._tables, rows, obs, out)
        if bad >= g:
            raise IndexError(f"game {rows[bad - g]} is not in a batch of {state.batch_size}")
        if bad >= 0:
            n = self.layout.rules.players
            raise ValueError(f"seats must be 0..{n - 1}; got {obs[bad]}")
        return out


# Extra entries of the kernel's offset table, after one entry per block (-1: absent).
_N, _C, _H, _END_VALUE = range(len(_BLOCK_NAMES), len(_BLOCK_NAMES) + 4)
(_HAND, _PLAYED_UP, _TRICK_CARDS, _MY_FACE_DOWN, _MY_DISCARD, _STOCK_CARD, _TO_MOVE, _LEADER,
 _LED_SUIT, _WINNING, _TRICK_NUMBER, _TRICK_WINNERS, _TRICK_POINTS, _DEALER, _DOWN_COUNT,
 _TRICK_DOWN, _EXCHANGED, _EXCHANGE_PHASE, _STOCK_LEFT, _SCORES, _HANDS_LEFT, _STONES, _POOL,
 _IN_HAND) = range(len(_BLOCK_NAMES))  # fmt: skip


@njit(cache=True)
def _cards(row, base, bits):
    """Set column ``base + c`` for every card ``c`` of the bit set ``bits``."""
    while bits:
        row[base + lowest_of(bits)] = 1
        bits &= bits - np.uint64(1)


@njit(cache=True)
def _encode_games(s, at, rel, a2r, points, games, seats, out):
    """Row ``i`` of ``out``: the observation of seat ``seats[i]`` in game ``games[i]``.

    Returns -1; or the first ``i`` whose seat is out of range, or ``G + i`` for the first
    game out of range (nothing written then).
    """
    n, c, h = at[_N], at[_C], at[_H]
    for i in range(seats.shape[0]):
        if not 0 <= seats[i] < n:
            return i
        if not 0 <= games[i] < s.current_player.shape[0]:
            return games.shape[0] + i
    face_down, size = at[_MY_FACE_DOWN] >= 0, out.shape[1]
    for i in range(games.shape[0]):
        g, me = games[i], seats[i]
        row = out[i]
        for j in range(size):
            row[j] = 0
        _cards(row, at[_HAND], s.hands[g, me])
        if face_down:
            _cards(row, at[_MY_FACE_DOWN], s.played_down[g, me])
        if at[_MY_DISCARD] >= 0:
            _cards(row, at[_MY_DISCARD], s.discarded[g, me])
        if at[_STOCK_CARD] >= 0 and s.revealed[g] >= 0:
            row[at[_STOCK_CARD] + s.revealed[g]] = 1
        for k in range(n):  # the seats in play order from mine: relative seat k
            seat = rel[me, k]
            hand = s.hands[g, seat]
            face_up = (s.held[g, seat] ^ hand) & ~s.played_down[g, seat]
            _cards(row, at[_PLAYED_UP] + k * c, face_up)
            played = s.trick_start[g, seat] ^ hand
            down = s.played_down[g, seat] != s.trick_start_down[g, seat]
            if played and not (face_down and down and k > 0):  # I know my own face-down card
                row[at[_TRICK_CARDS] + k * c + lowest_of(played)] = 1
            if face_down:
                row[at[_DOWN_COUNT] + k] = s.down_count[g, seat]
                row[at[_TRICK_DOWN] + k] = down
            if at[_EXCHANGED] >= 0:
                row[at[_EXCHANGED] + k] = s.exchanged[g, seat]
            if at[_SCORES] >= 0:
                row[at[_SCORES] + k] = min(s.scores[g, seat], SCORE_CAP)
            if at[_STONES] >= 0:
                row[at[_STONES] + k] = min(s.stones[g, seat], SCORE_CAP)
                row[at[_IN_HAND] + k] = (s.active[g] >> seat) & 1
        best = s.best[g]
        for block, who in (
            (_TO_MOVE, s.current_player[g]),
            (_LEADER, s.leader[g]),
            (_WINNING, (best - 1) % KEY_SEATS if best > 0 else -1),
            (_DEALER, s.dealer[g]),
        ):
            if a2r[me, who] >= 0:  # column N (index -1) maps "no seat" to -1
                row[at[block] + a2r[me, who]] = 1
        if s.led_suit[g] >= 0:
            row[at[_LED_SUIT] + s.led_suit[g]] = 1
        row[at[_TRICK_NUMBER] + s.trick[g]] = 1
        for t in range(h):
            winner = s.trick_winner[g, t]
            if winner >= 0:
                row[at[_TRICK_WINNERS] + t * n + a2r[me, winner]] = 1
            row[at[_TRICK_POINTS] + t] = points[s.trick_card[g, t]]  # no card: index -1, 0
        if at[_EXCHANGED] >= 0:
            row[at[_EXCHANGE_PHASE]] = s.phase[g] == EXCHANGE
            row[at[_STOCK_LEFT]] = s.deck.shape[1] - s.stock_top[g]
        if at[_HANDS_LEFT] >= 0:
            row[at[_HANDS_LEFT]] = min(at[_END_VALUE] - s.hands_played[g], SCORE_CAP)
        if at[_POOL] >= 0:
            row[at[_POOL]] = min(s.pool[g], SCORE_CAP)
    return -1
