"""One PPO update: advantages by GAE, then clipped policy and value losses over minibatches.

Read top to bottom: :func:`gae` turns a rollout's rewards and values into
advantages and returns; :func:`ppo_update` runs ``epochs`` passes of
minibatches over the decisions, with advantage normalisation, the clipped
surrogate, a (clipped) value loss, an entropy bonus over legal actions and
gradient clipping, and reports the losses, the approximate KL and the clip
fraction; :func:`make_optimizer` is the Adam it steps.

**Magnetic mirror descent** (Sokota et al., ICLR 2023) is one more term: with
``magnet_coef`` α > 0, each state's loss adds α · KL(π_θ ‖ ρ), the reverse KL
from the policy to a *magnet* policy ρ (exact, over the legal actions), which
pulls the learner toward ρ as the clipped ratio holds it near the policy it
played. :func:`ppo_update` reads ρ from a second network, ``magnet``, and
:func:`move_magnet` moves that network a step ``magnet_rate`` toward the
learner after each update, so the magnet trails the policy slowly: a fixed
magnet makes the learner converge to a regularised equilibrium near it, a
trailing one lets the equilibrium it converges to move toward a Nash
equilibrium. With α = 0 nothing of this runs, and the update is PPO's.

What makes it fast on a CPU, with the same minibatches and arithmetic: the
observations become float features once per update (not once per minibatch
and network), in one tensor that feeds the actor (its first columns) and the
critic; each epoch gathers its shuffled order once, so a minibatch is a
contiguous slice; one log-softmax serves the ratio and the entropy; and Adam
runs fused (one kernel over all parameters, not a dozen operations apiece).
With ``precision`` bfloat16 (:mod:`spar_agents.ppo.precision`; ``"auto"`` picks
it where the CPU has it natively), the matrix products run in bfloat16 and
everything else in float32, which roughly halves the time again.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np
import torch
from torch import nn

from spar_agents.ppo.network import ILLEGAL_LOGIT, ActorCritic, entropy_of
from spar_agents.ppo.precision import Precision, arithmetic, input_dtype, resolve


def gae(
    rewards: np.ndarray, values: np.ndarray, valid: np.ndarray, gamma: float, lam: float
) -> tuple[np.ndarray, np.ndarray]:
    """Generalised advantage estimation over padded trajectories.

    Args:
        rewards, values: ``float [R, T]`` per trajectory (row) and step.
        valid: ``bool [R, T]``; each row's valid steps are a prefix, and the
            episode ends after its last valid step (no bootstrap past it).

    Returns:
        ``(advantages, returns)``, both ``float32 [R, T]`` (0 on invalid steps).
    """
    r, t = rewards.shape
    adv = np.zeros((r, t), dtype=np.float64)
    next_value = np.zeros(r)
    next_adv = np.zeros(r)
    for k in range(t - 1, -1, -1):
        live = valid[:, k]
        delta = rewards[:, k] + gamma * next_value - values[:, k]
        a = delta + gamma * lam * next_adv
        adv[:, k] = np.where(live, a, 0.0)
        next_value = np.where(live, values[:, k], 0.0)
        next_adv = adv[:, k]
    returns = adv + np.where(valid, values, 0.0)
    return adv.astype(np.float32), returns.astype(np.float32)


@dataclass(frozen=True)
class Batch:
    """The decisions one update learns from (``M`` rows)."""

    obs: torch.Tensor  # uint8 [M, D]
    mask: torch.Tensor  # bool [M, A]
    actions: torch.Tensor  # int64 [M]
    logp: torch.Tensor  # float32 [M] log-probability under the rollout policy
    values: torch.Tensor  # float32 [M] the critic's estimate in the rollout
    advantages: torch.Tensor  # float32 [M]
    returns: torch.Tensor  # float32 [M]
    extra: torch.Tensor | None  # uint8 [M, E] the critic's privileged input, if any

    @property
    def size(self) -> int:
        return int(self.actions.shape[0])


@dataclass(frozen=True)
class PPOSettings:
    """The update's settings: their one home (``[ppo]`` of a run config derives from them)."""

    epochs: int = 3
    minibatch_size: int = 8192
    clip: float = 0.2
    value_clip: float = 0.2  # 0: no value clipping
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    target_kl: float = 0.0  # stop an update's epochs past this KL (0: never)
    precision: str = "auto"  # the matrix products': auto | float32 | bfloat16
    magnet_coef: float = 0.0  # α of magnetic mirror descent's KL(π ‖ magnet) (0: plain PPO)
    magnet_rate: float = 0.0  # the magnet's step toward the learner after each update


def make_optimizer(model: nn.Module, lr: float) -> torch.optim.Adam:
    """The learner's Adam (``eps`` 1e-5, the usual PPO choice), fused into one kernel."""
    return torch.optim.Adam(model.parameters(), lr=lr, eps=1e-5, fused=True)


