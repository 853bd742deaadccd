"""Exported bots: ``spar export``, the ONNX graph against torch, its metadata, the ``onnx:`` agent
(on onnxruntime alone, no torch), refusals, and the bot shipped in ``checkpoints/``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
import pytest
import torch

from spar_agents import make_agent
from spar_agents.export.bot import SHIPPED_BOT, OnnxAgent, _sample, bot_rules
from spar_agents.export.metadata import BotError, action_names
from spar_agents.export.samples import self_play_observations
from spar_agents.export.writer import export_checkpoint, largest_difference
from spar_agents.ppo.agent import policy_probs
from spar_agents.ppo.checkpoint import save_checkpoint
from spar_agents.ppo.network import ActorCritic
from spar_agents.signature import game_signature
from spar_apps.cli import main
from spar_env.observation.per_game import OBS_VERSION, layout_for
from spar_env.rules import make_rules
from spar_train.tournament import run_tournament

torch.set_num_threads(1)
ROOT = Path(__file__).resolve().parents[1]
CARD = ROOT / "checkpoints" / "spar4.json"
ONE_THREAD = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONPATH": str(ROOT)}


def tiny_run(folder: Path, rules, update: int = 3, seed: int = 0) -> Path:
    """A run folder holding one checkpoint of a randomly initialised network (a spread-out policy)."""
    torch.manual_seed(seed)
    model = ActorCritic(layout_for(rules).high, rules.num_actions, hidden=(32, 16), privileged=5)
    with torch.no_grad():  # the usual 0.01 head gain gives near-uniform policies: spread them
        model.actor[-1].weight.normal_(0.0, 1.0)
    run = folder / "tiny"
    save_checkpoint(
        run / "checkpoints" / f"update_{update:06d}.pt",
        {
            "game": game_signature(rules),
            "model": {"hidden": [32, 16], "privileged": 5},
            "weights": model.state_dict(),
            "counters": {"update": update, "decisions": 0, "seconds": 0.0, "warm_started": False},
            "config": {"run": {"name": "tiny", "seed": seed}, "ppo": {"lr": 3e-4}},
        },
    )
    return run


@pytest.fixture(scope="module")
def spar4_bot(tmp_path_factory) -> tuple[Path, Path]:
    """A tiny run for 4-player spar and its exported bot: ``(run, bot file)``."""
    folder = tmp_path_factory.mktemp("export")
    run = tiny_run(folder, make_rules("spar"))
    out = folder / "tiny.onnx"
    assert main(["export", str(run), "--out", str(out), "--check", "512"]) == 0
    return run, out


def test_the_bot_agrees_with_torch_on_10000_real_decisions(spar4_bot) -> None:
    run, _ = spar4_bot
    exported = export_checkpoint(run)
    obs, mask = self_play_observations(exported.rules, 10_000, seed=1)
    assert obs.dtype == np.uint8 and obs.shape == (10_000, 379) and mask.shape == (10_000, 36)
    agent = OnnxAgent(exported.rules, _session(exported.data))
    ours = agent.probs(obs, mask)
    theirs = policy_probs(exported.model, obs, mask)
    assert np.abs(ours - theirs).max() < 1e-5
    assert largest_difference(exported, obs, mask) < 1e-5
    assert (ours[~mask] == 0).all()  # exactly zero, not merely small
    np.testing.assert_allclose(ours.sum(axis=1), 1.0, atol=1e-5)
    assert (ours.max(axis=1) > 0.5).mean() > 0.1  # a policy with preferences, not uniform


def test_the_bot_handles_the_exchange_and_an_all_false_mask(tmp_path: Path) -> None:
    rules = make_rules("spar", players=3, weak_hand_exchange=True)
    exported = export_checkpoint(tiny_run(tmp_path, rules))
    obs, mask = self_play_observations(rules, 3000, seed=2)
    assert mask[:, rules.keep_action].any()  # the exchange decisions are among them
    assert largest_difference(exported, obs, mask) < 1e-5
    probs = OnnxAgent(rules, _session(exported.data)).probs(obs[:2], np.zeros_like(mask[:2]))
    assert (probs == 0).all()


def test_the_metadata_names_the_game_encoding_actions_and_run(spar4_bot) -> None:
    _, bot = spar4_bot
    rules = make_rules("spar")
    meta = {p.key: p.value for p in onnx.load(str(bot)).metadata_props}
    assert meta["format"] == "spar-rl onnx bot"
    assert meta["variant"] == "spar" and meta["players"] == "4"
    assert json.loads(meta["options"]) == {}
    assert meta["obs_version"] == str(OBS_VERSION) and meta["obs_size"] == "379"
    assert meta["obs_dtype"] == "uint8" and meta["num_actions"] == "36"
    actions = json.loads(meta["actions"])
    assert actions == action_names(rules) and actions[0] == "AC" and actions[35] == "6S"
    assert "suit index * 9 + rank index" in meta["action_ids"]
    assert json.loads(meta["run"]) == {
        "name": "tiny",
        "update": 3,
        "checkpoint": "update_000003.pt",
    }
    assert json.loads(meta["config"])["ppo"]["lr"] == 3e-4
    graph = onnx.load(str(bot)).graph
    assert [i.name for i in graph.input] == ["obs", "mask"]
    assert [o.name for o in graph.output] == ["probs"]
    assert graph.input[0].type.tensor_type.elem_type == onnx.TensorProto.UINT8
    exchange = action_names(make_rules("spar", weak_hand_exchange=True))
    assert exchange[-2:] == ["KEEP", "EXCHANGE"] and len(exchange) == 38


def test_the_bot_is_an_agent_spec_and_refuses_another_game(spar4_bot) -> None:
    _, bot = spar4_bot
    agent = make_agent(f"onnx:{bot}", make_rules("spar"))
    assert isinstance(agent, OnnxAgent) and agent.run["update"] == 3
    options = agent.session.get_session_options()
    assert options.intra_op_num_threads == 1 and options.inter_op_num_threads == 1
    assert options.get_session_config_entry("session.intra_op.allow_spinning") == "0"
    with pytest.raises(
        ValueError, match=r"trained for spar with 4 players.*this game is sipa with 3"
    ):
        make_agent(f"onnx:{bot}", make_rules("sipa", players=3))
    with pytest.raises(ValueError, match=r"trained for spar with 4 players, .* \(last_two=bonus\)"):
        make_agent(f"onnx:{bot}", make_rules("spar", last_two="bonus"))
    assert bot_rules(bot) == make_rules("spar")


def test_the_bot_is_an_env_opponent(spar4_bot) -> None:
    from spar_env.envs import SparEnv

    _, bot = spar4_bot
    env = SparEnv(opponents=f"onnx:{bot}")
    obs, info = env.reset(seed=0)
    hands = 0
    for _ in range(200):
        legal = np.flatnonzero(info["action_mask"])
        obs, reward, terminated, truncated, info = env.step(int(legal[0]))
        if terminated:
            hands += 1
            obs, info = env.reset()
    assert hands >= 30


def test_sampling_follows_the_policy_and_stays_legal(spar4_bot) -> None:
    from spar_agents.export.bot import _sample

    _, bot = spar4_bot
    rules = make_rules("spar")
    obs, mask = self_play_observations(rules, 500, seed=3)
    probs = make_agent(f"onnx:{bot}", rules).probs(obs, mask)
    row = int(np.argmax((probs > 0.05).sum(axis=1)))  # a decision with several likely cards
    draws = _sample(np.repeat(probs[row : row + 1], 20_000, axis=0), np.random.default_rng(0))
    shares = np.bincount(draws, minlength=rules.num_actions) / draws.size
    np.testing.assert_allclose(shares, probs[row], atol=0.015)
    assert mask[np.arange(500), _sample(probs, np.random.default_rng(1))].all()
    # The core checks every action of a tournament: a sampling bot plays legal cards only.
    result = run_tournament([f"onnx:path={bot},greedy=false", "random"], rules, 50, seed=1)
    assert result.agents[0].hands == 50 * 2 * 2  # B R B R: two rotations, two seats
    with pytest.raises(ValueError, match="greedy must be true or false"):
        make_agent(f"onnx:path={bot},greedy=3", rules)


def test_the_onnx_agent_plays_a_bench_without_importing_torch(spar4_bot) -> None:
    _, bot = spar4_bot
    code = (
        "import sys\n"
        "from spar_apps.cli import main\n"
        f"status = main(['bench', 'onnx:{bot}', 'random', '--deals', '20', '--json'])\n"
        "assert status == 0, status\n"
        "assert 'torch' not in sys.modules, 'torch was imported'\n"
        "print('no torch')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=ONE_THREAD, timeout=300
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().endswith("no torch")
    assert json.loads(done.stdout.rpartition("no torch")[0])["deals"] == 20


def test_export_checks_the_output_path_before_any_work(spar4_bot, tmp_path: Path, capsys) -> None:
    run, _ = spar4_bot
    assert main(["export", str(run), "--out", str(tmp_path / "bot.txt")]) == 2
    assert "--out" in capsys.readouterr().err and not (tmp_path / "bot.txt").exists()
    assert main(["export", str(run), "--out", str(tmp_path / "no" / "bot.onnx")]) == 2
    assert "no such directory" in capsys.readouterr().err
    assert main(["export", str(tmp_path / "nothing"), "--out", str(tmp_path / "b.onnx")]) == 2
    assert "no such checkpoint file or run folder" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []  # nothing half-written either


def test_files_that_are_not_bots_are_refused_in_one_line(tmp_path: Path) -> None:
    rules = make_rules("spar")
    junk = tmp_path / "junk.onnx"
    junk.write_bytes(b"\x00not a model")
    with pytest.raises(BotError, match="not an ONNX model onnxruntime can run"):
        make_agent(f"onnx:{junk}", rules)
    with pytest.raises(BotError, match="no such bot file"):
        make_agent(f"onnx:{tmp_path / 'missing.onnx'}", rules)
    plain = tmp_path / "plain.onnx"  # a valid ONNX model without the bot's metadata
    model = onnx.helper.make_model(
        onnx.helper.make_graph(
            [onnx.helper.make_node("Identity", ["obs"], ["probs"])],
            "plain",
            [onnx.helper.make_tensor_value_info("obs", onnx.TensorProto.FLOAT, [1, 3])],
            [onnx.helper.make_tensor_value_info("probs", onnx.TensorProto.FLOAT, [1, 3])],
        )
    )
    onnx.save(model, str(plain))
    with pytest.raises(BotError, match="not a spar-rl bot"):
        make_agent(f"onnx:{plain}", rules)
    with pytest.raises(ValueError, match="onnx needs an exported bot file"):
        make_agent("onnx", rules)
    for bad, why in ((junk, "not an ONNX model onnxruntime can run"), (plain, "not a spar-rl bot"),
                     (tmp_path / "missing.onnx", "no such bot file")):  # fmt: skip
        with pytest.raises(BotError, match=why):
            bot_rules(bad)  # the game's reader refuses them as the agent does


def test_a_bots_game_is_read_without_an_inference_session(monkeypatch) -> None:
    import onnxruntime

    def no_session(*args, **kwargs):
        raise AssertionError("an inference session was built to read the metadata")

    monkeypatch.setattr(onnxruntime, "InferenceSession", no_session)
    assert bot_rules(SHIPPED_BOT) == make_rules("spar", players=4)
    assert bot_rules("universal") == make_rules("spar")  # a shipped bot by name


# ----- the shipped bot ----------------------------------------------------------------
def test_the_shipped_bot_is_small_described_and_for_the_default_game() -> None:
    assert SHIPPED_BOT == ROOT / "checkpoints" / "spar4.onnx"
    assert SHIPPED_BOT.stat().st_size < 5 * 1024 * 1024
    assert bot_rules(SHIPPED_BOT) == make_rules("spar", players=4)
    card = json.loads(CARD.read_text())
    assert card["bot"] == "checkpoints/spar4.onnx"
    assert "spar train" in card["trained"]["command"] and "spar export" in card["exported"]
    for opponent in ("random", "heuristic", "pimc"):
        figures = card["bench"][opponent]
        low, high = figures["ci95"]
        assert low <= figures["mean_payoff"] <= high and figures["deals"] >= 1000


def test_the_shipped_bot_beats_random() -> None:
    result = run_tournament([f"onnx:{SHIPPED_BOT}", "random"], make_rules("spar"), 300, seed=0)
    bot = result.agents[0]
    assert bot.mean_payoff - bot.ci95 > 0, (bot.mean_payoff, bot.ci95)


def _session(data: bytes):
    from spar_agents.export.bot import load_session

    return load_session(data, "the test bot")


@pytest.mark.parametrize("greedy", [True, False])
@pytest.mark.parametrize("bot", ["spar4", "universal", "match"])
def test_a_bot_answers_forced_moves_without_its_graph_and_plays_as_with_it(bot, greedy) -> None:
    """A decision with one legal action skips the network: its policy is the graph's answer
    (1 on that action), and the moves and the random draws stay those of the whole batch."""
    from test_observe import random_states

    from spar_agents.shipped import bot_path
    from spar_env.history import History
    from spar_env.rules import make_rules
    from spar_env.situation import Situation

    rules = make_rules("spar")
    agent = OnnxAgent.from_path(rules, bot_path(bot), greedy=greedy)
    state = random_states(rules, 400, np.random.default_rng(3))
    situation = Situation(state, History(state), np.flatnonzero(~state.terminated))
    forced = situation.mask.sum(axis=1) == 1
    assert 0 < forced.sum() < forced.size  # both kinds of decision are in the batch
    whole = agent.game_probs(situation.obs, situation.mask)  # the graph on every row
    decision = agent.act(situation, np.random.default_rng(7))
    assert np.array_equal(whole[forced], decision.probs[forced])  # exactly 1 and 0
    np.testing.assert_allclose(decision.probs, whole, atol=1e-6)
    expected = whole.argmax(axis=1) if greedy else _sample(whole, np.random.default_rng(7))
    assert np.array_equal(decision.actions, expected)
