"""Exact perfect-information solving of a Spar hand: every hand visible, each seat maximising its payoff.

The search is *max-n*: at each play, the seat to move picks the play whose
outcome it prefers. An outcome is ``(winner, points)`` of the hand; it fixes
every seat's payoff (``stakes``: the winner gets ``points * (m - 1)`` and each
other seat in the hand pays ``points``; ``points``: the winner gets ``points``).
Preferences are a total order, so the value of a position does not depend on
the order in which plays are searched. A seat ranks outcomes by

1. its own payoff;
2. then fewer points for the winner (what a seat that loses anyway would
   rather give away, in money or in a race to a session target);
3. then the higher payoff for the *viewer* (the seat the search is done
   for): a seat that cannot change its own lot lets the viewer have the
   benefit of the doubt. Against ``random`` and ``heuristic`` opponents in
   4-player ``spar`` this played a little better than the opposite rule
   (ties against the viewer, the "paranoid" reading);
4. then the lower winner seat.

With two players and ``stakes`` this is minimax. Face-down modes do not change
who wins a trick, so they play no part here; the scoring run matters (the
tricks already won, for Sipa's three 7s or Essilfy's last two).

:class:`Solver` wraps the compiled search in :mod:`spar_agents.perfect_info.kernel`
(memoisation of positions at the start of each trick, equivalent cards
searched once, immediate and shallow pruning; see there). Its table is kept
between calls, so worlds of one decision and the decisions of one hand share
work.

    >>> from spar_env import make_rules
    >>> rules = make_rules("micro")
    >>> bits = lambda *cards: sum(1 << rules.card_id(c) for c in cards)
    >>> solver = Solver(rules)
    >>> position = Position(hands=(bits("KC", "6D"), bits("7C", "7D")), leader=0)
    >>> solver.action_outcomes(position)  # card id -> (winner, points)
    {0: (1, 2), 5: (0, 1)}

Leading K♣ (id 0) wins trick 1, but seat 0's 6♦ then loses the last trick to
7♦ (seat 1 scores 2); leading 6♦ (id 5) loses trick 1 to 7♦, and K♣ takes the
last trick over 7♣ (seat 0 scores 1).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from spar_agents.perfect_info import kernel
from spar_env.core import State, tables_for
from spar_env.rules import Ruleset

Outcome = tuple[int, int]  # (winner, points)


@dataclass(frozen=True)
class Position:
    """A position with every hand visible.

    Attributes:
        hands: cards each seat holds, as bit sets (bit ``c`` for card id ``c``);
            0 for a seat out of the hand.
        leader: seat that leads the trick in progress (or the next trick).
        trick: cards played to the trick in progress, from the leader on; -1
            for a face-down card (it cannot take the trick, so its face does not
            matter). The lead is always face up.
        won: ``(winner, winning card)`` of each finished trick, in order.
        active: bit set of the seats in the hand (``None``: every seat).
    """

    hands: tuple[int, ...]
    leader: int
    trick: tuple[int, ...] = ()
    won: tuple[tuple[int, int], ...] = ()
    active: int | None = None


class Solver:
    """Exact max-n solving of positions of one ruleset (see the module docstring).

    Args:
        rules: the ruleset.
        table_bits: the memo table holds ``2**table_bits`` positions (by
            default about 16 MiB of keys); it is cleared when three quarters full.
    """

    def __init__(self, rules: Ruleset, table_bits: int | None = None) -> None:
        if table_bits is None:  # about 16 MiB of keys
            table_bits = min(18, int(np.log2(2**21 / (rules.players + 1))))
        if not 4 <= table_bits <= 26:
            raise ValueError(f"table_bits must be between 4 and 26; got {table_bits}")
        t = tables_for(rules)
        self.rules = rules
        self.num_seats = n = rules.players
        chain = min(rules.chain, rules.hand_size)
        values = sorted(set(rules.rank_points.values()), reverse=True)
        top = values[0] if values else 1
        self.max_points = top * chain + (top if rules.last_two == "bonus" else 0) if values else 1
        self.base = base = self.max_points + 1
        pt_pts = np.array(values, dtype=np.int64)
        pt_mask = np.array(
            [
                sum(1 << c for c, p in enumerate(t.card_points[:-1].tolist()) if p == v)
                for v in values
            ],
            dtype=np.uint64,
        )
        self._outcomes = [w * base + p for w in range(n) for p in range(1, base)]
        self._window = rules.hand_size - chain
        self._shared = (
            t.card_suit.astype(np.int64),
            t.suit_bits[:-1].astype(np.uint64),
            t.card_points[:-1].astype(np.int64),
        )
        self._points_masks = (pt_pts, pt_mask)
        self._numbers = [
            n,
            0,
            rules.hand_size,
            base,
            self._window,
            rules.last_two == "bonus",
            chain == 1,
            self.max_points,
        ]
        self._tables: dict[int, tuple] = {}
        self._keys = np.zeros((1 << table_bits, n + 1), dtype=np.uint64)
        self._vals = np.full(1 << table_bits, -1, dtype=np.int64)
        self._fill = np.zeros(1, dtype=np.int64)
        self.stats = np.zeros(1, dtype=np.int64)  # nodes searched so far
        self._orders: dict[int, np.ndarray] = {}
        self._payoff_tables: dict[int, np.ndarray] = {}

    # ----- outcomes and payoffs ------------------------------------------------
    def decode(self, code: int) -> Outcome:
        """``(winner, points)`` of an outcome code."""
        return divmod(int(code), self.base)

    def payoffs(self, outcome: Outcome, active: int | None = None) -> np.ndarray:
        """``float64 [N]`` every seat's payoff for an outcome."""
        return self.payoff_table(active)[outcome[0] * self.base + outcome[1]]

    def payoff_table(self, active: int | None = None) -> np.ndarray:
        """``float64 [N * base, N]`` payoffs of each outcome code (rows of impossible codes are 0)."""
        active = self._active(active)
        return (
            self._payoff_tables[active] if active in self._payoff_tables else self._payoffs(active)
        )

    def _payoffs(self, active: int) -> np.ndarray:
        n, base = self.num_seats, self.base
        seats_in = np.array([active >> s & 1 for s in range(n)], dtype=np.float64)
        m = seats_in.sum()
        table = np.zeros((n * base, n))
        for w in range(n):
            for p in range(1, base):
                if self.rules.payoff == "stakes":
                    table[w * base + p] = -p * seats_in
                    table[w * base + p, w] = p * (m - 1)
                else:
                    table[w * base + p, w] = p
        self._payoff_tables[active] = table
        return table

    # ----- solving -----------------------------------------------------------
    def action_outcomes(self, position: Position, viewer: int | None = None) -> dict[int, Outcome]:
        """The outcome of each legal play of the seat to move (searched with ``viewer``'s ties)."""
        worlds = np.array([position.hands], dtype=np.uint64)
        codes = self.solve_worlds(worlds, position, viewer)[0]
        return {c: self.decode(v) for c, v in enumerate(codes.tolist()) if v >= 0}

    def value(self, position: Position, viewer: int | None = None) -> Outcome:
        """The outcome of ``position`` when every seat plays as the module docstring says."""
        mover = self.to_move(position)
        viewer = mover if viewer is None else viewer
        children = self.action_outcomes(position, viewer)
        rank = self._viewer_tables(viewer)[3][mover]
        return max(children.values(), key=lambda o: rank[o[0] * self.base + o[1]])

    def best_action(self, position: Position, viewer: int | None = None) -> int:
        """The play the seat to move prefers (the lowest card id among equals)."""
        mover = self.to_move(position)
        viewer = mover if viewer is None else viewer
        children = self.action_outcomes(position, viewer)
        rank = self._viewer_tables(viewer)[3][mover]
        return max(children, key=lambda c: (rank[children[c][0] * self.base + children[c][1]], -c))

    def solve_worlds(
        self, worlds: np.ndarray, position: Position, viewer: int | None = None
    ) -> np.ndarray:
        """``int64 [W, C]`` outcome codes of every legal play of the seat to move, in each world.

        ``worlds`` (``uint64 [W, N]``) replace ``position.hands``; the rest of
        the position (trick, leader, tricks won) is shared. Illegal plays get -1.
        """
        active = self._active(position.active)
        order = self._order(active)
        m = bin(active).count("1")
        if len(position.trick) >= m:
            raise ValueError(f"the trick in progress has {len(position.trick)} cards for {m} seats")
        if not worlds.size or (worlds.shape[1] != self.num_seats):
            raise ValueError(f"worlds must have shape [W, {self.num_seats}]; got {worlds.shape}")
        mover = int(order[position.leader, len(position.trick)])
        if not (worlds[:, mover] != 0).all():
            raise ValueError(f"seat {mover} is to move but holds no card")
        viewer = mover if viewer is None else viewer
        tb = self._viewer_tables(viewer)
        tb[7][M_IN] = m
        led, best, best_seat = self._trick_state(position, order)
        out = np.empty((worlds.shape[0], self.rules.num_card_ids), dtype=np.int64)
        kernel.solve_worlds(
            np.ascontiguousarray(worlds, dtype=np.uint64),
            order,
            position.leader,
            len(position.trick),
            led,
            best,
            best_seat,
            self._run(position.won),
            np.uint64(1 << best if best >= 0 else 0),
            tb,
            self._keys,
            self._vals,
            self._fill,
            self.stats,
            out,
        )
        return out

    def world_values(
        self, worlds: np.ndarray, position: Position, viewer: int | None = None
    ) -> np.ndarray:
        """``int64 [W]`` the outcome code of ``position`` in each world (the mover's preferred play)."""
        codes = self.solve_worlds(worlds, position, viewer)
        mover = self.to_move(position)
        viewer = mover if viewer is None else viewer
        rank = self._viewer_tables(viewer)[3][mover]
        ranks = np.where(codes >= 0, rank[np.maximum(codes, 0)], -1)
        return codes[np.arange(codes.shape[0]), ranks.argmax(axis=1)]

    def to_move(self, position: Position) -> int:
        order = self._order(self._active(position.active))
        return int(order[position.leader, len(position.trick)])

    # ----- helpers -------------------------------------------------------------
    def _viewer_tables(self, viewer: int) -> tuple:
        """The kernel's tables for one viewer (its tie-breaks), built on first use."""
        if viewer not in self._tables:
            rank, maxr = _preferences(self.rules, self._outcomes, self.base, viewer)
            numbers = np.array([*self._numbers, viewer], dtype=np.int64)
            self._tables[viewer] = (*self._shared, rank, maxr, *self._points_masks, numbers)
        return self._tables[viewer]

    def _active(self, active: int | None) -> int:
        return (1 << self.num_seats) - 1 if active is None else int(active)

    def _order(self, active: int) -> np.ndarray:
        """``int64 [N, N]``: the k-th seat of a trick that each seat leads (seats in the hand only)."""
        if active not in self._orders:
            n, sign = self.num_seats, self.rules.sign
            table = np.zeros((n, n), dtype=np.int64)
            for s in range(n):
                seats = [(s + sign * k) % n for k in range(n)]
                playing = [q for q in seats if active >> q & 1]
                table[s, : len(playing)] = playing
            self._orders[active] = table
        return self._orders[active]

    def _trick_state(self, position: Position, order: np.ndarray) -> tuple[int, int, int]:
        """Led suit, best card and its seat of the trick in progress (-1 when it is empty)."""
        if not position.trick:
            return -1, -1, -1
        suit = self.rules.card_suit_index
        led = suit(position.trick[0])
        best, best_seat = position.trick[0], position.leader
        for k, card in enumerate(position.trick[1:], start=1):
            if card >= 0 and suit(card) == led and card < best:
                best, best_seat = card, int(order[position.leader, k])
        return led, best, best_seat

    def _run(self, won: tuple[tuple[int, int], ...]) -> int:
        """The scoring run (see :func:`spar_agents.perfect_info.kernel._next_run`) after the tricks ``won``."""
        run = 0
        numbers = np.array([*self._numbers, 0], dtype=np.int64)
        for trick, (winner, card) in enumerate(won):
            run = int(kernel._next_run(run, trick, winner, card, self._shared[2], numbers))
        return run


