"""The PPO self-play run: collect a rollout, compute advantages, update; log, evaluate, save.

:func:`train` is the whole run, top to bottom::

    for update in range(start, updates):
        rollout = collector.collect(model, pool, ...)   # spar_train.rollout
        batch = to_batch(rollout, ...)                  # GAE, spar_agents.ppo.update.gae
        stats = ppo_update(model, optimizer, batch)     # spar_agents.ppo.update
        ... snapshots into the pool, TensorBoard, evaluation, checkpoints

A run lives in ``runs/<name>/``: ``config.toml`` (the config in force, with
the package version), the TensorBoard event files, and ``checkpoints/``.
Every checkpoint holds all that resuming needs (the network, the optimiser,
both generators, the counters, the pool's snapshots and the games between
hands; :mod:`spar_train.run_state`), so ``train(..., resume=True)`` continues
exactly where the run stopped: the same seed gives the same weights, bit for bit,
stopped or not. Each evaluation is :mod:`spar_train.evaluate`'s.

Every random choice comes from one ``np.random.Generator`` seeded by
``run.seed`` (deals, sampled actions, seats, minibatches); torch's generator
only initialises the network. Evaluations use their own fixed deals.

With ``[ray] enabled`` the rollouts come from Ray actors instead
(:mod:`spar_train.distributed.rollout`), each with its own generator seeded by the
run's seed and its number (for a ``game.mix`` too: each game on one actor); the rest
of the run is the same code. With ``rollout.overlap`` the next rollout plays in a
worker process beside the update (:mod:`spar_train.overlap`); with ``ppo.magnet_coef``
the update pulls toward a magnet policy (magnetic mirror descent,
:mod:`spar_agents.ppo.update`); ``run.device`` places the learner
(:mod:`spar_agents.ppo.device`).
"""

from __future__ import annotations

import contextlib
import os
import time
from dataclasses import dataclass, field, fields
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import torch

from spar_agents.ppo.agent import CHECKPOINT_DIR, latest_checkpoint
from spar_agents.ppo.checkpoint import load_checkpoint
from spar_agents.ppo.checkpoint_names import list_checkpoints
from spar_agents.ppo.device import describe_device, resolve_device
from spar_agents.ppo.network import ActorCritic
from spar_agents.ppo.precision import resolve
from spar_agents.ppo.update import (
    Batch,
    PPOSettings,
    gae,
    make_optimizer,
    move_magnet,
    ppo_update,
)
from spar_env.atomic import atomic_output
from spar_env.core import unpack
from spar_env.core.bits import popcount
from spar_env.rules import Ruleset
from spar_train.actor_from_bot import load_actor
from spar_train.budget import Budget, RunBudget
from spar_train.checkpoint_fit import check_fits, check_same_state, restore_checked
from spar_train.config import CONFIG_FILE, Config, dump_config, rules_of
from spar_train.evaluate import evaluate_learner, log_exploitability, tag_of
from spar_train.finite import check_finite
from spar_train.game_mix import (
    MixCollector,
    MixRollouts,
    evaluate_mix,
    home_game,
    is_mix,
)
from spar_train.imitate import warm_start_imitation
from spar_train.match.reward import match_table_of
from spar_train.model import build_model, reward_scale
from spar_train.opponent_pool import OpponentPool
from spar_train.overlap import OverlapCollector
from spar_train.progress import Progress, Reporter
from spar_train.rollout import Collector, Rollout
from spar_train.run_dir import run_folder
from spar_train.run_state import model_spec, restore_run, save_run

if TYPE_CHECKING:
    from spar_train.distributed.rollout import RayCollector, RayMixCollector


@dataclass
class Counters:
    update: int = 0
    decisions: int = 0
    seconds: float = 0.0  # training wall clock so far (over every session of the run)
    warm_started: bool = False


@dataclass
class RunResult:
    rules: Ruleset
    run_dir: Path
    counters: Counters
    evaluations: dict[str, dict[str, float]] = field(default_factory=dict)  # latest, by opponent
    stopped_early: bool = False
    out_of_time: bool = False  # run.max_minutes ended it before run.updates
    planned_updates: int = 0  # run.updates
    max_minutes: float = 0.0  # run.max_minutes
    exploitability: float | None = None  # the latest exact one (eval.exact)


