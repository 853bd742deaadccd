"""How an ended hand was scored: the points of its final tricks, each seat's payoff, the session.

:func:`explain_hand` reads a game of the batch state once the engine has
ended the hand and writes down how the engine's figures came about, as
terms that add up: the hand's points as the final tricks' points (or the
lone point of a last trick won without a scoring card), and each seat's
payoff as what it paid or was paid by whom. A table shows the sentences; a
test checks that every sum is the engine's own figure.
"""

from __future__ import annotations

from dataclasses import dataclass

from spar_env.core.state import State
from spar_env.explain.phrase import Card, Listed, Phrase, Points, Rank, Seat, phrase
from spar_env.rules import Ruleset


@dataclass(frozen=True)
class Term:
    """One part of a sum: an amount and why."""

    amount: int
    why: Phrase


@dataclass(frozen=True)
class HandScore:
    """An ended hand: who won it, its points and payoffs, each a sum of :class:`Term`."""

    winner: int
    points: list[Term]  # adds up to the hand's points
    payoffs: list[list[Term]]  # by seat; each adds up to the seat's payoff
    notes: list[Phrase | None]  # by seat: why, where the terms do not say it
    session: Phrase  # what the hand did to the session score

    @property
    def total(self) -> int:
        return sum(t.amount for t in self.points)

    def payoff(self, seat: int) -> int:
        return sum(t.amount for t in self.payoffs[seat])

    def why_points(self) -> Phrase:
        """``why 5 points: trick 4 won with 7♠ scores 2 + trick 5 won with 6♠ scores 3``."""
        terms = Listed(tuple(t.why for t in self.points), " + ")
        return phrase("score.why_points", n=self.total, terms=terms)

    def why_payoff(self, seat: int) -> Phrase | Listed:
        """``3 from you + 3 from seat 1`` (``3 from each of the 3 other seats`` past two), or
        why the seat pays or gets nothing."""
        note = self.notes[seat]
        return note if note is not None else Listed(tuple(t.why for t in self.payoffs[seat]), " + ")

    def lines(self) -> list[Phrase]:
        """The whole explanation: the points, each seat's payoff, the session."""
        payoffs = [
            phrase("score.payoff_line", amount=f"{self.payoff(s):+d}", why=self.why_payoff(s))
            for s in range(len(self.payoffs))
        ]
        return [self.why_points(), *payoffs, self.session]


def explain_hand(state: State, game: int = 0) -> HandScore:
    """How the hand that just ended in ``game`` was scored (see the module docstring);
    its phrases name seats as :class:`~spar_env.explain.phrase.Seat`, which the reader's
    side names (``you`` for the person at a table).

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
    notes: list[Phrase | None] = [None] * rules.players
    for seat in range(rules.players):
        if not active >> seat & 1:
            notes[seat] = phrase("payoff.sat_out")
        elif seat == winner:
            if rules.payoff == "points":
                payoffs[seat].append(Term(pts, phrase("payoff.points", points=pts)))
        elif rules.payoff == "stakes":
            payoffs[seat].append(Term(-pts, phrase("payoff.pays", who=Seat(winner), points=pts)))
            payoffs[winner].append(Term(pts, phrase("payoff.from", who=Seat(seat), points=pts)))
        else:
            notes[seat] = phrase("payoff.winner_only")
    payers = len(payoffs[winner])
    if rules.payoff == "stakes" and payers > 2:  # a shorter why than a long sum
        notes[winner] = phrase("payoff.from_each", points=pts, n=payers)
    return HandScore(winner, points, payoffs, notes, _session(rules, state, game, winner, pts))


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
        chain.append(Term(value, phrase("score.trick", trick=h - k, card=Card(card), value=value)))
    terms = chain[::-1]
    if rules.last_two == "bonus" and run:
        value = values[rules.card_rank(cards[h - 1])]
        terms.append(Term(value, phrase("score.bonus", card=Card(cards[h - 1]), value=value)))
    if not terms:
        if not values:
            terms.append(
                Term(1, phrase("score.always_one", variant=phrase(f"variant.{rules.variant}")))
            )
        else:
            ranks = Listed(tuple(Rank(r) for r in rules.rank_points), "or")
            terms.append(
                Term(1, phrase("score.one", trick=h, card=Card(cards[h - 1]), ranks=ranks))
            )
    return terms


def _session(rules: Ruleset, state: State, game: int, winner: int, pts: int) -> Phrase:
    kind, value = rules.end_kind, rules.end_value
    after = int(state.scores[game, winner])
    line = phrase(
        "session.after_hand", who=Seat(winner), before=Points(after - pts), points=pts,
        after=Points(after),
    )  # fmt: skip
    if kind == "target":
        return phrase("session.line_target", line=line, target=Points(int(value or 0)))
    if kind == "hands":
        return phrase(
            "session.line_hands", line=line, hand=int(state.hands_played[game]), n=int(value or 0)
        )
    if kind == "stones":
        stones, pool = int(state.stones[game, winner]), int(state.pool[game])
        return phrase("session.line_stones", line=line, stones=stones, pool=pool)
    return line
