"""One PPO update: advantages by GAE, then clipped policy and value losses over minibatches.

Read top to bottom: :func:`gae` turns a rollout's rewards and values into
advantages and returns; :func:`ppo_update` runs ``epochs`` passes of
minibatches over the decisions, with advantage normalisation, the clipped
surrogate, a (clipped) value loss, an entropy bonus over legal actions and
gradient clipping, and reports the losses, the approximate KL and the clip
fraction.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from agents.ppo.network import ActorCritic, legal_entropy


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


def ppo_update(
    model: ActorCritic,
    optimizer: torch.optim.Optimizer,
    batch: Batch,
    settings: PPOSettings,
    rng: np.random.Generator,
) -> dict[str, float]:
    """Run the PPO epochs over ``batch``; returns the mean losses and diagnostics."""
    sums: dict[str, float] = {}
    count = 0
    model.train()
    for _ in range(settings.epochs):
        order = torch.as_tensor(rng.permutation(batch.size))
        kl_epoch = []
        for start in range(0, batch.size, settings.minibatch_size):
            idx = order[start : start + settings.minibatch_size]
            stats = _minibatch_step(model, optimizer, batch, idx, settings)
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
    batch: Batch,
    idx: torch.Tensor,
    s: PPOSettings,
) -> dict[str, float]:
    mask = batch.mask[idx]
    logits = model.policy_logits(batch.obs[idx], mask)
    logp_all = torch.log_softmax(logits, dim=-1)
    logp = logp_all.gather(1, batch.actions[idx, None]).squeeze(1)
    log_ratio = logp - batch.logp[idx]
    ratio = log_ratio.exp()
    adv = batch.advantages[idx]
    adv = (adv - adv.mean()) / (adv.std() + 1e-8)
    policy_loss = torch.max(-adv * ratio, -adv * ratio.clamp(1 - s.clip, 1 + s.clip)).mean()

    extra = None if batch.extra is None else batch.extra[idx]
    value = model.value(batch.obs[idx], extra)
    target = batch.returns[idx]
    if s.value_clip == 0:
        value_loss = 0.5 * ((value - target) ** 2).mean()
    else:
        old = batch.values[idx]
        clipped = old + (value - old).clamp(-s.value_clip, s.value_clip)
        value_loss = 0.5 * torch.max((value - target) ** 2, (clipped - target) ** 2).mean()
    entropy = legal_entropy(logits, mask).mean()
    loss = policy_loss + s.vf_coef * value_loss - s.ent_coef * entropy

    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    nn.utils.clip_grad_norm_(model.parameters(), s.max_grad_norm)
    optimizer.step()
    with torch.no_grad():
        approx_kl = ((ratio - 1) - log_ratio).mean()  # the low-variance estimator k3
        clip_frac = ((ratio - 1).abs() > s.clip).float().mean()
    return {
        "policy_loss": policy_loss.item(),
        "value_loss": value_loss.item(),
        "entropy": entropy.item(),
        "approx_kl": approx_kl.item(),
        "clip_fraction": clip_frac.item(),
    }
