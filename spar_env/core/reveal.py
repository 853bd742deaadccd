"""The stock-bottom reveal: at the start of trick H-1 the stock's bottom card is turned up."""

from __future__ import annotations

import numpy as np

from spar_env.core.bits import some
from spar_env.core.state import State
from spar_env.core.tables import NO_CARD


def reveal_if_due(state: State, games: slice | np.ndarray) -> None:
    """Turn up the stock's bottom card in games that start trick H-1 now (if the option is on)."""
    t = state.tables
    if not t.rules.reveal_stock_bottom:
        return
    due = state.trick[games] == t.hand_size - 2
    if not some(due):
        return
    rows = np.arange(state.batch_size)[games][due]
    has_stock = state.stock_top[rows] < state.deck.shape[1]
    state.revealed[rows] = np.where(has_stock, state.deck[rows, -1], NO_CARD)