@dataclass(frozen=True)
class _Rows:
    """A batch ready for the networks: one row per decision, in some order."""

    inputs: torch.Tensor  # float32 [M, D + E] the critic's input; its first D columns the actor's
    illegal: torch.Tensor  # bool [M, A] the mask's complement
    actions: torch.Tensor  # int64 [M, 1]
    logp: torch.Tensor
    values: torch.Tensor
    advantages: torch.Tensor
    returns: torch.Tensor

    @classmethod
    def of(cls, model: ActorCritic, batch: Batch, precision: Precision) -> _Rows:
        """The batch on the network's device (where it already is on the CPU)."""
        device = model.device
        extra = None if batch.extra is None else batch.extra.to(device)
        return cls(
            model.critic_input(batch.obs.to(device), extra).to(input_dtype(precision)),
            ~batch.mask.to(device),
            batch.actions[:, None].to(device),
            batch.logp.to(device),
            batch.values.to(device),
            batch.advantages.to(device),
            batch.returns.to(device),
        )

    def take(self, index: torch.Tensor | slice) -> _Rows:
        return _Rows(*(getattr(self, f.name)[index] for f in fields(self)))


def ppo_update(
    model: ActorCritic,
    optimizer: torch.optim.Optimizer,
    batch: Batch,
    settings: PPOSettings,
    rng: np.random.Generator,
    magnet: ActorCritic | None = None,
) -> dict[str, float]:
    """Run the PPO epochs over ``batch``; returns the mean losses and diagnostics.

    ``magnet``: the network whose policy ρ the KL term pulls toward (needed when
    ``settings.magnet_coef`` > 0; module docstring).
    """
    if settings.magnet_coef > 0 and magnet is None:
        raise ValueError("magnet_coef > 0 needs the magnet network")
    sums: dict[str, float] = {}
    count = 0
    model.train()
    precision = resolve(settings.precision, model.device)
    rows = _Rows.of(model, batch, precision)
    for _ in range(settings.epochs):
        shuffled = rows.take(torch.as_tensor(rng.permutation(batch.size), device=model.device))
        kl_epoch = []
        for start in range(0, batch.size, settings.minibatch_size):
            part = shuffled.take(slice(start, start + settings.minibatch_size))
            stats = _minibatch_step(model, optimizer, part, settings, precision, magnet)
            for k, v in stats.items():
                sums[k] = sums.get(k, 0.0) + v
            count += 1
            kl_epoch.append(stats["approx_kl"])
        if settings.target_kl > 0 and np.mean(kl_epoch) > settings.target_kl:
            break
    model.eval()
    return {k: v / max(count, 1) for k, v in sums.items()}


def _minibatch_step(
    model: ActorCritic,
    optimizer: torch.optim.Optimizer,
    rows: _Rows,
    s: PPOSettings,
    precision: Precision,
    magnet: ActorCritic | None = None,
) -> dict[str, float]:
    with arithmetic(precision, model.device):
        logits, value = model.logits_and_value(rows.inputs, rows.illegal)
        if s.magnet_coef > 0:
            with torch.no_grad():
                pull = magnet.actor(rows.inputs[:, : model.actor_width])  # type: ignore[union-attr]
    logits, value = logits.float(), value.float()  # no-ops in float32
    logp_all = torch.log_softmax(logits, dim=-1)
    logp = logp_all.gather(1, rows.actions).squeeze(1)
    log_ratio = logp - rows.logp
    ratio = log_ratio.exp()
    adv = rows.advantages
    # A one-row tail minibatch has no spread to scale by (its std is NaN): no policy step.
    adv = (adv - adv.mean()) / (adv.std() + 1e-8) if adv.numel() > 1 else torch.zeros_like(adv)
    policy_loss = torch.max(-adv * ratio, -adv * ratio.clamp(1 - s.clip, 1 + s.clip)).mean()

    target = rows.returns
    if s.value_clip == 0:
        value_loss = 0.5 * ((value - target) ** 2).mean()
    else:
        old = rows.values
        clipped = old + (value - old).clamp(-s.value_clip, s.value_clip)
        value_loss = 0.5 * torch.max((value - target) ** 2, (clipped - target) ** 2).mean()
    entropy = entropy_of(logp_all, rows.illegal).mean()
    loss = policy_loss + s.vf_coef * value_loss - s.ent_coef * entropy
    magnet_kl = None
    if s.magnet_coef > 0:
        magnet_logp = torch.log_softmax(pull.float().masked_fill(rows.illegal, ILLEGAL_LOGIT), -1)
        terms = (logp_all.exp() * (logp_all - magnet_logp)).masked_fill(rows.illegal, 0.0)
        magnet_kl = terms.sum(-1).mean()
        loss = loss + s.magnet_coef * magnet_kl

    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    nn.utils.clip_grad_norm_(model.parameters(), s.max_grad_norm)
    optimizer.step()
    with torch.no_grad():
        approx_kl = ((ratio - 1) - log_ratio).mean()  # the low-variance estimator k3
        clip_frac = ((ratio - 1).abs() > s.clip).float().mean()
    stats = {
        "policy_loss": policy_loss.item(),
        "value_loss": value_loss.item(),
        "entropy": entropy.item(),
        "approx_kl": approx_kl.item(),
        "clip_fraction": clip_frac.item(),
    }
    if magnet_kl is not None:
        stats["magnet_kl"] = magnet_kl.item()
    return stats


def move_magnet(magnet: ActorCritic, model: ActorCritic, rate: float) -> None:
    """The magnet's step toward the learner: each weight ``rate`` of the way (module docstring)."""
    if rate > 0:
        with torch.no_grad():
            for mine, theirs in zip(magnet.parameters(), model.parameters(), strict=True):
                mine.lerp_(theirs, rate)
