"""The Gymnasium single-agent env ``spar_env/Spar-v0``: checker, seats, opponents, rewards."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from spar_env.envs import ENV_ID, SparEnv, register_envs
from spar_env.envs.batch import default_illegal_reward
from spar_env.observation.per_game import layout_for
from spar_env.rules import PRESETS

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def _masked_random(info: dict, rng: np.random.Generator) -> int:
    return int(rng.choice(np.flatnonzero(info["action_mask"])))


def _episode(env: gym.Env, seed: int, rng: np.random.Generator) -> tuple[list[float], dict]:
    obs, info = env.reset(seed=seed)
    rewards, done = [], False
    while not done:
        assert env.observation_space.contains(obs)
        obs, reward, terminated, truncated, info = env.step(_masked_random(info, rng))
        rewards.append(reward)
        done = terminated or truncated
    return rewards, info


@pytest.mark.parametrize("variant", list(PRESETS))
def test_check_env_passes_for_every_preset(variant):
    register_envs()
    check_env(gym.make(ENV_ID, variant=variant).unwrapped)


@pytest.mark.parametrize(
    "options",
    [
        {"variant": "essilfy", "weak_hand_exchange": True, "reveal_stock_bottom": True},
        {"variant": "sipa", "episode": "session", "end": "stones:5", "num_players": 3},
        {"variant": "spar", "seat": 2, "render_mode": "ansi"},
    ],
)
def test_check_env_passes_with_options(options):
    check_env(SparEnv(**options))


def test_make_passes_options_and_the_mask_follows_the_maskable_ppo_convention():
    register_envs()
    env = gym.make(ENV_ID, variant="agram", num_players=3, seat=1)
    obs, info = env.reset(seed=4)
    inner = env.unwrapped
    assert inner.rules.variant == "agram" and inner.rules.players == 3
    assert obs.shape == (layout_for(inner.rules).size,) and obs.dtype == np.uint8
    assert info["seat"] == 1
    assert info["action_mask"].dtype == np.int8
    np.testing.assert_array_equal(inner.action_masks(), info["action_mask"].astype(bool))
    # It is the learner's turn: "to move" is relative seat 0 in its own view.
    lay = layout_for(inner.rules)
    assert obs[lay.offset("to_move")] == 1


def test_a_hand_pays_the_learner_its_zero_sum_payoff_at_the_end():
    env = SparEnv("spar")
    rng = np.random.default_rng(0)
    seats = set()
    for seed in range(12):
        rewards, info = _episode(env, seed, rng)
        state = env._table.state
        seat, points = info["seat"], int(state.points[0])
        expected = points * 3 if int(state.winner[0]) == seat else -points
        assert rewards[:-1] == [0.0] * (len(rewards) - 1)
        assert rewards[-1] == expected
        assert len(rewards) == 5  # one decision per trick
        seats.add(seat)
    assert seats == {0, 1, 2, 3}  # seat=None: a random seat each episode


def test_session_episodes_last_until_the_session_ends():
    env = SparEnv("spar", episode="session", end="target:6", payoff="points", seat=0)
    rewards, info = _episode(env, 3, np.random.default_rng(3))
    state = env._table.state
    assert bool(state.session_over[0])
    assert sum(rewards) == int(state.scores[0, 0])
    assert len(rewards) > 5  # more than one hand


def test_seeds_make_episodes_repeat():
    a, b = SparEnv("sipa"), SparEnv("sipa")
    ra = _episode(a, 9, np.random.default_rng(1))
    rb = _episode(b, 9, np.random.default_rng(1))
    assert ra[0] == rb[0] and ra[1]["seat"] == rb[1]["seat"]


def test_callable_opponents_get_batches_and_their_actions_are_played():
    calls, chosen = [], []

    def lowest_legal(obs, mask, rng):
        calls.append((obs.shape, mask.shape, mask.dtype))
        actions = np.argmax(mask, axis=1)
        chosen.extend(actions.tolist())
        return actions

    env = SparEnv("spar", seat=0, opponents=lowest_legal)
    obs, info = env.reset(seed=1)
    rng = np.random.default_rng(1)
    for _ in range(3):
        obs, reward, terminated, truncated, info = env.step(_masked_random(info, rng))
    lay = layout_for(env.rules)
    assert calls and all(c == ((1, lay.size), (1, 36), np.bool_) for c in calls)
    state = env._table.state
    by_opponents = {
        c for seat in (1, 2, 3) for c in range(36) if int(state.played_up[0, seat]) >> c & 1
    }
    assert by_opponents == set(chosen)


def test_opponent_specs_are_checked():
    with pytest.raises(ValueError, match="unknown agent 'grandmaster'"):
        SparEnv("spar", opponents="grandmaster")
    with pytest.raises(ValueError, match="3 specs"):
        SparEnv("spar", opponents=["random", "random"])
    with pytest.raises(ValueError, match="seat must be a seat 0..3"):
        SparEnv("spar", seat=4)


def test_an_illegal_action_ends_the_episode_with_a_penalty_or_raises():
    env = SparEnv("spar")
    obs, info = env.reset(seed=2)
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    obs, reward, terminated, truncated, info = env.step(illegal)
    assert terminated and not truncated and info["illegal_action"]
    assert reward == default_illegal_reward(env.rules) == -4.0
    assert info["action_mask"].sum() == 0
    strict = SparEnv("spar", illegal_action="raise")
    _, info = strict.reset(seed=2)
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    with pytest.raises(ValueError, match=f"cannot play {strict.rules.card_name(illegal)}; legal: "):
        strict.step(illegal)


def test_ansi_render_shows_the_learners_hand_only():
    env = SparEnv("spar", seat=2, render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert "seat 2 (you)" in text
    hand = [
        env.rules.card_name(c, unicode=True)
        for c in range(36)
        if int(env._table.state.hands[0, 2]) >> c & 1
    ]
    assert all(card in text for card in hand)
