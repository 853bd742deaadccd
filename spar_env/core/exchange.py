"""The weak-hand exchange: decisions taken after the deal and before trick 1.

Seats are asked in turn from the leader. A seat is asked only if its hand is
weak (none of 10, J, Q, K, A) and the stock still holds a whole hand: a seat
with nothing to choose is not asked. Its action is ``KEEP`` or ``EXCHANGE``
(``rules.keep_action`` / ``rules.exchange_action``); an exchange sets the
hand aside face down and takes H cards from the top of the stock.
"""

from __future__ import annotations

import numpy as np

from spar_env.core.reveal import reveal_if_due
from spar_env.core.state import EXCHANGE, PLAY, State
from spar_env.core.tables import nth_after, seats_in


def advance(state: State, games: np.ndarray) -> None:
    """Move ``games`` (in the exchange phase) to the next seat that has a choice, or to play."""
    t = state.tables
    n, h = t.num_players, t.hand_size
    games = games[state.phase[games] == EXCHANGE]
    if games.size == 0:
        return
    deck_size = state.deck.shape[1]
    active, dealer = state.active[games], state.dealer[games]
    turn = state.exchange_turn[games]
    room = deck_size - state.stock_top[games] >= h
    n_in = seats_in(active)
    found = np.zeros(games.size, dtype=bool)
    seat = np.full(games.size, -1, dtype=np.int64)
    for k in range(n):
        cand = nth_after(t, active, dealer, k)
        hand = state.hands[games, np.maximum(cand, 0)]
        weak = (hand & t.high_bits) == 0
        take = ~found & (k >= turn) & (k < n_in) & weak & room
        seat = np.where(take, cand, seat)
        turn = np.where(take, k, turn)
        found |= take
    state.exchange_turn[games] = turn
    asked, done = games[found], games[~found]
    state.current_player[asked] = seat[found]
    keep_or_swap = t.card_bit[t.rules.keep_action] | t.card_bit[t.rules.exchange_action]
    state.legal[asked] = keep_or_swap
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
