"""Recording hands: play them through the batch core with a policy and write game records.

:func:`record_hands` deals batches of hands, lets a policy choose every action
(uniformly random legal actions by default) and yields one record per hand in
the format of docs/rules.md, "Game records"::

    {"variant": "sipa", "options": {}, "players": 3, "dealer": 1,
     "hands": [["KC", "9C", ...], ...],          # as dealt, sorted: suit, then rank high to low
     "exchanges": [null, ["7D", ...], null],      # only with weak_hand_exchange
     "stock": ["QS", ...],                        # with weak_hand_exchange or reveal_stock_bottom
     "plays": ["KC", ...],
     "face_down": [4, 7],                         # only if the ruleset has face-down plays
     "result": {"winner": 2, "points": 1, "payoffs": [-1, -1, 2]}}

Every hand is the first hand of a fresh session, so its dealer is
``rules.first_dealer`` or drawn from the generator. Hands are dealt and played
in blocks of :data:`BLOCK`, block ``j`` drawing everything from its own
generator ``default_rng([root, j])`` (``root`` is one draw from the caller's
generator), so the records depend on the generator's state and the policy
only: the batch size changes how many blocks the core plays at once, that is
the speed, and not the records.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import fields
from typing import Any

import numpy as np

from spar_env.core import PLAY, State, random_member, reset, step, unpack
from spar_env.rules import Ruleset

Policy = Callable[[State, np.random.Generator], np.ndarray]
"""Chooses the action (``int [B]``) of each game's current player; ignored for finished games."""

BLOCK = 1024  # hands drawn from one generator: fixed, so records do not depend on the batch
BATCH = 1024  # hands played together by default (whole blocks)


