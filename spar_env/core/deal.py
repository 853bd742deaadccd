"""Shuffling and dealing: start sessions (:func:`reset`) and hands (:func:`next_hand`).

The deck is shuffled by sorting random keys: each card gets 26 random bits
with its id in the low 6 bits, and one row sort per game orders them. Decks
where two keys tie in their random bits (about 1 in 100,000) are shuffled
again with NumPy's own permutation, so every order stays exactly uniform.
"""

from __future__ import annotations

import numpy as np

from spar_env.core.kernel import deal_games
from spar_env.core.state import PLAY, State
from spar_env.core.tables import NO_CARD, Tables, tables_for
from spar_env.rules import Ruleset

_ID_BITS = np.uint32(6)
_ID_MASK = np.uint32(63)


def shuffle_decks(tables: Tables, batch: int, rng: np.random.Generator) -> np.ndarray:
    """``batch`` uniformly shuffled decks, ``int8 [batch, deck_size]``, top first."""
    size = tables.deck.shape[0]
    words = (batch * size + 1) // 2  # 64-bit draws, two 32-bit keys each
    keys = rng.bit_generator.random_raw(words).view(np.uint32)[: batch * size].reshape(batch, size)
    keys &= ~_ID_MASK
    keys |= tables.deck.astype(np.uint32)
    keys.sort(axis=1)
    decks = (keys & _ID_MASK).astype(np.int8)
    gaps = keys[:, 1:] ^ keys[:, :-1]
    if (gaps <= _ID_MASK).any():  # rare: look for the tied rows only then
        tied = (gaps <= _ID_MASK).any(axis=1)
        decks[tied] = rng.permuted(np.broadcast_to(tables.deck, (int(tied.sum()), size)), axis=1)
    return decks


def _empty_state(tables: Tables, batch: int) -> State:
    n, h, b = tables.num_players, tables.hand_size, batch
    i64 = lambda fill=0: np.full(b, fill, dtype=np.int64)  # noqa: E731
    u64n = lambda: np.zeros((b, n), dtype=np.uint64)  # noqa: E731
    return State(
        tables=tables,
        current_player=i64(-1),
        legal=np.zeros(b, dtype=np.uint64),
        rewards=np.zeros((b, n), dtype=np.float32),
        terminated=np.zeros(b, dtype=bool),
        phase=i64(PLAY),
        dealer=i64(),
        active=i64(tables.all_active),
        deck=np.zeros((b, tables.deck.shape[0]), dtype=np.int8),
        stock_top=i64(),
        hands=u64n(),
        dealt=u64n(),
        held=u64n(),
        played_down=u64n(),
        down_count=np.zeros((b, n), dtype=np.int64),
        exchanged=np.zeros((b, n), dtype=bool),
        discarded=u64n(),
        exchange_turn=i64(),
        revealed=i64(NO_CARD),
        trick=i64(),
        pos=i64(),
        leader=i64(),
        led_suit=i64(-1),
        best=i64(),
        trick_start=u64n(),
        trick_start_down=u64n(),
        trick_winner=np.full((b, h), -1, dtype=np.int8),
        trick_card=np.full((b, h), NO_CARD, dtype=np.int8),
        winner=i64(-1),
        points=i64(),
        scores=np.zeros((b, n), dtype=np.int64),
        stones=np.zeros((b, n), dtype=np.int64),
        pool=i64(),
        hands_played=i64(),
        session_over=np.zeros(b, dtype=bool),
        session_winner=i64(-1),
    )


def reset(
    rules: Ruleset,
    batch: int,
    rng: np.random.Generator,
    *,
    decks: np.ndarray | None = None,
    dealers: np.ndarray | None = None,
) -> State:
    """A new batch of sessions, each at the start of its first hand.

    Args:
        rules: the ruleset every game follows.
        batch: number of games.
        rng: the only source of randomness (dealers, then decks).
        decks: optional ``[batch, deck_size]`` deck orders (top first) to deal
            instead of shuffling; used to replay records.
        dealers: optional first dealers; by default ``rules.first_dealer`` or
            drawn from ``rng``.
    """
    if batch < 1:
        raise ValueError(f"batch must be at least 1; got {batch}")
    tables = tables_for(rules)
    state = _empty_state(tables, batch)
    start_sessions(state, slice(None), rng, decks=decks, dealers=dealers)
    return state


def start_sessions(
    state: State,
    games: slice | np.ndarray,
    rng: np.random.Generator,
    *,
    decks: np.ndarray | None = None,
    dealers: np.ndarray | None = None,
) -> None:
    """Start a new session (scores cleared) in ``games``, in place: the per-game auto-reset."""
    t = state.tables
    count = len(state.dealer[games])
    if dealers is None:
        fixed = t.rules.first_dealer
        dealers = (
            np.full(count, fixed, dtype=np.int64)
            if fixed is not None
            else rng.integers(0, t.num_players, count)
        )
    if decks is None:
        decks = shuffle_decks(t, count, rng)
    deal(state, games, decks, dealers, t.all_active, new_session=True)


