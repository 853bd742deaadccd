"""Learning what search found: search's improved policy, and the update toward it.

Search in the loop (:mod:`spar_train.ppo.sources.search`) asks the ``search`` agent, over the
current network, for the value ``Q(a)`` of every legal card at a decision. Two targets come
of it:

- **the improved policy** :func:`improved_policy`:
  ``π'(a) ∝ max(π(a), FLOOR) · exp(Q(a) / τ)`` over the legal actions, the network's policy
  ``π`` tilted toward the cards search values more (the KL-regularised greedy step of
  MPO and of Gumbel AlphaZero's completed-Q target). ``τ`` (``search.temperature``, in reward
  units) says how far: a small ``τ`` follows search's best card, a large one stays near
  ``π``. The floor keeps a card the network nearly never plays from being ruled out, so
  search can still teach it;
- **the improved value** ``V' = Σ π'(a) Q(a)``: what the position is worth to the seat if it
  plays the improved policy, a target for the critic.

:func:`improve_update` moves the network toward both: the cross-entropy of ``π'`` against
the network's masked policy, and half the squared error of its value against ``V'``, over
minibatches of the searched decisions, for ``epochs`` passes, with the gradient clipped as
PPO's. It reports how far the network was from the targets before it (``search_kl``) and how
much search found (``search_gain``: ``V'`` minus the network's own policy's value under ``Q``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from spar_agents.ppo.network import ActorCritic

FLOOR = 1e-3  # the least prior probability a legal card keeps in the improved policy


@dataclass(frozen=True)
class SearchTargets:
    """Searched decisions (``K`` of them) and what search found at each."""

    obs: np.ndarray  # uint8 [K, D] what the network reads
    mask: np.ndarray  # bool [K, A] the legal actions
    probs: np.ndarray  # float32 [K, A] the improved policy (0 on illegal actions)
    values: np.ndarray  # float32 [K] the improved value, in reward units
    gain: np.ndarray  # float32 [K] V' minus the network's policy's value under Q
    extra: np.ndarray | None  # uint8 [K, E] the other seats' hands, for a privileged critic

    @property
    def size(self) -> int:
        return int(self.values.shape[0])

    def take(self, rows: np.ndarray | slice) -> SearchTargets:
        extra = None if self.extra is None else self.extra[rows]
        return SearchTargets(self.obs[rows], self.mask[rows], self.probs[rows],
                             self.values[rows], self.gain[rows], extra)  # fmt: skip

    @staticmethod
    def join(parts: list[SearchTargets]) -> SearchTargets:
        """The decisions of ``parts``, one after another."""

        def joined(name: str) -> np.ndarray:
            return np.concatenate([getattr(part, name) for part in parts])

        extra = None if parts[0].extra is None else joined("extra")
        return SearchTargets(joined("obs"), joined("mask"), joined("probs"), joined("values"),
                             joined("gain"), extra)  # fmt: skip


def improved_policy(
    prior: np.ndarray, values: np.ndarray, mask: np.ndarray, temperature: float
) -> np.ndarray:
    """``float32 [K, A]``: ``π' ∝ max(π, FLOOR) · exp(Q / τ)`` over the legal actions
    (module docstring); ``values`` (``Q``) may hold anything on illegal actions.

    Raises:
        ValueError: for a temperature that is not above 0, or a decision with no legal action.
    """
    if not temperature > 0:
        raise ValueError(f"the temperature must be above 0; got {temperature!r}")
    if not mask.any(axis=1).all():
        raise ValueError("a decision with no legal action")
    q = np.where(mask, values, 0.0).astype(np.float64)
    logits = np.log(np.maximum(prior, FLOOR)) + q / temperature
    logits = np.where(mask, logits, -np.inf)
    logits -= logits.max(axis=1, keepdims=True)
    weights = np.exp(logits)
    return (weights / weights.sum(axis=1, keepdims=True)).astype(np.float32)


def targets_of(
    prior: np.ndarray, values: np.ndarray, mask: np.ndarray, temperature: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The improved policy, the improved value and search's gain at each decision."""
    probs = improved_policy(prior, values, mask, temperature)
    q = np.where(mask, values, 0.0)
    value = (probs * q).sum(axis=1)
    own = (np.where(mask, prior, 0.0) * q).sum(axis=1) / np.maximum(
        np.where(mask, prior, 0.0).sum(axis=1), 1e-12
    )
    return probs, value.astype(np.float32), (value - own).astype(np.float32)


@dataclass(frozen=True)
class ImproveSettings:
    """How the network learns the search targets (``[search]`` of a run config)."""

    policy_coef: float = 1.0  # the cross-entropy's weight
    value_coef: float = 0.5  # the value error's weight (0: the critic learns from PPO alone)
    epochs: int = 2  # passes over the searched decisions each update
    minibatch_size: int = 1024
    max_grad_norm: float = 0.5


def improve_update(
    model: ActorCritic,
    optimizer: torch.optim.Optimizer,
    targets: SearchTargets,
    settings: ImproveSettings,
    rng: np.random.Generator,
) -> dict[str, float]:
    """Move ``model`` toward the search targets (module docstring); the mean losses and the
    targets' statistics, under ``search_`` names."""
    device = model.device
    extra = None if targets.extra is None else torch.from_numpy(targets.extra).to(device)
    inputs = model.critic_input(torch.from_numpy(targets.obs).to(device), extra)
    illegal = ~torch.from_numpy(targets.mask).to(device)
    wanted = torch.from_numpy(targets.probs).to(device)
    value_target = torch.from_numpy(targets.values).to(device)
    with torch.no_grad():
        logits, _ = model.logits_and_value(inputs, illegal)
        stats = {
            "search_kl": _kl(wanted, torch.log_softmax(logits.float(), -1), illegal).item(),
            "search_agreement": (logits.argmax(-1) == wanted.argmax(-1)).float().mean().item(),
            "search_gain": float(targets.gain.mean()),
            "search_decisions": float(targets.size),
        }
    sums = {"search_policy_loss": 0.0, "search_value_loss": 0.0}
    steps = 0
    model.train()
    for _ in range(settings.epochs):
        order = torch.as_tensor(rng.permutation(targets.size), device=device)
        for start in range(0, targets.size, settings.minibatch_size):
            rows = order[start : start + settings.minibatch_size]
            logits, value = model.logits_and_value(inputs[rows], illegal[rows])
            logp = torch.log_softmax(logits.float(), -1).masked_fill(illegal[rows], 0.0)
            policy_loss = -(wanted[rows] * logp).sum(-1).mean()
            value_loss = 0.5 * ((value.float() - value_target[rows]) ** 2).mean()
            loss = settings.policy_coef * policy_loss + settings.value_coef * value_loss
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), settings.max_grad_norm)
            optimizer.step()
            sums["search_policy_loss"] += policy_loss.item()
            sums["search_value_loss"] += value_loss.item()
            steps += 1
    model.eval()
    return {**stats, **{k: v / max(steps, 1) for k, v in sums.items()}}


def _kl(wanted: torch.Tensor, logp: torch.Tensor, illegal: torch.Tensor) -> torch.Tensor:
    """The mean KL(π' ‖ π) over the decisions."""
    log_wanted = torch.log(wanted.clamp_min(1e-12))
    return (wanted * (log_wanted - logp)).masked_fill(illegal, 0.0).sum(-1).mean()
