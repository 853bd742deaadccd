"""The match bench behind ``spar bench --matches``: whole sessions, played to their end.

The hand bench (:mod:`spar_train.tournament`) scores single hands; this one
plays each match to the ruleset's session end (first to T, stones, hands:K),
the winner of each hand dealing the next, and counts who wins matches.

**Seating** is the hand bench's: the lineup fills the seats in order, and
each match is played once in every distinct rotation of the seating.

**Deals.** Match ``i`` of a seed has its own first dealer and its own
sequence of decks: the deck of its hand ``j`` depends on ``(seed, i, j)``
only. So every rotation of a match meets the same cards in the same order
while the matches last (who deals may differ once the hands' winners do), and
the same seed and chunk give the same figures, here or on Ray.

**Figures, per agent:**

- ``match_share``: share of its matches won (a match won by one of its seats
  counts once), with a 95% interval over matches; the match, over all its
  rotations, is the independent unit. Its fair share is its seats over N, of
  the matches that had a winner.
- ``mean_payoff``: its payoff per hand (stakes or points), with the interval.
- ``ties``: the share of matches that ended without a winner (``hands:K``).
- ``mean_hands``: hands per match, over every match and rotation.

**Length.** A match lasts at most :func:`~spar_train.match.model.most_hands`
hands (a 7-player match to 1,000 points, the farthest end the rules take, at
most 6,994), and progress is reported hand by hand as how far the batch's
matches have come toward their end, so a long match moves the bar.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from spar_agents import Agent
from spar_agents.registry import AgentSpec
from spar_env.core import State, next_hand, reset, shuffle_decks, tables_for
from spar_env.history import History, step_with_history
from spar_env.rules import Ruleset
from spar_train import tournament
from spar_train.match.model import most_hands, require_match_end
from spar_train.tournament import (
    Progress,
    Seating,
    batches,
    build_players,
    check_request,
    seating,
)
from spar_train.tournament.hands import decide
from spar_train.tournament.seating import DEAL_BLOCK
from spar_train.tournament.stats import mean_ci

DEFAULT_MATCH_CHUNK = 1024  # matches per batch (times the rotations: games in the batch)


class MatchDecks:
    """The decks of a batch's matches, hand by hand: hand ``j`` of match ``i`` depends on
    ``(seed, i, j)`` only (module docstring)."""

    def __init__(self, rules: Ruleset, seed: int, batch: tournament.Batch) -> None:
        self._tables = tables_for(rules)
        self._seed = seed
        self._matches = np.arange(batch.start, batch.start + batch.count)
        self._by_hand: dict[int, np.ndarray] = {}

    def first_dealers(self, rules: Ruleset) -> np.ndarray:
        """``int64 [matches]``: the first dealer of each match."""
        if rules.first_dealer is not None:
            return np.full(self._matches.size, rules.first_dealer, dtype=np.int64)
        blocks = self._matches // DEAL_BLOCK
        out = np.empty(self._matches.size, dtype=np.int64)
        for block in np.unique(blocks):
            drawn = np.random.default_rng([self._seed, 6, block]).integers(
                0, rules.players, DEAL_BLOCK
            )
            here = blocks == block
            out[here] = drawn[self._matches[here] % DEAL_BLOCK]
        return out

    def hand(self, j: int) -> np.ndarray:
        """``int8 [matches, deck]``: the deck of hand ``j`` (0: the first) of each match."""
        if j not in self._by_hand:
            blocks = self._matches // DEAL_BLOCK
            out = np.empty((self._matches.size, self._tables.deck.shape[0]), dtype=np.int8)
            for block in np.unique(blocks):
                rng = np.random.default_rng([self._seed, 7, block, j])
                drawn = shuffle_decks(self._tables, DEAL_BLOCK, rng)
                here = blocks == block
                out[here] = drawn[self._matches[here] % DEAL_BLOCK]
            self._by_hand[j] = out
        return self._by_hand[j]


@dataclass(frozen=True)
class MatchOutcome:
    """How each game (match x rotation) of a batch ended."""

    winner: np.ndarray  # int64 [G] seat that won the match, -1 for a tie
    hands: np.ndarray  # int64 [G] hands it lasted
    payoffs: np.ndarray  # float64 [G, N] each seat's payoff summed over the match


def play_matches(
    rules: Ruleset,
    players: Sequence[Agent],
    seats: Seating,
    seed: int,
    batch: tournament.Batch,
    on_hand: Callable[[float], None] | None = None,
) -> MatchOutcome:
    """Play one batch of ``seed``'s matches in every rotation of ``seats`` to their end.

    Game ``m * R + r`` is match ``batch.start + m`` in rotation ``r``. The
    outcome depends on ``(seed, batch)`` alone. ``on_hand(done)`` hears how far
    the batch has come, 0 to 1, after each hand ends somewhere (:func:`toward_end`).
    """
    require_match_end(rules)
    limit = most_hands(rules)
    if limit is None:  # the bench refuses an open session before it plays
        raise ValueError("a match bench needs a session end; an open session never ends")
    rotations = seats.rotations
    decks = MatchDecks(rules, seed, batch)
    agent_at = np.tile(seats.table, (batch.count, 1))
    match_of = np.repeat(np.arange(batch.count), rotations)  # game -> match in the batch
    rng = np.random.default_rng([seed, 8, batch.index])
    state = reset(
        rules,
        batch.count * rotations,
        rng,
        decks=decks.hand(0)[match_of],
        dealers=np.repeat(decks.first_dealers(rules), rotations),
    )
    history = History(state)
    payoffs = np.zeros((state.batch_size, rules.players))
    for _ in range(limit * (rules.players * rules.hand_size + rules.players)):
        rows = np.flatnonzero(~state.terminated)
        if rows.size == 0:
            break
        actions = decide(players, agent_at, state, history, rows, rng)
        ended_before = state.terminated.copy()
        step_with_history(state, actions, history)
        payoffs += state.rewards
        ended = np.flatnonzero(state.terminated & ~ended_before & ~state.session_over)
        if ended.size:
            hand = state.hands_played[ended]
            if hand.max() >= limit:  # the engine's own rules say it cannot be
                raise RuntimeError(f"a match to {rules.end} still running after {limit} hands")
            fresh = np.empty((ended.size, state.deck.shape[1]), dtype=np.int8)
            for j in np.unique(hand):
                here = hand == j
                fresh[here] = decks.hand(int(j))[match_of[ended[here]]]
            next_hand(state, ended, rng, decks=fresh)
            history.clear(ended)
        if on_hand is not None and ended.size:
            on_hand(float(toward_end(rules, state).mean()))
    return MatchOutcome(
        winner=state.session_winner.copy(),
        hands=state.hands_played.copy(),
        payoffs=payoffs,
    )


def toward_end(rules: Ruleset, state: State) -> np.ndarray:
    """``float64 [B]``: how far each game's session has come toward its end, 0 to 1: the
    leader's share of the target, the stones taken from the pool, the hands played of
    ``hands:K``; 1 once it is over."""
    kind, value = rules.end_kind, rules.end_value or 1
    if kind == "target":
        done = state.scores.max(axis=1) / value
    elif kind == "stones":
        done = 1 - state.pool / value
    elif kind == "hands":
        done = state.hands_played / value
    else:  # one_hand
        done = np.zeros(state.batch_size)
    return np.where(state.session_over, 1.0, np.minimum(done, 1.0))


@dataclass(frozen=True)
class MatchAgentResult:
    """One agent's figures over the matches (module docstring)."""

    spec: str
    seats: int
    match_share: float
    match_ci95: float
    fair_share: float  # seats / N of the matches that had a winner
    mean_payoff: float
    payoff_ci95: float
    hands: int  # seat-hands it played

    def to_dict(self) -> dict[str, object]:
        return {
            "spec": self.spec,
            "seats": self.seats,
            "match_share": self.match_share,
            "match_ci95": [self.match_share - self.match_ci95, self.match_share + self.match_ci95],
            "match_ci95_halfwidth": self.match_ci95,
            "fair_share": self.fair_share,
            "mean_payoff": self.mean_payoff,
            "payoff_ci95_halfwidth": self.payoff_ci95,
            "hands": self.hands,
        }


