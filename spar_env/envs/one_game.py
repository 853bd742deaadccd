"""The observation of one seat in one game, encoded with Python integers.

The AEC env observes one game, one seat at a time. For a single game, the
dozens of NumPy calls of :class:`spar_env.observe.Encoder` cost far more than
the encoding itself, so this module fills the same vector (same
:class:`~spar_env.observe.ObservationLayout`, same values) from the game's
fields read once as Python integers. ``tests/test_observe.py`` checks that
both encoders agree on thousands of random states of every preset and option.
"""

from __future__ import annotations

import numpy as np

from spar_env.core import EXCHANGE, State
from spar_env.observe import SCORE_CAP, ObservationLayout


def _add_cards(hot: list[int], bits: int, base: int) -> None:
    """Append ``base + c`` for every card ``c`` of the bit set ``bits``."""
    while bits:
        low = bits & -bits
        hot.append(base + low.bit_length() - 1)
        bits ^= low


class OneGameEncoder:
    """Encodes the observation of one seat of one game of a batch (``uint8 [D]``)."""

    def __init__(self, layout: ObservationLayout) -> None:
        rules = layout.rules
        self.layout = layout
        n = rules.players
        self._rel = layout.rel_to_abs.tolist()  # [o][k] absolute seat of relative seat k
        self._a2r = layout.abs_to_rel.tolist()  # [o][s] relative seat of s; [o][-1] = -1
        self._points = layout.card_points.tolist()
        self._at = layout.offsets
        self._n, self._c, self._h = n, rules.num_card_ids, rules.hand_size
        self._winner_columns = layout.winner_columns.tolist()

    def encode(self, state: State, game: int, seat: int) -> np.ndarray:
        """The observation of ``seat`` in ``game``; equal to ``encode(state, seat, [game])[0]``."""
        lay, at, n, c, h = self.layout, self._at, self._n, self._c, self._h
        if not 0 <= seat < n:
            raise ValueError(f"seats must be 0..{n - 1}; got {seat}")
        rel, a2r = self._rel[seat], self._a2r[seat]
        hot: list[int] = []

        def one_hot(name: str, who: int) -> None:
            r = a2r[who]
            if r >= 0:
                hot.append(at[name] + r)

        one_hot("to_move", int(state.current_player[game]))
        one_hot("leader", int(state.leader[game]))
        one_hot("winning", int(state.best_seat[game]))
        one_hot("dealer", int(state.dealer[game]))
        led = int(state.led_suit[game])
        if led >= 0:
            hot.append(at["led_suit"] + led)
        hot.append(at["trick_number"] + int(state.trick[game]))
        for column, winner in zip(
            self._winner_columns, state.trick_winner[game].tolist(), strict=True
        ):
            if winner >= 0:
                hot.append(column + a2r[winner])

        # Card sets.
        _add_cards(hot, int(state.hands[game, seat]), 0)
        played_up = state.played_up[game].tolist()
        trick_cards = state.trick_cards[game].tolist()
        face_down = lay.face_down
        trick_down = state.trick_down[game].tolist() if face_down else None
        for k, s in enumerate(rel):
            _add_cards(hot, played_up[s], at["played_up"] + k * c)
            card = trick_cards[s]
            if card >= 0 and not (face_down and trick_down[s] and k > 0):
                hot.append(at["trick_cards"] + k * c + card)
        if face_down:
            _add_cards(hot, int(state.played_down[game, seat]), at["my_face_down"])
        if lay.exchange:
            _add_cards(hot, int(state.discarded[game, seat]), at["my_discard"])
        if lay.rules.reveal_stock_bottom and state.revealed[game] >= 0:
            hot.append(at["stock_card"] + int(state.revealed[game]))

        out = np.zeros(lay.size, dtype=np.uint8)
        out[hot] = 1

        # Counts.
        o = at["trick_points"]
        out[o : o + h] = [self._points[x] for x in state.trick_card[game].tolist()]
        if face_down:
            counts = state.down_count[game].tolist()
            o = at["down_count"]
            out[o : o + 2 * n] = [counts[s] for s in rel] + [int(trick_down[s]) for s in rel]
        if lay.exchange:
            exchanged = state.exchanged[game].tolist()
            o = at["exchanged"]
            out[o : o + n] = [int(exchanged[s]) for s in rel]
            out[o + n] = state.phase[game] == EXCHANGE
            out[o + n + 1] = state.deck.shape[1] - int(state.stock_top[game])
        if "scores" in at:
            scores = state.scores[game].tolist()
            out[at["scores"] : at["scores"] + n] = [min(scores[s], SCORE_CAP) for s in rel]
        if "hands_left" in at:
            left = lay.rules.end_value - int(state.hands_played[game])
            out[at["hands_left"]] = min(left, SCORE_CAP)
        if "stones" in at:
            stones, active = state.stones[game].tolist(), int(state.active[game])
            o = at["stones"]
            out[o : o + n] = [min(stones[s], SCORE_CAP) for s in rel]
            out[o + n] = min(int(state.pool[game]), SCORE_CAP)
            out[o + n + 1 : o + 2 * n + 1] = [active >> s & 1 for s in rel]
        return out
