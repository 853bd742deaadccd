"""Recording hands: play them through the batch core with a policy and write game records.

:func:`record_hands` deals batches of hands, lets a policy choose every action
(uniformly random legal actions by default) and yields one record per hand in
the format of RULES.md, "Game records"::

    {"variant": "sipa", "options": {}, "players": 3, "dealer": 1,
     "hands": [["KC", "9C", ...], ...],          # as dealt, sorted: suit, then rank high to low
     "exchanges": [null, ["7D", ...], null],      # only with weak_hand_exchange
     "stock": ["QS", ...],                        # with weak_hand_exchange or reveal_stock_bottom
     "plays": ["KC", ...],
     "face_down": [4, 7],                         # only if the ruleset has face-down plays
     "result": {"winner": 2, "points": 1, "payoffs": [-1, -1, 2]}}

Every hand is the first hand of a fresh session, so its dealer is
``rules.first_dealer`` or drawn from the generator. Everything is determined
by the generator's state, the policy and the batch size.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from spar_env.core import PLAY, State, random_member, reset, step, unpack
from spar_env.rules import Ruleset

Policy = Callable[[State, np.random.Generator], np.ndarray]
"""Chooses the action (``int [B]``) of each game's current player; ignored for finished games."""

BATCH = 1024


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
        rng: the only source of randomness (deals, dealers and the policy's draws).
        policy: chooses every action; uniformly random legal actions by default.
        batch: hands played together; the records depend on it (through the
            order of random draws), so keep it fixed to reproduce a file. Whole
            batches are played, so the first K records of a seed are the same
            whatever ``count`` is.
        with_stock: write the stock even when no option needs it.
    """
    if count < 0:
        raise ValueError(f"count must be at least 0; got {count}")
    if batch < 1:
        raise ValueError(f"batch must be at least 1; got {batch}")
    writer = _RecordWriter(rules, with_stock)
    for start in range(0, count, batch):
        # Always play whole batches, so that the first K hands of a seed do not
        # depend on how many hands were asked for.
        state = reset(rules, batch, rng)
        plays, face_down, payoffs = _play_out(state, rng, policy)
        for g in range(min(batch, count - start)):
            yield writer.record(state, g, plays[g], face_down[g], payoffs[g])


def _play_out(
    state: State, rng: np.random.Generator, policy: Policy
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
        actions = np.asarray(policy(state, rng), dtype=np.int64)
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


class _RecordWriter:
    """Turns one finished game of a batch into a record dict (card ids to card notation)."""

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