@dataclass(frozen=True)
class MatchResult:
    rules: Ruleset
    lineup: tuple[str, ...]
    seed: int
    matches: int
    seating: Seating
    agents: tuple[MatchAgentResult, ...]
    ties: float
    mean_hands: float
    share_by_match: np.ndarray  # float64 [M, A] each agent's share of the match's rotations won

    @property
    def games(self) -> int:
        """Matches played: matches x rotations."""
        return self.matches * self.seating.rotations

    @property
    def hands(self) -> int:
        """Hands played in all."""
        return int(round(self.mean_hands * self.games))

    def to_dict(self) -> dict[str, object]:
        """Plain data for ``--json``: the same seed and chunk give the same dict."""
        return {
            "variant": self.rules.variant,
            "players": self.rules.players,
            "options": self.rules.options(),
            "end": self.rules.end,
            "lineup": list(self.lineup),
            "seed": self.seed,
            "matches": self.matches,
            "rotations": self.seating.rotations,
            "games": self.games,
            "ties": self.ties,
            "mean_hands": self.mean_hands,
            "agents": [a.to_dict() for a in self.agents],
        }


def summarise_matches(
    lineup: Sequence[str],
    rules: Ruleset,
    matches: int,
    seed: int,
    seats: Seating,
    outcomes: Iterator[MatchOutcome] | Sequence[MatchOutcome],
) -> MatchResult:
    """The figures of a run from its batches' outcomes, in batch order."""
    a, rotations = len(seats.agents), seats.rotations
    shares, pays, hands, ties, games = [], [], [], 0, 0
    for outcome in outcomes:
        count = outcome.winner.shape[0] // rotations
        agent_at = np.tile(seats.table, (count, 1))
        match = np.repeat(np.arange(count), rotations)
        won = outcome.winner >= 0
        winner_agent = agent_at[np.flatnonzero(won), outcome.winner[won]]
        won_by = np.bincount(match[won] * a + winner_agent, minlength=count * a).reshape(count, a)
        shares.append(won_by / rotations)
        paid = np.bincount(
            (match[:, None] * a + agent_at).ravel(),
            weights=outcome.payoffs.ravel(),
            minlength=count * a,
        ).reshape(count, a)
        seat_hands = np.bincount(
            (match[:, None] * a + agent_at).ravel(),
            weights=np.repeat(outcome.hands, agent_at.shape[1]),
            minlength=count * a,
        ).reshape(count, a)
        pays.append(paid / seat_hands)
        hands.append(seat_hands)
        ties += int((~won).sum())
        games += outcome.winner.shape[0]
    share_by_match = np.concatenate(shares)
    pay_by_match = np.concatenate(pays)
    seat_hands = np.concatenate(hands)
    results = []
    n = rules.players
    decided = 1 - ties / games  # matches with a winner: the fair shares split these
    for i, spec in enumerate(seats.agents):
        share, share_ci = mean_ci(share_by_match[:, i])
        pay, pay_ci = mean_ci(pay_by_match[:, i])
        held = int(seats.seats[i])
        results.append(
            MatchAgentResult(
                spec=spec,
                seats=held,
                match_share=share,
                match_ci95=share_ci,
                fair_share=held / n * decided,
                mean_payoff=pay,
                payoff_ci95=pay_ci,
                hands=int(seat_hands[:, i].sum()),
            )
        )
    total_hands = seat_hands.sum() / n
    return MatchResult(
        rules=rules,
        lineup=tuple(lineup),
        seed=seed,
        matches=matches,
        seating=seats,
        agents=tuple(results),
        ties=ties / games,
        mean_hands=float(total_hands / games),
        share_by_match=share_by_match,
    )


