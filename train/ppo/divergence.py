"""A diverged PPO run stops at the update where it diverged, naming the likely cause.

A learning rate or reward scale far too large turns the loss, and then the
weights, into NaN or infinity; played on, the network's answers later read
as "seat 1 cannot play AC". :func:`check_finite` is called after each update
(and after the warm start) and stops the run there with a message naming
the update, the settings that usually cause it and the last good checkpoint,
which the bad update never overwrote.
"""

from __future__ import annotations

import math
from pathlib import Path

import torch

from spar_agents.ppo.checkpoint_names import CHECKPOINT_DIR, list_checkpoints


class RunDiverged(ValueError):
    """The loss or the weights of a run are no longer finite numbers."""


def check_finite(
    model: torch.nn.Module,
    stats: dict[str, float],
    where: str,
    run_dir: Path,
    causes: str,
) -> None:
    """Raise :class:`RunDiverged` if a figure of ``stats`` or a weight of ``model`` is not finite.

    Args:
        where: the step, e.g. ``update 7`` or ``the warm start``.
        causes: the settings to suspect, e.g. ``ppo.lr=0.1, ppo.reward_scale=1e+30``.
    """
    bad = [k for k, v in stats.items() if not math.isfinite(v)]
    if not bad and all(torch.isfinite(p).all() for p in model.parameters()):
        return
    what = f"the {', '.join(bad)} became non-finite" if bad else "the weights became non-finite"
    saved = list_checkpoints(run_dir / CHECKPOINT_DIR)
    last = f"the last good checkpoint is {saved[-1]}" if saved else "there is no checkpoint yet"
    raise RunDiverged(
        f"{where}: {what}: the run diverged; lower the learning rate or the reward scale "
        f"({causes}); {last}"
    )
