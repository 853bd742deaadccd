"""Warm start: the actor imitates an agent's decisions, and the critic learns their outcomes.

The teacher (``heuristic`` or ``pimc``) plays every seat of a batch of hands
through the same :class:`~spar_train.rollout.Collector` as PPO; each of its
decisions with more than one legal action is a cross-entropy target for the
actor's masked policy, and each seat's payoff for the hand is the critic's
target. This gives PPO a policy that already plays sensibly, and a value
that already knows what hands are worth.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np
import torch

from spar_agents import make_agent
from spar_agents.ppo.network import ActorCritic
from spar_agents.ppo.precision import arithmetic, input_dtype, resolve
from spar_env.core import unpack
from spar_env.core.bits import popcount
from spar_train.finite import check_finite
from spar_train.game_mix import MixCollector, MixRollouts
from spar_train.opponent_pool import SELF, OpponentPool
from spar_train.progress import Progress
from spar_train.rollout import Collector
from spar_train.run_dir import WARMSTART_DIR

if TYPE_CHECKING:
    from spar_train.distributed.rollout import RayCollector, RayMixCollector


def imitate(
    model: ActorCritic,
    collector: Collector | RayCollector | MixCollector | RayMixCollector,
    teacher_spec: str,
    steps: int,
    lr: float,
    reward_scale: float,
    rng: np.random.Generator,
    minibatch_size: int = 8192,
    on_step=None,
    precision: str = "float32",
    epochs: int = 1,
    stop: Callable[[], bool] | None = None,
) -> list[float]:
    """``steps`` rounds of one batch of the teacher's hands, then ``epochs`` passes of minibatches.

    The features are converted once a round, into the critic's input (whose
    first columns are the actor's); ``precision`` is the matrix products'
    arithmetic, as in the PPO update (:mod:`spar_agents.ppo.precision`).
    Returns the mean cross-entropy of each round; ``on_step(round, loss)`` hears each, and
    ``stop()``, asked after each round, ends the imitation early when it says so (the time
    budget's share, :mod:`spar_train.budget`).
    """
    arithmetic_of = resolve(precision, model.device)
    here = model.inputs_here  # the learner's device (the arrays themselves on the CPU)
    rules = collector.rules
    teacher: Any
    if isinstance(collector, MixRollouts):  # one teacher and one pool per game of the mix
        teacher, pool = collector.make_teacher(teacher_spec), collector.self_pool()
    else:
        teacher = make_agent(teacher_spec, rules)
        pool = OpponentPool(rules, {SELF: 1.0}, keep=1, make_model=None)
    optimizer = torch.optim.Adam(model.parameters(), lr=lr, eps=1e-5)
    losses = []
    for step in range(steps):
        rollout = collector.collect(model, pool, 1, rng, reward_scale, teacher=teacher)
        choice = popcount(rollout.legal) > 1
        extra = None if rollout.extra is None else here(rollout.extra[choice])
        inputs = model.critic_input(here(rollout.obs[choice]), extra)
        inputs = inputs.to(input_dtype(arithmetic_of))
        illegal = here(~unpack(rollout.legal[choice], rollout.num_actions))
        target = here(rollout.actions[choice])
        value_target = here(rollout.rewards[rollout.trajectory[choice]])
        total, batches = 0.0, 0
        model.train()
        passes = [here(rng.permutation(inputs.shape[0])) for _ in range(epochs)]
        for order, start in ((o, s) for o in passes for s in range(0, len(o), minibatch_size)):
            idx = order[start : start + minibatch_size]
            with arithmetic(arithmetic_of, model.device):
                logits, value = model.logits_and_value(inputs[idx], illegal[idx])
            ce = torch.nn.functional.cross_entropy(logits.float(), target[idx])
            loss = ce + 0.5 * ((value.float() - value_target[idx]) ** 2).mean()
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 0.5)
            optimizer.step()
            total += ce.item()
            batches += 1
        model.eval()
        losses.append(total / max(batches, 1))
        if on_step is not None:
            on_step(step, losses[-1])
        if stop is not None and step + 1 < steps and stop():
            break
    return losses


def warm_start_imitation(
    config, model, collector, scale, rng, run_dir, report, stop: Callable[[], bool] | None = None
) -> int:
    """The warm start's imitation of ``warmstart.imitate`` in a run (:mod:`spar_train.ppo`),
    logged in its own folder and checked for finite weights; ``stop`` as :func:`imitate`'s.
    Returns the imitation steps made."""
    from torch.utils.tensorboard import SummaryWriter

    warm = config.warmstart
    # Its own folder, so its own step axis: a resume's purge of the PPO steps past the
    # last checkpoint never drops warm-start points.
    warm_writer = SummaryWriter(str(run_dir / WARMSTART_DIR))

    def on_imitation(step: int, loss: float) -> None:
        warm_writer.add_scalar("warmstart/cross_entropy", loss, step)
        if report is not None:
            report(Progress("imitation", step + 1, warm.updates, {"cross_entropy": loss}))

    losses = imitate(model, collector, warm.imitate, warm.updates, warm.lr, scale, rng,
                     on_step=on_imitation, precision=config.ppo.precision,
                     epochs=warm.epochs, stop=stop)  # fmt: skip
    warm_writer.close()
    check_finite(model, {"cross-entropy": losses[-1]}, "the warm start", run_dir,
                 f"warmstart.lr={warm.lr:g}, reward scale {scale:g}")  # fmt: skip
    return len(losses)
