"""``pimc``: perfect-information Monte Carlo search. Sample the hidden cards, solve each sample exactly.

For each decision, :class:`PimcAgent`

1. samples ``worlds`` deals of the cards its seat cannot see, uniformly among
   those consistent with what it has seen (:mod:`spar_agents.worlds`);
2. solves each world with every hand visible (:mod:`spar_agents.perfect_info.solver`: max-n,
   each seat maximising its own payoff; minimax with two players), which gives
   the deciding seat's payoff after each of its legal cards;
3. plays the card with the best mean payoff over the worlds (the lowest card
   id among equals). ``probs`` is that choice as a one-hot vector.

A seat with one legal card plays it without searching.

**The weak-hand exchange.** Asked to KEEP or EXCHANGE, the agent samples
worlds that include the stock; in each it solves the hand from trick 1 twice:
with its hand, and with a uniformly random ``H`` cards of that world's stock
(the stock is shuffled, so the cards it would draw are such a sample). Seats
still to decide are assumed to keep their hands. It exchanges only if that
has the strictly better mean payoff.

**Randomness.** Each decision draws its worlds from a generator seeded by the
agent's ``seed`` and the information state itself (the seat's view), so the
agent plays the same card whenever it sees the same things, whatever the batch
or the order of calls. The ``rng`` passed to :meth:`PimcAgent.act` is not used.

**Time.** ``time_limit`` (seconds per decision) stops adding worlds once
exceeded; at least one world is always solved.
"""

from __future__ import annotations

import time
import zlib

import numpy as np

from spar_agents.base import Decision, Situation
from spar_agents.perfect_info.solver import Position, Solver
from spar_agents.worlds import SeatView, Worlds, sample_worlds, seat_views
from spar_env.core.bits import lowest_bit_index
from spar_env.limits import MAX_WORLDS
from spar_env.rules import Ruleset


