"""The fast PPO update learns what the plain one does: a readable per-minibatch reference, same steps.

In float32 it takes the reference's steps; in bfloat16 (the matrix products
only) it takes nearly the same steps, by another arithmetic.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from torch import nn

from spar_agents.ppo import precision
from spar_agents.ppo.network import ActorCritic, legal_entropy
from spar_agents.ppo.update import Batch, PPOSettings, make_optimizer, ppo_update

ROWS, OBS, EXTRA, ACTIONS = 300, 20, 12, 9


def _batch(g: np.random.Generator) -> Batch:
    mask = g.random((ROWS, ACTIONS)) < 0.3
    mask[np.arange(ROWS), g.integers(0, ACTIONS, ROWS)] = True
    mask[:5] = False  # rows of a game that just ended: no legal action
    actions = np.array([g.choice(np.flatnonzero(row)) if row.any() else 0 for row in mask])

    def floats(values) -> torch.Tensor:
        return torch.from_numpy(np.asarray(values, dtype=np.float32))

    return Batch(
        obs=torch.from_numpy(g.integers(0, 4, (ROWS, OBS), dtype=np.uint8)),
        mask=torch.from_numpy(mask),
        actions=torch.from_numpy(actions),
        logp=floats(-np.log(np.maximum(mask.sum(axis=1), 1))),
        values=floats(g.normal(0, 0.5, ROWS)),
        advantages=floats(g.normal(0, 1, ROWS)),
        returns=floats(g.normal(0, 0.5, ROWS)),
        extra=torch.from_numpy((g.random((ROWS, EXTRA)) < 0.3).astype(np.uint8)),
    )


def _reference_update(model, optimizer, batch: Batch, s: PPOSettings, rng) -> None:
    """PPO as the textbook writes it: index each minibatch, both networks through their API."""
    for _ in range(s.epochs):
        order = torch.as_tensor(rng.permutation(batch.size))
        for start in range(0, batch.size, s.minibatch_size):
            i = order[start : start + s.minibatch_size]
            logits = model.policy_logits(batch.obs[i], batch.mask[i])
            logp = torch.log_softmax(logits, -1).gather(1, batch.actions[i, None]).squeeze(1)
            ratio = (logp - batch.logp[i]).exp()
            adv = batch.advantages[i]
            adv = (adv - adv.mean()) / (adv.std() + 1e-8)
            clipped_ratio = ratio.clamp(1 - s.clip, 1 + s.clip)
            policy_loss = torch.max(-adv * ratio, -adv * clipped_ratio).mean()
            value, old, target = (
                model.value(batch.obs[i], batch.extra[i]),
                batch.values[i],
                batch.returns[i],
            )
            clipped = old + (value - old).clamp(-s.value_clip, s.value_clip)
            value_loss = 0.5 * torch.max((value - target) ** 2, (clipped - target) ** 2).mean()
            entropy = legal_entropy(logits, batch.mask[i]).mean()
            loss = policy_loss + s.vf_coef * value_loss - s.ent_coef * entropy
            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), s.max_grad_norm)
            optimizer.step()


def _gap(a: list[torch.Tensor], b: list[torch.Tensor]) -> list[float]:
    return [(p - q).abs().max().item() for p, q in zip(a, b, strict=True)]


def _fast_and_reference(arithmetic: str):
    """The update in ``arithmetic`` and the float32 reference, from the same weights and batch."""
    torch.manual_seed(0)
    fast = ActorCritic(np.full(OBS, 3.0), ACTIONS, (16, 16), privileged=EXTRA)
    plain = ActorCritic(np.full(OBS, 3.0), ACTIONS, (16, 16), privileged=EXTRA)
    plain.load_state_dict(fast.state_dict())
    before = [p.detach().clone() for p in fast.parameters()]
    batch = _batch(np.random.default_rng(0))
    settings = PPOSettings(epochs=3, minibatch_size=80, ent_coef=0.05, precision=arithmetic)
    stats = ppo_update(fast, make_optimizer(fast, 3e-3), batch, settings, np.random.default_rng(1))
    reference_optimizer = torch.optim.Adam(plain.parameters(), lr=3e-3, eps=1e-5)
    _reference_update(plain, reference_optimizer, batch, settings, np.random.default_rng(1))
    assert all(np.isfinite(v) for v in stats.values()) and stats["entropy"] > 0
    assert all(p.dtype == torch.float32 for p in fast.parameters())
    return before, list(fast.parameters()), list(plain.parameters())


def test_the_update_takes_the_reference_steps() -> None:
    """Three epochs of four minibatches (the last one short) end at the reference's weights."""
    before, after, reference = _fast_and_reference("float32")
    assert max(_gap(after, reference)) < 1e-5
    assert min(_gap(after, before)) > 1e-3  # and the update did move every parameter


def test_in_bfloat16_the_update_takes_nearly_the_reference_steps() -> None:
    """bfloat16 products move the weights where float32 does, to within a small share of the step."""
    before, after, reference = _fast_and_reference("bfloat16")
    step = [(r - b).abs().mean().item() for r, b in zip(reference, before, strict=True)]
    off = [(a - r).abs().mean().item() for a, r in zip(after, reference, strict=True)]
    assert max(o / s for o, s in zip(off, step, strict=True)) < 0.1
    assert max(_gap(after, reference)) > 1e-5  # another arithmetic indeed


def test_a_one_row_last_minibatch_leaves_the_update_finite() -> None:
    """A batch one row longer than its minibatches: the last minibatch's advantages have no
    spread to normalise by, and the update still ends finite (it had diverged with NaN)."""
    torch.manual_seed(0)
    model = ActorCritic(np.full(OBS, 3.0), ACTIONS, (16, 16), privileged=EXTRA)
    batch = _batch(np.random.default_rng(0))
    settings = PPOSettings(epochs=2, minibatch_size=ROWS - 1)
    stats = ppo_update(
        model, make_optimizer(model, 3e-3), batch, settings, np.random.default_rng(1)
    )
    assert all(np.isfinite(v) for v in stats.values())
    assert all(torch.isfinite(p).all() for p in model.parameters())


def test_precision_settings() -> None:
    native = "bfloat16" if precision.native_bfloat16() else "float32"
    assert precision.resolve("auto") == native
    assert precision.resolve("float32") == "float32"
    with pytest.raises(ValueError, match="precision must be one of auto, float32, bfloat16"):
        precision.resolve("float16")
