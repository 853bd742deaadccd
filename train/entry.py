"""``spar_train.run``: the one way to run a config, whatever its algorithm.

    import spar_train
    from spar_train.config import load_config

    result = spar_train.run(load_config("configs/ppo_tiny.toml"), "runs")  # runs/tiny/
    result = spar_train.run(resume="runs/tiny", overrides=["run.updates=8"])  # go on with it

It completes the config once (:func:`complete`: a resumed run's own config, the seed and
the name, Ray, its timeout), checks it, chooses the trainer by ``algorithm``, and hands
``report`` to the trainer, which calls it with a :class:`~spar_train.progress.Progress` after
every step (``spar train``'s progress bar is one such reporter), and ``hooks``
(:class:`spar_train.hooks.Hook`) to a PPO run's loop; every hook hears the run's end. The
result is one of three, which callers read alike: ``rules``, ``agent_spec`` (the spec that
plays what the run trained) and ``summary()`` (what it reached, to show):

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
from typing import TYPE_CHECKING, Any

from spar_train.config import Config, ConfigError, check, resume_config
from spar_train.hooks import Hook
from spar_train.progress import Reporter

if TYPE_CHECKING:
    from spar_train.hooks import TrainResult


def run(
    config: Config | None = None,
    runs_dir: str | os.PathLike = "runs",
    *,
    resume: str | os.PathLike | None = None,
    overrides: Sequence[str] = (),
    seed: int | None = None,
    name: str | None = None,
    ray: str | None = None,
    ray_timeout: float | None = None,
    report: Reporter | None = None,
    hooks: Sequence[Hook] = (),
    trust_code: bool = False,
) -> TrainResult:
    """Run ``config`` in ``runs_dir/<run.name>``, or go on with the run folder ``resume``.

    Args:
        config: the config of a new run (leave it out with ``resume``).
        runs_dir: the folder of runs (a resumed run stays in its own folder's parent).
        resume: a run folder to go on with, on its own config; ``overrides``
            (``--set`` strings) may change only how long it runs.
        seed: a new run's ``run.seed`` (``None``: the config's).
        name: a new run's ``run.name``, its folder (``None``: the config's).
        ray: ``None`` as the config says; ``""`` to collect PPO's rollouts on a
            local Ray, or the address of a cluster to join.
        ray_timeout: seconds to wait for that cluster (``None``: ``ray.timeout``).
        report: hears a :class:`~spar_train.progress.Progress` after every step.
        hooks: hear the run (:mod:`spar_train.hooks`): a PPO run's start and updates, and
            every run's end.
        trust_code: build the ``py:`` agents a resumed run's ``config.toml`` names, and join
            the Ray cluster it names (else they are refused, but for an address typed as
            ``ray``: :func:`~spar_train.config.resume_config`).

    Returns:
        The trainer's result (module docstring).

    Raises:
        ConfigError: naming what cannot run, before anything runs.
    """
    config, folder = complete(config, runs_dir, resume=resume, overrides=overrides, seed=seed,
                              name=name, ray=ray, ray_timeout=ray_timeout,
                              trust_code=trust_code)  # fmt: skip
    if resume is not None:
        _note_a_restart(Path(resume), config.algorithm)
    resuming = resume is not None
    if config.algorithm == "ppo":
        from spar_train.ppo.loop import train  # PPO's modules load for a PPO run only (~1 s)

        return train(config, folder, resume=resuming, report=report, hooks=hooks)
    result: TrainResult
    if config.algorithm == "mccfr":
        from spar_train.mccfr import run_mccfr

        result = run_mccfr(config, folder, resume=resuming, report=report)
    else:
        from spar_train.solve import run_solver

        result = run_solver(config, folder, report=report, resume=resuming)
    for hook in hooks:
        hook.on_end(result)
    return result


def complete(
    config: Config | None,
    runs_dir: str | os.PathLike,
    *,
    resume: str | os.PathLike | None = None,
    overrides: Sequence[str] = (),
    seed: int | None = None,
    name: str | None = None,
    ray: str | None = None,
    ray_timeout: float | None = None,
    trust_code: bool = False,
) -> tuple[Config, Path]:
    """The config a run goes with, completed in this one place, and its folder of runs: a
    resumed run's own config (named after its folder, ``overrides`` applied, its cluster's
    address), or a new run's with its seed, its name and Ray; then the Ray timeout; checked.
    (Where the learner runs and in which arithmetic is resolved once when a PPO run starts,
    :class:`spar_train.ppo.parts.Placement`: the config keeps ``auto``, so that a resumed run
    resolves it on its own machine.) The arguments are :func:`run`'s.

    Raises:
        ConfigError: naming what cannot run.
    """
    if resume is not None:
        if config is not None:
            raise ConfigError("resume: a resumed run goes on with its own config; give no config")
        if seed is not None or name is not None:
            raise ConfigError("resume: a resumed run keeps its seed and its folder's name")
        config, runs_dir = _resumed(Path(resume), overrides, ray, trust_code)
    else:
        if config is None:
            raise ConfigError(
                "run: give a config (spar_train.config.load_config) or a run to resume"
            )
        if overrides:
            raise ConfigError("overrides: only a resumed run takes them here; use load_config")
        named: dict[str, Any] = {k: v for k, v in (("seed", seed), ("name", name)) if v is not None}
        config = _with_ray(config.replace(run=dataclasses.replace(config.run, **named)), ray)
    config = _with_timeout(config, ray_timeout)
    check(config)
    return config, Path(runs_dir)


def _resumed(
    folder: Path, overrides: Sequence[str], ray: str | None, trust_code: bool
) -> tuple[Config, Path]:
    """The config of the run in ``folder`` (named after it), and the folder it lies in."""
    # a resumed run may find its cluster at another address: the one typed, never refused
    config = resume_config(folder, overrides, trust_code=trust_code, ray=ray)
    config = config.replace(run=dataclasses.replace(config.run, name=folder.name))
    if ray is not None and not config.ray.enabled:
        raise ConfigError(
            f"--ray: {folder} collected its rollouts without Ray, and its checkpoints "
            "hold those games; resume it without --ray"
        )
    return config, folder.parent


def _with_timeout(config: Config, timeout: float | None) -> Config:
    """``config`` with ``ray.timeout`` set to ``timeout`` when it is given."""
    if timeout is None:
        return config
    return config.replace(ray=dataclasses.replace(config.ray, timeout=timeout))


def _note_a_restart(run_dir: Path, algorithm: str) -> None:
    """Say so (on stderr) when a resume finds nothing to go on from and starts the run over."""
    from spar_train.mccfr import has_tables
    from spar_train.ppo.checkpoint import has_checkpoint
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