class PimcAgent:
    """Perfect-information Monte Carlo search (see the module docstring).

    Args:
        rules: the ruleset.
        worlds: worlds sampled per decision.
        seed: seeds the sampling (with each decision's information state).
        time_limit: seconds per decision after which no more worlds are solved.
    """

    def __init__(
        self, rules: Ruleset, worlds: int = 32, seed: int = 0, time_limit: float | None = None
    ) -> None:
        if isinstance(worlds, bool) or not isinstance(worlds, int) or worlds < 1:
            raise ValueError(f"worlds must be a positive whole number; got {worlds!r}")
        if worlds > MAX_WORLDS:
            raise ValueError(f"worlds: at most {MAX_WORLDS:,} (a limit of spar-rl); got {worlds:,}")
        if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
            raise ValueError(f"seed must be a whole number >= 0; got {seed!r}")
        if time_limit is not None and not time_limit > 0:
            raise ValueError(f"time_limit must be positive seconds or None; got {time_limit!r}")
        self.rules = rules
        self.worlds = worlds
        self.seed = seed
        self.time_limit = time_limit
        self.solver = Solver(rules)
        self.searched = 0  # decisions searched so far (for reports)
        self.worlds_solved = 0  # worlds solved in them

    def act(self, situation: Situation, rng: np.random.Generator | None = None) -> Decision:
        rules = self.rules
        legal = situation.legal
        actions = lowest_bit_index(legal)  # right wherever there is a single legal action
        searched = np.flatnonzero(np.bitwise_count(legal) > 1)
        if searched.size:
            views = seat_views(
                Situation(situation.state, situation.history, situation.games[searched])
            )
            for i, view in zip(searched, views, strict=True):
                if view.exchange_phase:
                    actions[i] = self._exchange_choice(view)
                    continue
                values = self.action_values(view)
                choices = [a for a in range(rules.num_card_ids) if int(legal[i]) >> a & 1]
                actions[i] = max(choices, key=lambda a: (values[a], -a))
        probs = np.zeros((situation.size, rules.num_actions), dtype=np.float32)
        probs[np.arange(situation.size), actions] = 1.0
        return Decision(actions, probs)

    def action_values(self, view: SeatView) -> np.ndarray:
        """``float64 [C]`` mean payoff of each legal card over the sampled worlds (-inf if illegal)."""
        rng = self._generator(view)
        worlds = sample_worlds(view, self.worlds, rng)
        position = play_position(view)
        payoff = self.solver.payoff_table(view.active)[:, view.seat]
        (codes,) = self._solve(
            [worlds.hands], lambda w: self.solver.solve_worlds(w, position, view.seat)
        )
        legal = (codes >= 0).all(axis=0)
        values = np.where(codes >= 0, payoff[np.maximum(codes, 0)], 0.0).mean(axis=0)
        return np.where(legal, values, -np.inf)

    def _exchange_choice(self, view: SeatView) -> int:
        """KEEP or EXCHANGE: the better mean payoff from trick 1 (see the module docstring)."""
        rules = self.rules
        rng = self._generator(view)
        worlds = sample_worlds(view, self.worlds, rng)
        start = Position(hands=(0,) * rules.players, leader=view.leader, active=view.active)
        payoff = self.solver.payoff_table(view.active)[:, view.seat]
        swapped = worlds.hands.copy()
        swapped[:, view.seat] = _draw_hands(worlds, rules.hand_size, rng)
        kept, exchanged = self._solve(
            [worlds.hands, swapped], lambda w: self.solver.world_values(w, start, view.seat)
        )
        better = payoff[exchanged].mean() > payoff[kept].mean()
        return rules.exchange_action if better else rules.keep_action

    def _solve(self, batches: list[np.ndarray], solve) -> list[np.ndarray]:
        """``solve`` each batch of worlds: all at once, or world by world (every batch in turn)
        until ``time_limit`` is spent."""
        self.searched += 1
        if self.time_limit is None:
            self.worlds_solved += batches[0].shape[0]
            return [solve(hands) for hands in batches]
        begin = time.perf_counter()
        rows: list[list[np.ndarray]] = [[] for _ in batches]
        for w in range(batches[0].shape[0]):
            for out, hands in zip(rows, batches, strict=True):
                out.append(solve(hands[w : w + 1]))
            self.worlds_solved += 1
            if time.perf_counter() - begin > self.time_limit:
                break
        return [np.concatenate(out) for out in rows]

    def _generator(self, view: SeatView) -> np.random.Generator:
        """A generator seeded by the agent's seed and everything the seat knows."""
        facts = (
            view.seat,
            view.hand,
            view.unseen,
            view.active,
            view.leader,
            tuple(view.plays),
            tuple(view.hand_sizes),
            tuple(view.exchanged),
            view.exchange_phase,
        )
        digest = zlib.crc32(repr(facts).encode())
        return np.random.default_rng([self.seed, digest])


def play_position(view: SeatView) -> Position:
    """The position of the play phase as ``view`` sees it (hands to be filled in from worlds)."""
    rules = view.rules
    m = bin(view.active).count("1")
    count = len(view.plays)
    first = count - count % m  # first play of the trick in progress
    won = []
    for start in range(0, first, m):
        won.append(_trick_winner(rules, view.plays[start : start + m]))
    trick = tuple(card for _, card, _ in view.plays[first:])  # -1: another seat's face-down card
    leader = view.plays[first][0] if count > first else view.seat
    return Position(
        hands=(0,) * rules.players, leader=leader, trick=trick, won=tuple(won), active=view.active
    )


def _trick_winner(rules: Ruleset, plays: list[tuple[int, int, bool]]) -> tuple[int, int]:
    """``(seat, card)`` that took a finished trick: the best face-up card of the led suit."""
    seat, best, _ = plays[0]
    led = rules.card_suit_index(best)
    for s, card, down in plays[1:]:
        if not down and rules.card_suit_index(card) == led and card < best:
            seat, best = s, card
    return seat, best


def _draw_hands(worlds: Worlds, size: int, rng: np.random.Generator) -> np.ndarray:
    """``uint64 [W]``: ``size`` cards drawn uniformly from each world's stock."""
    out = np.zeros(worlds.count, dtype=np.uint64)
    for w in range(worlds.count):
        stock = int(worlds.stock[w])
        cards = [c for c in range(64) if stock >> c & 1]
        for c in rng.choice(cards, size=size, replace=False):
            out[w] |= np.uint64(1) << np.uint64(c)
    return out