M_IN = kernel.M_IN


def position_from_state(state: State, game: int) -> Position:
    """The true position of one game of a core batch (it reads hidden cards: for tests and analysis)."""
    t = state.tables
    n = t.num_players
    active = int(state.active[game])
    leader = int(state.leader[game])
    sign = t.rules.sign
    seats = [(leader + sign * k) % n for k in range(n)]
    seats = [s for s in seats if active >> s & 1]
    played = state.trick_cards[game]
    trick = tuple(int(played[s]) for s in seats[: int(state.pos[game])])
    won = tuple(
        (int(state.trick_winner[game, k]), int(state.trick_card[game, k]))
        for k in range(int(state.trick[game]))
    )
    hands = tuple(int(h) for h in state.hands[game])
    return Position(hands=hands, leader=leader, trick=trick, won=won, active=active)


def _preferences(
    rules: Ruleset, outcomes: list[int], base: int, viewer: int
) -> tuple[np.ndarray, np.ndarray]:
    """``rank[seat, outcome]`` for one viewer, and the shallow-pruning table ``maxr[seat, parent, r]``.

    ``maxr[s, p, r]`` is the highest rank seat ``p`` gives any outcome that seat
    ``s`` ranks ``r`` or higher.
    """
    n = rules.players

    def pay(seat: int, code: int) -> int:
        winner, points = divmod(code, base)
        if rules.payoff == "stakes":  # the winner's factor (m - 1) does not change the order
            return points if winner == seat else -points
        return points if winner == seat else 0

    k = len(outcomes)
    rank = np.full((n, n * base), -1, dtype=np.int64)
    for s in range(n):
        order = sorted(
            outcomes, key=lambda o: (pay(s, o), -(o % base), pay(viewer, o), -(o // base))
        )
        rank[s, order] = np.arange(k)
    maxr = np.zeros((n, n, k + 1), dtype=np.int64)
    for s in range(n):
        by_rank = np.argsort(rank[s])[-k:]  # outcomes from s's least to most preferred
        for p in range(n):
            seen = rank[p, by_rank]
            maxr[s, p, :k] = np.maximum.accumulate(seen[::-1])[::-1]
    return rank, maxr
