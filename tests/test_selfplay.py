"""The self-play batch API: the caller plays every seat; rewards for all seats; autoreset."""

from __future__ import annotations

import re

import numpy as np
import pytest

import spar_env.envs.selfplay as selfplay_module
from spar_env.envs.selfplay import SelfPlay
from spar_env.observation.per_game import encode, layout_for


def _random_legal(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return np.where(mask, rng.random(mask.shape), -1.0).argmax(axis=1)


def test_the_documented_example_runs():
    example = re.search(r"::\n\n(.*?)\n\n``observe", selfplay_module.__doc__, flags=re.S).group(1)
    namespace: dict = {}
    exec(compile(re.sub(r"^    ", "", example, flags=re.M), "example", "exec"), namespace)
    games = namespace["games"]
    assert games.batch_size == 1024 and namespace["rewards"].shape == (1024, 4)


@pytest.mark.parametrize("variant", ["spar", "sipa", "essilfy"])
def test_the_mover_its_view_and_mask_come_from_the_core(variant):
    games = SelfPlay(variant, batch_size=32, seed=1)
    rng = np.random.default_rng(1)
    for _ in range(30):
        seat = games.current_player
        assert (seat >= 0).all()  # autoreset: every game always has a seat to move
        np.testing.assert_array_equal(games.observation, encode(games.state, seat))
        np.testing.assert_array_equal(games.action_mask, games.state.legal_mask())
        lay = layout_for(games.rules)
        assert (games.observation[:, lay.offset("to_move")] == 1).all()
        games.step(_random_legal(games.action_mask, rng))


def test_rewards_are_zero_sum_for_every_seat_and_paid_when_a_hand_ends():
    games = SelfPlay("spar", num_players=5, batch_size=64, seed=2)
    rng = np.random.default_rng(2)
    ended = 0
    for _ in range(60):
        rewards = games.step(_random_legal(games.action_mask, rng))
        assert rewards.shape == (64, 5)
        np.testing.assert_array_equal(rewards.sum(axis=1), 0)
        done = games.terminated
        assert (np.abs(rewards[done]).sum(axis=1) > 0).all()
        assert (rewards[~done] == 0).all()
        # Autoreset in the same step: the new hand is dealt, nothing played yet.
        lay = layout_for(games.rules)
        assert (games.observation[done, lay.offset("trick_number")] == 1).all()
        ended += int(done.sum())
    assert ended >= 64


def test_without_autoreset_finished_games_wait_for_reset():
    games = SelfPlay("micro", batch_size=8, seed=3, autoreset=False)
    rng = np.random.default_rng(3)
    for _ in range(4):  # micro: 2 seats x 2 tricks
        games.step(_random_legal(games.action_mask, rng))
    assert games.terminated.all()
    assert (games.current_player == -1).all() and not games.action_mask.any()
    rewards = games.step(np.zeros(8, dtype=np.int64))  # ignored
    assert (rewards == 0).all()
    games.reset(games=np.array([1, 5]))
    assert games.terminated.tolist() == [True, False, True, True, True, False, True, True]
    assert (games.current_player[[1, 5]] >= 0).all()


def test_any_seat_can_be_observed_and_illegal_actions_are_named():
    games = SelfPlay("spar", batch_size=4, seed=4)
    everyone = np.stack([games.observe(s) for s in range(4)], axis=1)
    assert everyone.shape == (4, 4, layout_for(games.rules).size)
    mask = games.action_mask
    actions = _random_legal(mask, np.random.default_rng(4))
    actions[1] = int(np.flatnonzero(~mask[1])[0])
    with pytest.raises(ValueError, match=f"game 1: seat {games.current_player[1]} cannot play "):
        games.step(actions)


def test_session_episodes_pay_per_hand():
    games = SelfPlay(
        "spar", batch_size=16, seed=5, episode="session", end="target:3", payoff="points"
    )
    rng = np.random.default_rng(5)
    paid = np.zeros((16, 4))
    while not games.terminated.any():
        paid += games.step(_random_legal(games.action_mask, rng))
    done = games.terminated
    assert (paid[done].max(axis=1) >= 3).all()
