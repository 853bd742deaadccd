"""One PPO update: the rollout into a batch (GAE), the update, the magnet's step, a check.

:func:`learn` is the "update" of the loop's collect, update, log
(:mod:`spar_train.ppo.loop`): the learning rate of ``ppo.lr_schedule``, advantages by GAE
over each trajectory (:func:`to_batch`), the clipped PPO update of
:func:`spar_agents.ppo.update.ppo_update` (pulled toward the magnet with ``ppo.magnet_coef``),
the magnet's step toward the learner, and a stop with a clear message if the update diverged
(:mod:`spar_train.ppo.divergence`). With search in the loop, the rollout's search targets are
learned too (:func:`spar_agents.ppo.improve.improve_update`, after PPO's update, or alone with
``search.ppo = false``). It counts the update and says what it did in an
:class:`~spar_train.ppo.parts.Update`.
"""

from __future__ import annotations

import time
from dataclasses import fields

import numpy as np
import torch

from spar_agents.ppo.improve import ImproveSettings, improve_update
from spar_agents.ppo.update import Batch, PPOSettings, gae, move_magnet, ppo_update
from spar_env.core import unpack
from spar_env.core.bits import popcount
from spar_train.ppo.divergence import check_finite
from spar_train.ppo.parts import Run, Update
from spar_train.ppo.sources.base import Rollout
from spar_train.sections import Config


def learn(run: Run, rollout: Rollout, started: float) -> Update:
    """One update on ``rollout`` (module docstring), collected since ``started``."""
    config, counters = run.config, run.counters
    lr = learning_rate(config, counters.update)
    for group in run.optimizer.param_groups:
        group["lr"] = lr
    collected = time.perf_counter()
    stats: dict[str, float] = {}
    if rollout.search is None or config.search.ppo:
        batch = to_batch(rollout, config.ppo.gamma, config.ppo.gae_lambda,
                         config.ppo.train_forced)  # fmt: skip
        stats = ppo_update(run.model, run.optimizer, batch, run.settings, run.rng, run.magnet)
    if rollout.search is not None:  # search in the loop (spar_train.ppo.sources.search)
        stats |= improve_update(run.model, run.optimizer, rollout.search,
                                improve_settings(config), run.rng)  # fmt: skip
    if run.magnet is not None:
        move_magnet(run.magnet, run.model, config.ppo.magnet_rate)
    check_finite(run.model, stats, f"update {counters.update + 1}", run.run_dir,
                 f"ppo.lr={lr:g}, reward scale {run.scale:g}")  # fmt: skip
    done = time.perf_counter()
    counters.update += 1
    counters.decisions += rollout.decisions
    run.done_here += 1
    return Update(
        step=counters.update,
        lr=lr,
        rollout=rollout,
        stats=stats,
        seconds={**rollout.seconds, "update": done - collected},
        decisions_per_second=rollout.decisions / (done - started),
        decisions=counters.decisions,
        began=started,
        collect_seconds=collected - started,
    )


def learning_rate(config: Config, update: int) -> float:
    """``ppo.lr`` at ``update`` (updates done so far): falling linearly to 0 at the last
    update, or constant (``ppo.lr_schedule``)."""
    frac = 1.0 - update / config.run.updates
    return config.ppo.lr * (frac if config.ppo.lr_schedule == "linear" else 1.0)


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


def improve_settings(config: Config) -> ImproveSettings:
    """How the network learns search's targets, from ``[search]`` (and ``ppo.max_grad_norm``)."""
    s = config.search
    return ImproveSettings(s.policy_coef, s.value_coef, s.epochs, s.minibatch_size,
                           config.ppo.max_grad_norm)  # fmt: skip


def ppo_settings(config: Config) -> PPOSettings:
    """The update's settings from ``[ppo]``."""
    return PPOSettings(**{f.name: getattr(config.ppo, f.name) for f in fields(PPOSettings)})
