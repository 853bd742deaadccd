"""PPO: the masked network, GAE, safe checkpoints, the agent spec, exact resume and a learning test."""

from __future__ import annotations

import io
import os
from pathlib import Path

import numpy as np
import pytest
import torch
from helpers.stop import StopAfter
from test_observe import random_states, relabel_hidden

from spar_agents import make_agent
from spar_agents.base import Situation
from spar_agents.ppo.agent import PPOAgent, policy_probs, sample_actions
from spar_agents.ppo.checkpoint import CheckpointError, load_checkpoint, save_checkpoint
from spar_agents.ppo.network import ActorCritic, legal_entropy
from spar_agents.ppo.update import Batch, PPOSettings, gae, ppo_update
from spar_env.history import History
from spar_env.observation.per_game import layout_for
from spar_env.observation.universal import HIDDEN_V2, NUM_ACTIONS_V2, OBS_V2_HIGH, view_for
from spar_env.rules import make_rules
from spar_train.config import Config, load_config
from spar_train.evaluate import evaluate
from spar_train.games import build_model, game_mix
from spar_train.ppo.loop import train
from spar_train.ppo.sources.batch import GameBatch, hidden_hands
from spar_train.ppo.sources.lockstep import learner_answers
from spar_train.ppo.sources.mix import collect_in_lockstep
from spar_train.ppo.sources.pools import OpponentPool, snapshot_models

ROOT = Path(__file__).resolve().parents[1]
TINY = ROOT / "configs" / "ppo_tiny.toml"


def tiny(*overrides: str) -> Config:
    return load_config(TINY, list(overrides))


# ----- the network --------------------------------------------------------------------
def test_an_all_false_mask_gives_finite_losses_and_gradients() -> None:
    """A game whose episode just ended has an all-zero mask: no NaN anywhere."""
    rules = make_rules("spar", players=2)
    model = ActorCritic(layout_for(rules).high, rules.num_actions, (32,))
    obs = torch.zeros((4, model.obs_size), dtype=torch.uint8)
    mask = torch.zeros((4, rules.num_actions), dtype=torch.bool)
    mask[:2, :3] = True  # two live rows, two rows with no legal action
    batch = Batch(
        obs=obs,
        mask=mask,
        actions=torch.tensor([0, 1, 0, 0]),
        logp=torch.full((4,), -1.0),
        values=torch.zeros(4),
        advantages=torch.tensor([1.0, -1.0, 0.5, 0.0]),
        returns=torch.tensor([1.0, -1.0, 0.0, 0.0]),
        extra=None,
    )
    logits = model.policy_logits(obs, mask)
    assert torch.isfinite(torch.log_softmax(logits, -1)).all()
    entropy = legal_entropy(logits, mask)
    assert entropy[2:].eq(0).all() and (entropy[:2] > 0).all()  # over legal cards only
    optimizer = torch.optim.Adam(model.parameters())
    stats = ppo_update(model, optimizer, batch, PPOSettings(epochs=1, minibatch_size=4),
                       np.random.default_rng(0))  # fmt: skip
    assert all(np.isfinite(v) for v in stats.values())
    assert all(torch.isfinite(p).all() for p in model.parameters())


def test_illegal_cards_get_exactly_zero_probability_and_are_never_sampled() -> None:
    rules = make_rules("spar")
    model = ActorCritic(layout_for(rules).high, rules.num_actions, (32,))
    state = random_states(rules, 256, np.random.default_rng(0))
    live = np.flatnonzero(~state.terminated)
    situation = Situation(state, History(state), live)
    probs = policy_probs(model, situation.obs, situation.mask)
    assert (probs[~situation.mask] == 0).all()
    np.testing.assert_allclose(probs.sum(axis=1), 1, atol=1e-5)
    actions = sample_actions(probs, np.random.default_rng(1))
    assert situation.mask[np.arange(live.size), actions].all()


# The games of the universal (observation v2) policy-input check: presets, player counts, options.
V2_GAMES = [
    ("spar", {"players": 4}),
    ("sipa", {"players": 3}),
    ("agram", {"players": 5}),
    ("spar_classic", {"players": 2}),
    ("jeu_de_carte", {"players": 3, "weak_hand_exchange": True, "reveal_stock_bottom": True}),
    ("sink_sink", {"players": 7, "end": "hands:3"}),
]
MIX = (
    'game.mix=[{variant = "spar", players = [2, 3]}, {variant = "sipa", players = 3}, '
    '{variant = "spar", players = 4, options = {weak_hand_exchange = true}, weight = 0.5}]'
)


