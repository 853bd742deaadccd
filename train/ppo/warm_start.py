"""The warm start (``[warmstart]``): the network starts from a bot's actor, then imitates an agent.

**The actor of a bot** (``warmstart.actor = "universal"``). An exported bot
(:mod:`spar_agents.export`) holds its actor's weights as the ONNX graph's initializers, under
the names of the network's own parameters (``model.actor.0.weight``, ...). A run that
fine-tunes a shipped bot (for example on the match reward) copies them into its actor
(:func:`load_actor`), so it starts from the bot's very policy (a network with
``model.score_inputs`` starts them at zero weight, so the same policy); the critic, which no
bot carries, starts fresh. The file is read with :mod:`onnx` alone: nothing is unpickled.

**Imitation** (``warmstart.imitate``, :func:`imitate`). The teacher (``heuristic``, ``pimc``,
a bot) plays every seat of a batch of hands through the run's own rollout source; each of its
decisions with more than one legal action is a cross-entropy target for the actor's masked
policy, and each seat's payoff for the hand is the critic's target. This gives PPO a policy
that already plays sensibly, and a value that already knows what hands are worth.

:func:`warm_start` does both, once per run (a resumed run that has done it does not again),
then starts the magnet (magnetic mirror descent) as the policy PPO starts from.
"""

from __future__ import annotations

import os
from collections.abc import Callable

import numpy as np
import torch
from onnx import load, numpy_helper
from torch.utils.tensorboard import SummaryWriter

from spar_agents import make_agent
from spar_agents.ppo.network import ActorCritic
from spar_agents.ppo.precision import arithmetic, input_dtype, resolve
from spar_agents.ppo.score_inputs import WIDTH as SCORE_WIDTH
from spar_agents.shipped import resolve_bot
from spar_env.core import unpack
from spar_env.core.bits import popcount
from spar_train.games import GameMix
from spar_train.ppo.checkpoint import save_run
from spar_train.ppo.divergence import check_finite
from spar_train.ppo.parts import Run
from spar_train.ppo.sources.base import RolloutSource
from spar_train.ppo.sources.pools import SELF
from spar_train.progress import Progress, Reporter
from spar_train.run_dir import WARMSTART_DIR

PREFIX = "model."  # the exporter wraps the network in a module named model


def warm_start(run: Run, report: Reporter | None) -> None:
    """The run's warm start, unless it has had it (module docstring); a checkpoint after it."""
    warm = run.config.warmstart
    imitating = bool(warm.imitate and warm.updates)
    if (warm.actor or imitating) and not run.counters.warm_started:
        if warm.actor:  # the actor of an exported bot (the critic starts fresh)
            load_actor(run.model, warm.actor)
        if imitating:
            steps = _imitation(run, report, stop=run.budget.warm_start_stop())
            run.budget.warm_start_done(steps)
        run.counters.warm_started = True
        _start_magnet(run)
        save_run(run)
    elif not run.resumed:
        _start_magnet(run)


def _start_magnet(run: Run) -> None:
    """The magnet starts as the policy PPO starts from (after the warm start)."""
    if run.magnet is not None:
        run.magnet.load_state_dict(run.model.state_dict())


def _imitation(run: Run, report: Reporter | None, stop: Callable[[], bool] | None) -> int:
    """The imitation of ``warmstart.imitate`` in a run, logged in its own folder and checked
    for finite weights; ``stop`` as :func:`imitate`'s. Returns the imitation steps made."""
    warm = run.config.warmstart
    # Its own folder, so its own step axis: a resume's purge of the PPO steps past the
    # last checkpoint never drops warm-start points.
    warm_writer = SummaryWriter(str(run.run_dir / WARMSTART_DIR))

    def on_imitation(step: int, loss: float) -> None:
        warm_writer.add_scalar("warmstart/cross_entropy", loss, step)
        if report is not None:
            report(Progress("imitation", step + 1, warm.updates, {"cross_entropy": loss}))

    losses = imitate(run.model, run.source, run.mix, warm.imitate, warm.updates, warm.lr,
                     run.rng, on_step=on_imitation, precision=run.placement.learner,
                     epochs=warm.epochs, stop=stop)  # fmt: skip
    warm_writer.close()
    check_finite(run.model, {"cross-entropy": losses[-1]}, "the warm start", run.run_dir,
                 f"warmstart.lr={warm.lr:g}, reward scale {run.scale:g}")  # fmt: skip
    return len(losses)


