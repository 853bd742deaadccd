"""What a PPO run's checkpoint holds, and how a resumed run takes it up.

:func:`save_run` writes everything resuming needs: the network, the optimiser, the
magnet (magnetic mirror descent), both generators, the counters, the pool's
snapshots, the games between hands (or the rollout in flight, with the overlap) and
the config. Tensors are written on the CPU, so a run resumes on any device.
:func:`restore_run` checks the checkpoint is the run's game (a mix run: the same mix)
and puts each piece back, so the run goes on bit for bit.
"""

from __future__ import annotations

from typing import Any

import torch

from spar_agents.ppo.agent import CHECKPOINT_DIR, game_signature
from spar_agents.ppo.checkpoint_names import checkpoint_name, list_checkpoints
from spar_agents.ppo.device import to_cpu
from spar_agents.ppo.network import ActorCritic
from spar_train.game_mix import is_mix, mix_change, mix_signature
from spar_train.run_dir import write_checkpoint


def model_spec(hidden: list[int], model: ActorCritic) -> dict[str, Any]:
    """The network's shape as a checkpoint records it (``score_inputs`` only where on, so
    the checkpoints of other runs keep their bytes)."""
    spec: dict[str, Any] = {"hidden": list(hidden), "privileged": model.privileged}
    if model.score_inputs is not None:
        spec["score_inputs"] = True
    return spec


def save_run(run_dir, config, model, optimizer, rng, pool, collector, counters, magnet) -> None:
    """Write the run's checkpoint for ``counters.update`` (all a resume needs), device-free, and
    drop the oldest past ``run.keep_checkpoints``."""
    folder = run_dir / CHECKPOINT_DIR
    payload = {
        "game": mix_signature(config) if is_mix(config) else game_signature(collector.rules),
        "model": model_spec(config.model.hidden, model),
        "weights": to_cpu(model.state_dict()),  # device-free: it resumes on any device
        "optimizer": to_cpu(optimizer.state_dict()),
        "rng": rng.bit_generator.state,
        "torch_rng": torch.get_rng_state(),
        "counters": vars(counters).copy(),
        "pool": pool.snapshots,
        "games": collector.state_dict(),
        "config": config.to_dict(),
    }
    if magnet is not None:
        payload["magnet"] = to_cpu(magnet.state_dict())
    write_checkpoint(folder / checkpoint_name(counters.update), payload, run_dir)
    for old in list_checkpoints(folder)[: -config.run.keep_checkpoints]:
        old.unlink()


def restore_run(
    saved, config, rules, model, optimizer, rng, pool, collector, counters, magnet
) -> None:
    """Put a checkpoint back into the run's pieces, after checking it is this run's game (or
    mix)."""
    from spar_agents.ppo.agent import check_game
    from spar_agents.ppo.checkpoint import CheckpointError
    from spar_agents.signature import describe

    if is_mix(config):  # a mix run's identity is its mix: the checkpoint must hold the same one
        changed = mix_change(saved.get("config", {}), config)
        if changed or saved["game"] != mix_signature(config):
            raise CheckpointError(
                f"the checkpoint was trained on the mix of {describe(saved['game'])}, and the "
                f"run's config.toml has changed it ({changed or 'other games'}): a resumed run "
                "keeps its games; start a new run for another mix"
            )
    else:
        check_game(saved["game"], rules, "the checkpoint")
    model.load_state_dict(saved["weights"])
    optimizer.load_state_dict(saved["optimizer"])
    if magnet is not None:
        magnet.load_state_dict(saved["magnet"])
    rng.bit_generator.state = saved["rng"]
    torch.set_rng_state(saved["torch_rng"])
    for key, value in saved["counters"].items():
        setattr(counters, key, value)
    pool.load_snapshots(saved["pool"])
    collector.load_state_dict(saved["games"])
