"""``model.score_inputs``: the points each seat still needs, as 0/1 inputs inside the network."""

from __future__ import annotations

import contextlib
import io
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

    from spar_agents import make_agent
    from spar_agents.export.metadata import BotError
    from spar_agents.export.specialise import specialise
    from spar_agents.export.writer import export_checkpoint
    from spar_agents.ppo.agent import latest_checkpoint
    from spar_agents.ppo.checkpoint import CheckpointError, load_checkpoint
    from spar_apps.cli import main
    from spar_train.checkpoint_fit import check_fits

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
    assert onnx_agent.game_session is None  # score inputs: played through v2, not specialised
    with pytest.raises(BotError, match="reads inputs of its own"):
        specialise(onnx.load(bot), view_for(rules), str(bot))
    state = reset(rules, 32, np.random.default_rng(1))
    state.scores[:] = [9, 3, 8, 0]
    situation = Situation(state, History(state), np.arange(32))
    rng = np.random.default_rng(0)
    np.testing.assert_allclose(
        onnx_agent.act(situation, rng).probs,
        make_agent(f"ppo:{run}", rules).act(situation, rng).probs,
        atol=1e-5,
    )
    saved = load_checkpoint(latest_checkpoint(run))
    assert saved["model"]["score_inputs"] is True
    with pytest.raises(CheckpointError, match="score inputs True"):
        check_fits(saved, run, {"hidden": [64, 64], "privileged": saved["model"]["privileged"]})


def test_score_inputs_need_a_game_mix() -> None:
    with pytest.raises(ConfigError, match="model.score_inputs: must be false unless game.mix"):
        load_config(TINY, ["model.score_inputs=true"])