def to_batch(rollout: Rollout, gamma: float, lam: float, train_forced: bool) -> Batch:
    """GAE over the rollout's trajectories, then the decisions to learn from as tensors."""
    rows = rollout.rewards.shape[0]
    width = int(rollout.lengths.max(initial=1))
    values = np.zeros((rows, width), dtype=np.float32)
    values[rollout.trajectory, rollout.position] = rollout.values
    valid = np.arange(width)[None, :] < rollout.lengths[:, None]
    rewards = np.zeros((rows, width), dtype=np.float32)
    last = np.flatnonzero(rollout.lengths > 0)
    rewards[last, rollout.lengths[last] - 1] = rollout.rewards[last]
    adv, returns = gae(rewards, values, valid, gamma, lam)
    keep = slice(None) if train_forced else np.flatnonzero(popcount(rollout.legal) > 1)
    t, p = rollout.trajectory[keep], rollout.position[keep]
    return Batch(
        obs=torch.from_numpy(rollout.obs[keep]),
        mask=torch.from_numpy(unpack(rollout.legal[keep], rollout.num_actions)),
        actions=torch.from_numpy(rollout.actions[keep]),
        logp=torch.from_numpy(rollout.logp[keep]),
        values=torch.from_numpy(rollout.values[keep]),
        advantages=torch.from_numpy(adv[t, p]),
        returns=torch.from_numpy(returns[t, p]),
        extra=None if rollout.extra is None else torch.from_numpy(rollout.extra[keep]),
    )


def ppo_settings(config: Config) -> PPOSettings:
    """The update's settings from ``[ppo]``."""
    return PPOSettings(**{f.name: getattr(config.ppo, f.name) for f in fields(PPOSettings)})


def make_collector(
    config: Config, rules: Ruleset, rng: np.random.Generator, device: torch.device | None = None
) -> Collector | RayCollector | MixCollector | RayMixCollector | OverlapCollector:
    """Where the rollouts come from: the batch core here, or Ray actors (``[ray] enabled``),
    each playing a local collector's share of ``rollout.games`` with its own generator; for a
    ``game.mix``, one collector per game (:mod:`spar_train.game_mix`), on Ray each game on
    one actor; with ``rollout.overlap``, a worker process (:mod:`spar_train.overlap`).
    ``device``: where the learner answers a local collector's turns (Ray's actors and the
    overlap's worker play on their CPUs)."""
    if config.rollout.overlap:  # the games in a worker process, beside the update
        from spar_train.overlap import overlap_collector

        return overlap_collector(config, rules)
    make_model = partial(build_model, config, rules)  # an actor's network: on its CPU
    if is_mix(config):
        if config.ray.enabled:
            from spar_train.distributed.rollout import RayMixCollector

            return RayMixCollector(config, make_model, name=config.run.name)
        return MixCollector(config, rng, device=device)
    if config.ray.enabled:
        from spar_train.distributed.rollout import RayCollector

        precision = resolve(config.rollout.precision)
        return RayCollector(rules, config.rollout.games, config.run.seed, make_model, config.ray,
                            name=config.run.name, precision=precision)  # fmt: skip
    return Collector(rules, config.rollout.games, rng,
                     precision=resolve(config.rollout.precision, device),
                     match_table=match_table_of(config, rules),
                     random_starts=config.ppo.match_starts)  # fmt: skip


# ----- the run -----------------------------------------------------------------------
def has_checkpoint(run_dir: Path) -> bool:
    """Whether a PPO run folder holds a checkpoint to resume from."""
    return bool(list_checkpoints(run_dir / CHECKPOINT_DIR))


def train(
    config: Config,
    runs_dir: str | os.PathLike = "runs",
    *,
    resume: bool = False,
    stop_after: int | None = None,
    report: Reporter | None = None,
) -> RunResult:
    """Train (or, with ``resume``, go on training) the run ``runs_dir/<run.name>``.

    Every agent the config names is built first; the folder is made (and
    locked) only then (:mod:`spar_train.run_dir`). A resumed run without a
    checkpoint starts from the beginning.

    Args:
        config: the config in force (on resume, the run's own config, see
            :func:`spar_train.config.resume_config`).
        stop_after: stop after this many updates in this call, as if killed
            just after a checkpoint (tests use it; a checkpoint is written).
        report: hears a :class:`~spar_train.progress.Progress` after every imitation step
            and every update (the progress bar).

    Raises:
        ConfigError: for a run folder that exists when not resuming, is in use, or an agent
            the config names that cannot be built.
    """
    from spar_train.preflight import check_agents

    started = time.perf_counter()  # run.max_minutes counts from here (spar_train.budget)
    check_agents(config)
    run_dir = Path(runs_dir) / config.run.name
    with run_folder(run_dir, resume=resume, has_checkpoint=has_checkpoint) as fresh:
        return _run(config, run_dir, resume=not fresh, stop_after=stop_after, report=report,
                    started=started)  # fmt: skip


