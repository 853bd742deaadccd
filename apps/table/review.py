"""Hand review: one seat's decisions in a finished hand, each valued by search, from its record.

:func:`review_hand` reads a game record (:mod:`spar_env.records`: the hands as dealt and every
card played) and nothing else, so it reviews a hand played anywhere: at ``spar play``'s or
``spar serve``'s table, or in a file (``spar review``). It replays the hand on the core and, at
each decision of the reviewed seat, asks the ``search`` agent (:mod:`spar_agents.search`) the
questions a player asks afterwards:

- what the bot would have played: the probabilities of the policy the search models every
  seat by (the bot the table seats);
- what each legal card was worth: the search's own values
  (:meth:`~spar_agents.search.SearchAgent.card_estimates`: the mean payoff over its believed
  worlds, the worlds it would have played this decision from), with their standard errors.
  Where the card played and the best are not yet told apart (their gap is above
  :data:`MISTAKE_MARGIN` but within :data:`MISTAKE_Z` standard errors), the review draws more
  worlds for that decision, each batch with a seed of its own, as many again as it has
  (64, 128, 256, ...), up to ``max_worlds``: a sequential test that stops at
  :data:`MISTAKE_Z` standard errors or at the budget. Both cards are always valued in the
  same worlds (paired);
  and, where a match is on, the seat's chance to win the match after the hand, each world's
  end of the hand read through the table's match chances
  (:func:`spar_train.match.table_chances.table_chances`);
- which card was best (the highest mean payoff, as the search with no ``prior`` plays it;
  among cards worth exactly as much, the one played), and
  whether the card played was a **mistake**: worth less than the best by more than
  :data:`MISTAKE_MARGIN` points *and* by more than :data:`MISTAKE_Z` standard errors of the
  gap (paired world by world). A gap inside the search's own noise is not called a mistake.
  Its cost is that gap, in points, and in match chance where a match is on;
- why: what the position proves (:mod:`spar_apps.table.review_reasons`), and what the
  search's worlds showed, contrasted between the best card and the card played
  (:mod:`spar_apps.table.review_worlds`); only what tells the two cards apart.

The search sees what the seat saw at the time (its worlds are drawn from the seat's view),
never the cards the record reveals; the reasons may use the whole deal, which the review
shows once the hand is over. A decision with one legal card is forced, and not searched.

**Stand-in moves**: at a table of friends the bot moves for a person who is away (or whose
turn timer ran out), and the record lists those plays (``seats[s].stood_in``). Such a move
is not the person's: it is shown as a stand-in move, never searched nor judged, and it is
not among the hand's :attr:`HandReview.decisions` (so no summary or session report counts
it). The record's names of the seats' people are kept (:attr:`HandReview.names`), for the
review to name them.

**Seeded**: the search draws each decision's worlds from its ``seed`` and the decision's
view (the added batches from that seed and the batch's number), so the same record, seat,
seed and budget give the same review.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from spar_agents.base import Situation
from spar_agents.card_estimates import CardEstimates, HandEnds, joined
from spar_agents.search import SearchAgent, check_rules, policy_of
from spar_apps.table.review_reasons import Reason, proven_kinds, reasons_for
from spar_apps.table.review_worlds import seen_reasons
from spar_env import core
from spar_env.core import State, tables_for
from spar_env.core.deal import deck_for_hands
from spar_env.history import History, step_with_history
from spar_env.records import ParsedRecord, parse_record, replay
from spar_env.rules import Ruleset

if TYPE_CHECKING:
    from spar_apps.table.human import HumanTable

MISTAKE_MARGIN = 0.25  # points: a card worth less than the best by no more is never a mistake
MISTAKE_Z = 2.0  # and its gap must be this many standard errors above zero (search noise)
REVIEW_WORLDS = 64  # worlds valued per decision: the search agent's default
REVIEW_MAX_WORLDS = 1024  # worlds a decision not yet decided may grow to
MOST_REASONS = 3  # the worlds' counts said, after the position's reasons, up to this many in all


@dataclass(frozen=True)
class MatchState:
    """Where the session stood when the hand was dealt (the record does not say)."""

    scores: tuple[int, ...]  # every seat's session points
    stones: tuple[int, ...] | None = None  # stones held, in a ``stones:K`` session
    hands_played: int = 0  # hands finished before this one


@dataclass(frozen=True)
class CardValue:
    """One legal card at a decision."""

    card: int
    prob: float  # the bot's probability of it
    value: float  # the search's mean payoff of it (points)
    stderr: float  # the standard error of that mean
    chance: float | None  # the mean chance to win the match after the hand (None: no match)


@dataclass(frozen=True)
class DecisionReview:
    """One decision of the reviewed seat."""

    play: int  # index of the play in the hand
    played: int  # the card played
    forced: bool  # the only legal card (not searched)
    cards: list[CardValue]  # every legal card, best first
    best: int  # the card with the highest mean payoff
    gap: float  # points the played card is worth less than the best
    gap_stderr: float  # the standard error of that gap (paired world by world)
    chance_gap: float | None  # match chance it is worth less than the best (None: no match)
    mistake: bool  # the gap is above MISTAKE_MARGIN and above MISTAKE_Z standard errors
    reasons: list[Reason] = field(default_factory=list)  # the position's, then the worlds'
    worlds: int = 0  # worlds drawn for it (0: forced)
    stood_in: bool = False  # the bot played it for the person away: not searched nor judged

    @property
    def undecided(self) -> bool:
        """The gap is above the margin, but within the search's noise."""
        return not self.forced and self.gap > MISTAKE_MARGIN and not self.mistake

    @property
    def bot_first(self) -> int:
        """The card the bot gives the highest probability (the lowest id among equals)."""
        return max(self.cards, key=lambda c: (c.prob, -c.card)).card

    def value(self, card: int) -> CardValue:
        return next(c for c in self.cards if c.card == card)