def run_match_bench(
    lineup: Sequence[str | AgentSpec],
    rules: Ruleset,
    matches: int,
    seed: int = 0,
    *,
    chunk: int = DEFAULT_MATCH_CHUNK,
    progress: Progress | None = None,
    agents: Mapping[str, Agent] | None = None,
) -> MatchResult:
    """Play ``matches`` matches among the agents of ``lineup``, every rotation (module docstring).

    ``agents`` may give ready agents by spec (a trainer evaluates its live policy this way).

    Raises:
        ValueError: for a bad lineup, spec, count or seed, or a session that never ends.
    """
    check_request(matches, chunk, seed)
    require_match_end(rules)
    texts = [str(spec) for spec in lineup]
    seats = seating(texts, rules.players)
    players = build_players(lineup, seats, rules, agents)

    def outcomes() -> Iterator[MatchOutcome]:
        for batch in batches(matches, chunk):
            on_hand = None
            if progress is not None:

                def on_hand(done: float, batch: tournament.Batch = batch) -> None:
                    progress(batch.start + done * batch.count, matches)

            yield play_matches(rules, players, seats, seed, batch, on_hand)
            if progress is not None:
                progress(batch.start + batch.count, matches)

    return summarise_matches(texts, rules, matches, seed, seats, outcomes())
