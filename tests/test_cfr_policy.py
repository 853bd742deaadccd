"""The solved policy file (atomic, checked on load), the CFR agent, and train/solve.py."""

from __future__ import annotations

import json
import zipfile

import numpy as np
import pytest

from spar_agents.base import Situation
from spar_agents.cfr.policy import CFRAgent, load_policy
from spar_env import make_rules
from spar_env.core import reset, step
from spar_env.history import History
from spar_train.solve import solve_exact


@pytest.fixture(scope="module")
def solved(tmp_path_factory):
    log_dir = tmp_path_factory.mktemp("solve")
    result = solve_exact(make_rules("micro"), "dcfr", 300, log_dir=log_dir, eval_every=100)
    return result, log_dir


def test_solve_logs_and_saves(solved):
    result, log_dir = solved
    assert result.iterations == 300
    assert result.nash_conv < 1e-5
    assert result.game_value == pytest.approx(7 / 9, abs=1e-5)
    assert [c[0] for c in result.curve] == [100, 200, 300]
    assert result.policy_path == log_dir / "policy.npz"
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    events = EventAccumulator(str(log_dir))
    events.Reload()
    tags = set(events.Tags()["scalars"])
    assert {"cfr/nash_conv", "cfr/game_value", "cfr/iterations_per_second"} <= tags
    assert not list(log_dir.glob("*.tmp"))  # the atomic write left nothing behind


def test_solve_stops_at_target():
    result = solve_exact(make_rules("micro"), "pcfr+", 10_000, target_nash_conv=1e-4, eval_every=10)
    assert result.iterations < 10_000
    assert result.nash_conv < 1e-4


def test_policy_round_trip(solved):
    result, log_dir = solved
    policy = load_policy(log_dir / "policy.npz", make_rules("micro"))
    np.testing.assert_array_equal(policy.keys, result.policy.keys)
    np.testing.assert_array_equal(policy.probs, result.policy.probs)
    assert policy.info["algorithm"] == "dcfr"
    assert policy.info["iterations"] == 300


def test_policy_for_other_rules_is_refused(solved):
    _, log_dir = solved
    with pytest.raises(ValueError, match="micro with 2 players, not mini"):
        load_policy(log_dir / "policy.npz", make_rules("mini"))


def test_truncated_policy_is_refused(solved, tmp_path):
    _, log_dir = solved
    data = (log_dir / "policy.npz").read_bytes()
    bad = tmp_path / "cut.npz"
    bad.write_bytes(data[: len(data) // 2])
    with pytest.raises(ValueError, match="truncated or altered"):
        load_policy(bad)


def test_altered_policy_is_refused(solved, tmp_path):
    _, log_dir = solved
    with np.load(log_dir / "policy.npz", allow_pickle=False) as f:
        arrays = {k: f[k] for k in f.files}
    arrays["probs"] = arrays["probs"].copy()
    arrays["probs"][0, :] = arrays["probs"][0, ::-1]
    bad = tmp_path / "altered.npz"
    np.savez(bad, **arrays)
    with pytest.raises(ValueError, match="checksum"):
        load_policy(bad)
    meta = json.loads(bytes(arrays["meta"]).decode())
    meta["players"] = 3
    arrays["meta"] = np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)
    np.savez(bad, **arrays)
    with pytest.raises(ValueError, match="3 players"):
        load_policy(bad, make_rules("micro"))
    with zipfile.ZipFile(bad, "w") as z:
        z.writestr("junk.npy", b"not numpy")
    with pytest.raises(ValueError):
        load_policy(bad)


def test_agent_plays_the_solved_policy(solved):
    result, _ = solved
    rules = make_rules("micro")
    agent = CFRAgent(result.policy)
    rng = np.random.default_rng(3)
    state = reset(rules, 256, rng)
    history = History(state)
    first = Situation(state, history, np.arange(256))
    decision = agent.act(first, rng)
    # At the first lead, the agent's probabilities are the policy's for that hand.
    rows = result.policy.lookup(
        np.array(
            [
                bytes([0, 1])
                + int(state.dealt[g, 0]).to_bytes(8, "big")
                + bytes([255] * rules.players * rules.hand_size)
                for g in range(256)
            ],
            dtype=f"S{result.policy.keys.shape[1]}",
        )
    )
    choice = rows >= 0
    assert choice.any()
    np.testing.assert_allclose(
        decision.probs[choice], result.policy.probs[rows[choice]], rtol=1e-6, atol=1e-7
    )
    # And it plays whole hands legally.
    while not state.terminated.all():
        games = np.flatnonzero(~state.terminated)
        d = agent.act(Situation(state, history, games), rng)
        actions = np.zeros(state.batch_size, dtype=np.int64)
        actions[games] = d.actions
        history.record(state, actions)
        step(state, actions)
        history.settle(state)


def test_the_policy_file_is_an_agent_spec_that_beats_random(solved):
    """``cfr:<policy.npz>`` works in the duplicate-deal bench, and the equilibrium wins."""
    from spar_agents import make_agent
    from spar_train.tournament import run_tournament

    result, _ = solved
    rules = make_rules("micro")
    assert isinstance(make_agent(f"cfr:{result.policy_path}", rules), CFRAgent)
    with pytest.raises(ValueError, match="cfr needs a policy file"):
        make_agent("cfr", rules)
    bench = run_tournament([f"cfr:{result.policy_path}", "random"], rules, 2000, seed=1)
    cfr = bench.agents[0]
    assert cfr.mean_payoff - cfr.ci95 > 0
