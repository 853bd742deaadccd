"""A short PPO run and a short MCCFR run train bit for bit as they did before the packages took
their own import names (the namespace move changed where code lives, not what it computes).

The digests were taken on the commit before the move, with the same configs; they cover the
weights, the optimiser, the random generators' states, the pool and the counters (not wall
times). A change that is meant to alter training must say so here, with new digests.
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


def test_a_short_ppo_run_leaves_the_checkpoints_it_left_before(tmp_path: Path) -> None:
    run = spar_train.run(load_config(ROOT / "configs" / "ppo_tiny.toml", PPO), tmp_path)
    assert checkpoint_digests(run.run_dir / "checkpoints") == {
        "update_000000.pt": "60909150af4e0a36",
        "update_000002.pt": "493bbac75be965f8",
    }


def test_a_short_mccfr_run_leaves_the_policy_it_left_before(tmp_path: Path) -> None:
    run = spar_train.run(load_config(None, MCCFR), tmp_path)
    assert npz_digest(run.policy_path) == "4393411acb220709"
