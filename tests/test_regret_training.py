"""The regret in a PPO run (``eval.regret_positions``, the hook
:class:`spar_train.ppo.hooks.RegretEvaluation`): a run with the key logs ``eval/regret`` and
its breakdown at each evaluation, with finite values; its positions and the judge's values are
fixed by the config; a bad value is refused in one line, naming the key."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
import torch
from helpers.stop import StopAfter

from spar_agents.ppo.checkpoint import load_checkpoint
from spar_env.rules import make_rules
from spar_train.config import ConfigError, load_config
from spar_train.ppo.evaluation import judge_run
from spar_train.ppo.loop import train

ROOT = Path(__file__).resolve().parents[1]
TINY = ROOT / "configs" / "ppo_tiny.toml"
REGRET = ["eval.regret_positions=20",
          'eval.regret_judge="search:worlds=4,candidates=1,prior=0,seed=1000"']  # fmt: skip


def test_a_run_logs_its_regret_at_each_evaluation(tmp_path: Path) -> None:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    config = load_config(TINY, ["run.updates=2", "eval.every=1", *REGRET])
    train(config, tmp_path)
    events = EventAccumulator(str(tmp_path / "tiny"))
    events.Reload()
    tags = {tag for tag in events.Tags()["scalars"] if tag.startswith("eval/regret")}
    assert {"eval/regret", "eval/regret_ci95", "eval/regret_agreement", "eval/regret_trick1",
            "eval/regret_lead", "eval/regret_follow"} <= tags  # fmt: skip
    for tag in tags:
        points = events.Scalars(tag)
        assert [p.step for p in points] == [1, 2], tag
        assert all(math.isfinite(p.value) for p in points), tag
    regret = [p.value for p in events.Scalars("eval/regret")]
    agreement = [p.value for p in events.Scalars("eval/regret_agreement")]
    assert all(r >= 0 for r in regret) and all(0 <= a <= 1 for a in agreement)


def _regret_curve(run_dir: Path) -> dict[int, float]:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    curve: dict[int, float] = {}
    for file in sorted(run_dir.glob("events.out.tfevents.*")):  # one file a session
        events = EventAccumulator(str(file))
        events.Reload()
        curve.update({p.step: p.value for p in events.Scalars("eval/regret")})
    return curve


def test_the_regret_leaves_the_run_as_it_was_and_resumes(tmp_path: Path) -> None:
    """The same weights with the regret on or off; a stopped and resumed run logs the same
    regret at every evaluation as a run that never stopped."""
    plain = load_config(TINY, ["run.updates=3", "eval.every=1", "run.checkpoint_every=1"])
    config = load_config(TINY, ["run.updates=3", "eval.every=1", "run.checkpoint_every=1",
                                *REGRET])  # fmt: skip
    train(plain, tmp_path / "off")
    train(config, tmp_path / "on")
    train(config, tmp_path / "resumed", hooks=[StopAfter(1)])
    train(config, tmp_path / "resumed", resume=True)
    last = Path("tiny") / "checkpoints" / "update_000003.pt"
    off, on = load_checkpoint(tmp_path / "off" / last), load_checkpoint(tmp_path / "on" / last)
    for key, tensor in off["weights"].items():
        assert torch.equal(tensor, on["weights"][key]), key
    assert off["rng"] == on["rng"]
    whole = _regret_curve(tmp_path / "on" / "tiny")
    assert sorted(whole) == [1, 2, 3]
    assert _regret_curve(tmp_path / "resumed" / "tiny") == whole


def test_the_judged_positions_are_fixed_by_the_config() -> None:
    config = load_config(TINY, REGRET)
    rules = make_rules("spar", players=2)
    a, b = judge_run(config, rules), judge_run(config, rules)
    assert a.positions.count == 20
    np.testing.assert_array_equal(a.values, b.values)
    np.testing.assert_array_equal(a.best, b.best)
    other = judge_run(load_config(TINY, [*REGRET, "eval.seed=7"]), rules)
    assert not np.array_equal(other.positions.state.hands, a.positions.state.hands)


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        (["eval.regret_positions=-1"], "eval.regret_positions: must be 0 (off) or more"),
        (["eval.regret_judge=heuristic"],
         "eval.regret_judge: must be a search agent's spec"),
        (["eval.regret_positions=10", "eval.regret_by=nobody"], "eval.regret_by: must be an agent spec"),
        (["eval.regret_positions=10", "game.options.weak_hand_exchange=true"],
         "eval.regret_positions: must be 0 in a game with the weak-hand exchange"),
        (["eval.regret_positions=10000000"], "eval.regret_positions"),
    ],
)  # fmt: skip
def test_a_bad_regret_key_is_refused_in_one_line(overrides: list[str], message: str) -> None:
    with pytest.raises(ConfigError) as refused:
        load_config(TINY, overrides)
    text = str(refused.value)
    assert message in text and "\n" not in text
