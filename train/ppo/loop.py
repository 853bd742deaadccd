"""The PPO run, top to bottom: start, warm start, then collect, update, log, and the hooks.

:func:`train` runs a config in its locked run folder; :func:`_run` is the whole run::

    run = start_run(config, run_dir, resume=resume)      # the parts (spar_train.ppo.start)
    warm_start(run, report)                              # the bot's actor, imitation
    while run.counters.update < config.run.updates:
        rollout = run.source.collect(run.model, run.pool, ...)   # spar_train.ppo.sources
        update = last_or_not(run, learn(run, rollout, started))  # GAE, PPO (ppo.learn); last?
        log(run.writer, update)                                  # TensorBoard
        if not all(hook.on_update(run, update) ...): break        # spar_train.ppo.hooks
        if update.final: break                                   # the last, or out of time

A run lives in ``runs/<name>/``: ``config.toml`` (the config in force, with the package
version), the TensorBoard event files, and ``checkpoints/``. Every checkpoint holds all that
resuming needs (:mod:`spar_train.ppo.checkpoint`), so ``train(..., resume=True)`` continues
exactly where the run stopped: the same seed gives the same weights, bit for bit, stopped or
not. Every random choice comes from one ``np.random.Generator`` seeded by ``run.seed``
(deals, sampled actions, seats, minibatches); torch's generator only initialises networks.
Evaluations use their own fixed deals.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from spar_train.config import Config
from spar_train.evaluate import tag_of
from spar_train.hooks import Hook
from spar_train.ppo.checkpoint import has_checkpoint
from spar_train.ppo.hooks import standard_hooks
from spar_train.ppo.learn import learn
from spar_train.ppo.parts import Run, RunResult, Update
from spar_train.ppo.start import start_run
from spar_train.ppo.warm_start import warm_start
from spar_train.preflight import check_agents
from spar_train.progress import Reporter
from spar_train.run_dir import run_folder


def train(
    config: Config,
    runs_dir: str | os.PathLike = "runs",
    *,
    resume: bool = False,
    report: Reporter | None = None,
    hooks: Sequence[Hook] = (),
) -> RunResult:
    """Train (or, with ``resume``, go on training) the run ``runs_dir/<run.name>``.

    Every agent the config names is built first; the folder is made (and
    locked) only then (:mod:`spar_train.run_dir`). A resumed run without a
    checkpoint starts from the beginning.

    Args:
        config: the config in force (on resume, the run's own config, see
            :func:`spar_train.config.resume_config`).
        report: hears a :class:`~spar_train.progress.Progress` after every imitation step
            and every update (the progress bar).
        hooks: hear the run after the standard ones (:mod:`spar_train.ppo.hooks`); one may
            stop it (the tests' ``StopAfter`` stops it part way, to resume it).

    Raises:
        ConfigError: for a run folder that exists when not resuming, is in use, or an agent
            the config names that cannot be built.
    """
    started = time.perf_counter()  # run.max_minutes counts from here (spar_train.budget)
    check_agents(config)
    run_dir = Path(runs_dir) / config.run.name
    listeners = [*standard_hooks(report), *hooks]
    with run_folder(run_dir, resume=resume, has_checkpoint=has_checkpoint) as fresh:
        result = _run(config, run_dir, resume=not fresh, report=report, hooks=listeners,
                      started=started)  # fmt: skip
    for hook in listeners:  # the folder let go of: the run is over
        hook.on_end(result)
    return result


def _run(config: Config, run_dir: Path, *, resume: bool, report: Reporter | None,
         hooks: list[Hook], started: float) -> RunResult:  # fmt: skip
    """The run inside its locked folder (module docstring), begun at ``started``."""
    run = start_run(config, run_dir, resume=resume, started=started, report=report)
    with contextlib.closing(run.source):  # its worker process or Ray actors end with the run
        for hook in hooks:
            hook.on_start(run)
        warm_start(run, report)
        while run.counters.update < config.run.updates:
            started = time.perf_counter()
            ahead = run.counters.update + 1 < config.run.updates  # another rollout follows
            rollout = run.source.collect(run.model, run.pool, config.rollout.hands, run.rng,
                                         ahead=ahead)  # fmt: skip
            update = last_or_not(run, learn(run, rollout, started))
            log(run.writer, update)
            if not all([hook.on_update(run, update) for hook in hooks]):  # every hook hears it
                break
            if update.final:
                break
        run.writer.close()
    return run.result


def last_or_not(run: Run, update: Update) -> Update:
    """The update as the hooks hear it: whether it is the run's last (``run.updates`` reached,
    or ``run.max_minutes`` allows no more: another update like it, the final evaluation and
    the checkpoint would not fit, :mod:`spar_train.budget`; the run then ends with it, out of
    time unless it was the last anyway), and whether it is evaluated (every ``eval.every``
    updates, and the last). The loop decides both; the hooks only read them."""
    config, result = run.config, run.result
    final = update.step == config.run.updates
    if run.budget.out_of_time(update.began, update.collect_seconds, update.rollout.decisions):
        result.stopped_early = True
        result.out_of_time = not final
        final = True
    evaluated = update.step % config.eval.every == 0 or final
    return dataclasses.replace(update, final=final, evaluated=evaluated)


def log(writer: Any, update: Update) -> None:
    """An update's curves (CleanRL's tags): ``losses/``, ``charts/`` and ``time/``."""
    step, rollout = update.step, update.rollout
    for key, value in update.stats.items():
        writer.add_scalar(f"losses/{key}", value, step)
    writer.add_scalar("charts/SPS", update.decisions_per_second, step)
    writer.add_scalar("charts/learning_rate", update.lr, step)
    for part, seconds in update.seconds.items():
        writer.add_scalar(f"time/{part}_seconds", seconds, step)
    writer.add_scalar("charts/decisions", update.decisions, step)
    for entry, (total, hands) in rollout.payoff_by_entry.items():
        if hands:
            writer.add_scalar(f"charts/train_payoff_vs_{tag_of(entry)}", total / hands, step)
