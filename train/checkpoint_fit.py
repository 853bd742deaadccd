"""Whether a checkpoint can be resumed by a run: the right game, network and counters.

``spar train --resume`` reads a checkpoint and puts its contents back into
the run's network, optimiser, generators, pool and games. A checkpoint of
another shape of network, or a payload without a key or with counters of
the wrong kind, is refused here in one line naming the file, instead of a
traceback from deep inside torch (or a Ray worker); so is a run whose config
changed a key that shapes the saved games (``rollout.games``, ``rollout.overlap``)
or whether there is a magnet (``ppo.magnet_coef``), naming the key.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from spar_agents.ppo.agent import model_shape
from spar_agents.ppo.checkpoint import CheckpointError
from spar_train.sections import Config

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
# hands (how many, and where they are played). A resumed run must keep them. (ray.enabled and
# ray.workers are named by the Ray collector's own check, spar_train.distributed.rollout.)
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