def imitate(
    model: ActorCritic,
    source: RolloutSource,
    mix: GameMix,
    teacher_spec: str,
    steps: int,
    lr: float,
    rng: np.random.Generator,
    minibatch_size: int = 8192,
    on_step: Callable[[int, float], None] | None = None,
    precision: str = "float32",
    epochs: int = 1,
    stop: Callable[[], bool] | None = None,
) -> list[float]:
    """``steps`` rounds of one batch of the teacher's hands (``source``'s games, the teacher
    in every seat), then ``epochs`` passes of minibatches.

    The features are converted once a round, into the critic's input (whose
    first columns are the actor's); ``precision`` is the matrix products'
    arithmetic, as in the PPO update (:mod:`spar_agents.ppo.precision`).
    Returns the mean cross-entropy of each round; ``on_step(round, loss)`` hears each, and
    ``stop()``, asked after each round, ends the imitation early when it says so (the time
    budget's share, :mod:`spar_train.budget`).
    """
    arithmetic_of = resolve(precision, model.device)
    here = model.inputs_here  # the learner's device (the arrays themselves on the CPU)
    teacher = [make_agent(teacher_spec, g.rules) for g in mix.games]  # one a game of the mix
    pool = source.pool({SELF: 1.0}, 1, None)  # every seat the learner's
    optimizer = torch.optim.Adam(model.parameters(), lr=lr, eps=1e-5)
    losses = []
    for step in range(steps):
        rollout = source.collect(model, pool, 1, rng, teacher)
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


def load_actor(model: ActorCritic, bot: str | os.PathLike) -> None:
    """Copy ``bot``'s actor weights (a shipped bot's name or an ONNX file) into ``model``.

    Raises:
        ValueError: if the file is not an ONNX bot, or its actor is not of this network's shape.
    """
    path = resolve_bot(str(bot).removeprefix("onnx:"))
    try:
        graph = load(os.fspath(path)).graph
    except Exception as err:  # onnx raises several kinds for a file that is not a model
        raise ValueError(f"warmstart.actor: {bot} is not an ONNX bot ({err})") from None
    found = {
        i.name.removeprefix(PREFIX): numpy_helper.to_array(i)
        for i in graph.initializer
        if i.name.startswith(PREFIX)
    }
    first = found.get("actor.0.weight")
    if model.score_inputs is not None and first is not None and first.shape[1] == model.obs_size:
        # A bot without score inputs: they start unread (zero weights), so the policy is the bot's.
        found["actor.0.weight"] = np.hstack([first, np.zeros((first.shape[0], SCORE_WIDTH))])
    wanted = {k: v for k, v in model.state_dict().items() if k.startswith("actor.")}
    wanted["obs_scale"] = model.obs_scale
    for name, tensor in wanted.items():
        value = found.get(name)
        if value is None or tuple(value.shape) != tuple(tensor.shape):
            shape = None if value is None else tuple(value.shape)
            raise ValueError(
                f"warmstart.actor: {bot} has no {name} of shape {tuple(tensor.shape)} "
                f"(it has {shape}): its network differs from [model] and the game's inputs"
            )
    if not np.allclose(found["obs_scale"], model.obs_scale.numpy()):
        raise ValueError(f"warmstart.actor: {bot} reads another observation (its scales differ)")
    with torch.no_grad():
        for name, tensor in model.state_dict().items():
            if name.startswith("actor."):
                tensor.copy_(torch.from_numpy(np.array(found[name])))
