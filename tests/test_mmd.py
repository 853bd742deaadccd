"""Magnetic mirror descent in the PPO update, and the exact exploitability a run logs on a
small game: the pull toward the magnet, the magnet's step, a run with its tags and exact
resume, and an exploitability curve on ``micro`` that goes down."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch
from helpers.stop import StopAfter

from spar_agents.ppo.checkpoint import load_checkpoint
from spar_agents.ppo.network import ActorCritic
from spar_agents.ppo.update import Batch, PPOSettings, move_magnet, ppo_update
from spar_train.config import ConfigError, check, load_config
from spar_train.curves import read_scalars
from spar_train.ppo.loop import train

ROOT = Path(__file__).resolve().parents[1]
TINY = ROOT / "configs" / "ppo_tiny.toml"
# PPO with the magnet on micro, its exact exploitability at every evaluation.
MICRO = ["game.variant=\"micro\"", "ppo.magnet_coef=0.2", "ppo.magnet_rate=0.05",
         "eval.exact=true", 'eval.opponents=["random"]', "eval.deals=20",
         'warmstart.imitate=""', 'pool.mix={ self = 1.0 }']  # fmt: skip


def _kl(model: ActorCritic, magnet: ActorCritic, obs: torch.Tensor, mask: torch.Tensor) -> float:
    with torch.no_grad():
        p = torch.log_softmax(model.policy_logits(obs, mask), -1)
        q = torch.log_softmax(magnet.policy_logits(obs, mask), -1)
        return float((p.exp() * (p - q)).masked_fill(~mask, 0.0).sum(-1).mean())


def test_the_magnet_term_pulls_the_policy_toward_the_magnet() -> None:
    """With nothing to gain (zero advantages, no entropy bonus), only the magnet moves the
    policy: toward the magnet, and not at all without it."""
    torch.manual_seed(0)
    obs = torch.randint(0, 2, (512, 10), dtype=torch.uint8)
    mask = torch.rand(512, 6) < 0.7
    mask[:, 0] = True
    model, magnet = ActorCritic(np.ones(10), 6, (32,)), ActorCritic(np.ones(10), 6, (32,))
    with torch.no_grad():
        for p in magnet.actor.parameters():
            p.add_(0.5 * torch.randn_like(p))
    batch = Batch(obs=obs, mask=mask, actions=mask.float().argmax(1), logp=torch.zeros(512),
                  values=torch.zeros(512), advantages=torch.zeros(512), returns=torch.zeros(512),
                  extra=None)  # fmt: skip
    before = _kl(model, magnet, obs, mask)
    still = ActorCritic(np.ones(10), 6, (32,))
    still.load_state_dict(model.state_dict())
    rng = np.random.default_rng(0)
    plain = PPOSettings(ent_coef=0.0, precision="float32", minibatch_size=128)
    ppo_update(still, torch.optim.Adam(still.parameters(), lr=1e-2), batch, plain, rng)
    assert _kl(still, magnet, obs, mask) == pytest.approx(before, rel=1e-3)
    pulled = PPOSettings(ent_coef=0.0, precision="float32", minibatch_size=128, magnet_coef=1.0)
    stats = ppo_update(model, torch.optim.Adam(model.parameters(), lr=1e-2), batch, pulled, rng,
                       magnet)  # fmt: skip
    assert stats["magnet_kl"] == pytest.approx(before, rel=0.5)
    assert _kl(model, magnet, obs, mask) < 0.5 * before
    with pytest.raises(ValueError, match="needs the magnet network"):
        ppo_update(model, torch.optim.Adam(model.parameters()), batch, pulled, rng)


def test_the_magnet_steps_its_rate_of_the_way_to_the_learner() -> None:
    model, magnet = ActorCritic(np.ones(4), 3, (8,)), ActorCritic(np.ones(4), 3, (8,))
    start = [p.detach().clone() for p in magnet.parameters()]
    move_magnet(magnet, model, 0.25)
    for moved, was, target in zip(magnet.parameters(), start, model.parameters(), strict=True):
        torch.testing.assert_close(moved, was + 0.25 * (target - was))
    frozen = [p.detach().clone() for p in magnet.parameters()]
    move_magnet(magnet, model, 0.0)
    assert all(torch.equal(a, b) for a, b in zip(magnet.parameters(), frozen, strict=True))


def test_a_magnet_run_logs_its_tags_and_resumes_exactly(tmp_path: Path) -> None:
    config = load_config(TINY, [*MICRO, "run.updates=4", "run.checkpoint_every=1",
                                "eval.every=2"])  # fmt: skip
    whole = train(config, tmp_path / "a")
    assert whole.exploitability is not None and 0 < whole.exploitability < 1
    tags = read_scalars(whole.run_dir)
    assert {"losses/magnet_kl", "eval/exploitability"} <= set(tags)
    assert list(tags["eval/exploitability"][0]) == [2, 4]
    train(config, tmp_path / "b", hooks=[StopAfter(3)])
    resumed = train(config, tmp_path / "b", resume=True)
    a = load_checkpoint(whole.run_dir / "checkpoints" / "update_000004.pt")
    b = load_checkpoint(resumed.run_dir / "checkpoints" / "update_000004.pt")
    for part in ("weights", "magnet"):
        for key, tensor in a[part].items():
            assert torch.equal(tensor, b[part][key]), (part, key)
    assert resumed.exploitability == whole.exploitability


def test_the_exact_exploitability_on_micro_goes_down_as_the_learner_trains(tmp_path) -> None:
    config = load_config(TINY, [*MICRO, "run.updates=60", "eval.every=10", "rollout.games=256",
                                "ppo.lr=1e-3", "ppo.lr_schedule=\"constant\""])  # fmt: skip
    run = train(config, tmp_path)
    curve = list(read_scalars(run.run_dir)["eval/exploitability"][1])
    assert len(curve) == 6
    assert curve[-1] < 0.5 * curve[0], curve


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        (["eval.exact=true"], r"^eval\.exact: spar with 2 players has [\d,]+ deals; the exact"),
        (["eval.exact=true", "game.players=4"], r"^eval\.exact: the exact exploitability is for"),
        (["ppo.magnet_rate=1.5"], r"^ppo\.magnet_rate: must be in \[0, 1\]"),
        (["ppo.magnet_coef=-1"], r"^ppo\.magnet_coef: must be 0 or more"),
    ],
)
def test_what_cannot_run_is_refused_naming_the_key(overrides, message) -> None:
    with pytest.raises(ConfigError, match=message):
        check(load_config(TINY, overrides))


def test_the_exact_curves_benchmark_runs_and_draws(tmp_path: Path) -> None:
    """``benchmarks/exact_curves.py`` on micro for a few seconds a learner."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("exact_curves", ROOT / "benchmarks" /
                                                  "exact_curves.py")  # fmt: skip
    assert spec is not None and spec.loader is not None
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    out = tmp_path / "curves.png"
    curves = script.main(["--game", "micro", "--minutes", "0.1", "--cfr-minutes", "0.02",
                          "--set", "eval.every=5", "--out", str(out)])  # fmt: skip
    assert set(curves) == {"PPO", "PPO + magnet (MMD)", "CFR+"}
    assert all(c["exploitability"] for c in curves.values())
    assert curves["CFR+"]["exploitability"][-1] < 0.1  # micro uniform: 0.344
    assert out.stat().st_size > 10_000
