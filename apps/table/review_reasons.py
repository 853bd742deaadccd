"""Why one card beat another at a reviewed decision, in the few words the position can prove.

A reason is said only where it is a fact of the position, read from the engine:

- ``wins_lead`` / ``loses_lead``: at the trick before the last, a card that is sure to win
  it (so its seat leads the last trick), or sure not to (a card of another suit than the
  one led, one below the best card so far). Sure means whatever the seats still to play
  do: none of them holds a higher card of the suit (the deal, which the review shows once
  the hand is over). Said only where one card is sure to win and the other sure not to;
- ``keeps``: a card that keeps a scoring card (a 6 or a 7 in ``spar``) for the last trick,
  where the played card is that scoring card, thrown away; with why that scoring card would win
  the last trick led, where the position says so: every other seat has shown it has none
  of the suit (the voids everyone saw, :func:`spar_agents.knowledge.knowledge`), or no one
  else holds the suit (the deal);
- ``scorer``: a scoring card played before the last trick, which scores only by winning it
  (not said where the best card is one too).

A reason is given only where it is true of one card and not of the other: a fact of both
cards separates nothing. What the search's worlds showed, contrasted between the two cards,
is :mod:`spar_apps.table.review_worlds`; :meth:`Reason.category` groups both sources into
the kinds of mistake a session report counts.

``keeps`` and ``scorer`` speak of *the* last trick, so they are said only in rulesets where
the last trick alone scores (``chain`` 1: not ``essilfy``'s two tricks, nor ``sipa``'s three).
Each reason names its cards by id, its suit by index and its trick from 1; the message table
(:mod:`spar_apps.table.messages`, keys ``review.reason.*``) words it in each language.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from spar_agents.base import Situation
from spar_agents.knowledge import knowledge, trick_view
from spar_env.core import tables_for


@dataclass(frozen=True)
class Reason:
    """One reason: its message key (``review.reason.<kind>``) and the fields it names."""

    # wins_lead | loses_lead | keeps | keeps_void | keeps_void_seen | scorer (the position);
    # seen_lead | seen_win | seen_keep | seen_big | seen_against (the worlds: review_worlds)
    kind: str
    card: int  # the card the reason is about
    other: int = -1  # the card it keeps (keeps*); the card played (seen_*)
    suit: int = -1  # the suit no one else holds (keeps_void*)
    trick: int = 0  # the trick it wins or loses, from 1 (wins_lead, loses_lead)
    points: int = 0  # what the scoring card scores (scorer)
    counts: tuple[int, int] = ()  # worlds, of ``out_of``, for ``card`` then ``other`` (seen_*)
    out_of: int = 0  # the worlds the counts are said out of (seen_*)

    @property
    def key(self) -> str:
        return f"review.reason.{self.kind}"

    def category(self, best: int) -> str:
        """The kind of mistake it explains (``best``: the decision's best card): ``gave_lead``
        (gave up the lead of the last trick), ``took_lead`` (took it when it was better left),
        ``lost_last`` (lost the last trick), ``scorer`` (won for fewer points: a scoring card
        not kept) or ``let_score`` (let another seat win for more points)."""
        if self.kind in ("wins_lead", "loses_lead"):
            leads = (self.kind == "wins_lead") == (self.card == best)
            return "gave_lead" if leads else "took_lead"
        if self.kind == "seen_lead":
            return "gave_lead" if self.counts[0] > self.counts[1] else "took_lead"
        if self.kind == "seen_win":
            return "lost_last"
        if self.kind == "seen_against":
            return "let_score"
        return "scorer"


def reasons_for(situation: Situation, best: int, played: int, *, forced: bool) -> list[Reason]:
    """The reasons at a decision (``situation``: one decision), for the best card, then for
    the card played where it is another."""
    if forced:
        return []  # the verdict says so
    facts = _Facts(situation)
    out = facts.about(best, against=played)
    if played == best:
        return out
    other = facts.about(played, against=None)
    # a fact of both cards (both win the trick before the last, both score) is no difference
    shared = {r.kind for r in facts.about(best, against=None)} & {r.kind for r in other}
    lead = {r.kind for r in out + other} & set(LEAD_KINDS)
    if lead != set(LEAD_KINDS):  # one card sure to win it, the other sure not to, or nothing
        shared |= lead
    return [r for r in out + other if r.kind not in shared]


LEAD_KINDS = ("wins_lead", "loses_lead")


def proven_kinds(situation: Situation, *cards: int) -> set[str]:
    """The kinds of fact the position proves of any of ``cards`` alone, shared or not (a
    count of the search's worlds does not say again what the position settles)."""
    facts = _Facts(situation)
    return {r.kind for card in cards for r in facts.about(card, against=None)}


class _Facts:
    """What the engine says of one decision's position."""

    def __init__(self, situation: Situation) -> None:
        rules = situation.rules
        t = tables_for(rules)
        game, seat = int(situation.games[0]), int(situation.seats[0])
        self.rules, self.seat = rules, seat
        self.suit, self.strength = t.card_suit, t.card_strength
        self.points = t.card_points
        view = trick_view(situation)
        self.trick = int(view.trick[0])
        self.led = int(view.led_suit[0])
        self.best = int(view.best_card[0])
        self.to_play = np.flatnonzero(view.to_play[0])
        self.hands = situation.state.hands[game]
        active = int(situation.state.active[game])
        self.others = [s for s in range(rules.players) if s != seat and active >> s & 1]
        self.voids = knowledge(situation).voids[0]
        self.legal = int(situation.legal[0])
        self.suit_bits = t.suit_bits
        self.last_only = rules.chain == 1
        self.before_last = rules.hand_size - 2  # trick H-1, from 0

    def about(self, card: int, against: int | None) -> list[Reason]:
        """Reasons for ``card``; ``against``: the card played instead, when ``card`` is best."""
        out = []
        if self.trick == self.before_last:
            wins = self._wins(card)
            if wins is not None:
                out.append(Reason("wins_lead" if wins else "loses_lead", card,
                                  trick=self.trick + 1))  # fmt: skip
        if not self.last_only or self.trick >= self.rules.hand_size - 1:
            return out
        if against is None:
            if self.points[card] > 0:
                out.append(Reason("scorer", card, points=int(self.points[card])))
            return out
        # the card played instead, if it scores (any other scoring card both cards keep)
        kept = against if against != card else self._keeper(card)
        if kept is not None and self.points[kept] > 0:
            out.append(self._keeps(card, kept))
        return out

    def _keeper(self, card: int) -> int | None:
        """The legal scoring card worth most points (then the lowest) other than ``card``."""
        scoring = [c for c in range(self.rules.num_card_ids)
                   if self.legal >> c & 1 and c != card and self.points[c] > 0]  # fmt: skip
        return max(scoring, key=lambda c: (self.points[c], -self.strength[c]), default=None)

    def _keeps(self, card: int, kept: int) -> Reason:
        suit = int(self.suit[kept])
        if self.others and all(int(self.voids[s]) >> suit & 1 for s in self.others):
            return Reason("keeps_void_seen", card, other=kept, suit=suit)
        bits = self.suit_bits[suit]
        if not any(int(self.hands[s] & bits) for s in self.others):
            return Reason("keeps_void", card, other=kept, suit=suit)
        return Reason("keeps", card, other=kept)

    def _wins(self, card: int) -> bool | None:
        """Whether ``card`` is sure to win the trick in progress (None: it depends on plays
        still to come)."""
        suit = int(self.suit[card])
        if self.led >= 0:
            if suit != self.led:
                return False
            if self.best >= 0 and self.strength[card] < self.strength[self.best]:
                return False
        higher = 0
        for c in range(self.rules.num_card_ids):
            if self.suit[c] == suit and self.strength[c] > self.strength[card]:
                higher |= 1 << c
        if any(int(self.hands[s]) & higher for s in self.to_play):
            return None
        return True
