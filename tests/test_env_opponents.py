"""Env opponents built from agent specs: they see situations with the hand's play history."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import spar_env  # noqa: F401  (registers spar_env/Spar-v0)
from agents import Decision, make_agent
from spar_env import make_rules
from spar_env.envs.table import LearnerTable


def _mean_learner_payoff(opponents: str, episodes: int) -> float:
    table = LearnerTable(
        make_rules("spar"), episodes, np.random.default_rng(0), seat=0, opponents=opponents
    )
    table.restart(np.arange(episodes))
    rng = np.random.default_rng(1)
    total = np.zeros(episodes)
    while not table.over.all():
        masks = table.masks()
        actions = np.where(masks, rng.random(masks.shape), -1).argmax(axis=1)
        total += table.act(actions)
    return float(total.mean())


def test_heuristic_opponents_beat_a_random_learner_more_than_random_ones_do() -> None:
    against_random = _mean_learner_payoff("random", 2000)
    against_heuristic = _mean_learner_payoff("heuristic", 2000)
    assert against_heuristic < against_random - 0.3, (against_random, against_heuristic)


class _Recorder:
    """An agent that plays its first legal card and keeps the history lengths it saw."""

    def __init__(self) -> None:
        self.seen: list[np.ndarray] = []

    def act(self, situation, rng) -> Decision:
        self.seen.append(situation.history.count[situation.games].copy())
        return Decision(situation.mask.argmax(axis=1).astype(np.int64))


def test_agent_opponents_see_this_hands_plays_only() -> None:
    recorder = _Recorder()
    env = gym.make(
        "spar_env/Spar-v0",
        variant="spar",
        num_players=2,
        opponents=recorder,
        seat=0,
        episode="session",
        end="hands:3",
    )
    obs, info = env.reset(seed=0)
    done = False
    while not done:
        obs, _, terminated, truncated, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
        done = terminated or truncated
    counts = np.concatenate(recorder.seen)
    # Two players, five tricks: before the opponent's move 0 to 9 plays were made in its hand.
    assert counts.min() >= 0 and counts.max() <= 9
    assert len(counts) == 3 * 5  # five moves a hand, three hands


def test_unknown_spec_names_the_known_agents() -> None:
    with pytest.raises(ValueError, match="known agents: .*heuristic"):
        gym.make("spar_env/Spar-v0", opponents="grandmaster")


def test_specs_per_seat_build_agents() -> None:
    table = LearnerTable(
        make_rules("sipa", players=3),
        4,
        np.random.default_rng(0),
        opponents=["heuristic", make_agent("low", make_rules("sipa", players=3))],
    )
    assert table.games.history is not None
