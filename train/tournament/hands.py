"""Playing a batch of the tournament's hands (:mod:`spar_train.tournament`): the agents decide
the games where they hold the seat to move, one core step moves them all, and the outcome
holds what the figures need."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from spar_agents import Agent, Situation
from spar_env.core import State, reset, tables_for
from spar_env.core.bits import popcount
from spar_env.history import History, step_with_history
from spar_env.rules import Ruleset


@dataclass(frozen=True)
class Outcome:
    """How each game of a batch ended."""

    payoffs: np.ndarray  # float64 [B, N] payoff of each seat
    winner: np.ndarray  # int64 [B] seat that won the hand
    points: np.ndarray  # int64 [B] points it scored
    won_low: np.ndarray  # bool [B] the last trick was won with a scoring rank
    had_low: np.ndarray  # bool [B, N] the seat held a scoring rank at trick 1
    kept_low: np.ndarray  # bool [B, N] its card in the last trick was a scoring rank
    before_last: np.ndarray  # int64 [B] seat that won trick H-1 (-1 for one-card hands)


def decide(
    agents: Sequence[Agent],
    agent_at: np.ndarray,
    state: State,
    history: History,
    rows: np.ndarray,
    rng: np.random.Generator,
) -> np.ndarray:
    """``int64 [B]``: the action in each game of ``rows``, each agent deciding at once the
    games where it holds the seat to move (``agent_at[g, s]``: the agent at seat ``s``);
    0 elsewhere (games that are not stepped)."""
    owner = agent_at[rows, state.current_player[rows]]
    actions = np.zeros(state.batch_size, dtype=np.int64)
    for a, agent in enumerate(agents):
        games = rows[owner == a]
        if games.size:
            actions[games] = agent.act(Situation(state, history, games), rng).actions
    return actions


def play_batch(
    rules: Ruleset,
    agents: Sequence[Agent],
    agent_at: np.ndarray,
    decks: np.ndarray,
    dealers: np.ndarray,
    rng: np.random.Generator,
    on_step: Callable[[float], None] | None = None,
) -> Outcome:
    """Play one hand in every game: ``agent_at[g, s]`` (index into ``agents``) holds seat ``s``.

    ``on_step(done)``, if given, hears after each step the share of the batch's cards played.
    """
    t = tables_for(rules)
    n, h = rules.players, rules.hand_size
    state = reset(rules, decks.shape[0], rng, decks=decks, dealers=dealers)
    history = History(state)
    payoffs = np.zeros((state.batch_size, n))
    max_steps = n * h + n  # every card, plus at most one exchange decision per seat
    for _ in range(max_steps + 1):
        rows = np.flatnonzero(~state.terminated)
        if rows.size == 0:
            break
        actions = decide(agents, agent_at, state, history, rows, rng)
        step_with_history(state, actions, history)
        payoffs += state.rewards
        if on_step is not None:
            on_step(float(history.count.sum()) / (state.batch_size * n * h))
    else:
        raise RuntimeError(f"hands still running after {max_steps} steps")
    low_bits = np.bitwise_or.reduce(t.card_bit[: t.num_cards][t.card_points[:-1] > 0])
    last = slice(n * (h - 1), n * h)
    last_cards = np.zeros((state.batch_size, n), dtype=np.int64)
    np.put_along_axis(
        last_cards, history.seats[:, last].astype(np.int64), history.cards[:, last], axis=1
    )
    return Outcome(
        payoffs=payoffs,
        winner=state.winner.copy(),
        points=state.points.copy(),
        won_low=t.card_points[state.trick_card[:, h - 1].astype(np.int64)] > 0,
        had_low=popcount(state.held & low_bits) > 0,
        kept_low=t.card_points[last_cards] > 0,
        before_last=(
            state.trick_winner[:, h - 2].astype(np.int64) if h >= 2 else np.full(len(dealers), -1)
        ),
    )
