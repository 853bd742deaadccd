"""How an ended hand was scored: the points of its final tricks, each seat's payoff, the session.

:func:`explain_hand` reads a game of the batch state once the engine has
ended the hand and writes down how the engine's figures came about, as
terms that add up: the hand's points as the final tricks' points (or the
lone point of a last trick won without a scoring card), and each seat's
payoff as what it paid or was paid by whom. A table shows the sentences; a
test checks that every sum is the engine's own figure.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from spar_env.core.state import State
from spar_env.rules import Ruleset, c_notation


@dataclass(frozen=True)
class Term:
    """One part of a sum: an amount and why."""

    amount: int
    why: str


Name = Callable[[int], str]


def seat_name(seat: int) -> str:
    return f"seat {seat}"


@dataclass(frozen=True)
class HandScore:
    """An ended hand: who won it, its points and payoffs, each a sum of :class:`Term`."""

    winner: int
    points: list[Term]  # adds up to the hand's points
    payoffs: list[list[Term]]  # by seat; each adds up to the seat's payoff
    notes: list[str]  # by seat: why, where the terms do not say it ("" otherwise)
    session: str  # what the hand did to the session score

    @property
    def total(self) -> int:
        return sum(t.amount for t in self.points)

    def payoff(self, seat: int) -> int:
        return sum(t.amount for t in self.payoffs[seat])

    def why_points(self) -> str:
        """``why 5 points: trick 4 won with 7♠ scores 2 + trick 5 won with 6♠ scores 3``."""
        total = self.total
        return f"why {total} point{'s' * (total != 1)}: " + " + ".join(t.why for t in self.points)

    def why_payoff(self, seat: int) -> str:
        """``3 from you + 3 from seat 1`` (``3 from each of the 3 other seats`` past two), or
        why the seat pays or gets nothing."""
        return self.notes[seat] or " + ".join(t.why for t in self.payoffs[seat])

    def lines(self) -> list[str]:
        """The whole explanation: the points, each seat's payoff, the session."""
        payoffs = [f"{self.payoff(s):+d}: {self.why_payoff(s)}" for s in range(len(self.payoffs))]
        return [self.why_points(), *payoffs, self.session]


def explain_hand(state: State, game: int = 0, name: Name = seat_name) -> HandScore:
    """How the hand that just ended in ``game`` was scored (see the module docstring);
    ``name`` names the seats (``you`` for the person at a table).

    Raises:
        ValueError: if the hand is still running.
    """
    if not bool(state.terminated[game]):
        raise ValueError("the hand is still running")
    rules = state.tables.rules
    winner = int(state.winner[game])
    cards = [int(c) for c in state.trick_card[game]]
    winners = [int(w) for w in state.trick_winner[game]]
    points = _points(rules, winner, winners, cards)
    pts = sum(t.amount for t in points)
    active = int(state.active[game])
    payoffs: list[list[Term]] = [[] for _ in range(rules.players)]
    notes = [""] * rules.players
    for seat in range(rules.players):
        if not active >> seat & 1:
            notes[seat] = "sat out this tie-break hand"
        elif seat == winner:
            if rules.payoff == "points":
                payoffs[seat].append(Term(pts, f"{pts}, the hand's points"))
        elif rules.payoff == "stakes":
            payoffs[seat].append(Term(-pts, f"pays {name(winner)} the hand's {pts}"))
            payoffs[winner].append(Term(pts, f"{pts} from {name(seat)}"))
        else:
            notes[seat] = "with the points payoff only the winner scores"
    payers = len(payoffs[winner])
    if rules.payoff == "stakes" and payers > 2:  # a shorter why than a long sum
        notes[winner] = f"{pts} from each of the {payers} other seats"
    return HandScore(
        winner, points, payoffs, notes, _session(rules, state, game, winner, pts, name)
    )


def _points(rules: Ruleset, winner: int, winners: list[int], cards: list[int]) -> list[Term]:
    """The hand's points as the engine walks them: back from the last trick over the chain."""
    h = rules.hand_size
    values = rules.rank_points
    run, chain = True, []  # W's final tricks won with scoring ranks, last first
    for k in range(rules.chain):
        card = cards[h - 1 - k]
        value = values.get(rules.card_rank(card), 0)
        run = run and winners[h - 1 - k] == winner and value > 0
        if not run:
            break
        name = rules.card_name(card, unicode=True)
        chain.append(Term(value, f"trick {h - k} won with {name} scores {value}"))
    terms = chain[::-1]
    if rules.last_two == "bonus" and run:
        last = rules.card_name(cards[h - 1], unicode=True)
        value = values[rules.card_rank(cards[h - 1])]
        terms.append(Term(value, f"a bonus for the last two tricks: {last}'s {value} again"))
    if not terms:
        last = rules.card_name(cards[h - 1], unicode=True)
        if not values:
            terms.append(Term(1, f"every hand scores 1 in {rules.variant}"))
        else:
            terms.append(Term(1, f"trick {h} won with {last}, not {_scoring_ranks(rules)}"))
    return terms


def _scoring_ranks(rules: Ruleset) -> str:
    return "a " + " or a ".join(rules.rank_points)


def _session(rules: Ruleset, state: State, game: int, winner: int, pts: int, name: Name) -> str:
    kind, value = rules.end_kind, rules.end_value

    def score(points: int) -> str:
        return c_notation(points) if rules.c_notation else str(points)

    after = int(state.scores[game, winner])
    line = f"{name(winner)}: score {score(after - pts)} + {pts} = {score(after)}"
    if kind == "target":
        return line + f"; {score(int(value or 0))} points win the match"
    if kind == "hands":
        return line + f"; hand {int(state.hands_played[game])} of {value}"
    if kind == "stones":
        stones, pool = int(state.stones[game, winner]), int(state.pool[game])
        return line + f"; {stones} stones taken, {pool} left in the pool"
    return line