@dataclass(frozen=True)
class TrickReview:
    """One trick: its plays and who won it, and the reviewed seat's decision in it."""

    number: int  # from 0
    plays: list[tuple[int, int, bool]]  # (seat, card, face down) in the order played
    winner: int
    winning_card: int
    decision: DecisionReview | None  # None for a trick the seat sat out (never, in a record)


@dataclass(frozen=True)
class HandReview:
    """A finished hand, reviewed for ``seat``."""

    rules: Ruleset
    seat: int
    dealer: int
    tricks: list[TrickReview]
    result: dict[str, Any]  # the replay's result (winner, points, payoffs, ...)
    worlds: int  # worlds the search values each decision in, at first
    chance_before: float | None  # the seat's match chance when the hand was dealt
    max_worlds: int = REVIEW_MAX_WORLDS  # worlds a decision not yet decided may grow to
    names: dict[int, str] = field(default_factory=dict)  # the record's people, by seat
    stand_ins: frozenset[int] = frozenset()  # every seat's plays the bot made for them

    @property
    def decisions(self) -> list[DecisionReview]:
        """The seat's own decisions (its stand-in moves are not its own)."""
        return [t.decision for t in self.tricks
                if t.decision is not None and not t.decision.stood_in]  # fmt: skip

    @property
    def stood_in(self) -> list[DecisionReview]:
        """The seat's moves the bot made for it while it was away."""
        return [t.decision for t in self.tricks
                if t.decision is not None and t.decision.stood_in]  # fmt: skip

    @property
    def mistakes(self) -> list[DecisionReview]:
        return [d for d in self.decisions if d.mistake]

    @property
    def cost(self) -> float:
        """Points the mistakes cost, added up."""
        return sum(d.gap for d in self.mistakes)