def random_policy(state: State, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random legal action in every game."""
    return random_member(state.legal, rng)


def record_hands(
    rules: Ruleset,
    count: int,
    rng: np.random.Generator,
    *,
    policy: Policy = random_policy,
    batch: int = BATCH,
    with_stock: bool = False,
) -> Iterator[dict[str, Any]]:
    """Play ``count`` hands of ``rules`` and yield one record per hand.

    Args:
        rules: the ruleset of every hand.
        count: number of hands.
        rng: the only source of randomness (deals, dealers and the policy's
            draws); one draw from it seeds every block of hands.
        policy: chooses every action; uniformly random legal actions by default.
            It is called on one block of games at a time, with that block's
            generator.
        batch: hands played together, rounded up to whole blocks of
            :data:`BLOCK`; it changes the speed only, never the records. Whole
            blocks are played, so the first K records of a seed are the same
            whatever ``count`` is.
        with_stock: write the stock even when no option needs it.
    """
    if count < 0:
        raise ValueError(f"count must be at least 0; got {count}")
    if batch < 1:
        raise ValueError(f"batch must be at least 1; got {batch}")
    writer = RecordWriter(rules, with_stock)
    root = int(rng.bit_generator.random_raw())
    blocks = -(-count // BLOCK)
    together = -(-batch // BLOCK)
    for first in range(0, blocks, together):
        rngs = [
            np.random.default_rng([root, j]) for j in range(first, min(first + together, blocks))
        ]
        state = _concat([reset(rules, BLOCK, block_rng) for block_rng in rngs])
        plays, face_down, payoffs = _play_out(state, rngs, policy)
        start = first * BLOCK
        for g in range(min(state.batch_size, count - start)):
            yield writer.record(state, g, plays[g], face_down[g], payoffs[g])


def _concat(states: list[State]) -> State:
    """One batch of the games of ``states``, in order."""
    if len(states) == 1:
        return states[0]
    arrays = {
        f.name: np.concatenate([getattr(s, f.name) for s in states])
        for f in fields(State)
        if f.name != "tables"
    }
    return State(tables=states[0].tables, **arrays)


def _block(state: State, games: slice) -> State:
    """The games of one block as a batch of their own, sharing the arrays (no copy)."""
    arrays = {f.name: getattr(state, f.name)[games] for f in fields(State) if f.name != "tables"}
    return State(tables=state.tables, **arrays)


def _block_actions(
    state: State, rngs: Sequence[np.random.Generator], policy: Policy, live: np.ndarray
) -> np.ndarray:
    """Each block's actions, chosen by the policy from that block alone with its generator.

    A block asks the policy exactly what it would ask if it were played alone
    (nothing once all its hands are over), which keeps the records independent
    of how many blocks are played together.
    """
    if len(rngs) == 1:
        return np.asarray(policy(state, rngs[0]), dtype=np.int64)
    actions = np.zeros(state.batch_size, dtype=np.int64)
    for j, block_rng in enumerate(rngs):
        games = slice(j * BLOCK, (j + 1) * BLOCK)
        if live[games].any():
            actions[games] = policy(_block(state, games), block_rng)
    return actions


def _play_out(
    state: State, rngs: Sequence[np.random.Generator], policy: Policy
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Play every hand to its end; return the cards played, face-down flags and payoffs."""
    n, h = state.num_players, state.tables.hand_size
    b = state.batch_size
    plays = np.zeros((b, n * h), dtype=np.int64)
    face_down = np.zeros((b, n * h), dtype=bool)
    payoffs = np.zeros((b, n), dtype=np.int64)
    played = np.zeros(b, dtype=np.int64)
    limit = n * (h + 1)  # at most one exchange decision per seat, then N x H plays
    for _ in range(limit):
        live = ~state.terminated
        if not live.any():
            break
        actions = _block_actions(state, rngs, policy, live)
        playing = np.flatnonzero(live & (state.phase == PLAY))
        seats = state.current_player[playing]
        cards = actions[playing]
        payoffs += np.rint(step(state, actions)).astype(np.int64)
        index = played[playing]
        plays[playing, index] = cards
        down = state.played_down[playing, seats] >> cards.astype(np.uint64) & np.uint64(1)
        face_down[playing, index] = down.astype(bool)
        played[playing] += 1
    if not state.terminated.all():
        raise RuntimeError(f"a hand did not end within {limit} decisions")
    return plays, face_down, payoffs


class RecordWriter:
    """Turns one finished game of a batch into a record dict (card ids to card notation):
    :func:`record_hands` writes its records with it, and so does ``spar play``'s table.

    ``with_stock`` writes the undealt cards even where the options do not need them.
    """

    def __init__(self, rules: Ruleset, with_stock: bool) -> None:
        self.rules = rules
        self.names = [rules.card_name(c) for c in range(rules.num_card_ids)]
        self.options = rules.options()
        self.dealt_size = rules.players * rules.hand_size
        self.with_stock = with_stock or rules.weak_hand_exchange or rules.reveal_stock_bottom

    def cards(self, bits: np.ndarray | int) -> list[str]:
        """A bit set of cards in card notation, sorted by id: by suit, then rank high to low."""
        members = np.flatnonzero(unpack(np.asarray(bits, dtype=np.uint64), self.rules.num_card_ids))
        return [self.names[c] for c in members]

    def record(
        self, end: State, g: int, plays: np.ndarray, face_down: np.ndarray, payoffs: np.ndarray
    ) -> dict[str, Any]:
        """The record of game ``g`` of a finished batch (dealer, deck and dealt hands stay)."""
        rules = self.rules
        out: dict[str, Any] = {
            "variant": rules.variant,
            "options": {k: list(v) if isinstance(v, list) else v for k, v in self.options.items()},
            "players": rules.players,
            "dealer": int(end.dealer[g]),
            "hands": [self.cards(bits) for bits in end.dealt[g]],
        }
        if rules.weak_hand_exchange:
            # Every card of a hand is played, so a new hand is what its seat played.
            held = end.played_up[g] | end.played_down[g]
            out["exchanges"] = [
                self.cards(held[seat]) if end.exchanged[g, seat] else None
                for seat in range(rules.players)
            ]
        if self.with_stock:
            out["stock"] = [self.names[c] for c in end.deck[g, self.dealt_size :]]
        out["plays"] = [self.names[c] for c in plays]
        if rules.face_down != "none":
            out["face_down"] = np.flatnonzero(face_down).tolist()
        out["result"] = {
            "winner": int(end.winner[g]),
            "points": int(end.points[g]),
            "payoffs": payoffs.tolist(),
        }
        return out
