"""What a PPO run's checkpoint holds, whether a checkpoint fits the run, and how a run takes it up.

:func:`save_run` writes everything resuming needs: the network, the optimiser, the magnet
(magnetic mirror descent), both generators, the counters, the pool's snapshots, the source's
games between hands (or the rollout in flight, with the overlap; every worker's, on Ray) and
the config. Tensors are written on the CPU, so a run resumes on any device.

``spar train --resume`` reads the latest checkpoint: :func:`check_fits` refuses one of
another shape of network, or a payload without a key or with counters of the wrong kind, in
one line naming the file instead of a traceback from deep inside torch (or a Ray worker), and
:func:`check_same_state` a run whose config changed a key that shapes the saved games
(``rollout.games``, ``rollout.overlap``) or whether there is a magnet, naming the key;
:func:`restore_run`
checks the checkpoint is the run's game (a mix run: the same mix,
:meth:`~spar_train.games.GameMix.check_checkpoint`) and puts each piece back, so the run
goes on bit for bit (:func:`restore_checked` turns what a damaged payload raises there into
one :class:`~spar_agents.ppo.checkpoint.CheckpointError`).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch

from spar_agents.ppo.agent import CHECKPOINT_DIR, model_shape
from spar_agents.ppo.checkpoint import CheckpointError
from spar_agents.ppo.checkpoint_names import checkpoint_name, list_checkpoints
from spar_agents.ppo.device import to_cpu
from spar_agents.ppo.network import ActorCritic
from spar_train.ppo.parts import Run
from spar_train.run_dir import write_checkpoint
from spar_train.sections import Config


def has_checkpoint(run_dir: Path) -> bool:
    """Whether a PPO run folder holds a checkpoint to resume from."""
    return bool(list_checkpoints(run_dir / CHECKPOINT_DIR))


def model_spec(hidden: list[int], model: ActorCritic) -> dict[str, Any]:
    """The network's shape as a checkpoint records it (``score_inputs`` only where on, so
    the checkpoints of other runs keep their bytes)."""
    spec: dict[str, Any] = {"hidden": list(hidden), "privileged": model.privileged}
    if model.score_inputs is not None:
        spec["score_inputs"] = True
    return spec


def save_run(run: Run) -> None:
    """Write the run's checkpoint for its update (all a resume needs, with the training wall
    clock so far), device-free, and drop the oldest past ``run.keep_checkpoints``."""
    config, folder = run.config, run.run_dir / CHECKPOINT_DIR
    run.counters.seconds = run.seconds()
    payload = {
        "game": run.mix.signature,
        "model": model_spec(config.model.hidden, run.model),
        "weights": to_cpu(run.model.state_dict()),  # device-free: it resumes on any device
        "optimizer": to_cpu(run.optimizer.state_dict()),
        "rng": run.rng.bit_generator.state,
        "torch_rng": torch.get_rng_state(),
        "counters": vars(run.counters).copy(),
        "pool": run.pool.snapshots,
        "games": run.source.state_dict(),
        "config": config.to_dict(),
    }
    if run.magnet is not None:
        payload["magnet"] = to_cpu(run.magnet.state_dict())
    write_checkpoint(folder / checkpoint_name(run.counters.update), payload, run.run_dir)
    run.saved_at = run.counters.update
    for old in list_checkpoints(folder)[: -config.run.keep_checkpoints]:
        old.unlink()


def save_policy(run: Run, folder: Path) -> Path:
    """The network as it is now, alone (what ``ppo:FILE`` plays), in ``folder`` under the
    update's name; the file's path. Never dropped: a league may name it."""
    path = folder / checkpoint_name(run.counters.update)
    payload = {
        "game": run.mix.signature,
        "model": model_spec(run.config.model.hidden, run.model),
        "weights": to_cpu(run.model.state_dict()),
        "config": run.config.to_dict(),
    }
    write_checkpoint(path, payload, run.run_dir)
    return path


def restore_run(saved: dict[str, Any], run: Run) -> None:
    """Put a checkpoint back into the run's pieces, after checking it is of the run's games."""
    run.mix.check_checkpoint(saved, run.config)
    run.model.load_state_dict(saved["weights"])
    run.optimizer.load_state_dict(saved["optimizer"])
    if run.magnet is not None:
        run.magnet.load_state_dict(saved["magnet"])
    run.rng.bit_generator.state = saved["rng"]
    torch.set_rng_state(saved["torch_rng"])
    for key, value in saved["counters"].items():
        setattr(run.counters, key, value)
    run.pool.load_snapshots(saved["pool"])
    run.source.load_state_dict(saved["games"])


KEYS = ("game", "model", "weights", "optimizer", "rng", "torch_rng", "counters", "pool", "games")
COUNTERS = {"update": int, "decisions": int, "seconds": float, "warm_started": bool}


def check_fits(saved: dict[str, Any], file: Path, spec: dict[str, Any]) -> None:
    """Raise :class:`CheckpointError` unless ``saved`` holds a run of this network's shape."""
    missing = [k for k in KEYS if k not in saved]
    if missing:
        raise CheckpointError(f"{file}: not a checkpoint of a PPO run (it has no {missing[0]!r})")
    model, counters = saved["model"], saved["counters"]
    if not isinstance(model, dict) or not isinstance(counters, dict):
        raise CheckpointError(f"{file}: not a checkpoint of a PPO run (model or counters broken)")
    try:
        model_shape(model)  # within a config's bounds, before the message below shows it
    except ValueError as e:
        raise CheckpointError(f"{file}: not a checkpoint of a PPO run ({e})") from None
    if model != spec:
        raise CheckpointError(
            f"{file}: a checkpoint of a network with hidden {model.get('hidden')} "
            f"(privileged {model.get('privileged')}, score inputs {bool(model.get('score_inputs'))}); "
            f"this run's is {spec['hidden']} (privileged {spec['privileged']}, "
            f"score inputs {bool(spec.get('score_inputs'))})"
        )
    for key, kind in COUNTERS.items():
        if key not in counters:
            continue  # an older checkpoint: the counter keeps its default
        value = counters[key]
        ok = isinstance(value, kind) and (kind is bool or not isinstance(value, bool))
        if not (ok or (kind is float and isinstance(value, int) and not isinstance(value, bool))):
            raise CheckpointError(f"{file}: the checkpoint's counter {key} is {value!r}")
        if kind is not bool and value < 0:
            raise CheckpointError(f"{file}: the checkpoint's counter {key} is {value!r}")