@pytest.mark.parametrize(
    ("variant", "options", "universal"),
    [("spar", {}, False)] + [(v, o, True) for v, o in V2_GAMES],
    ids=["v1"] + [f"v2-{v}-{o['players']}" for v, o in V2_GAMES],
)
def test_the_policy_reads_the_observation_alone_even_with_a_privileged_critic(
    variant, options, universal
) -> None:
    """Relabelling every card the seat cannot see leaves the policy's choices unchanged,
    while the privileged critic (training only) does see them; for the v1 network and for
    the universal one (observation v2) in many games."""
    from spar_env.observation.universal import OBS_V2_SIZE, view_for

    rules = make_rules(variant, **options)
    config = tiny("game.players=4", "model.privileged_critic=true", *([MIX] if universal else []))
    model = build_model(config, game_mix(config))
    assert model.privileged > 0
    size = OBS_V2_SIZE if universal else layout_for(rules).size
    assert model.actor[0].in_features == size  # no room for hidden cards
    rng = np.random.default_rng(3)
    state = random_states(rules, 200, rng)
    live = np.flatnonzero(~state.terminated)
    agent = PPOAgent(rules, model, universal=universal)
    for seat in range(rules.players):
        moved = relabel_hidden(state, seat, rng)
        mine = live[state.current_player[live] == seat]
        if mine.size == 0:
            continue
        # The same decisions in batches of the same shape: a float kernel may round one way
        # in a batch of 60 rows and another in a batch of 200, so equal shapes, exact equality.
        before = agent.act(Situation(state, History(state), mine), rng)
        after = agent.act(Situation(moved, History(moved), mine), rng)
        np.testing.assert_array_equal(after.probs, before.probs)
    seats = state.current_player[live]
    situation = Situation(state, History(state), live)
    extra, other = (
        hidden_hands(state, live, seats),
        hidden_hands(relabel_hidden(state, 0, rng), live, seats),
    )
    obs = situation.obs
    if universal:
        view = view_for(rules)
        extra, other, obs = view.hidden(extra), view.hidden(other), view.inputs(situation)[0]
    obs, extra, other = (torch.from_numpy(x) for x in (obs, extra, other))
    assert not torch.equal(model.value(obs, extra), model.value(obs, other))


# ----- GAE ----------------------------------------------------------------------------
def test_gae_by_hand() -> None:
    # One trajectory of three steps, reward 1 at the end; another of one step, reward -1.
    values = np.array([[0.5, 0.2, 0.8], [0.1, 9.0, 9.0]])
    rewards = np.array([[0, 0, 1.0], [-1.0, 0, 0]])
    valid = np.array([[True, True, True], [True, False, False]])
    adv, ret = gae(rewards, values, valid, gamma=1.0, lam=0.5)
    d2 = 1.0 - 0.8
    d1 = 0.8 - 0.2
    d0 = 0.2 - 0.5
    a2, a1 = d2, d1 + 0.5 * d2
    a0 = d0 + 0.5 * a1
    np.testing.assert_allclose(adv[0], [a0, a1, a2], rtol=1e-6)
    np.testing.assert_allclose(adv[1], [-1.1, 0, 0], rtol=1e-6)
    np.testing.assert_allclose(ret[0], adv[0] + values[0], rtol=1e-6)
    # lam = 1 gives Monte Carlo returns: the final reward at every step.
    _, mc = gae(rewards, values, valid, gamma=1.0, lam=1.0)
    np.testing.assert_allclose(mc[0], [1, 1, 1], rtol=1e-6)


# ----- checkpoints --------------------------------------------------------------------
@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory) -> Path:
    runs = tmp_path_factory.mktemp("runs")
    train(tiny(), runs)
    return runs / "tiny"


