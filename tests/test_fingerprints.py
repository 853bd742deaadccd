"""A short PPO run and a short MCCFR run train bit for bit the same way each time.

The MCCFR digest was taken on the commit before the packages took their own import names
(the move changed where code lives, not what it computes) and holds on every machine: its
arithmetic is NumPy's, in an order fixed by the seed. The PPO digests of that commit held only
on the CPU they were taken on (an AVX-512 Intel Xeon): torch's float kernels differ in the last
bits from one instruction set to another (an AMD EPYC gives other digests for the same code), so
the PPO run is checked against a second run of itself. The digests cover the weights, the
optimiser, the random generators' states, the pool and the counters (not wall times).
"""

from __future__ import annotations

from pathlib import Path

from helpers.fingerprint import checkpoint_digests, npz_digest

import spar_train
from spar_train.config import load_config

ROOT = Path(__file__).resolve().parents[1]
PPO = ["run.updates=2", "eval.deals=10", "warmstart.updates=1", "rollout.games=32"]
MCCFR = ["algorithm=mccfr", "run.name=m", "game.players=2", "mccfr.deals=16", "mccfr.batches=4",
         "mccfr.eval_every=2", "mccfr.eval_deals=10", 'mccfr.eval_opponents=["random"]']  # fmt: skip


def test_a_short_ppo_run_leaves_the_same_checkpoints_twice(tmp_path: Path) -> None:
    config = load_config(ROOT / "configs" / "ppo_tiny.toml", PPO)
    first = spar_train.run(config, tmp_path / "first").run_dir / "checkpoints"
    second = spar_train.run(config, tmp_path / "second").run_dir / "checkpoints"
    digests = checkpoint_digests(first)
    assert sorted(digests) == ["update_000000.pt", "update_000002.pt"]
    assert checkpoint_digests(second) == digests


def test_a_short_mccfr_run_leaves_the_policy_it_left_before(tmp_path: Path) -> None:
    run = spar_train.run(load_config(None, MCCFR), tmp_path)
    assert npz_digest(run.policy_path) == "4393411acb220709"
