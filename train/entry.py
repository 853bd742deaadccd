"""``spar_train.run``: the one way to run a config, whatever its algorithm.

    import spar_train
    from spar_train.config import load_config

    result = spar_train.run(load_config("configs/ppo_tiny.toml"), "runs")  # runs/tiny/
    result = spar_train.run(resume="runs/tiny", overrides=["run.updates=8"])  # go on with it

It checks the config, chooses the trainer by ``algorithm``, handles resume
and Ray, and hands ``report`` to the trainer, which calls it with a
:class:`~spar_train.progress.Progress` after every step (``spar train``'s progress
bar is one such reporter):

===============  =====================================  =======================================
algorithm        trainer                                result
===============  =====================================  =======================================
``ppo``          :func:`spar_train.ppo.train`           :class:`spar_train.ppo.RunResult`
``cfr``, ``lp``  :func:`spar_train.solve.run_solver`    :class:`spar_train.solve.SolveResult`
``mccfr``        :func:`spar_train.mccfr.run_mccfr`     :class:`spar_train.mccfr.MCCFRResult`
===============  =====================================  =======================================

Every error in what is asked (a config that cannot run, a resume of a folder
that is not a run, Ray for an algorithm without rollouts) is a
:class:`~spar_train.config.ConfigError` raised before anything runs.
"""

from __future__ import annotations

import dataclasses
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from spar_train.config import Config, ConfigError, check, resume_config
from spar_train.progress import Reporter


def run(
    config: Config | None = None,
    runs_dir: str | os.PathLike = "runs",
    *,
    resume: str | os.PathLike | None = None,
    overrides: Sequence[str] = (),
    ray: str | None = None,
    ray_timeout: float | None = None,
    stop_after: int | None = None,
    report: Reporter | None = None,
    trust_code: bool = False,
) -> Any:
    """Run ``config`` in ``runs_dir/<run.name>``, or go on with the run folder ``resume``.

    Args:
        config: the config of a new run (leave it out with ``resume``).
        runs_dir: the folder of runs (a resumed run stays in its own folder's parent).
        resume: a run folder to go on with, on its own config; ``overrides``
            (``--set`` strings) may change only how long it runs.
        ray: ``None`` as the config says; ``""`` to collect PPO's rollouts on a
            local Ray, or the address of a cluster to join.
        ray_timeout: seconds to wait for that cluster (``None``: ``ray.timeout``).
        stop_after: PPO only: stop after this many updates in this call (tests use it).
        report: hears a :class:`~spar_train.progress.Progress` after every step.
        trust_code: build the ``py:`` agents a resumed run's ``config.toml`` names (else
            they are refused: :func:`~spar_train.config.resume_config`).

    Returns:
        The trainer's result (module docstring).

    Raises:
        ConfigError: naming what cannot run, before anything runs.
    """
    if resume is not None:
        if config is not None:
            raise ConfigError("resume: a resumed run goes on with its own config; give no config")
        config, runs_dir = _resumed(Path(resume), overrides, ray, trust_code)
        config = _with_timeout(config, ray_timeout)
        check(config)
        _note_a_restart(Path(resume), config.algorithm)
    else:
        if config is None:
            raise ConfigError(
                "run: give a config (spar_train.config.load_config) or a run to resume"
            )
        if overrides:
            raise ConfigError("overrides: only a resumed run takes them here; use load_config")
        config = _with_timeout(_with_ray(config, ray), ray_timeout)
        check(config)
    resuming = resume is not None
    runs_dir = Path(runs_dir)
    if config.algorithm == "ppo":
        from spar_train.ppo import train

        return train(config, runs_dir, resume=resuming, stop_after=stop_after, report=report)
    if stop_after is not None:
        raise ConfigError(
            f"stop_after: only PPO runs stop after a number of updates, not {config.algorithm}"
        )
    if config.algorithm == "mccfr":
        from spar_train.mccfr import run_mccfr

        return run_mccfr(config, runs_dir, resume=resuming, report=report)
    from spar_train.solve import run_solver

    return run_solver(config, runs_dir, report=report, resume=resuming)


def _resumed(
    folder: Path, overrides: Sequence[str], ray: str | None, trust_code: bool
) -> tuple[Config, Path]:
    """The config of the run in ``folder`` (named after it), and the folder it lies in."""
    config = resume_config(folder, overrides, trust_code=trust_code)
    config = config.replace(run=dataclasses.replace(config.run, name=folder.name))
    if ray is not None and not config.ray.enabled:
        raise ConfigError(
            f"--ray: {folder} collected its rollouts without Ray, and its checkpoints "
            "hold those games; resume it without --ray"
        )
    if ray:  # a resumed run may find its cluster at another address
        config = config.replace(ray=dataclasses.replace(config.ray, address=ray))
    return config, folder.parent


def _with_timeout(config: Config, timeout: float | None) -> Config:
    """``config`` with ``ray.timeout`` set to ``timeout`` when it is given."""
    if timeout is None:
        return config
    return config.replace(ray=dataclasses.replace(config.ray, timeout=timeout))


def _note_a_restart(run_dir: Path, algorithm: str) -> None:
    """Say so (on stderr) when a resume finds nothing to go on from and starts the run over."""
    from spar_train.mccfr import has_tables
    from spar_train.ppo import has_checkpoint
    from spar_train.run_dir import holder_check

    holder_check(run_dir)  # a run in use is refused before any note
    found = {"ppo": has_checkpoint, "mccfr": has_tables}.get(algorithm)
    if found is not None and not found(run_dir):
        print(
            f"spar train: note: {run_dir} stopped before its first checkpoint; "
            "starting it from the beginning",
            file=sys.stderr,
        )


def _with_ray(config: Config, ray: str | None) -> Config:
    """``config`` with its rollouts on Ray when ``ray`` is given (module docstring)."""
    if ray is None:
        return config
    if config.algorithm != "ppo":
        raise ConfigError(
            f"--ray: algorithm {config.algorithm!r} solves on one machine; "
            "--ray spreads PPO's rollouts"
        )
    address = ray or config.ray.address
    return config.replace(ray=dataclasses.replace(config.ray, enabled=True, address=address))
