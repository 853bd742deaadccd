"""Sampled CFR: the walk solves a small game, its abstraction reads only what a seat may know,
its tables are saved safely, it improves on a small budget, and a run resumes exactly."""

from __future__ import annotations

import numpy as np
import pytest

from spar_agents.cfr.abstraction import InfosetRows, card_abstraction
from spar_agents.cfr.evaluation import nash_conv
from spar_agents.cfr.mccfr import ExternalSampling
from spar_agents.cfr.sampled_policy import SampledCFRAgent, SampledPolicy, load_sampled
from spar_agents.cfr.seqform import sequence_form
from spar_agents.registry import make_agent
from spar_env import make_rules
from spar_env.core import reset, step, tables_for
from spar_env.core.bits import lowest_bit_index, unpack
from spar_env.history import History
from spar_env.situation import Situation
from spar_train.config import ConfigError, load_config
from spar_train.evaluate import evaluate
from spar_train.mccfr import run_mccfr

SPAR2 = make_rules("spar", players=2)


def _average_profile(solver: ExternalSampling, rows: InfosetRows, sf):
    rules = solver.rules
    table = solver.strategy.reshape(-1, rules.num_actions)
    legal = unpack(rows.tree.infoset_legal, rules.num_actions).astype(np.float64)
    total = table.sum(axis=1, keepdims=True)
    policy = np.where(
        total > 0, table / np.where(total > 0, total, 1), legal / legal.sum(1)[:, None]
    )
    return sf.from_tree_policy(policy)


@pytest.mark.parametrize(("variant", "share"), [("micro", 0.25), ("mini", 0.6)])
def test_without_abstraction_the_walk_approaches_the_equilibrium(
    variant: str, share: float
) -> None:
    """On the exact information sets, NashConv of the average falls as hands are walked."""
    rules = make_rules(variant)
    rows = InfosetRows(rules)
    sf = sequence_form(rows.tree)
    solver = ExternalSampling(rules, seed=1, deals=512, abstraction=rows)
    curve = []
    for batches in (1, 7, 24):
        solver.step(batches)
        curve.append(nash_conv(sf, _average_profile(solver, rows, sf)))
    uniform = nash_conv(sf, sf.uniform())
    assert curve[0] > curve[1] > curve[2]
    assert curve[2] < share * uniform


def _first_leads(rules, decks, dealers):
    state = reset(rules, decks.shape[0], np.random.default_rng(0), decks=decks, dealers=dealers)
    return state, History(state)


def test_rows_depend_only_on_what_the_deciding_seat_may_know() -> None:
    """Cards the decider cannot see are reshuffled between the other hand and the stock: the
    rows of its cards stay the same, at the lead and when following the lead."""
    rng = np.random.default_rng(3)
    rules, games = SPAR2, 256
    t = tables_for(rules)
    abstraction = card_abstraction(rules)
    deal = reset(rules, games, rng)
    decks = deal.deck.astype(np.int64)
    state_a, history_a = _first_leads(rules, decks, deal.dealer)
    leader = state_a.current_player.copy()
    everyone = np.arange(games)
    # At the lead: only the leader's hand is fixed.
    mine = (t.card_bit[decks] & state_a.hands[everyone, leader][:, None]) != 0
    decks_b = decks.copy()
    for g in range(games):
        free = np.flatnonzero(~mine[g])
        decks_b[g, free] = rng.permutation(decks[g, free])
    state_b, history_b = _first_leads(rules, decks_b, deal.dealer)
    rows_a = abstraction.rows(Situation(state_a, history_a, everyone))[1]
    rows_b = abstraction.rows(Situation(state_b, history_b, everyone))[1]
    assert (state_a.hands != state_b.hands).any()  # not vacuous
    np.testing.assert_array_equal(rows_a, rows_b)
    # The leader leads its lowest card; the follower's hand and that card are fixed.
    led = lowest_bit_index(state_a.legal)
    follower = 1 - leader
    fixed = state_a.hands[everyone, follower] | t.card_bit[led]
    keep = (t.card_bit[decks] & fixed[:, None]) != 0
    decks_c = decks.copy()
    for g in range(games):
        free = np.flatnonzero(~keep[g])
        decks_c[g, free] = rng.permutation(decks[g, free])
    state_c, history_c = _first_leads(rules, decks_c, deal.dealer)
    for state, history in ((state_a, history_a), (state_c, history_c)):
        history.record(state, led)
        step(state, led)
        history.settle(state)
    rows_a = abstraction.rows(Situation(state_a, history_a, everyone))[1]
    rows_c = abstraction.rows(Situation(state_c, history_c, everyone))[1]
    assert (state_a.hands[everyone, leader] != state_c.hands[everyone, leader]).any()
    assert (rows_a >= 0).any()
    np.testing.assert_array_equal(rows_a, rows_c)


