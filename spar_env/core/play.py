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
from spar_env.core.reveal import reveal_if_due
from spar_env.core.scoring import end_hand
from spar_env.core.state import EXCHANGE, State
from spar_env.core.tables import NO_CARD


def _subset(games: slice | np.ndarray, mask: np.ndarray, batch: int) -> slice | np.ndarray:
    """The games of ``games`` where ``mask`` holds; stays a slice when all do."""
    if isinstance(games, slice) and mask.all():
        return games
    return np.arange(batch)[games][mask]


def step(state: State, actions: np.ndarray, *, check: bool = True) -> np.ndarray:
    """Apply one action per game (in place) and return the rewards ``float32 [B, N]``.

    Args:
        state: the batch, changed in place.
        actions: ``int [B]``, the action of each game's ``current_player``
            (card ids, or KEEP/EXCHANGE in the exchange phase). Ignored for
            games whose hand is over.
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
    live = ~state.terminated
    games: slice | np.ndarray = slice(None) if live.all() else np.flatnonzero(live)
    a = actions[games]
    if check:
        _check_legal(state, games, a)
    if state.tables.rules.weak_hand_exchange:
        deciding = state.phase[games] == EXCHANGE
        if deciding.any():
            idx = np.arange(b)[games]
            exchange.apply(state, idx[deciding], a[deciding])
            games, a = idx[~deciding], a[~deciding]
    _play(state, games, a)
    return state.rewards


def _check_legal(state: State, games: slice | np.ndarray, a: np.ndarray) -> None:
    num_actions = state.tables.rules.num_actions
    in_range = (a >= 0) & (a < num_actions)
    ok = in_range & ((state.legal[games] >> np.where(in_range, a, 0).astype(np.uint64)) & np.uint64(1)).astype(bool)
    if ok.all():
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
    n, b = t.num_players, state.batch_size
    rules = t.rules
    seat = state.current_player[games]
    flat = np.arange(b)[games] * n + seat
    bit = t.card_bit[a]
    hands = state.hands.reshape(-1)
    hands[flat] ^= bit

    suit = t.card_suit[a]
    pos = state.pos[games]
    led = np.where(pos == 0, suit, state.led_suit[games])
    follows = suit == led
    beats = follows & (t.card_strength[a] > state.best_strength[games])
    if rules.face_down == "none":
        state.played_up.reshape(-1)[flat] |= bit
    else:
        down = ~follows if rules.face_down == "off_suit" else ~beats
        zero = np.uint64(0)
        state.played_up.reshape(-1)[flat] |= np.where(down, zero, bit)
        state.played_down.reshape(-1)[flat] |= np.where(down, bit, zero)
        state.down_count.reshape(-1)[flat] += down
        state.trick_down.reshape(-1)[flat] = down
    state.trick_cards.reshape(-1)[flat] = a
    state.best_strength[games] = np.where(beats, t.card_strength[a], state.best_strength[games])
    state.best_seat[games] = np.where(beats, seat, state.best_seat[games])
    state.led_suit[games] = led
    pos = pos + 1
    state.pos[games] = pos

    active = state.active[games]
    if rules.end_kind == "stones":  # tie-break hands may leave seats out
        seats_in = t.num_active[active]
        next_seat = t.after[active, seat, 0]
    else:
        seats_in = n
        next_seat = t.after[t.all_active, seat, 0]
    state.current_player[games] = next_seat
    done = pos == seats_in
    if done.any():
        _end_trick(state, _subset(games, done, b))
    _set_legal(state, games)


def _end_trick(state: State, games: slice | np.ndarray) -> None:
    t = state.tables
    h, n, b = t.hand_size, t.num_players, state.batch_size
    rows = np.arange(b)[games]
    winner = state.best_seat[games]
    trick = state.trick[games]
    state.trick_winner.reshape(-1)[rows * h + trick] = winner
    state.trick_card.reshape(-1)[rows * h + trick] = state.trick_cards.reshape(-1)[rows * n + winner]
    trick = trick + 1
    state.trick[games] = trick
    state.pos[games] = 0
    state.leader[games] = winner
    state.current_player[games] = winner
    state.led_suit[games] = -1
    state.best_seat[games] = -1
    state.best_strength[games] = -1
    state.trick_cards[games] = NO_CARD
    state.trick_down[games] = False
    reveal_if_due(state, games)
    over = trick == h
    if over.any():
        end_hand(state, _subset(games, over, b))


def _set_legal(state: State, games: slice | np.ndarray) -> None:
    """Follow suit if you can, else any card; nothing once the hand is over."""
    t = state.tables
    n, b = t.num_players, state.batch_size
    seat = np.maximum(state.current_player[games], 0)
    hand = state.hands.reshape(-1)[np.arange(b)[games] * n + seat]
    follow = hand & t.suit_bits[state.led_suit[games]]
    legal = np.where(follow == 0, hand, follow)
    state.legal[games] = np.where(state.terminated[games], np.uint64(0), legal)
