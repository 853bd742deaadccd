"""Hostile network files: a PPO checkpoint whose model entry is past a config's bounds or
names a network its weights do not hold, and ONNX bots with deeply nested metadata or a
graph that fails as it runs. Each is refused in one line, quickly, building nothing big."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from spar_agents import make_agent
from spar_agents.export.metadata import BotError
from spar_agents.ppo.checkpoint import CheckpointError, save_checkpoint
from spar_agents.ppo.network import ActorCritic
from spar_agents.signature import game_signature
from spar_env.observation.per_game import layout_for
from spar_env.rules import make_rules
from spar_train.checkpoint_fit import check_fits
from tests.helpers.bots import UNIVERSAL_BOT, bot_with, memory_bomb
from tests.helpers.cli import SHIPPED_BOT, cli, one_line, spar

RULES = make_rules("spar", players=2)


def checkpoint(path: Path, model: dict[str, Any], hidden: tuple[int, ...] = (8,)) -> Path:
    """A policy checkpoint whose ``model`` entry is ``model``, holding the weights of a real
    network with ``hidden`` layers."""
    net = ActorCritic(layout_for(RULES).high, RULES.num_actions, hidden=hidden)
    save_checkpoint(path, {
        "game": game_signature(RULES), "model": model, "weights": net.state_dict(),
        "counters": {"update": 1}, "config": {"run": {"name": "hostile"}},
    })  # fmt: skip
    return path


@pytest.mark.parametrize(
    ("model", "named"),
    [
        ({"hidden": [1] * 65, "privileged": 0}, "model.hidden: at most 64"),
        ({"hidden": [1] * 100_000, "privileged": 0}, "model.hidden: at most 64"),
        ({"hidden": [16_385], "privileged": 0}, "model.hidden: at most 16,384"),
        ({"hidden": [8], "privileged": 10**9}, "model.privileged: at most 16,384"),
        ({"hidden": [8, True], "privileged": 0}, "positive layer widths"),
        ({"hidden": "8", "privileged": 0}, "a list of layer widths"),
        ({"hidden": [8], "privileged": 0, "score_inputs": "yes"}, "score_inputs"),
    ],
)
def test_a_model_entry_past_a_config_bound_is_refused_naming_it(
    tmp_path: Path, capsys, model: dict[str, Any], named: str
) -> None:
    file = checkpoint(tmp_path / "c.pt", model)
    with pytest.raises(CheckpointError, match=named):
        make_agent(f"ppo:{file}", RULES)
    status, _, err = cli(capsys, "export", file, "--out", tmp_path / "b.onnx")
    one_line(status, err, named)
    assert len(err) < 500  # the entry is named, not printed
    with pytest.raises(CheckpointError, match=named):  # a resumed run reads it too
        saved = {k: None for k in ("game", "weights", "optimizer", "rng", "torch_rng", "pool",
                                   "games")}  # fmt: skip
        check_fits({**saved, "model": model, "counters": {}}, file, {"hidden": [8]})


def test_a_network_the_weights_do_not_hold_is_never_built(tmp_path: Path) -> None:
    """64 layers 16,384 wide are within the bounds, but would take 64 GiB and an hour of
    orthogonal initialisation; the file holds the weights of one 8-wide layer."""
    file = checkpoint(tmp_path / "c.pt", {"hidden": [16_384] * 64, "privileged": 0})
    out = tmp_path / "b.onnx"
    done = spar("export", file, "--out", out, cwd=tmp_path, cap=True, timeout=60)
    one_line(done.returncode, done.stderr, "weights do not fit", "actor.0.weight")
    assert not out.exists()


# ----- ONNX bots ----------------------------------------------------------------------
DEEP = "[" * 100_000 + "]" * 100_000


@pytest.mark.parametrize(("source", "key"), [(SHIPPED_BOT, "options"), (UNIVERSAL_BOT, "games")])
def test_deeply_nested_metadata_is_refused_in_one_line(tmp_path: Path, source, key) -> None:
    bot = bot_with(tmp_path / "deep.onnx", source, **{key: DEEP})
    with pytest.raises(BotError, match=f"{key} is nested more than 8 levels deep"):
        make_agent(f"onnx:{bot}", make_rules("spar"))
    done = spar("bench", f"onnx:{bot}", "random", "--players", 4, "--deals", 2, cwd=tmp_path)
    one_line(done.returncode, done.stderr, f"{key} is nested more than 8 levels deep")


def test_a_run_entry_nested_deeply_is_no_run(tmp_path: Path) -> None:
    bot = bot_with(tmp_path / "deep.onnx", run=DEEP)
    assert make_agent(f"onnx:{bot}", make_rules("spar")).run == {}


def test_a_graph_that_fails_as_it_runs_is_refused_in_one_line(tmp_path: Path) -> None:
    rules = make_rules("spar")
    graph = memory_bomb(layout_for(rules).size, rules.num_actions)
    bot = bot_with(tmp_path / "bomb.onnx", graph=graph)
    done = spar("bench", f"onnx:{bot}", "heuristic", "--players", 4, "--deals", 2, cwd=tmp_path,
                cap=True)  # fmt: skip
    one_line(done.returncode, done.stderr, "bomb.onnx", "the bot's graph failed as it ran")