def review_hand(
    record: object,
    seat: int,
    search: SearchAgent,
    match: MatchState | None = None,
    max_worlds: int = REVIEW_MAX_WORLDS,
) -> HandReview:
    """Review ``seat``'s decisions in the hand of ``record`` (see the module docstring).

    Args:
        record: a game record (a dict, as one line of a records file).
        seat: the seat reviewed.
        search: the search that values the cards (its policy is the bot's probabilities).
        match: the session's state when the hand was dealt, for the match chances; ``None``
            values the hand alone.
        max_worlds: the worlds a decision not yet decided may grow to (``search.worlds``:
            no more than the first batch).

    Raises:
        RecordError: for a record that is broken or breaks a rule (a ``ValueError``).
        ValueError: for a seat not at the table, a ruleset the search does not take or was
            not made for, or a match state that does not fit the ruleset.
    """
    parsed = parse_record(record)  # a RecordError for anything but a well-formed record
    assert isinstance(record, dict)  # (parse_record refuses anything else)
    result = replay(record)  # every rule checked, before anything is searched
    rules = parsed.rules
    check_rules(rules)
    if search.rules != rules:
        raise ValueError(f"the search was made for {search.rules.variant} with "
                         f"{search.rules.players} players, not for this record's game")  # fmt: skip
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < rules.players:
        raise ValueError(f"the seat must be 0..{rules.players - 1}; got {seat!r}")
    states, histories, plays = _decisions(parsed, seat, match)
    stand_ins = _stand_ins(parsed)
    situation = Situation(State.concat(states), History.concat(histories), np.arange(len(states)))
    probs = search.policy(situation)
    own = np.array([play not in stand_ins for play in plays], dtype=bool)
    open_rows = np.flatnonzero((np.bitwise_count(situation.legal) > 1) & own)
    searched = search.card_estimates(
        Situation(situation.state, situation.history, open_rows)
    )  # one batch for the whole hand
    estimates: dict[int, CardEstimates] = dict(zip(open_rows.tolist(), searched, strict=True))
    played = {row: parsed.plays[play] for row, play in enumerate(plays)}
    _decide(search, situation, estimates, played, max_worlds)
    chances = _Chances(rules, seat) if match is not None and _has_match(rules) else None
    decisions = []
    for row, play in enumerate(plays):
        one = Situation(situation.state, situation.history, np.array([row]))
        if play in stand_ins:
            decisions.append(_stand_in(play, parsed.plays[play], probs[row]))
            continue
        decisions.append(
            _decision(one, play, parsed.plays[play], probs[row], estimates.get(row), chances)
        )
    before = None
    if chances is not None and match is not None:
        before = chances.before(match, parsed.dealer)
    return HandReview(
        rules=rules,
        seat=seat,
        dealer=parsed.dealer,
        tricks=_tricks(rules, parsed, result, decisions),
        result=result,
        worlds=search.worlds,
        max_worlds=max(max_worlds, search.worlds),
        chance_before=before,
        names={s: entry["person"] for s, entry in enumerate(parsed.seats or [])
               if "person" in entry and entry["person"]},
        stand_ins=frozenset(stand_ins),
    )  # fmt: skip


def _stand_ins(parsed: ParsedRecord) -> set[int]:
    """The plays (indices into the record's ``plays``) the bot made for people away."""
    return {play for entry in parsed.seats or [] for play in entry.get("stood_in", [])}


def _stand_in(play: int, played: int, probs: np.ndarray) -> DecisionReview:
    """A move the bot made for the person away: shown with the bot's probability, not judged."""
    card = CardValue(played, float(probs[played]), float("nan"), 0.0, None)
    return DecisionReview(play, played, False, [card], played, 0.0, 0.0, None, False,
                          stood_in=True)  # fmt: skip


def reviewer(
    rules: Ruleset, bot: Any, spec: str, seed: int = 0, worlds: int = REVIEW_WORLDS
) -> SearchAgent:
    """The search that reviews hands: ``search`` (its defaults but ``worlds`` and ``seed``),
    every seat modelled by ``bot``, a learned agent built from ``spec`` (at a table, the bot
    whose probabilities its hint shows).

    Raises:
        ValueError: for a ruleset the search does not take, or a bot with no probabilities.
    """
    check_rules(rules)
    return SearchAgent(rules, policy_of(bot, spec), worlds=worlds, seed=seed)


def review_table_hand(table: HumanTable, search: SearchAgent) -> HandReview:
    """Review the hand a table has just finished, for the person's seat, with the match as it
    stood when the hand was dealt.

    Raises:
        ValueError: for a hand still running, or a tie-break hand (it has no record).
    """
    record = table.record()
    if record is None:
        raise ValueError("a tie-break hand that some seats sat out has no record to review")
    scores, stones, played = table.at_deal
    kept = stones if table.rules.end_kind == "stones" else None
    return review_hand(record, table.seat, search, MatchState(scores, kept, played))