def test_a_run_writes_config_events_and_checkpoints(tiny_run: Path) -> None:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    assert (tiny_run / "config.toml").is_file()
    assert "spar_rl_version" in (tiny_run / "config.toml").read_text()
    assert sorted(p.name for p in (tiny_run / "checkpoints").iterdir()) == [
        "update_000000.pt",  # after the warm start
        "update_000002.pt",
        "update_000004.pt",
    ]
    events = EventAccumulator(str(tiny_run))
    events.Reload()
    tags = set(events.Tags()["scalars"])
    for tag in (
        "losses/policy_loss",
        "losses/value_loss",
        "losses/entropy",
        "losses/approx_kl",
        "losses/clip_fraction",
        "charts/SPS",
        "charts/learning_rate",
        "eval/payoff_vs_random",
        "eval/payoff_vs_random_ci95",
        "eval/payoff_vs_heuristic",
        "skill/kept_low_card_vs_heuristic",
        "skill/won_last_with_low_card_vs_heuristic",
        "skill/won_trick_before_last_vs_heuristic",
    ):
        assert tag in tags, tag
        assert all(np.isfinite(e.value) for e in events.Scalars(tag)), tag
    assert [e.step for e in events.Scalars("losses/policy_loss")] == [1, 2, 3, 4]
    assert "hyperparameters" in str(events.Tags()["tensors"])


def test_the_run_is_an_agent_spec_and_refuses_another_game(tiny_run: Path) -> None:
    rules = make_rules("spar", players=2)
    agent = make_agent(f"ppo:{tiny_run}", rules)
    assert isinstance(agent, PPOAgent)
    file = tiny_run / "checkpoints" / "update_000002.pt"
    assert isinstance(make_agent(f"ppo:path={file},greedy=false", rules), PPOAgent)
    with pytest.raises(
        ValueError, match=r"trained for spar with 2 players.*this game is spar with 4"
    ):
        make_agent(f"ppo:{tiny_run}", make_rules("spar", players=4))
    with pytest.raises(ValueError, match="sipa"):
        make_agent(f"ppo:{tiny_run}", make_rules("sipa", players=2))
    with pytest.raises(ValueError, match="no such checkpoint file or run folder"):
        make_agent(f"ppo:{tiny_run}/nothing", rules)