def test_the_walk_improves_against_random_on_a_small_budget() -> None:
    solver = ExternalSampling(SPAR2, seed=0, deals=256)
    before = evaluate(SampledCFRAgent(SampledPolicy.of(solver)), SPAR2, ["random"], 1500, 7)
    solver.step(12)
    after = evaluate(SampledCFRAgent(SampledPolicy.of(solver)), SPAR2, ["random"], 1500, 7)
    b, a = before["random"], after["random"]
    assert a.mean_payoff - a.ci95 > b.mean_payoff + b.ci95


class _Counting:
    """An agent that plays like ``heuristic`` and counts the decisions it is asked."""

    def __init__(self) -> None:
        self.inner, self.asked = make_agent("heuristic", SPAR2), 0

    def act(self, situation, rng):
        self.asked += situation.size
        return self.inner.act(situation, rng)


def test_the_others_play_the_model_in_its_share_of_hands_only() -> None:
    model = _Counting()
    plain = ExternalSampling(SPAR2, seed=0, deals=128, model=model, model_share=0.0)
    plain.step(2)
    assert model.asked == 0
    restricted = ExternalSampling(SPAR2, seed=0, deals=128, model=model, model_share=0.5)
    restricted.step(2)
    assert model.asked > 0
    # The average is built from the other hands only: less of it than without the model.
    assert 0 < restricted.strategy.sum() < plain.strategy.sum()
    with pytest.raises(ValueError, match="model_share"):
        ExternalSampling(SPAR2, model=model, model_share=1.0)


@pytest.fixture(scope="module")
def tables(tmp_path_factory):
    solver = ExternalSampling(SPAR2, seed=0, deals=64)
    solver.step(2)
    path = tmp_path_factory.mktemp("mccfr") / "policy.npz"
    return solver, SampledPolicy.of(solver).save(path)


def test_tables_round_trip_and_play_as_a_cfr_spec(tables) -> None:
    solver, path = tables
    policy = load_sampled(path, SPAR2)
    np.testing.assert_array_equal(policy.regret, solver.regret)
    np.testing.assert_array_equal(policy.strategy, solver.strategy)
    agent = make_agent(f"cfr:{path}", SPAR2)
    assert isinstance(agent, SampledCFRAgent)
    assert agent.table is agent.policy.regret  # the current strategy, by default
    chosen = make_agent(f"cfr:path={path},greedy=true,average=true", SPAR2)
    assert chosen.greedy and chosen.table is chosen.policy.strategy
    found = evaluate(agent, SPAR2, ["random"], 50, 0)
    assert np.isfinite(found["random"].mean_payoff)


def test_bad_tables_are_refused(tables, tmp_path) -> None:
    _, path = tables
    data = path.read_bytes()
    cut = tmp_path / "cut.npz"
    cut.write_bytes(data[: len(data) // 2])
    with pytest.raises(ValueError, match="unreadable"):
        load_sampled(cut)
    with pytest.raises(ValueError, match="not spar with 4"):
        load_sampled(path, make_rules("spar"))
    with np.load(path, allow_pickle=False) as f:
        arrays = {k: f[k] for k in f.files}
    arrays["strategy"] = arrays["strategy"] + 1.0
    altered = tmp_path / "altered.npz"
    np.savez(altered, **arrays)
    with pytest.raises(ValueError, match="checksum"):
        load_sampled(altered)


def _config(tmp_path, name: str, batches: int):
    return load_config(
        None,
        [
            "algorithm=mccfr",
            f"run.name={name}",
            "game.players=2",
            "mccfr.deals=32",
            f"mccfr.batches={batches}",
            "mccfr.eval_every=2",
            "mccfr.eval_deals=20",
            'mccfr.eval_opponents=["random"]',
        ],
    )


def test_a_resumed_run_walks_the_same_hands_as_an_unbroken_one(tmp_path) -> None:
    whole = run_mccfr(_config(tmp_path, "whole", 4), tmp_path)
    run_mccfr(_config(tmp_path, "parts", 2), tmp_path)
    parts = run_mccfr(_config(tmp_path, "parts", 4), tmp_path, resume=True)
    assert whole.batches == parts.batches == 4
    a, b = load_sampled(whole.policy_path), load_sampled(parts.policy_path)
    np.testing.assert_array_equal(a.regret, b.regret)
    np.testing.assert_array_equal(a.strategy, b.strategy)
    assert (tmp_path / "whole" / "config.toml").is_file()
    assert list((tmp_path / "whole").glob("events.out.tfevents.*"))
    assert set(whole.evaluations) == {"random"}


def test_impossible_mccfr_configs_are_refused_before_anything_runs() -> None:
    with pytest.raises(ConfigError, match="weak-hand exchange"):
        load_config(None, ["algorithm=mccfr", "game.options.weak_hand_exchange=true"])
    with pytest.raises(ConfigError, match="mccfr.deals"):
        load_config(None, ["algorithm=mccfr", "mccfr.deals=0"])
    with pytest.raises(ConfigError, match="mccfr.eval_opponents"):
        load_config(None, ["algorithm=mccfr", 'mccfr.eval_opponents=["nobody"]'])
    with pytest.raises(ConfigError, match="no \\[solver\\] section"):
        load_config(None, ["algorithm=mccfr", "solver.iterations=3"])
