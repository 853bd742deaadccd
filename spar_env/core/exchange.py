"""The weak-hand exchange: decisions taken after the deal and before trick 1.

Every seat is asked in turn from the leader, while the stock still holds a
whole hand. A weak hand (none of 10, J, Q, K, A) may ``KEEP`` or
``EXCHANGE`` (``rules.keep_action`` / ``rules.exchange_action``); a strong
hand may only keep. Asking every seat, strong or weak, is what keeps the turn
order from telling the table whose hand is weak: only an exchange is public.
An exchange sets the hand aside face down and takes H cards from the top of
the stock. Once the stock holds less than a hand (a public fact), nobody is
asked any more.
"""

from __future__ import annotations

import numpy as np

from spar_env.core.reveal import reveal_if_due
from spar_env.core.state import EXCHANGE, PLAY, State
from spar_env.core.tables import nth_after, seats_in


def advance(state: State, games: np.ndarray) -> None:
    """Move ``games`` (in the exchange phase) to the next seat to ask, or to play."""
    t = state.tables
    h = t.hand_size
    games = games[state.phase[games] == EXCHANGE]
    if games.size == 0:
        return
    deck_size = state.deck.shape[1]
    active, dealer = state.active[games], state.dealer[games]
    turn = state.exchange_turn[games]
    room = deck_size - state.stock_top[games] >= h
    n_in = seats_in(active)
    found = room & (turn < n_in)
    asked, done = games[found], games[~found]
    seat = nth_after(t, active[found], dealer[found], turn[found])
    state.current_player[asked] = seat
    weak = (state.hands[asked, seat] & t.high_bits) == 0
    keep = t.card_bit[t.rules.keep_action]
    state.legal[asked] = keep | t.card_bit[t.rules.exchange_action] * weak
    if done.size:
        state.phase[done] = PLAY
        leaders = state.leader[done]
        state.current_player[done] = leaders
        state.legal[done] = state.hands[done, leaders]
        reveal_if_due(state, done)


def apply(state: State, games: np.ndarray, actions: np.ndarray) -> None:
    """Apply KEEP / EXCHANGE ``actions`` of the seats to move in ``games``, then advance."""
    t = state.tables
    h = t.hand_size
    seat = state.current_player[games]
    swap = actions == t.rules.exchange_action
    g, s = games[swap], seat[swap]
    if g.size:
        top = state.stock_top[g]
        cards = state.deck[g[:, None], top[:, None] + np.arange(h)]
        state.discarded[g, s] = state.hands[g, s]
        state.hands[g, s] = np.bitwise_or.reduce(t.card_bit[cards], axis=1)
        state.exchanged[g, s] = True
        # The new hand is the one trick 1 starts from (the views of played cards read it).
        state.held[g, s] = state.hands[g, s]
        state.trick_start[g, s] = state.hands[g, s]
        state.stock_top[g] = top + h
    state.exchange_turn[games] += 1
    advance(state, games)
