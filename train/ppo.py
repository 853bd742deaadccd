"""The PPO self-play run: collect a rollout, compute advantages, update; log, evaluate, save.

:func:`train` is the whole run, top to bottom::

    for update in range(start, updates):
        rollout = collector.collect(model, pool, ...)   # train.rollout
        batch = to_batch(rollout, ...)                  # GAE, agents.ppo.update.gae
        stats = ppo_update(model, optimizer, batch)     # agents.ppo.update
        ... snapshots into the pool, TensorBoard, evaluation, checkpoints

A run lives in ``runs/<name>/``: ``config.toml`` (the config in force, with
the package version), the TensorBoard event files, and ``checkpoints/``.
Every checkpoint holds all that resuming needs (the network, the optimiser,
both generators, the counters, the pool's snapshots and the games between
hands), so ``train(..., resume=True)`` continues exactly where the run
stopped: the same seed gives the same weights, bit for bit, stopped or not.

Every random choice comes from one ``np.random.Generator`` seeded by
``run.seed`` (deals, sampled actions, seats, minibatches); torch's generator
only initialises the network. Evaluations use their own fixed deals.

With ``[ray] enabled`` the rollouts come from Ray actors instead
(:mod:`train.distributed.rollout`), each with its own generator seeded by the
run's seed and its number; the rest of the run is the same code.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch

from agents.ppo.agent import CHECKPOINT_DIR, PPOAgent, game_signature, latest_checkpoint
from agents.ppo.checkpoint import load_checkpoint, save_checkpoint
from agents.ppo.network import ActorCritic
from agents.ppo.update import Batch, PPOSettings, gae, make_optimizer, ppo_update
from spar_env.atomic import atomic_output
from spar_env.core import unpack
from spar_env.core.bits import popcount
from spar_env.observe import layout_for, max_hand_points
from spar_env.rules import Ruleset, make_rules
from train.config import Config, ConfigError, apply_override, dump_config, from_dict
from train.evaluate import evaluate
from train.imitate import imitate
from train.pool import OpponentPool
from train.rollout import Collector, Rollout

CONFIG_FILE = "config.toml"


@dataclass
class Counters:
    update: int = 0
    decisions: int = 0
    seconds: float = 0.0  # training wall clock so far (over every session of the run)
    warm_started: bool = False


@dataclass
class RunResult:
    run_dir: Path
    counters: Counters
    evaluations: dict[str, dict[str, float]] = field(default_factory=dict)  # latest, by opponent
    stopped_early: bool = False


Reporter = Callable[[dict[str, Any]], None]  # hears the live figures after every update


def rules_of(config: Config) -> Ruleset:
    return make_rules(config.game.variant, players=config.game.players, **config.game.options)


def reward_scale(config: Config, rules: Ruleset) -> float:
    """Payoffs times this lie in [-1, 1]: 1 / the largest payoff one seat can receive."""
    if config.ppo.reward_scale > 0:
        return config.ppo.reward_scale
    return 1.0 / (max_hand_points(rules) * max(rules.players - 1, 1))


def build_model(config: Config, rules: Ruleset) -> ActorCritic:
    privileged = (rules.players - 1) * rules.num_card_ids if config.model.privileged_critic else 0
    return ActorCritic(
        layout_for(rules).high, rules.num_actions, tuple(config.model.hidden), privileged
    )


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
    p = config.ppo
    return PPOSettings(
        epochs=p.epochs,
        minibatch_size=p.minibatch_size,
        clip=p.clip,
        value_clip=p.value_clip or None,
        ent_coef=p.ent_coef,
        vf_coef=p.vf_coef,
        max_grad_norm=p.max_grad_norm,
        target_kl=p.target_kl or None,
    )


def make_collector(config: Config, rules: Ruleset, rng: np.random.Generator) -> Collector:
    """Where the rollouts come from: the batch core here, or Ray actors (``[ray] enabled``)."""
    if config.ray.enabled:
        from train.distributed.rollout import RayCollector

        return RayCollector(config, rules)
    return Collector(rules, config.rollout.games, rng)


# ----- the run -----------------------------------------------------------------------
def train(
    config: Config,
    runs_dir: str | os.PathLike = "runs",
    *,
    resume: bool = False,
    stop_after: int | None = None,
    report: Reporter | None = None,
) -> RunResult:
    """Train (or, with ``resume``, go on training) the run ``runs_dir/<run.name>``.

    Args:
        config: the config in force (on resume, the run's own config, see
            :func:`resume_config`).
        stop_after: stop after this many updates in this call, as if killed
            just after a checkpoint (tests use it; a checkpoint is written).
        report: called with the live figures after every update (the progress bar).

    Raises:
        ConfigError: for a run folder that exists when not resuming, or a
            resume without a checkpoint.
    """
    from torch.utils.tensorboard import SummaryWriter

    from spar_env import __version__

    run_dir = Path(runs_dir) / config.run.name
    if not resume and run_dir.exists() and any(run_dir.iterdir()):
        raise ConfigError(
            f"run.name: {run_dir} already exists; resume it with --resume {run_dir} "
            "or choose another --name"
        )
    rules = rules_of(config)
    torch.set_num_threads(config.run.threads)
    torch.manual_seed(config.run.seed)
    rng = np.random.default_rng(config.run.seed)
    model = build_model(config, rules)
    optimizer = make_optimizer(model, config.ppo.lr)
    pool = OpponentPool(
        rules, config.pool.mix, config.pool.snapshots, make_model=lambda: build_model(config, rules)
    )
    collector = make_collector(config, rules, rng)
    counters = Counters()
    if resume:
        saved = load_checkpoint(latest_checkpoint(run_dir))
        _restore(saved, rules, model, optimizer, rng, pool, collector, counters)
    else:
        run_dir.mkdir(parents=True, exist_ok=True)
        with atomic_output(run_dir / CONFIG_FILE) as f:
            f.write(dump_config(config, __version__))

    # On resume, drop what a killed session logged past its last checkpoint.
    writer = SummaryWriter(str(run_dir), purge_step=counters.update + 1 if resume else None)
    if not resume:
        writer.add_text("hyperparameters", _hparam_table(config))
    scale = reward_scale(config, rules)
    settings = ppo_settings(config)
    result = RunResult(run_dir, counters)
    begin = time.perf_counter()
    seconds_before = counters.seconds

    def save() -> None:
        counters.seconds = seconds_before + time.perf_counter() - begin
        _save(run_dir, config, model, optimizer, rng, pool, collector, counters)

    warm = config.warmstart
    if warm.imitate and warm.updates and not counters.warm_started:

        def on_imitation(step: int, loss: float) -> None:
            writer.add_scalar("warmstart/cross_entropy", loss, step)
            if report is not None:
                report({"phase": "imitation", "step": step + 1, "of": warm.updates, "ce": loss})

        imitate(model, collector, warm.imitate, warm.updates, warm.lr, scale, rng,
                on_step=on_imitation)  # fmt: skip
        counters.warm_started = True
        save()

    done_here = 0
    while counters.update < config.run.updates:
        frac = 1.0 - counters.update / config.run.updates
        lr = config.ppo.lr * (frac if config.ppo.lr_schedule == "linear" else 1.0)
        for group in optimizer.param_groups:
            group["lr"] = lr
        t0 = time.perf_counter()
        rollout = collector.collect(model, pool, config.rollout.hands, rng, scale)
        t1 = time.perf_counter()
        batch = to_batch(rollout, config.ppo.gamma, config.ppo.gae_lambda, config.ppo.train_forced)
        stats = ppo_update(model, optimizer, batch, settings, rng)
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
                writer.add_scalar(f"charts/train_payoff_vs_{_tag(entry)}", total / hands, step)

        if step % config.pool.snapshot_every == 0:
            pool.add_snapshot(model)
        last = step == config.run.updates
        out_of_time = (
            config.run.max_minutes > 0
            and seconds_before + time.perf_counter() - begin > 60 * config.run.max_minutes
        )
        evaluated = step % config.eval.every == 0 or last or out_of_time
        if evaluated:
            result.evaluations = _evaluate(config, rules, model, writer, step)
        if step % config.run.checkpoint_every == 0 or last or out_of_time:
            save()
        figures = {
            "phase": "ppo",
            "update": step,
            "of": config.run.updates,
            "sps": sps,
            "approx_kl": stats["approx_kl"],
            "seconds": {**rollout.seconds, "update": t2 - t1},
            "eval": {k: v["mean_payoff"] for k, v in result.evaluations.items()},
            "evaluated": evaluated,
        }
        if report is not None:
            report(figures)
        if out_of_time:
            result.stopped_early = True
            break
        if stop_after is not None and done_here >= stop_after:
            if step % config.run.checkpoint_every != 0 and not last:
                save()
            result.stopped_early = True
            break
    writer.close()
    collector.close()
    return result


def _evaluate(
    config: Config, rules: Ruleset, model: ActorCritic, writer: Any, step: int
) -> dict[str, dict[str, float]]:
    """Duplicate-deal figures against the eval opponents, logged under ``eval/`` and ``skill/``."""
    agent = PPOAgent(rules, model, greedy=True)
    e = config.eval
    specs = list(e.opponents)
    evals_done = step // e.every
    if e.pimc_every and evals_done % e.pimc_every == 0:
        specs.append("pimc")
    out: dict[str, dict[str, float]] = {}
    for spec in specs:
        deals = e.pimc_deals if spec == "pimc" else e.deals
        (result,) = evaluate(agent, rules, [spec], deals, e.seed).values()
        tag = _tag(spec)
        writer.add_scalar(f"eval/payoff_vs_{tag}", result.mean_payoff, step)
        writer.add_scalar(f"eval/payoff_vs_{tag}_ci95", result.ci95, step)
        figures = {"mean_payoff": result.mean_payoff, "ci95": result.ci95}
        skills = {
            "kept_low_card": result.low_card_kept,
            "won_last_with_low_card": result.low_card_wins,
            "won_trick_before_last": result.before_last_wins,
        }
        for name, value in skills.items():
            if value is not None:
                writer.add_scalar(f"skill/{name}_vs_{tag}", value, step)
                figures[name] = value
        out[spec] = figures
    writer.flush()
    return out


def _tag(spec: str) -> str:
    """A TensorBoard-friendly name for an agent spec."""
    return "".join(ch if ch.isalnum() else "_" for ch in spec)


def _hparam_table(config: Config) -> str:
    rows = ["| key | value |", "|---|---|"]
    for section, values in config.to_dict().items():
        if isinstance(values, dict):
            rows += [f"| {section}.{k} | {v} |" for k, v in values.items()]
        else:
            rows.append(f"| {section} | {values} |")
    return "\n".join(rows)


# ----- checkpoints -------------------------------------------------------------------
def _save(run_dir, config, model, optimizer, rng, pool, collector, counters) -> None:
    folder = run_dir / CHECKPOINT_DIR
    payload = {
        "game": game_signature(collector.rules),
        "model": {"hidden": list(config.model.hidden), "privileged": model.privileged},
        "weights": model.state_dict(),
        "optimizer": optimizer.state_dict(),
        "rng": rng.bit_generator.state,
        "torch_rng": torch.get_rng_state(),
        "counters": vars(counters).copy(),
        "pool": pool.snapshots,
        "games": collector.state_dict(),
        "config": config.to_dict(),
    }
    save_checkpoint(folder / f"update_{counters.update:06d}.pt", payload)
    for old in sorted(folder.glob("update_*.pt"))[: -config.run.keep_checkpoints]:
        old.unlink()


def _restore(saved, rules, model, optimizer, rng, pool, collector, counters) -> None:
    from agents.ppo.agent import check_game

    check_game(saved["game"], rules, "the checkpoint")
    model.load_state_dict(saved["weights"])
    optimizer.load_state_dict(saved["optimizer"])
    rng.bit_generator.state = saved["rng"]
    torch.set_rng_state(saved["torch_rng"])
    for key, value in saved["counters"].items():
        setattr(counters, key, value)
    pool.load_snapshots(saved["pool"])
    collector.load_state_dict(saved["games"])


def resume_config(run_dir: str | os.PathLike, overrides: list[str] = ()) -> Config:
    """The config a run was started with, from its ``config.toml``; ``overrides`` may change
    only how long it runs (``run.updates``, ``run.max_minutes``)."""
    import tomllib

    path = Path(run_dir) / CONFIG_FILE
    if not path.is_file():
        raise ConfigError(f"--resume {run_dir}: no {CONFIG_FILE} there; is it a run folder?")
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    for item in overrides:
        key = item.partition("=")[0].strip()
        if key not in ("run.updates", "run.max_minutes", "mccfr.batches"):
            raise ConfigError(
                f"--set {key}: a resumed run keeps its config; only run.updates, "
                "run.max_minutes and mccfr.batches may change"
            )
        apply_override(data, item)
    return from_dict(data)
