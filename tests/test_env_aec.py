"""The PettingZoo AEC env: PettingZoo's own checks, rewards, episodes, illegal moves."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import api_test, render_test, seed_test
from pettingzoo.utils.conversions import aec_to_parallel

from spar_env.envs.aec import env, raw_env
from spar_env.envs.batch import default_illegal_reward
from spar_env.observation.per_game import encode
from spar_env.rules import PRESETS

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

OPTION_CASES = [
    ("essilfy", {"weak_hand_exchange": True, "reveal_stock_bottom": True}),
    ("sipa", {"episode": "session", "end": "stones:5", "num_players": 3}),
    ("jeu_de_carte", {"episode": "session", "end": "target:4", "num_players": 2}),
]


def _play(aec, rng: np.random.Generator, *, until_done: bool = True, limit: int = 10_000):
    """Masked random play; returns the per-agent sum of rewards seen through last()."""
    totals = dict.fromkeys(aec.possible_agents, 0.0)
    for agent in aec.agent_iter(limit):
        obs, reward, terminated, truncated, _ = aec.last()
        totals[agent] += reward
        action = (
            None if terminated or truncated else int(rng.choice(np.flatnonzero(obs["action_mask"])))
        )
        aec.step(action)
    return totals


@pytest.mark.parametrize("variant", list(PRESETS))
def test_api_test_passes_for_every_preset(variant):
    api_test(env(variant=variant), num_cycles=60)


@pytest.mark.parametrize(("variant", "options"), OPTION_CASES)
def test_api_test_passes_with_options_and_sessions(variant, options):
    api_test(env(variant=variant, **options), num_cycles=60)


@pytest.mark.parametrize("variant", list(PRESETS))
def test_seed_test_passes_for_every_preset(variant):
    seed_test(lambda: env(variant=variant), num_cycles=40)


def test_seed_test_passes_with_a_session_and_an_exchange():
    seed_test(
        lambda: env(variant="agram", weak_hand_exchange=True, episode="session", end="hands:3"),
        num_cycles=60,
    )


@pytest.mark.parametrize("variant", list(PRESETS))
def test_max_cycles_truncates_after_k_moves_per_agent(variant):
    """The assertions of PettingZoo's ``max_cycles_test``, with masked actions.

    ``max_cycles_test`` itself samples unmasked actions and needs a parallel env
    whose step is a full cycle; neither fits a turn-based game with a mask
    (an unmasked action is illegal, and the trick winner leads next).
    """
    max_cycles = 4
    aec = env(variant=variant, episode="session", end="hands:3", max_cycles=max_cycles)
    aec.reset(seed=1)
    rng = np.random.default_rng(0)
    counts = dict.fromkeys(aec.possible_agents, 0)
    for agent in aec.agent_iter():
        counts[agent] += 1
        obs, _, terminated, truncated, _ = aec.last()
        aec.step(
            None if terminated or truncated else int(rng.choice(np.flatnonzero(obs["action_mask"])))
        )
    visits = np.array(list(counts.values()))
    assert visits.max() - 1 == max_cycles
    assert np.median(visits) - 1 == max_cycles
    assert aec.agents == []


def test_render_test_passes():
    def custom(text: str) -> bool:
        return any(s in text for s in "♣♦♥♠")

    render_test(
        lambda render_mode=None: env(variant="spar", render_mode=render_mode, render_seat=0),
        custom_tests={"ansi": custom},
    )


def test_observations_are_the_encoder_vectors_and_only_the_mover_has_a_mask():
    aec = raw_env(variant="sipa")
    aec.reset(seed=5)
    rng = np.random.default_rng(5)
    state = aec._batch.state
    while not all(aec.terminations.values()):
        for agent in aec.agents:
            seat = aec.agent_name_mapping[agent]
            obs = aec.observe(agent)
            np.testing.assert_array_equal(obs["observation"], encode(state, seat)[0])
            assert obs["action_mask"].dtype == np.int8
            if agent == aec.agent_selection:
                assert obs["action_mask"].tolist() == aec._batch.masks()[0].astype(int).tolist()
                assert obs["action_mask"].sum() > 0
            else:
                assert obs["action_mask"].sum() == 0
        mask = aec.observe(aec.agent_selection)["action_mask"]
        aec.step(int(rng.choice(np.flatnonzero(mask))))


@pytest.mark.parametrize("variant", ["spar", "essilfy", "sipa", "fapfap"])
def test_a_hand_pays_zero_sum_payoffs_at_its_end(variant):
    aec = env(variant=variant)
    rng = np.random.default_rng(2)
    for seed in range(5):
        aec.reset(seed=seed)
        totals = _play(aec, rng)
        state = aec.unwrapped._batch.state
        points, winner = int(state.points[0]), int(state.winner[0])
        n = len(totals)
        expected = {
            f"player_{s}": float(points * (n - 1) if s == winner else -points) for s in range(n)
        }
        assert totals == expected


def test_session_episodes_pay_each_hand_and_end_with_the_session():
    aec = raw_env(variant="spar", episode="session", end="target:5", payoff="points")
    aec.reset(seed=11)
    rng = np.random.default_rng(11)
    totals = _play(aec, rng)
    state = aec._batch.state
    assert bool(state.session_over[0])
    assert int(state.hands_played[0]) >= 2
    # Points payoffs add up to the session scores, hand after hand.
    assert [totals[f"player_{s}"] for s in range(4)] == state.scores[0].astype(float).tolist()
    assert max(totals.values()) >= 5


def test_raw_env_refuses_an_illegal_card_by_name():
    aec = raw_env(variant="spar")
    aec.reset(seed=0)
    rules = aec.rules
    mask = aec.observe(aec.agent_selection)["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    legal = ", ".join(rules.card_name(int(a)) for a in np.flatnonzero(mask))
    with pytest.raises(
        ValueError,
        match=f"{aec.agent_selection} cannot play {rules.card_name(illegal)}; legal: {legal}",
    ):
        aec.step(illegal)


def test_env_ends_the_game_and_penalises_an_illegal_move():
    aec = env(variant="spar")
    aec.reset(seed=0)
    offender = aec.agent_selection
    obs, *_ = aec.last()
    aec.step(int(np.flatnonzero(obs["action_mask"] == 0)[0]))
    assert all(aec.terminations.values())
    seen = {}
    for agent in aec.agent_iter():
        _, reward, terminated, truncated, _ = aec.last()
        assert terminated or truncated
        seen[agent] = reward
        aec.step(None)
    assert seen[offender] == default_illegal_reward(aec.unwrapped.rules) == -4.0
    assert all(r == 0 for a, r in seen.items() if a != offender)


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="episode must be one of"):
        raw_env(episode="game")
    with pytest.raises(ValueError, match="episode='session' needs a session that ends"):
        raw_env(variant="fapfap", episode="session")
    with pytest.raises(ValueError, match="at most 3 players"):
        raw_env(variant="micro", num_players=4)
    with pytest.raises(ValueError, match="render_mode"):
        raw_env(render_mode="rgb_array")


def test_there_is_no_parallel_env_because_the_trick_winner_moves_next():
    assert raw_env().metadata["is_parallelizable"] is False
    with pytest.raises(AssertionError, match="is_parallelizable"):
        aec_to_parallel(env())