def _run(
    config: Config,
    run_dir: Path,
    *,
    resume: bool,
    stop_after: int | None,
    report: Reporter | None,
    started: float,
) -> RunResult:
    """The run inside its locked folder (:func:`train`); ``resume``: from its latest checkpoint."""
    from torch.utils.tensorboard import SummaryWriter

    from spar_env import __version__

    rules = home_game(config) if is_mix(config) else rules_of(config)  # a mix: its games alone
    torch.set_num_threads(config.run.threads)
    torch.manual_seed(config.run.seed)
    device = resolve_device(config.run.device)
    if report is not None and device.type != "cpu":
        arithmetic = resolve(config.ppo.precision, device)
        report(Progress("start", 0, 0, note=f"the learner runs on {describe_device(device)} "
                                            f"({arithmetic} matrix products)"))  # fmt: skip
    rng = np.random.default_rng(config.run.seed)
    model = build_model(config, rules, device)
    optimizer = make_optimizer(model, config.ppo.lr)
    # Magnetic mirror descent's magnet (spar_agents.ppo.update): the policy PPO starts from,
    # then trailing the learner by ppo.magnet_rate an update.
    magnet = build_model(config, rules, device) if config.ppo.magnet_coef > 0 else None
    collector = make_collector(config, rules, rng, device)
    # Whatever ends the run (a refused checkpoint too) ends the collector's Ray actors or
    # worker process with it, so none is left holding CPUs in a long-lived process.
    with contextlib.closing(collector):
        make_model = partial(build_model, config, rules, device)
        pool: Any = (  # an OpponentPool, or a MixPool (one per game) for a game.mix
            collector.make_pool(config, make_model)
            if isinstance(collector, MixRollouts)
            else OpponentPool(rules, config.pool.mix, config.pool.snapshots, make_model=make_model)
        )
        counters = Counters()
        if resume:
            file = latest_checkpoint(run_dir)
            saved = load_checkpoint(file)
            check_fits(saved, file, model_spec(config.model.hidden, model))
            check_same_state(saved, file, config)
            restore_checked(
                file,
                lambda: restore_run(
                    saved,
                    config,
                    rules,
                    model,
                    optimizer,
                    rng,
                    pool,
                    collector,
                    counters,
                    magnet,
                ),  # fmt: skip
            )
        else:
            with atomic_output(run_dir / CONFIG_FILE) as f:
                f.write(dump_config(config, __version__))

        # On resume, drop what a killed session logged past its last checkpoint.
        writer = SummaryWriter(str(run_dir), purge_step=counters.update + 1 if resume else None)
        if not resume:
            writer.add_text("hyperparameters", _hparam_table(config))
        scale = reward_scale(config, rules)
        settings = ppo_settings(config)
        result = RunResult(rules, run_dir, counters, planned_updates=config.run.updates,
                           max_minutes=config.run.max_minutes)  # fmt: skip
        begin = started
        seconds_before = counters.seconds
        budget = RunBudget(config, Budget.of(config.run.max_minutes, seconds_before, begin), report)

        def save() -> None:
            counters.seconds = seconds_before + time.perf_counter() - begin
            save_run(run_dir, config, model, optimizer, rng, pool, collector, counters, magnet)

        warm = config.warmstart
        imitating = bool(warm.imitate and warm.updates)
        if (warm.actor or imitating) and not counters.warm_started:
            if warm.actor:  # the actor of an exported bot (the critic starts fresh)
                load_actor(model, warm.actor)
            if imitating:
                steps = warm_start_imitation(config, model, collector, scale, rng, run_dir,
                                             report, stop=budget.warm_start_stop())  # fmt: skip
                budget.warm_start_done(steps)
            counters.warm_started = True
            _start_magnet(magnet, model)
            save()
        elif not resume:
            _start_magnet(magnet, model)

        done_here = 0
        while counters.update < config.run.updates:
            frac = 1.0 - counters.update / config.run.updates
            lr = config.ppo.lr * (frac if config.ppo.lr_schedule == "linear" else 1.0)
            for group in optimizer.param_groups:
                group["lr"] = lr
            t0 = time.perf_counter()
            if isinstance(collector, OverlapCollector):
                rollout = _overlapped(collector, model, pool, config, scale,
                                      last=counters.update + 1 == config.run.updates)  # fmt: skip
            else:
                rollout = collector.collect(model, pool, config.rollout.hands, rng, scale)
            t1 = time.perf_counter()
            batch = to_batch(
                rollout, config.ppo.gamma, config.ppo.gae_lambda, config.ppo.train_forced
            )
            stats = ppo_update(model, optimizer, batch, settings, rng, magnet)
            if magnet is not None:
                move_magnet(magnet, model, config.ppo.magnet_rate)
            check_finite(model, stats, f"update {counters.update + 1}", run_dir,
                         f"ppo.lr={lr:g}, reward scale {scale:g}")  # fmt: skip
            t2 = time.perf_counter()
            counters.update += 1
            counters.decisions += rollout.decisions
            done_here += 1
            step = counters.update
            sps = rollout.decisions / (t2 - t0)
            for key, value in stats.items():
                writer.add_scalar(f"losses/{key}", value, step)
            writer.add_scalar("charts/SPS", sps, step)
            writer.add_scalar("charts/learning_rate", lr, step)
            for part, seconds in {**rollout.seconds, "update": t2 - t1}.items():
                writer.add_scalar(f"time/{part}_seconds", seconds, step)
            writer.add_scalar("charts/decisions", counters.decisions, step)
            for entry, (total, hands) in rollout.payoff_by_entry.items():
                if hands:
                    writer.add_scalar(
                        f"charts/train_payoff_vs_{tag_of(entry)}", total / hands, step
                    )

            if step % config.pool.snapshot_every == 0:
                pool.add_snapshot(model)
            last = step == config.run.updates
            out_of_time = budget.out_of_time(t0, t1 - t0, rollout.hands)
            evaluated = step % config.eval.every == 0 or last or out_of_time
            if evaluated:
                result.evaluations = budget.timed_evaluation(
                    _evaluate, config, rules, model, writer, step
                )
                if config.eval.exact:
                    result.exploitability = log_exploitability(rules, model, writer, step)
            if step % config.run.checkpoint_every == 0 or last or out_of_time:
                budget.timed_save(save)
            if report is not None:
                parts = {f"{part}_seconds": s for part, s in rollout.seconds.items()}
                figures = {"decisions_per_second": sps, "approx_kl": stats["approx_kl"], **parts,
                           "update_seconds": t2 - t1}  # fmt: skip
                if result.exploitability is not None:
                    figures["exploitability"] = result.exploitability
                report(
                    Progress(
                        "ppo", step, config.run.updates, figures, result.evaluations, evaluated
                    )
                )
            if out_of_time:
                result.stopped_early = True
                result.out_of_time = not last
                break
            if stop_after is not None and done_here >= stop_after:
                if step % config.run.checkpoint_every != 0 and not last:
                    save()
                result.stopped_early = True
                break
        writer.close()
        return result