def test_truncated_or_altered_checkpoints_are_refused(tiny_run: Path, tmp_path: Path) -> None:
    data = (tiny_run / "checkpoints" / "update_000004.pt").read_bytes()
    cut = tmp_path / "cut.pt"
    cut.write_bytes(data[: len(data) // 2])
    with pytest.raises(CheckpointError, match="cut.pt: cannot read"):
        load_checkpoint(cut)
    altered = bytearray(data)
    altered[len(data) // 2] ^= 0xFF
    bad = tmp_path / "altered.pt"
    bad.write_bytes(bytes(altered))
    with pytest.raises(CheckpointError, match="altered.pt"):
        load_checkpoint(bad)
    not_ours = tmp_path / "plain.pt"
    torch.save({"weights": torch.zeros(3)}, not_ours)
    with pytest.raises(CheckpointError, match="not a spar-rl checkpoint"):
        load_checkpoint(not_ours)


class _Payload:
    """A pickle whose loading would write a file: the classic hostile checkpoint."""

    def __init__(self, target: str) -> None:
        self.target = target

    def __reduce__(self):
        return (Path(self.target).write_text, ("pwned",))


@pytest.mark.parametrize("where", ["outer", "inner"])
def test_a_pickle_that_carries_code_is_refused_and_never_runs(tmp_path: Path, where: str) -> None:
    target = tmp_path / "written_by_the_payload"
    hostile = tmp_path / "hostile.pt"
    if where == "outer":
        torch.save({"format": "spar-rl checkpoint", "x": _Payload(str(target))}, hostile)
    else:  # a well-formed outer file whose payload carries the code
        import hashlib

        blob = io.BytesIO()
        torch.save({"weights": _Payload(str(target))}, blob)
        raw = blob.getvalue()
        torch.save(
            {
                "format": "spar-rl checkpoint",
                "format_version": 1,
                "sha256": hashlib.sha256(raw).hexdigest(),
                "payload": torch.frombuffer(bytearray(raw), dtype=torch.uint8),
            },
            hostile,
        )
    with pytest.raises(CheckpointError, match="only weights load"):
        load_checkpoint(hostile)
    assert not target.exists()
    with pytest.raises(ValueError, match="hostile.pt"):
        make_agent(f"ppo:{hostile}", make_rules("spar", players=2))
    assert not target.exists()
    # Unpickled without weights_only, the same file runs its code: the test is not vacuous.
    outer = torch.load(hostile, weights_only=False)
    if where == "inner":
        torch.load(io.BytesIO(outer["payload"].numpy().tobytes()), weights_only=False)
    assert target.exists()


def test_checkpoints_are_written_atomically(tmp_path: Path, monkeypatch) -> None:
    path = tmp_path / "c.pt"
    save_checkpoint(path, {"a": torch.ones(2)})

    def crash(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(OSError, match="disk full"):
        save_checkpoint(path, {"a": torch.zeros(2)})
    assert load_checkpoint(path)["a"].tolist() == [1.0, 1.0]  # the old one, whole
    assert [p.name for p in tmp_path.iterdir()] == ["c.pt"]  # no temporary file left


# ----- rollouts -------------------------------------------------------------------------
def _v2_model(seed: int = 0) -> ActorCritic:
    torch.manual_seed(seed)
    return ActorCritic(OBS_V2_HIGH, NUM_ACTIONS_V2, (32, 32), privileged=HIDDEN_V2)


def _v2_batches(seed: int) -> list[tuple[GameBatch, OpponentPool, np.random.Generator]]:
    """Two games' batches as a mix has them (observation v2, one snapshot network shared
    by both games' pools), each with its own generator."""
    snapshots = [_v2_model(1).state_dict()]
    shared = snapshot_models(_v2_model, snapshots)
    mix = {"self": 0.4, "snapshot": 0.3, "heuristic": 0.3}
    out = []
    for i, rules in enumerate([make_rules("spar", players=3), make_rules("sipa", players=2)]):
        rng = np.random.default_rng([seed, i])
        pool = OpponentPool(rules, mix, 1, None, universal=True)
        pool.use_snapshots(snapshots, shared)
        out.append((GameBatch(rules, 24, rng, view_for(rules), 0.5), pool, rng))
    return out


def test_games_played_in_lockstep_get_the_rollouts_they_get_alone() -> None:
    """One forward pass per network (the learner, the shared snapshot) answers every game's
    turns; each game's play is unchanged by it."""
    model = _v2_model()
    alone = [
        collect_in_lockstep(model, [b.play(pool, 2, rng, True)])[0]
        for b, pool, rng in _v2_batches(7)
    ]
    plays = [b.play(pool, 2, rng, True) for b, pool, rng in _v2_batches(7)]
    together = collect_in_lockstep(model, plays)
    for a, b in zip(alone, together, strict=True):
        assert a.decisions == b.decisions > 0
        for name in ("obs", "legal", "actions", "extra", "trajectory", "rewards", "lengths"):
            assert np.array_equal(getattr(a, name), getattr(b, name)), name
        np.testing.assert_allclose(a.logp, b.logp, atol=1e-5)
        np.testing.assert_allclose(a.values, b.values, atol=1e-5)
        assert a.payoff_by_entry == b.payoff_by_entry
        assert set(a.payoff_by_entry) == {"self", "snapshot", "heuristic"}


def test_rollouts_in_bfloat16_answer_close_to_float32_but_in_another_arithmetic() -> None:
    model = _v2_model()
    batch, _, _ = _v2_batches(3)[0]
    state = batch.state
    games = np.flatnonzero(~state.terminated)
    turn = batch._learner_turn(games, state.current_player[games], True)
    ((logp32, value32),) = learner_answers(model, [turn], "float32")
    ((logp16, value16),) = learner_answers(model, [turn], "bfloat16")
    legal = turn.mask
    assert logp16.dtype == value16.dtype == np.float32
    assert not np.array_equal(logp32[legal], logp16[legal])
    np.testing.assert_allclose(np.exp(logp16[legal]), np.exp(logp32[legal]), atol=0.02)
    np.testing.assert_allclose(value16, value32, atol=0.05)


# ----- exact resume ---------------------------------------------------------------------
MIX_RUN = (MIX, 'eval.opponents=["heuristic"]', "rollout.precision=auto")  # as the shipped config


@pytest.mark.parametrize("game", [(), MIX_RUN], ids=["one", "mix"])
def test_a_stopped_and_resumed_run_ends_with_the_same_weights_bit_for_bit(
    tmp_path: Path, game: tuple[str, ...]
) -> None:
    """Also for a run over a mix of games (one batch of games a game, one PPO batch)."""
    config = tiny("run.updates=5", "run.checkpoint_every=1", *game)
    whole = train(config, tmp_path / "a")
    stopped = train(config, tmp_path / "b", hooks=[StopAfter(2)])
    assert stopped.stopped_early and stopped.counters.update == 2
    resumed = train(config, tmp_path / "b", resume=True)
    assert resumed.counters.update == 5 and whole.counters.decisions == resumed.counters.decisions
    a = load_checkpoint(tmp_path / "a" / "tiny" / "checkpoints" / "update_000005.pt")
    b = load_checkpoint(tmp_path / "b" / "tiny" / "checkpoints" / "update_000005.pt")
    for key, tensor in a["weights"].items():
        assert torch.equal(tensor, b["weights"][key]), key
    assert a["rng"] == b["rng"]
    assert len(a["pool"]) == len(b["pool"]) == 2


def test_a_run_folder_in_use_is_not_overwritten(tiny_run: Path) -> None:
    with pytest.raises(ValueError, match="already exists; resume it"):
        train(tiny(), tiny_run.parent)


# ----- learning -------------------------------------------------------------------------
@pytest.mark.slow
def test_ppo_learns_to_beat_random_in_two_player_spar(tmp_path: Path) -> None:
    """An honest learning test: the payoff against random rises well above where it started,
    on the same duplicate deals, by more than both 95% intervals."""
    config = tiny(
        "run.updates=30",
        "rollout.games=512",
        "ppo.minibatch_size=2048",
        "ppo.lr=1e-3",
        "pool.mix={ self = 0.5, random = 0.5 }",
        "eval.every=30",
        "eval.deals=1500",
        "eval.opponents=['random']",
        'warmstart.imitate=""',  # PPO alone
    )
    rules = make_rules("spar", players=2)
    torch.manual_seed(config.run.seed)
    model = build_model(config, game_mix(config))
    start = evaluate(PPOAgent(rules, model), rules, ["random"], 1500, 12345)
    result = train(config, tmp_path)
    before, after = start["random"], result.evaluations["random"]
    assert after["mean_payoff"] - after["ci95"] > before.mean_payoff + before.ci95


def test_the_learning_curves_are_read_back_and_plotted(tiny_run: Path, tmp_path: Path) -> None:
    from spar_train.curves import plot_run, read_scalars

    scalars = read_scalars(tiny_run)
    steps, values = scalars["eval/payoff_vs_heuristic"]
    assert steps.tolist() == [2, 4] and np.isfinite(values).all()
    out = plot_run(tiny_run, tmp_path / "curves.png")
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with pytest.raises(ValueError, match="no TensorBoard event files"):
        read_scalars(tmp_path)


# ----- a run that only imitates: a distillation ---------------------------------------
def test_a_run_of_no_update_distils_its_teacher_and_more_epochs_copy_it_closer(tmp_path) -> None:
    """``run.updates = 0``: the warm start's imitation is the whole run (a network distilled
    from a slow agent, for a best response to train against). Its one checkpoint plays as a
    ``ppo:`` agent; ``warmstart.epochs`` passes over each batch fit the teacher closer."""
    from spar_train.curves import read_scalars

    losses = {}
    for epochs in (1, 4):
        name = f"distil{epochs}"
        result = train(tiny("run.updates=0", f"run.name={name}", "warmstart.updates=3",
                            f"warmstart.epochs={epochs}", "rollout.games=64"), tmp_path)  # fmt: skip
        assert result.counters.update == 0 and result.counters.warm_started
        saved = load_checkpoint(tmp_path / name / "checkpoints" / "update_000000.pt")
        assert saved["counters"]["update"] == 0
        steps, values = read_scalars(tmp_path / name / "warmstart")["warmstart/cross_entropy"]
        assert list(steps) == [0, 1, 2]
        losses[epochs] = values
        agent = make_agent(f"ppo:{tmp_path / name}", result.rules)
        assert isinstance(agent, PPOAgent)
    # The first batch is the same hands in both runs (the same seed, drawn before any
    # shuffle), so its mean loss over four passes is below one pass's; and it stays below.
    assert losses[4][0] < losses[1][0]
    assert losses[4][-1] < losses[1][-1]
