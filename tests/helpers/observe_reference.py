"""A vectorised NumPy encoder of the observation, the reference for the compiled one.

This was :class:`spar_env.observation.per_game.Encoder` before the encoder was compiled with
Numba: dozens of array operations over a batch, each block written from whole
columns. It reads the state through its fields and views only, as the layout
(:mod:`spar_env.observation.per_game`) describes them, so ``tests/test_observe.py`` checks
the compiled encoder against it on many random states of every option.
"""

from __future__ import annotations

import numpy as np

from spar_env.core import EXCHANGE, State
from spar_env.observation.per_game import SCORE_CAP, ObservationLayout


def reference_encode(
    layout: ObservationLayout, state: State, seats: np.ndarray | int
) -> np.ndarray:
    """The observations ``uint8 [B, D]`` of ``seats`` (one per game, or one for all)."""
    lay = layout
    n, c, h = lay.rules.players, lay.rules.num_card_ids, lay.rules.hand_size
    at = lay.offsets
    g = state.batch_size
    obs = np.asarray(seats, dtype=np.int64)
    if obs.shape != (g,):
        obs = np.full(g, obs, dtype=np.int64)
    rel = lay.rel_to_abs[obs]  # [G, N] absolute seat of relative seat k
    every_game = np.arange(g)
    column = every_game[:, None]

    def per_seat(field: np.ndarray) -> np.ndarray:
        return field[column, rel]

    def own(field: np.ndarray) -> np.ndarray:
        return field[every_game, obs]

    # Card-set rows (each C wide) at the start of the vector; a card's bit, 0 for "no card".
    card_set_count = sum(
        n if b.name in ("played_up", "trick_cards") else 1
        for b in lay.blocks
        if b.name
        in ("hand", "played_up", "trick_cards", "my_face_down", "my_discard", "stock_card")
    )
    card_bit_or_none = np.zeros(c + 1, dtype=np.uint64)
    card_bit_or_none[:c] = np.left_shift(np.uint64(1), np.arange(c, dtype=np.uint64))
    winner_columns = at["trick_winners"] + np.arange(h) * n
    out = np.zeros((g, lay.size), dtype=np.uint8)
    sets = np.empty((g, card_set_count), dtype=np.uint64)
    cols = np.empty((g, 6 + h), dtype=np.int64)
    a2r = lay.abs_to_rel[obs]  # [G, N + 1]; column N (index -1) is -1
    seat_blocks = (
        ("to_move", state.current_player),
        ("leader", state.leader),
        ("winning", state.best_seat),
        ("dealer", state.dealer),
    )
    for j, (name, seat) in enumerate(seat_blocks):
        r = a2r[every_game, seat]
        cols[:, j] = np.where(r >= 0, at[name] + r, 0)
    led = state.led_suit
    cols[:, 4] = np.where(led >= 0, at["led_suit"] + led, 0)
    cols[:, 5] = at["trick_number"] + state.trick
    winners = a2r[column, state.trick_winner]
    cols[:, 6:] = np.where(winners >= 0, winner_columns + winners, 0)
    cols += (every_game * lay.size)[:, None]
    out.reshape(-1)[cols] = 1
    out[:, : card_set_count * c] = 0  # "no seat" wrote column 0; the card sets follow

    o = at["trick_points"]
    out[:, o : o + h] = lay.card_points[state.trick_card]
    if lay.face_down:
        o = at["down_count"]
        out[:, o : o + n] = per_seat(state.down_count)
        trick_down = per_seat(state.trick_down)
        out[:, o + n : o + 2 * n] = trick_down
    if lay.exchange:
        o = at["exchanged"]
        out[:, o : o + n] = per_seat(state.exchanged)
        out[:, o + n] = state.phase == EXCHANGE
        out[:, o + n + 1] = state.deck.shape[1] - state.stock_top
    if "scores" in at:
        o = at["scores"]
        out[:, o : o + n] = np.minimum(per_seat(state.scores), SCORE_CAP)
    if "hands_left" in at:
        out[:, at["hands_left"]] = np.minimum(lay.rules.end_value - state.hands_played, SCORE_CAP)
    if "stones" in at:
        o = at["stones"]
        out[:, o : o + n] = np.minimum(per_seat(state.stones), SCORE_CAP)
        out[:, o + n] = np.minimum(state.pool, SCORE_CAP)
        out[:, o + n + 1 : o + 2 * n + 1] = (state.active[:, None] >> rel) & 1

    sets[:, 0] = own(state.hands)
    sets[:, 1 : 1 + n] = per_seat(state.played_up)
    trick_bits = card_bit_or_none[per_seat(state.trick_cards)]
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
        sets[:, k] = card_bit_or_none[state.revealed]
    cards = np.unpackbits(
        sets.astype("<u8").view(np.uint8).reshape(g, -1, 8), axis=2, bitorder="little"
    )[:, :, :c]
    out[:, : card_set_count * c] |= cards.reshape(g, -1)
    return out