def _decisions(
    parsed: ParsedRecord, seat: int, match: MatchState | None
) -> tuple[list[State], list[History], list[int]]:
    """The hand replayed on the core: a copy of the state and history at each of ``seat``'s
    decisions, and the index of each of those plays."""
    rules = parsed.rules
    deck = deck_for_hands(tables_for(rules), parsed.hands, parsed.dealer, parsed.stock)
    state = core.reset(rules, 1, np.random.default_rng(0), decks=deck[None, :],
                       dealers=np.array([parsed.dealer]))  # fmt: skip
    if match is not None:
        _set_match(state, rules, match)
    history = History(state)
    states, histories, plays = [], [], []
    first = np.array([0])
    for index, card in enumerate(parsed.plays):
        if int(state.current_player[0]) == seat:
            states.append(state.take(first))
            histories.append(history.take(first))
            plays.append(index)
        step_with_history(state, np.array([card]), history)
    return states, histories, plays


def _decide(
    search: SearchAgent,
    situation: Situation,
    estimates: dict[int, CardEstimates],
    played: dict[int, int],
    max_worlds: int,
) -> None:
    """Draw more worlds for the decisions (rows of ``situation``) whose played and best cards
    are not yet told apart, batch after batch, until each is told apart or has
    ``max_worlds`` worlds; ``estimates`` grows in place."""
    batch = 0
    while True:
        rows = [row for row, e in estimates.items()
                if _undecided(e, played[row]) and e.draws < max_worlds]  # fmt: skip
        if not rows:
            return
        batch += 1
        more = min(estimates[rows[0]].draws, max_worlds - estimates[rows[0]].draws)
        extra = _another_batch(search, more, batch)
        added = extra.card_estimates(Situation(situation.state, situation.history,
                                               np.array(rows)))  # fmt: skip
        for row, e in zip(rows, added, strict=True):
            estimates[row] = joined(estimates[row], e)


def _another_batch(search: SearchAgent, worlds: int, batch: int) -> SearchAgent:
    """The review's search with ``worlds`` worlds and a seed of the batch's own."""
    seed = int(np.random.SeedSequence([search.seed, batch]).generate_state(1, np.uint64)[0])
    return SearchAgent(search.rules, search.policy, worlds=worlds, candidates=search.candidates,
                       belief=search.belief, ess=search.ess, prior=search.prior,
                       leaf=search.leaf, seed=seed)  # fmt: skip


def _best(estimates: CardEstimates, played: int) -> int:
    """The card with the highest mean payoff (among equals, the card played, then the lowest)."""
    mean = estimates.mean
    legal = np.flatnonzero(estimates.legal).tolist()
    return max(legal, key=lambda c: (mean[c], c == played, -c))


def _undecided(estimates: CardEstimates, played: int) -> bool:
    best = _best(estimates, played)
    if best == played:
        return False
    gap, spread = estimates.gap(best, played)
    return gap > MISTAKE_MARGIN and not gap > MISTAKE_Z * spread


def _set_match(state: State, rules: Ruleset, match: MatchState) -> None:
    """Put the session's state into a freshly dealt hand (the policy reads the scores)."""
    n = rules.players
    if len(match.scores) != n or (match.stones is not None and len(match.stones) != n):
        raise ValueError(f"a match state gives one score (and stone count) per seat: {n}")
    state.scores[0] = match.scores
    state.hands_played[0] = match.hands_played
    if match.stones is not None:
        state.stones[0] = match.stones
        state.pool[0] = (rules.end_value or 0) - sum(match.stones)


