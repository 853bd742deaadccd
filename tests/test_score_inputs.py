"""``model.score_inputs``: the points each seat still needs, as 0/1 inputs inside the network."""

from __future__ import annotations

import contextlib
import io
import json
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from spar_env.core import reset
from spar_env.history import History
from spar_env.observation.universal import view_for
from spar_env.rules import make_rules
from spar_env.situation import Situation
from spar_train.config import ConfigError, load_config

ROOT = Path(__file__).parents[1]
TINY = ROOT / "configs" / "ppo_tiny.toml"
MIX = 'game.mix=[{variant = "spar", players = [2, 4]}]'


def _inputs(rules, scores: list[int], seat: int) -> np.ndarray:
    from spar_agents.ppo.score_inputs import ScoreInputs

    state = reset(rules, 1, np.random.default_rng(0))
    state.scores[:] = scores
    obs = view_for(rules).encode(state, np.array([seat]), np.array([0]))
    return ScoreInputs()(torch.from_numpy(obs.copy())).numpy().reshape(7, 3)


def test_the_inputs_say_who_wins_the_match_with_a_hand_of_one_two_or_three_points() -> None:
    rules = make_rules("spar", players=4, end="target:10")
    # seat 0 needs 1, seat 1 needs 2, seat 2 needs 10, seat 3 needs 3; seats 4-6 do not exist
    expected = np.zeros((7, 3))
    expected[:4] = [[1, 1, 1], [0, 1, 1], [0, 0, 0], [0, 0, 1]]
    np.testing.assert_array_equal(_inputs(rules, [9, 8, 0, 7], seat=0), expected)
    # seen from seat 1, the seats are relative: seat 1 first, then 2, 3 and 0
    np.testing.assert_array_equal(_inputs(rules, [9, 8, 0, 7], seat=1)[:4], expected[[1, 2, 3, 0]])
    stones = make_rules("spar", players=4, end="stones:10")
    assert not _inputs(stones, [9, 8, 0, 7], seat=0).any()  # no target, no inputs


def test_a_run_with_score_inputs_trains_exports_and_resumes_only_as_itself(tmp_path) -> None:
    """A tiny mix run with score inputs: its exported bot computes them itself (so it plays
    through observation v2) and agrees with the checkpoint; a run of another network does
    not resume from its checkpoint."""
    import onnx
    from onnx import numpy_helper

    from spar_agents import make_agent
    from spar_agents.export.metadata import BotError
    from spar_agents.export.specialise import specialise
    from spar_agents.export.writer import export_checkpoint
    from spar_agents.ppo.agent import latest_checkpoint
    from spar_agents.ppo.checkpoint import CheckpointError, load_checkpoint
    from spar_apps.cli import main
    from spar_train.ppo.checkpoint import check_fits

    overrides = [MIX, "model.score_inputs=true", "run.updates=2", "warmstart.updates=1",
                 'eval.opponents=["heuristic"]', "eval.deals=10"]  # fmt: skip
    with contextlib.redirect_stdout(io.StringIO()) as said:
        code = main(["train", str(TINY), "--name", "s", "--runs-dir", str(tmp_path),
                     *[f"--set={o}" for o in overrides]])  # fmt: skip
    assert code == 0, said.getvalue()
    run = tmp_path / "s"
    bot = tmp_path / "s.onnx"
    bot.write_bytes(export_checkpoint(run).data)
    rules = make_rules("spar", players=4)
    onnx_agent = make_agent(f"onnx:{bot}", rules)
    assert onnx_agent.game_session is not None  # score inputs fold into the game's own graph
    state = reset(rules, 32, np.random.default_rng(1))
    state.scores[:] = [9, 3, 8, 0]
    situation = Situation(state, History(state), np.arange(32))
    rng = np.random.default_rng(0)
    np.testing.assert_allclose(
        onnx_agent.act(situation, rng).probs,
        make_agent(f"ppo:{run}", rules).act(situation, rng).probs,
        atol=1e-5,
    )
    model = onnx.load(bot)
    for layer in model.graph.initializer:  # a wider first layer of another kind is refused
        if layer.name == "model.actor.0.weight":
            weight = numpy_helper.to_array(layer)
            layer.CopyFrom(numpy_helper.from_array(weight[:, :-1], layer.name))
    with pytest.raises(BotError, match="reads inputs of its own"):
        specialise(model, view_for(rules), str(bot))
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import bot_card

    bot_card.main(["--run", str(run), "--bot", str(bot), "--out", str(tmp_path / "card.json")])
    card = json.loads((tmp_path / "card.json").read_text())
    assert "computes its score inputs" in card["inputs"]  # its card says so
    saved = load_checkpoint(latest_checkpoint(run))
    assert saved["model"]["score_inputs"] is True
    with pytest.raises(CheckpointError, match="score inputs True"):
        check_fits(saved, run, {"hidden": [64, 64], "privileged": saved["model"]["privileged"]})


