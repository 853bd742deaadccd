"""Playing cards: follow suit, face-down plays, trick resolution, the stock reveal.

:func:`step` is the one entry point that moves a batch forward; it updates the
state in place. Games whose hand is over ignore their action: deal them a new
hand (:func:`~spar_env.core.deal.next_hand`) or a new session
(:func:`~spar_env.core.deal.start_sessions`) when you choose: the core never
resets a game by itself.
"""

from __future__ import annotations

import numpy as np

from spar_env.core import exchange
from spar_env.core.bits import every, lowest_bit_index, some
from spar_env.core.reveal import reveal_if_due
from spar_env.core.scoring import end_hand
from spar_env.core.state import EXCHANGE, State
from spar_env.core.tables import KEY_SEATS, nth_after, seats_in


def _subset(games: slice | np.ndarray, mask: np.ndarray, batch: int) -> slice | np.ndarray:
    """The games of ``games`` where ``mask`` holds; stays a slice when all do."""
    if isinstance(games, slice) and every(mask):
        return games
    return np.arange(batch)[games][mask]


def step(
    state: State,
    actions: np.ndarray,
    *,
    moving: np.ndarray | None = None,
    check: bool = True,
) -> np.ndarray:
    """Apply one action per game (in place) and return the rewards ``float32 [B, N]``.

    Args:
        state: the batch, changed in place.
        actions: ``int [B]``, the action of each game's ``current_player``
            (card ids, or KEEP/EXCHANGE in the exchange phase). Ignored for
            games whose hand is over, and for games left out of ``moving``.
        moving: optional ``bool [B]``: only these games move; the others wait
            (for example while a learner's turn comes round in some games).
        check: raise ``ValueError`` on an illegal action (naming the game, the
            action and the legal actions). Turn off only for trusted agents.

    Returns:
        The zero-sum payoffs paid by this step; non-zero only in games whose
        hand ended now. The array is ``state.rewards`` and is overwritten by
        the next step.
    """
    b = state.batch_size
    actions = np.asarray(actions)
    if actions.shape != (b,):
        raise ValueError(f"actions must have shape ({b},); got {actions.shape}")
    actions = actions.astype(np.int64, copy=False)
    state.rewards[...] = 0
    live = ~state.terminated if moving is None else moving & ~state.terminated
    games: slice | np.ndarray = slice(None) if every(live) else np.flatnonzero(live)
    a = actions[games]
    if check:
        _check_legal(state, games, a)
    if state.tables.rules.weak_hand_exchange:
        deciding = state.phase[games] == EXCHANGE
        if some(deciding):
            idx = np.arange(b)[games]
            exchange.apply(state, idx[deciding], a[deciding])
            games, a = idx[~deciding], a[~deciding]
    _play(state, games, a)
    return state.rewards


def _check_legal(state: State, games: slice | np.ndarray, a: np.ndarray) -> None:
    num_actions = state.tables.rules.num_actions
    in_range = (a >= 0) & (a < num_actions)
    ok = in_range & (
        (state.legal[games] >> np.where(in_range, a, 0).astype(np.uint64)) & np.uint64(1)
    ).astype(bool)
    if every(ok):
        return
    bad = int(np.flatnonzero(~ok)[0])
    game = int(np.arange(state.batch_size)[games][bad])
    rules = state.tables.rules
    legal_ids = [i for i in range(num_actions) if int(state.legal[game]) >> i & 1]
    raise ValueError(
        f"game {game}: seat {int(state.current_player[game])} cannot play "
        f"{describe_action(rules, int(a[bad]))}; legal: "
        f"{', '.join(describe_action(rules, i) for i in legal_ids)}"
    )


def describe_action(rules, action: int) -> str:
    """A card's name, ``KEEP``/``EXCHANGE``, or the bad number itself."""
    if rules.weak_hand_exchange and action == rules.keep_action:
        return "KEEP"
    if rules.weak_hand_exchange and action == rules.exchange_action:
        return "EXCHANGE"
    if 0 <= action < rules.num_card_ids:
        return rules.card_name(action)
    return f"action {action}"


def _play(state: State, games: slice | np.ndarray, a: np.ndarray) -> None:
    t = state.tables
    rules = t.rules
    seat = state.current_player[games]
    flat = state.row_base[games] + seat
    bit = t.card_bit[a]
    state.hands.reshape(-1)[flat] ^= bit

    suit = t.card_suit[a]
    pos = state.pos[games]
    lead = pos == 0
    # Note: with a slice of games, state arrays indexed by it are views: read before writing.
    old_best = state.best[games]
    if every(lead):  # batches usually move in step: skip the blends
        follows = np.True_
        key = t.card_key[a] + seat
        best = key
        state.led_suit[games] = suit
    else:
        led = state.led_suit[games]
        if some(lead):
            led = np.where(lead, suit, led)
            state.led_suit[games] = led
        follows = suit == led
        # One key orders the cards of a trick: off-suit cards score 0 and never win.
        key = follows * (t.card_key[a] + seat)
        best = np.maximum(old_best, key)
    if rules.face_down != "none":
        down = ~follows if rules.face_down == "off_suit" else key <= old_best
        state.played_down.reshape(-1)[flat] |= bit * down
        state.down_count.reshape(-1)[flat] += down
    state.best[games] = best
    pos += 1
    if not isinstance(games, slice):  # a slice's pos is a view, already updated
        state.pos[games] = pos

    if t.sit_out:  # tie-break hands may leave seats out
        active = state.active[games]
        n_in = seats_in(active)
        next_seat = nth_after(t, active, seat, 0)
    else:
        n_in = t.num_players
        next_seat = t.next_seat[seat]
    state.current_player[games] = next_seat
    done = pos == n_in
    hand_over = some(done) and _end_trick(state, _subset(games, done, state.batch_size))
    _set_legal(state, games, hand_over)


def _end_trick(state: State, games: slice | np.ndarray) -> bool:
    """Close the tricks just completed in ``games``; return whether a hand ended."""
    t = state.tables
    h, b = t.hand_size, state.batch_size
    rows = np.arange(b)[games]
    winner = (state.best[games] - 1) % KEY_SEATS
    flat = state.row_base[games] + winner
    won_with = state.trick_start.reshape(-1)[flat] ^ state.hands.reshape(-1)[flat]
    trick = state.trick[games]
    state.trick_winner.reshape(-1)[rows * h + trick] = winner
    state.trick_card.reshape(-1)[rows * h + trick] = lowest_bit_index(won_with)
    trick += 1
    state.trick[games] = trick
    state.pos[games] = 0
    state.leader[games] = winner
    state.current_player[games] = winner
    state.led_suit[games] = -1
    state.best[games] = 0
    state.trick_start[games] = state.hands[games]
    if t.rules.face_down != "none":
        state.trick_start_down[games] = state.played_down[games]
    reveal_if_due(state, games)
    over = trick == h
    if not some(over):
        return False
    end_hand(state, _subset(games, over, b))
    return True


def _set_legal(state: State, games: slice | np.ndarray, hand_over: bool = True) -> None:
    """Follow suit if you can, else any card. A finished hand's seats hold nothing: no actions.

    ``hand_over``: some of ``games`` may have ended their hand (current player -1).
    """
    t = state.tables
    seat = state.current_player[games]
    if hand_over:
        seat = np.maximum(seat, 0)
    hand = state.hands.reshape(-1)[state.row_base[games] + seat]
    follow = hand & t.suit_bits[state.led_suit[games]]
    state.legal[games] = follow | hand * (follow == 0)