def next_hand(
    state: State,
    games: slice | np.ndarray,
    rng: np.random.Generator,
    *,
    decks: np.ndarray | None = None,
    dealers: np.ndarray | None = None,
) -> None:
    """Deal the next hand of the session in ``games`` (in place): the winner deals.

    In a ``stones`` session whose pool is empty, only the seats tied for most
    stones are dealt in (the tie-break hands). ``decks`` may give the deck
    orders (``[games, deck_size]``, top first) instead of shuffling with ``rng``;
    ``dealers`` may give the seats that deal instead of the winners (a duplicate
    board names its own dealer).
    """
    t = state.tables
    idx = np.arange(state.batch_size)[games]
    if state.session_over[idx].any():
        raise ValueError("next_hand: some of these games' sessions are over; start new sessions")
    if (state.winner[idx] < 0).any():
        raise ValueError("next_hand: some of these games' hands are still running")
    active = np.full(idx.shape[0], t.all_active, dtype=np.int64)
    if t.rules.end_kind == "stones":
        tied = state.stones[idx] == state.stones[idx].max(axis=1, keepdims=True)
        weights = np.left_shift(1, np.arange(t.num_players))
        tie_active = (tied * weights).sum(axis=1)
        active = np.where(state.pool[idx] == 0, tie_active, active)
    if decks is None:
        decks = shuffle_decks(t, idx.shape[0], rng)
    deal(state, idx, decks, state.winner[idx].copy() if dealers is None else dealers, active)


def deal(
    state: State,
    games: slice | np.ndarray,
    decks: np.ndarray,
    dealers: np.ndarray,
    active: int | np.ndarray,
    *,
    new_session: bool = False,
) -> None:
    """Deal ``decks`` to the ``active`` seats of ``games`` and set up trick 1 (in place).

    With ``new_session`` the session's scores, stones and hand count start afresh too.
    """
    t = state.tables
    n = t.num_players
    rows = np.arange(state.batch_size, dtype=np.int64)[games]
    count = rows.shape[0]
    decks = np.ascontiguousarray(decks, dtype=np.int8)
    if decks.shape != (count, t.deck.shape[0]):
        raise ValueError(f"decks must have shape [games, {t.deck.shape[0]}]; got {decks.shape}")
    dealers = np.ascontiguousarray(dealers, dtype=np.int64).reshape(count)
    if isinstance(active, int | np.integer):
        active = np.full(count, active, dtype=np.int64)
    active = np.ascontiguousarray(active, dtype=np.int64).reshape(count)
    bad = deal_games(state.compiled, rows, decks, dealers, active, new_session)
    if bad >= 0 and not 0 <= dealers[bad] < n:
        raise ValueError(f"dealers must be seats 0..{n - 1}; got {dealers[bad]}")
    if bad >= 0:
        raise ValueError(f"deck {bad} holds a card id outside 0..{t.num_cards - 1}")


def deck_for_hands(
    tables: Tables,
    hands: list[list[int]],
    dealer: int,
    stock: list[int] | None = None,
) -> np.ndarray:
    """The deck order (top first) that deals ``hands`` (by seat) when ``dealer`` deals.

    The inverse of dealing, used to replay records and script hands. ``stock``
    gives the undealt cards top first; by default they follow in id order.

    Raises:
        ValueError: if a card is unknown or repeated, or a count is wrong.
    """
    n, h = tables.num_players, tables.hand_size
    if len(hands) != n:
        raise ValueError(f"expected {n} hands, one per seat; got {len(hands)}")
    order = tables.order[dealer]
    positions = tables.deal_positions[n]
    size = tables.deck.shape[0]
    deck = np.full(size, NO_CARD, dtype=np.int64)
    for k, seat in enumerate(order):
        if len(hands[seat]) != h:
            raise ValueError(f"seat {seat} was dealt {len(hands[seat])} cards; expected {h}")
        deck[positions[k]] = hands[seat]
    dealt = [c for hand in hands for c in hand]
    rest = sorted(set(tables.deck.tolist()) - set(dealt)) if stock is None else list(stock)
    deck[n * h :] = rest if len(rest) == size - n * h else -2
    in_deck = set(tables.deck.tolist())
    seen: set[int] = set()
    for c in deck.tolist():
        if c == -2:
            raise ValueError(f"the stock must hold {size - n * h} cards; got {len(rest)}")
        if c not in in_deck:
            raise ValueError(f"card id {c} is not in the {tables.rules.variant} deck")
        if c in seen:
            raise ValueError(f"card {tables.rules.card_name(c)} is dealt twice")
        seen.add(c)
    return deck.astype(np.int8)