# The keys whose value shapes what a checkpoint holds beyond the network: the games between
# hands (how many, and where they are played). A resumed run must keep them. (The number of
# workers, rollout.workers or ray.workers, is named by the workers' own check,
# spar_train.ppo.wrappers.shared.)
STATE_KEYS = ("rollout.games", "rollout.overlap")


def check_same_state(saved: dict[str, Any], file: Path, config: Config) -> None:
    """Raise :class:`CheckpointError` naming the first of ``STATE_KEYS`` whose value in the
    run's config differs from the checkpoint's own config (or ``ppo.magnet_coef``, where one
    has a magnet and the other none), before any of its state is loaded."""
    before = saved.get("config")
    if not isinstance(before, dict):  # a checkpoint without its config: the loads check it
        return
    now = config.to_dict()
    for key in STATE_KEYS:
        section, name = key.split(".")
        old = _saved(before, section, name)
        if old is not None and old != now[section][name]:
            _changed(file, key, old, now[section][name])
    if (config.ppo.magnet_coef > 0) != ("magnet" in saved):
        _changed(file, "ppo.magnet_coef", _saved(before, "ppo", "magnet_coef") or 0.0,
                 config.ppo.magnet_coef)  # fmt: skip


def _saved(config: dict[str, Any], section: str, name: str) -> Any:
    table = config.get(section)
    return table.get(name) if isinstance(table, dict) else None


def _changed(file: Path, key: str, old: Any, new: Any) -> None:
    def value(x: Any) -> str:
        return str(x).lower() if isinstance(x, bool) else repr(x)

    raise CheckpointError(
        f"{file}: the checkpoint was made with {key} = {value(old)}, and the run's config now "
        f"has {key} = {value(new)}; a resumed run goes on with what its checkpoint holds, so "
        "put the key back (or start a new run)"
    )


def restore_checked(file: Path, restore: Callable[[], None]) -> None:
    """Run ``restore()``; turn what a damaged payload raises into one :class:`CheckpointError`."""
    try:
        restore()
    except CheckpointError:
        raise
    except (KeyError, TypeError, ValueError, RuntimeError, AttributeError, IndexError) as e:
        reason = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise CheckpointError(f"{file}: the checkpoint does not fit this run ({reason})") from None
