"""Env opponents built from agent specs: they see situations with the hand's play history."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import spar_env  # noqa: F401  (registers spar_env/Spar-v0)
from spar_agents import Decision, make_agent
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


class _SeatWatcher:
    """Plays like the agent it wraps, and notes, per game, the seats it decided for after the
    learner's (``k = 1`` is the next seat in the direction of play)."""

    def __init__(self, inner, table_of) -> None:
        self.inner, self.table_of, self.after_learner = inner, table_of, set()

    def act(self, situation, rng) -> Decision:
        table = self.table_of()
        n, sign = situation.rules.players, situation.rules.sign
        k = (situation.seats - table.learner[situation.games]) * sign % n
        self.after_learner.update(int(x) for x in k)
        return self.inner.act(situation, rng)


def test_specs_per_seat_sit_where_they_are_listed_and_come_from_the_given_builder() -> None:
    rules = make_rules("sipa", players=3)
    tables: list[LearnerTable] = []
    built: list[tuple[str, object]] = []

    def builder(spec: str, given_rules) -> _SeatWatcher:
        built.append((spec, given_rules))
        return _SeatWatcher(make_agent(spec, given_rules), lambda: tables[0])

    table = LearnerTable(rules, 64, np.random.default_rng(0), opponents=["heuristic", "low"],
                         agent_builder=builder)  # fmt: skip
    tables.append(table)
    assert built == [("heuristic", rules), ("low", rules)]  # each spec built once, for this game
    table.restart(np.arange(64))
    rng = np.random.default_rng(1)
    while not table.over.all():
        masks = table.masks()
        table.act(np.where(masks, rng.random(masks.shape), -1).argmax(axis=1))
    first, second = (p for p, _ in table._groups)
    assert (first.after_learner, second.after_learner) == ({1}, {2})
    assert table.learner.min() != table.learner.max()  # random learner seats: rotated by seat


def test_a_spec_without_any_builder_is_refused_naming_the_way_out(monkeypatch) -> None:
    from spar_env.envs import opponents

    monkeypatch.setattr(opponents, "installed_builder", lambda: None)
    with pytest.raises(ValueError, match="no agent builder is installed.*agent_builder"):
        LearnerTable(make_rules("spar"), 1, np.random.default_rng(0), opponents="heuristic")
    LearnerTable(make_rules("spar"), 1, np.random.default_rng(0), opponents="random")  # built in


def test_the_installed_builder_is_the_agent_registry() -> None:
    from spar_agents.registry import make_agent as registry_make_agent
    from spar_env.envs.opponents import installed_builder

    assert installed_builder() is registry_make_agent