def _decision(
    one: Situation,
    play: int,
    played: int,
    probs: np.ndarray,
    estimates: CardEstimates | None,
    chances: _Chances | None,
) -> DecisionReview:
    """One decision's values, best card, verdict and reasons."""
    legal = [c for c in range(one.rules.num_card_ids) if int(one.legal[0]) >> c & 1]
    if estimates is None:  # forced: one legal card
        card = CardValue(played, float(probs[played]), float("nan"), 0.0, None)
        return DecisionReview(play, played, True, [card], played, 0.0, 0.0, None, False,
                              reasons_for(one, played, played, forced=True))  # fmt: skip
    mean, stderr = estimates.mean, estimates.stderr
    won = None if chances is None or estimates.ends is None else chances.of(estimates.ends)
    chance = None if won is None else estimates.average(won)
    best = _best(estimates, played)
    gap, gap_stderr = estimates.gap(best, played)
    mistake = gap > MISTAKE_MARGIN and gap > MISTAKE_Z * gap_stderr
    cards = [
        CardValue(c, float(probs[c]), float(mean[c]), float(stderr[c]),
                  None if chance is None else float(chance[c]))
        for c in sorted(legal, key=lambda c: (c != best, -mean[c], c))
    ]  # fmt: skip
    chance_gap = None if chance is None else float(chance[best] - chance[played])
    reasons = reasons_for(one, best, played, forced=False)
    trick = int(one.state.trick[int(one.games[0])])
    said = {r.kind for r in reasons} | proven_kinds(one, best, played)
    seen = seen_reasons(one.rules, estimates, int(one.seats[0]), trick, best, played, said)
    reasons += seen[: max(MOST_REASONS - len(reasons), 0)]
    return DecisionReview(play, played, False, cards, best, gap, gap_stderr, chance_gap, mistake,
                          reasons, estimates.draws)  # fmt: skip


def _tricks(
    rules: Ruleset, parsed: ParsedRecord, result: dict[str, Any], decisions: list[DecisionReview]
) -> list[TrickReview]:
    """The hand trick by trick, each with the reviewed seat's decision in it."""
    n = rules.players
    down = set(result.get("face_down", []))
    by_play = {d.play: d for d in decisions}
    seats = _seats_in_order(rules, parsed, result)
    tricks = []
    for t in range(rules.hand_size):
        span = range(t * n, (t + 1) * n)
        plays = [(seats[i], parsed.plays[i], i in down) for i in span]
        mine = next((by_play[i] for i in span if i in by_play), None)
        winner = int(result["tricks"][t])
        card = rules.card_id(result["winning_cards"][t])
        tricks.append(TrickReview(t, plays, winner, card, mine))
    return tricks


def _seats_in_order(rules: Ruleset, parsed: ParsedRecord, result: dict[str, Any]) -> list[int]:
    """The seat of every play: each trick from its leader round the table."""
    n, sign = rules.players, rules.sign
    leader = (parsed.dealer + sign) % n
    seats: list[int] = []
    for t in range(rules.hand_size):
        seats.extend((leader + sign * k) % n for k in range(n))
        leader = int(result["tricks"][t])
    return seats


def _has_match(rules: Ruleset) -> bool:
    from spar_train.match.table_chances import has_chances

    return has_chances(rules)


class _Chances:
    """The seat's chance to win the match after a hand ends, each distinct end asked once."""

    def __init__(self, rules: Ruleset, seat: int) -> None:
        self.rules, self.seat = rules, seat
        self._known: dict[tuple, float] = {}

    def before(self, match: MatchState, dealer: int) -> float:
        return self._chance(match.scores, dealer, match.stones, match.hands_played)

    def of(self, ends: HandEnds) -> np.ndarray:
        """``float64 [W, C]``: the chance after each world's end of the hand after each card
        (1 or 0 when the hand ended the session; 0 for illegal cards)."""
        out = np.zeros(ends.winner.shape)
        for w, c in zip(*np.nonzero(ends.winner >= 0), strict=True):
            if ends.session_over[w, c]:
                out[w, c] = float(ends.session_winner[w, c] == self.seat)
            else:  # the hand's winner deals the next hand
                stones = tuple(ends.stones[w, c]) if self.rules.end_kind == "stones" else None
                out[w, c] = self._chance(tuple(ends.scores[w, c]), int(ends.winner[w, c]),
                                         stones, int(ends.hands_played[w, c]))  # fmt: skip
        return out

    def _chance(
        self, scores: Sequence[int], dealer: int, stones: Sequence[int] | None, played: int
    ) -> float:
        from spar_train.match.table_chances import table_chances

        key = (tuple(map(int, scores)), dealer, None if stones is None else tuple(stones), played)
        if key not in self._known:
            chances = table_chances(self.rules, key[0], dealer, stones=stones, hands_played=played)
            self._known[key] = float("nan") if chances is None else float(chances[self.seat])
        return self._known[key]
