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

from spar_env.core import EXCHANGE, State, Tables, tables_for
from spar_env.rules import Ruleset

OBS_VERSION = 1

SCORE_CAP = 255  # scores, stones and hand counts are clipped here to fit in uint8
_CARD_SET_BLOCKS = ("hand", "played_up", "trick_cards", "my_face_down", "my_discard", "stock_card")


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

    @property
    def card_bytes(self) -> int:
        """Bytes of a uint64 card set that hold card bits."""
        return (self.rules.num_card_ids + 7) // 8

    @cached_property
    def winner_columns(self) -> np.ndarray:
        """``int64 [H]``: column of relative seat 0 in each trick's ``trick_winners`` row."""
        n, h = self.rules.players, self.rules.hand_size
        return self.offsets["trick_winners"] + np.arange(h) * n

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
    def card_set_count(self) -> int:
        """Number of card-set rows (each ``C`` wide) at the start of the vector."""
        n = self.rules.players
        return sum(
            n if b.name in ("played_up", "trick_cards") else 1
            for b in self.blocks
            if b.name in _CARD_SET_BLOCKS
        )

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
    def card_bit_or_none(self) -> np.ndarray:
        """``uint64 [C + 1]``: the bit of each card id; index ``-1`` (no card) gives 0."""
        c = self.rules.num_card_ids
        out = np.zeros(c + 1, dtype=np.uint64)
        out[:c] = np.left_shift(np.uint64(1), np.arange(c, dtype=np.uint64))
        return out

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
    """Encodes observations into buffers it keeps, for the hot loops of batched envs.

    Fresh multi-megabyte arrays on every step cost page faults that dwarf the
    encoding itself at batch sizes in the thousands, so an encoder keeps its
    output and scratch buffers and grows them on demand.
    """

    def __init__(self, layout: ObservationLayout) -> None:
        self.layout = layout
        self._capacity = 0

    def _buffers(self, g: int) -> None:
        if g <= self._capacity:
            return
        lay = self.layout
        self._capacity = g
        self._out = np.empty((g, lay.size), dtype=np.uint8)
        self._sets = np.empty((g, lay.card_set_count), dtype=np.uint64)
        self._cols = np.empty((g, 6 + lay.rules.hand_size), dtype=np.int64)
        self._byte_index = np.empty((g, lay.card_set_count, lay.card_bytes), dtype=np.intp)
        self._bits = np.empty((g, lay.card_set_count, lay.card_bytes), dtype=np.uint64)

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
        lay = self.layout
        n, c, h = lay.rules.players, lay.rules.num_card_ids, lay.rules.hand_size
        at = lay.offsets
        g = state.batch_size if games is None else len(games)
        rows = None if games is None else np.asarray(games, dtype=np.int64)

        def per_game(field: np.ndarray) -> np.ndarray:
            return field if rows is None else field[rows]

        obs = np.asarray(seats, dtype=np.int64)
        if obs.shape != (g,):
            obs = np.full(g, obs, dtype=np.int64)
        if obs.min() < 0 or obs.max() >= n:
            raise ValueError(f"seats must be 0..{n - 1}; got {obs[(obs < 0) | (obs >= n)][0]}")
        rel = lay.rel_to_abs[obs]  # [G, N] absolute seat of relative seat k
        every_game = np.arange(g)
        column = every_game[:, None]

        def per_seat(field: np.ndarray) -> np.ndarray:
            """``field [B, N]`` of these games, columns in relative seat order."""
            return per_game(field)[column, rel]

        def own(field: np.ndarray) -> np.ndarray:
            """``field [B, N]`` of these games, the observer's column."""
            return per_game(field)[every_game, obs]

        if reuse:
            self._buffers(g)
            out, sets, cols = self._out[:g], self._sets[:g], self._cols[:g]
        else:
            out = np.empty((g, lay.size), dtype=np.uint8)
            sets = np.empty((g, lay.card_set_count), dtype=np.uint64)
            cols = np.empty((g, 6 + h), dtype=np.int64)
        out[:, lay.card_set_count * c :] = 0

        # One-hot blocks: one column per block and game. "No seat" (-1) maps to relative
        # seat -1, hence to column 0, which the card sets below overwrite.
        a2r = lay.abs_to_rel[obs]  # [G, N + 1]; column N (index -1) is -1
        seat_blocks = (
            ("to_move", state.current_player),
            ("leader", state.leader),
            ("winning", state.best_seat),
            ("dealer", state.dealer),
        )
        for j, (name, seat) in enumerate(seat_blocks):
            r = a2r[every_game, per_game(seat)]
            cols[:, j] = np.where(r >= 0, at[name] + r, 0)
        led = per_game(state.led_suit)
        cols[:, 4] = np.where(led >= 0, at["led_suit"] + led, 0)
        cols[:, 5] = at["trick_number"] + per_game(state.trick)
        winners = a2r[column, per_game(state.trick_winner)]  # -1 -> column N -> -1
        cols[:, 6:] = np.where(winners >= 0, lay.winner_columns + winners, 0)
        cols += (every_game * lay.size)[:, None]
        out.reshape(-1)[cols] = 1  # out is C-contiguous: its rows follow each other

        # Counts and flags.
        o = at["trick_points"]
        out[:, o : o + h] = lay.card_points[per_game(state.trick_card)]
        if lay.face_down:
            o = at["down_count"]
            out[:, o : o + n] = per_seat(state.down_count)
            trick_down = per_seat(state.trick_down)
            out[:, o + n : o + 2 * n] = trick_down
        if lay.exchange:
            o = at["exchanged"]
            out[:, o : o + n] = per_seat(state.exchanged)
            out[:, o + n] = per_game(state.phase) == EXCHANGE
            out[:, o + n + 1] = state.deck.shape[1] - per_game(state.stock_top)
        if "scores" in at:
            o = at["scores"]
            out[:, o : o + n] = np.minimum(per_seat(state.scores), SCORE_CAP)
        if "hands_left" in at:
            left = lay.rules.end_value - per_game(state.hands_played)
            out[:, at["hands_left"]] = np.minimum(left, SCORE_CAP)
        if "stones" in at:
            o = at["stones"]
            out[:, o : o + n] = np.minimum(per_seat(state.stones), SCORE_CAP)
            out[:, o + n] = np.minimum(per_game(state.pool), SCORE_CAP)
            out[:, o + n + 1 : o + 2 * n + 1] = (per_game(state.active)[:, None] >> rel) & 1

        # Card sets as uint64 bit sets, then unpacked into their columns in one go.
        sets[:, 0] = own(state.hands)
        sets[:, 1 : 1 + n] = per_seat(state.played_up)
        trick_bits = lay.card_bit_or_none[per_seat(state.trick_cards)]
        if lay.face_down:
            trick_down[:, 0] = False  # I know my own face-down card
            trick_bits[trick_down] = 0
        sets[:, 1 + n : 1 + 2 * n] = trick_bits
        k = 1 + 2 * n
        if lay.face_down:
            sets[:, k] = own(state.played_down)
            k += 1
        if lay.exchange:
            sets[:, k] = own(state.discarded)
            k += 1
        if lay.rules.reveal_stock_bottom:
            sets[:, k] = lay.card_bit_or_none[per_game(state.revealed)]
        self._unpack(sets, out, reuse)
        return out

    def _unpack(self, sets: np.ndarray, out: np.ndarray, reuse: bool) -> None:
        """Write bit ``i`` of card set ``j`` to column ``j * C + i`` of ``out``."""
        lay = self.layout
        g, k, c = sets.shape[0], lay.card_set_count, lay.rules.num_card_ids
        set_bytes = sets.astype("<u8", copy=False).view(np.uint8).reshape(g, k, 8)
        set_bytes = set_bytes[:, :, : lay.card_bytes]  # the bytes that hold card bits
        if reuse:  # byte -> eight 0/1 bytes via a table, into kept buffers
            index, bits = self._byte_index[:g], self._bits[:g]
            np.copyto(index, set_bytes)
            np.take(_BYTE_BITS, index, out=bits, mode="clip")
            unpacked = bits.view(np.uint8).reshape(g, k, -1)
        else:
            unpacked = np.unpackbits(set_bytes, axis=2, bitorder="little")
        card_rows = (
            out[:, : k * c].reshape(g, k, c)
            if g == 1
            else np.lib.stride_tricks.as_strided(
                out, shape=(g, k, c), strides=(out.strides[0], c, 1), writeable=True
            )
        )  # the first k * C columns of every row, seen as [G, k, C]
        np.copyto(card_rows, unpacked[:, :, :c])


# Eight 0/1 bytes (least significant bit first) of each byte value, packed in a uint64.
_BYTE_BITS = (
    np.unpackbits(np.arange(256, dtype=np.uint8)[:, None], axis=1, bitorder="little")
    .copy()
    .view(np.uint64)[:, 0]
)
