"""``spar_train.run``: the one entry gives, bit for bit, what each trainer gives when called alone,
reports one event type, resumes, and refuses what cannot run before anything runs."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

import spar_train
from spar_agents.ppo.checkpoint import load_checkpoint
from spar_train.config import ConfigError, load_config
from spar_train.mccfr import run_mccfr
from spar_train.ppo.loop import train as train_ppo
from spar_train.progress import Progress

ROOT = Path(__file__).resolve().parents[1]
TINY = ROOT / "configs" / "ppo_tiny.toml"
SHORT = ["run.updates=2", "eval.deals=10", "warmstart.updates=1", "rollout.games=32"]
MCCFR = ["algorithm=mccfr", "run.name=m", "game.players=2", "mccfr.deals=16",
         "mccfr.batches=4", "mccfr.eval_every=2", "mccfr.eval_deals=10",
         'mccfr.eval_opponents=["random"]']  # fmt: skip


def _same_checkpoints(a: Path, b: Path) -> None:
    names = sorted(p.name for p in a.glob("*.pt"))
    assert names and names == sorted(p.name for p in b.glob("*.pt"))
    for name in names:
        x, y = load_checkpoint(a / name), load_checkpoint(b / name)
        for part in ("weights", "optimizer", "games", "pool"):
            _same(x[part], y[part], f"{name}:{part}")
        assert x["rng"] == y["rng"] and torch.equal(x["torch_rng"], y["torch_rng"])
        assert {k: v for k, v in x["counters"].items() if k != "seconds"} == {
            k: v for k, v in y["counters"].items() if k != "seconds"
        }


def _same(x, y, where: str) -> None:
    if isinstance(x, torch.Tensor):
        assert torch.equal(x, y), where
    elif isinstance(x, dict):
        assert x.keys() == y.keys(), where
        for key in x:
            _same(x[key], y[key], f"{where}.{key}")
    elif isinstance(x, list | tuple):
        assert len(x) == len(y), where
        for i, (u, v) in enumerate(zip(x, y, strict=True)):
            _same(u, v, f"{where}[{i}]")
    else:
        assert x == y, where


def test_a_ppo_run_through_train_run_is_the_trainers_own_bit_for_bit(tmp_path: Path) -> None:
    config = load_config(TINY, SHORT)
    heard: list[Progress] = []
    one = spar_train.run(config, tmp_path / "one", report=heard.append)
    two = train_ppo(config, tmp_path / "two")
    _same_checkpoints(one.run_dir / "checkpoints", two.run_dir / "checkpoints")
    # the notes say how run.max_minutes is shared, before and after the warm start
    assert [e.phase for e in heard] == ["note", "imitation", "note", "ppo", "ppo"]
    assert heard[-1].step == heard[-1].of == 2 and heard[-1].evaluated
    assert set(heard[-1].evaluations) == {"random", "heuristic"}
    assert heard[-1].figures["decisions_per_second"] > 0


def test_an_mccfr_run_through_train_run_is_the_trainers_own_bit_for_bit(tmp_path: Path) -> None:
    config = load_config(None, MCCFR)
    heard: list[Progress] = []
    one = spar_train.run(config, tmp_path / "one", report=heard.append)
    two = run_mccfr(config, tmp_path / "two")
    with np.load(one.policy_path) as a, np.load(two.policy_path) as b:
        assert a.files == b.files
        for key in a.files:
            np.testing.assert_array_equal(a[key], b[key], err_msg=key)
    assert [(e.phase, e.step, e.of) for e in heard] == [("mccfr", 2, 4), ("mccfr", 4, 4)]


def test_a_resumed_run_goes_on_from_its_folder_and_may_run_longer(tmp_path: Path) -> None:
    config = load_config(None, [*MCCFR[:-4], "mccfr.batches=2", "mccfr.eval_every=2",
                                "mccfr.eval_deals=10", 'mccfr.eval_opponents=["random"]'])  # fmt: skip
    first = spar_train.run(config, tmp_path)
    again = spar_train.run(resume=first.run_dir, overrides=["mccfr.batches=4"])
    assert (first.batches, again.batches) == (2, 4) and again.run_dir == first.run_dir


def test_train_run_refuses_what_cannot_run_before_anything_runs(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="give a config"):
        spar_train.run(None, tmp_path)
    with pytest.raises(ConfigError, match="no config.toml there"):
        spar_train.run(resume=tmp_path / "nothing")
    with pytest.raises(ConfigError, match="--ray spreads PPO's rollouts"):
        spar_train.run(load_config(ROOT / "configs" / "cfr_micro.toml"), tmp_path, ray="")
    with pytest.raises(ConfigError, match="a resumed run goes on with its own config"):
        spar_train.run(load_config(TINY), tmp_path, resume=tmp_path)
    assert not any(tmp_path.iterdir())
