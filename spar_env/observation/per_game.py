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

import numpy as np
from numba import njit

from spar_env.core import EXCHANGE, State
from spar_env.core.bits import lowest_of
from spar_env.core.tables import KEY_SEATS
from spar_env.observation.per_game_layout import (
    _BLOCK_NAMES,
    OBS_VERSION,
    SCORE_CAP,
    Block,
    ObservationLayout,
    _layout_of,
    layout_for,
    max_hand_points,
)

__all__ = [
    "OBS_VERSION",
    "SCORE_CAP",
    "Block",
    "Encoder",
    "ObservationLayout",
    "encode",
    "layout_for",
    "max_hand_points",
]


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
