"""The rules of a hand, compiled with Numba: one game at a time, over the batch's arrays.

This module is the core's one copy of the rules (docs/rules.md). Its two
entry points loop over the games of a batch and change the state's arrays in
place; :func:`spar_env.core.step` and :func:`spar_env.core.deal.deal` check
their input and call them. A game's logic is plain scalar code, so a batch of
one costs one compiled call instead of dozens of NumPy calls, and a large
batch makes one pass over its games instead of one pass per array operation.

- **Deal** (:func:`deal_games`): the k-th seat of ``active`` after the dealer
  takes the deck positions ``deal_positions[m][k]``; trick 1 is led by the
  seat after the dealer.
- **The weak-hand exchange** (:func:`_ask_next`, :func:`_exchange`): every
  seat is asked in turn from the leader while the stock still holds a whole
  hand. A weak hand (none of 10, J, Q, K, A) may ``KEEP`` or ``EXCHANGE``; a
  strong hand may only keep, so the turn order does not tell whose hand is
  weak. An exchange sets the hand aside face down and takes H cards from the
  top of the stock.
- **Play** (in :func:`step_games`): follow suit if you can, else any card. One key
  ``KEY_SEATS * strength + seat + 1`` orders a trick's cards (off-suit cards
  score 0 and never win) and names the seat winning so far. Face down:
  off-suit cards (``off_suit``) or cards that do not take the lead
  (``non_winning``).
- **The stock reveal** (:func:`_reveal_if_due`): at the start of trick H-1
  the stock's bottom card is turned up, if the option is on.
- **Scoring** (:func:`_end_hand`): W won the last trick. Walk back from
  the last trick over at most ``rules.chain`` tricks while W won each with a
  scoring rank; the hand scores the sum of their points, or 1 if the last
  trick was not won with a scoring rank. Under ``last_two: bonus`` a run over
  the whole chain adds the last trick's points again (6+3 = 9 for two sixes).
  Payoffs are stakes (every seat in pays the winner) or points.
- **The session** (:func:`_end_hand` too): ``target:T``, ``hands:K``,
  ``stones:K`` (take stones from the pool; once it is empty, most stones
  wins, and tied seats play tie-break hands) or ``one_hand``.

Numba caches the compiled code on disk (``cache=True``), stamped by
:mod:`spar_env.core.compile_cache` with the sources of every compiled module
and what they import from, so an edit to a helper of another module (the bit
helpers of :mod:`spar_env.core.bits`, or :func:`nth_seat_after`, compiled
into :mod:`spar_agents.knowledge` too) is compiled in on the next call.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from spar_env.core.bits import bit_of, count_of, lowest_of
from spar_env.core.state import EXCHANGE, OVER, PLAY
from spar_env.core.tables import (
    BONUS,
    CHAIN,
    DECK,
    END,
    END_HANDS,
    END_ONE_HAND,
    END_OPEN,
    END_STONES,
    END_TARGET,
    END_VALUE,
    EXCHANGE_ON,
    FACE_DOWN,
    HAND,
    HIGH,
    KEEP,
    KEY_SEATS,
    NO_CARD,
    OFF_SUIT,
    PLAYERS,
    REVEAL,
    SIGN,
    SIT_OUT,
    STAKES,
    SWAP,
)


@njit(cache=True)
def step_games(s, actions, moving, everyone, check):
    """Apply ``actions`` in the live games (in place). Returns -1, or the first bad game.

    ``moving`` is read only when ``everyone`` is false. Before any game moves,
    every action must be an action id, and with ``check`` a legal one.

    A card play is written out here rather than in a function of its own: a
    call that passes arrays costs more than the play itself (reference counts),
    so only the rarer events (a hand's end, an exchange decision) are calls.
    """
    s.rewards.fill(0)
    b, n, num_actions = actions.shape[0], s.code[PLAYERS], s.card_bit.shape[0]
    for g in range(b):  # every action is a valid index, even unchecked ones
        a = actions[g]
        bad = not 0 <= a < num_actions or (check and (s.legal[g] & s.card_bit[a]) == 0)
        if bad and not s.terminated[g] and (everyone or moving[g]):
            return g
    face_down, sit_out = s.code[FACE_DOWN], s.code[SIT_OUT]
    for g in range(b):
        if s.terminated[g] or not (everyone or moving[g]):
            continue
        a = actions[g]
        if s.code[EXCHANGE_ON] and s.phase[g] == EXCHANGE:
            _exchange(s, g, a)
            continue
        # Seat current_player plays card a.
        seat = s.current_player[g]
        bit = s.card_bit[a]
        s.hands[g, seat] ^= bit
        suit = s.card_suit[a]
        old_best = s.best[g]
        if s.pos[g] == 0:
            s.led_suit[g] = suit
            follows = True
        else:
            follows = suit == s.led_suit[g]
        key = s.card_key[a] + seat if follows else 0  # off-suit cards never win
        if face_down and (not follows if face_down == OFF_SUIT else key <= old_best):
            s.played_down[g, seat] |= bit
            s.down_count[g, seat] += 1
        s.best[g] = max(old_best, key)
        s.pos[g] += 1
        seats = s.active[g]
        s.current_player[g] = nth_seat_after(n, s.code[SIGN], seats, seat, 0)
        if s.pos[g] == (count_of(np.uint64(seats)) if sit_out else n):
            # The trick is complete: its winner leads the next one.
            winner = (s.best[g] - 1) % KEY_SEATS
            trick = s.trick[g]
            s.trick_winner[g, trick] = winner
            s.trick_card[g, trick] = lowest_of(s.trick_start[g, winner] ^ s.hands[g, winner])
            s.trick[g] = trick + 1
            s.pos[g] = 0
            s.leader[g] = winner
            s.current_player[g] = winner
            s.led_suit[g] = -1
            s.best[g] = 0
            for other in range(n):
                s.trick_start[g, other] = s.hands[g, other]
                s.trick_start_down[g, other] = s.played_down[g, other]
            if s.code[REVEAL]:
                _reveal_if_due(s, g)
            if trick + 1 == s.code[HAND]:
                _end_hand(s, g)
        if not s.terminated[g]:  # follow suit if you can, else any card
            hand = s.hands[g, s.current_player[g]]
            follow = hand & s.suit_bits[s.led_suit[g]]
            s.legal[g] = follow if follow else hand
    return -1


@njit(cache=True)
def deal_games(s, rows, decks, dealers, active, new_session):
    """Deal ``decks[i]`` in game ``rows[i]`` (dealer ``dealers[i]``, seats ``active[i]``).

    Returns -1, or the first ``i`` whose dealer is no seat or whose deck holds a card id
    off the grid (nothing dealt then).
    """
    n, h = s.code[PLAYERS], s.code[HAND]
    for i in range(rows.shape[0]):
        if not 0 <= dealers[i] < n:
            return i
        for j in range(decks.shape[1]):
            if not 0 <= decks[i, j] < s.card_suit.shape[0]:
                return i
    for i in range(rows.shape[0]):
        g = rows[i]
        if new_session:
            for seat in range(n):
                s.scores[g, seat] = 0
                s.stones[g, seat] = 0
            s.pool[g] = s.code[END_VALUE] if s.code[END] == END_STONES else 0
            s.hands_played[g] = 0
            s.session_over[g] = False
            s.session_winner[g] = -1
        dealer, seats = dealers[i], active[i]
        m = count_of(np.uint64(seats))
        for j in range(decks.shape[1]):
            s.deck[g, j] = decks[i, j]
        s.dealer[g] = dealer
        s.active[g] = seats
        s.stock_top[g] = m * h
        for seat in range(n):
            s.hands[g, seat] = 0
        for k in range(m):
            seat = nth_seat_after(n, s.code[SIGN], seats, dealer, k)
            hand = np.uint64(0)
            for j in range(h):
                hand |= s.card_bit[decks[i, s.deal_at[m, k, j]]]
            s.hands[g, seat] = hand
        for seat in range(n):
            s.dealt[g, seat] = s.hands[g, seat]
            s.held[g, seat] = s.hands[g, seat]  # trick 1 starts from these hands
            s.trick_start[g, seat] = s.hands[g, seat]
            s.played_down[g, seat] = 0
            s.trick_start_down[g, seat] = 0
            s.discarded[g, seat] = 0
            s.down_count[g, seat] = 0
            s.exchanged[g, seat] = False
            s.rewards[g, seat] = 0
        for trick in range(h):
            s.trick_winner[g, trick] = -1
            s.trick_card[g, trick] = NO_CARD
        leader = nth_seat_after(n, s.code[SIGN], seats, dealer, 0)
        s.exchange_turn[g] = 0
        s.revealed[g] = NO_CARD
        s.trick[g] = 0
        s.pos[g] = 0
        s.leader[g] = leader
        s.led_suit[g] = -1
        s.best[g] = 0
        s.winner[g] = -1
        s.points[g] = 0
        s.terminated[g] = False
        s.current_player[g] = leader
        if s.code[EXCHANGE_ON]:
            s.phase[g] = EXCHANGE
            _ask_next(s, g)
        else:
            s.phase[g] = PLAY
            s.legal[g] = s.hands[g, leader]
            if s.code[REVEAL]:
                _reveal_if_due(s, g)
    return -1


@njit(cache=True, inline="always")
def nth_seat_after(n, sign, active, seat, k):
    """The ``k``-th seat of ``active`` after ``seat`` in play direction ``sign``, -1 if none.

    ``seat`` itself counts last (``tables.nth_after`` of one game). Scalars only,
    so that it costs nothing in the callers' loops.
    """
    if active == (1 << n) - 1:
        return (seat + sign * (k + 1)) % n if k < n else -1
    count = 0
    for j in range(1, n + 1):
        cand = (seat + sign * j) % n
        if (active >> cand) & 1:
            count += 1
            if count == k + 1:
                return cand
    return -1


@njit(cache=True)
def _ask_next(s, g):
    """Ask the next seat whether to exchange, or start trick 1 when nobody is left to ask."""
    h = s.code[HAND]
    turn, seats = s.exchange_turn[g], s.active[g]
    if s.code[DECK] - s.stock_top[g] >= h and turn < count_of(np.uint64(seats)):
        seat = nth_seat_after(s.code[PLAYERS], s.code[SIGN], seats, s.dealer[g], turn)
        s.current_player[g] = seat
        weak = (s.hands[g, seat] & np.uint64(s.code[HIGH])) == 0
        s.legal[g] = bit_of(s.code[KEEP]) | (bit_of(s.code[SWAP]) if weak else np.uint64(0))
        return
    s.phase[g] = PLAY
    leader = s.leader[g]
    s.current_player[g] = leader
    s.legal[g] = s.hands[g, leader]
    _reveal_if_due(s, g)


@njit(cache=True)
def _exchange(s, g, a):
    """KEEP or EXCHANGE for the seat asked in game ``g``, then ask the next one."""
    if a == s.code[SWAP]:
        h, seat, top = s.code[HAND], s.current_player[g], s.stock_top[g]
        hand = np.uint64(0)
        for j in range(h):
            hand |= s.card_bit[s.deck[g, top + j]]
        s.discarded[g, seat] = s.hands[g, seat]
        s.hands[g, seat] = hand
        s.exchanged[g, seat] = True
        # The new hand is the one trick 1 starts from (the views of played cards read it).
        s.held[g, seat] = hand
        s.trick_start[g, seat] = hand
        s.stock_top[g] = top + h
    s.exchange_turn[g] += 1
    _ask_next(s, g)


@njit(cache=True)
def _reveal_if_due(s, g):
    """Turn up the stock's bottom card when game ``g`` starts trick H-1 (if the option is on)."""
    if s.code[REVEAL] and s.trick[g] == s.code[HAND] - 2:
        size = s.deck.shape[1]
        s.revealed[g] = s.deck[g, size - 1] if s.stock_top[g] < size else NO_CARD


@njit(cache=True)
def _end_hand(s, g):
    """Score the hand that just ended in game ``g``, pay the rewards, update the session."""
    h = s.code[HAND]
    w = np.int64(s.trick_winner[g, h - 1])
    total, run = 0, True  # the points of W's run of final tricks won with scoring ranks
    for k in range(s.code[CHAIN]):
        pts = s.card_points[s.trick_card[g, h - 1 - k]]
        run = run and s.trick_winner[g, h - 1 - k] == w and pts > 0
        if run:
            total += pts
    if s.code[BONUS] and run:
        total += s.card_points[s.trick_card[g, h - 1]]
    pts = total if total > 0 else 1
    seats = s.active[g]
    if s.code[STAKES]:
        for seat in range(s.code[PLAYERS]):
            if (seats >> seat) & 1:
                s.rewards[g, seat] = -pts
        s.rewards[g, w] = pts * (count_of(np.uint64(seats)) - 1)
    else:
        s.rewards[g, w] = pts
    s.winner[g] = w
    s.points[g] = pts
    s.phase[g] = OVER
    s.terminated[g] = True
    s.current_player[g] = -1
    s.legal[g] = 0
    # The session: its score, and whether it ends (and who wins it).
    kind, value = s.code[END], s.code[END_VALUE]
    s.scores[g, w] += pts
    s.hands_played[g] += 1
    if kind == END_OPEN:
        return
    if kind == END_ONE_HAND:
        over, champion = True, w
    elif kind == END_TARGET:
        over, champion = s.scores[g, w] >= value, w
    elif kind == END_HANDS:
        best, unique = _unique_top(s.scores[g])
        over, champion = s.hands_played[g] >= value, best if unique else -1
    else:  # stones: take stones while the pool lasts; then most stones wins
        pool = s.pool[g]
        tie_break = pool == 0  # this hand was a tie-break among the tied seats
        taken = min(pts, pool)
        s.stones[g, w] += taken
        s.pool[g] = pool - taken
        best, unique = _unique_top(s.stones[g])
        over = tie_break or (pool - taken == 0 and unique)
        champion = w if tie_break else best
    s.session_over[g] = over
    s.session_winner[g] = champion if over else -1


@njit(cache=True)
def _unique_top(values):
    """``(argmax, whether the maximum is held by one seat only)``."""
    top = values.max()
    return values.argmax(), (values == top).sum() == 1