def _start_magnet(magnet: ActorCritic | None, model: ActorCritic) -> None:
    """The magnet starts as the policy PPO starts from (after the warm start)."""
    if magnet is not None:
        magnet.load_state_dict(model.state_dict())


def _overlapped(collector: OverlapCollector, model: ActorCritic, pool: Any, config: Config,
                scale: float, last: bool) -> Rollout:  # fmt: skip
    """This update's rollout (played with the weights before it), the next one started beside
    it with the weights as they are now (:mod:`spar_train.overlap`), unless this is the last."""
    hands = config.rollout.hands
    if collector.pending is None:  # the first update of a session: nothing played ahead yet
        collector.submit(model, pool, hands, scale)
    rollout = collector.gather()
    if not last:
        collector.submit(model, pool, hands, scale)
    return rollout


def _evaluate(
    config: Config, rules: Ruleset, model: ActorCritic, writer: Any, step: int
) -> dict[str, dict[str, float]]:
    """Duplicate-deal figures against the eval opponents (for a ``game.mix``, per game)."""
    if is_mix(config):
        return evaluate_mix(config, model, writer, step)
    return evaluate_learner(config, rules, model, writer, step)


def _hparam_table(config: Config) -> str:
    rows = ["| key | value |", "|---|---|"]
    for section, values in config.to_dict().items():
        if isinstance(values, dict):
            rows += [f"| {section}.{k} | {v} |" for k, v in values.items()]
        else:
            rows.append(f"| {section} | {values} |")
    return "\n".join(rows)