def test_score_inputs_need_a_game_mix() -> None:
    with pytest.raises(ConfigError, match="model.score_inputs: must be false unless game.mix"):
        load_config(TINY, ["model.score_inputs=true"])


def test_the_game_graph_reads_the_score_inputs_as_the_network_does() -> None:
    from spar_agents.export import specialise
    from spar_agents.ppo import score_inputs

    assert specialise.SCORE_POINTS == score_inputs.POINTS
    assert specialise.SCORE_WIDTH == score_inputs.WIDTH


@pytest.mark.parametrize("end", ["target:10", "target:5", "target:30", "stones:30", "hands:5"])
def test_the_shipped_match_bot_plays_each_game_through_its_own_graph(end: str) -> None:
    """Its game's graph (score inputs folded in) gives its v2 graph's policy at every score,
    near the target above all."""
    from spar_agents.export.bot import OnnxAgent, load_session
    from spar_agents.shipped import bot_path

    path = bot_path("match")
    session = load_session(path, "match")
    rng = np.random.default_rng(2)
    for players in (4, 2):
        rules = make_rules("spar", players=players, end=end)
        fast = OnnxAgent.from_path(rules, path)
        assert fast.game_session is not None
        state = reset(rules, 256, rng)
        top = int(end.partition(":")[2])
        state.scores[:] = rng.integers(max(top - 4, 0), top, state.scores.shape)
        situation = Situation(state, History(state), np.arange(256))
        view = view_for(rules)
        through_v2 = view.game_probs(OnnxAgent(rules, session).probs(*view.inputs(situation)))
        probs = fast.act(situation, rng).probs
        np.testing.assert_allclose(probs, through_v2, atol=1e-5, err_msg=f"{players} {end}")


def test_score_inputs_that_would_read_a_varying_column_are_refused() -> None:
    """In a game, a seat's presence, the session end and the target must be fixed to fold the
    score inputs; a game whose observation varied one of them is refused by name."""
    from types import SimpleNamespace

    from spar_agents.export.metadata import BotError
    from spar_agents.export.specialise import SCORE_WIDTH, fold_score_inputs
    from spar_env.observation.universal import OFFSETS

    view = view_for(make_rules("spar", players=4))
    src, dst = view.column_map
    varying = SimpleNamespace(  # the same game, but its end value copied from a v1 column
        column_map=(np.append(src, 0), np.append(dst, OFFSETS["end_value"])),
        constants=view.constants,
    )
    weight = np.ones((8, SCORE_WIDTH), dtype=np.float32)
    with pytest.raises(BotError, match="bot: its score inputs read columns that vary"):
        fold_score_inputs(weight, varying, "bot")
    columns, thresholds, w, bias = fold_score_inputs(weight, view, "bot")
    assert columns.size == 12 and w.shape == (12, 8)  # 4 seats x 3 hand scores
    np.testing.assert_array_equal(thresholds, np.tile([8.5, 7.5, 6.5], 4))  # > 10 - n - 0.5
    assert not bias.any()  # scores come from v1: no constant input
