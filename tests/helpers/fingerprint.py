"""Digests of what a run leaves, with wall times left out: two runs that trained the same
way give the same digest, whatever the clock said."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import torch

from spar_agents.ppo.checkpoint import load_checkpoint

WALL_TIME_KEYS = {"seconds"}  # counters that measure the clock, not the training
NOT_TRAINED = {"config", "version"}  # a checkpoint's copy of its config and of the package


def _feed(h: Any, x: Any) -> None:
    if isinstance(x, torch.Tensor):
        h.update(f"T{x.dtype}{tuple(x.shape)}".encode())
        h.update(x.detach().cpu().reshape(-1).contiguous().view(torch.uint8).numpy().tobytes())
    elif isinstance(x, np.ndarray):
        h.update(f"A{x.dtype}{x.shape}".encode())
        h.update(np.ascontiguousarray(x).tobytes())
    elif isinstance(x, dict):
        for key in sorted(x, key=str):
            if key not in WALL_TIME_KEYS:
                h.update(f"K{key!r}".encode())
                _feed(h, x[key])
    elif isinstance(x, list | tuple):
        h.update(f"L{len(x)}".encode())
        for item in x:
            _feed(h, item)
    else:
        h.update(f"V{x!r}".encode())


def digest(x: Any) -> str:
    """The first 16 hex digits of a SHA-256 over tensors, arrays, dicts, lists and scalars."""
    h = hashlib.sha256()
    _feed(h, x)
    return h.hexdigest()[:16]


def checkpoint_digests(folder: Path, games: Callable[[Any], Any] | None = None) -> dict[str, str]:
    """Each PPO checkpoint of a run's ``checkpoints/`` folder, by file name; ``games`` puts the
    games between hands in one form first (a checkpoint that kept them in an older form)."""

    def trained(path: Path) -> dict[str, Any]:
        saved = {k: v for k, v in load_checkpoint(path).items() if k not in NOT_TRAINED}
        if games is not None and "games" in saved:
            saved["games"] = games(saved["games"])
        return saved

    return {path.name: digest(trained(path)) for path in sorted(folder.glob("*.pt"))}


def npz_digest(path: Path) -> str:
    """A CFR policy file's arrays."""
    with np.load(path) as data:
        return digest({key: data[key] for key in data.files})
