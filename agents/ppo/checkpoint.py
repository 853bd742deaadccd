"""Checkpoint files that run no code when loaded, and that refuse to load if damaged.

A checkpoint is a dict of tensors, numbers, strings, lists and dicts. It is
written with :func:`torch.save` into memory, and that blob is saved, with
its SHA-256 digest and a format tag, in an outer :func:`torch.save` file.
Both levels are read back with ``torch.load(weights_only=True)``, which
refuses any pickle that would build other objects (so a hostile file's
code never runs), and the digest catches a file cut short or altered.

Writing is atomic: a temporary file in the same folder, then a rename, so a
run killed while writing leaves the previous checkpoint whole.
"""

from __future__ import annotations

import hashlib
import io
import os
from pathlib import Path
from typing import Any

import torch

from spar_env.atomic import atomic_output
from spar_env.limits import MAX_CHECKPOINT_BYTES, LimitError, read_bounded

FORMAT = "spar-rl checkpoint"
FORMAT_VERSION = 1


class CheckpointError(ValueError):
    """A checkpoint that cannot be used: unreadable, damaged, unsafe, or for another game."""


def save_checkpoint(path: str | os.PathLike, payload: dict[str, Any]) -> None:
    """Write ``payload`` to ``path`` atomically (see the module docstring)."""
    path = Path(path)
    inner = io.BytesIO()
    torch.save(payload, inner)
    blob = inner.getvalue()
    outer = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "sha256": hashlib.sha256(blob).hexdigest(),
        "payload": torch.frombuffer(bytearray(blob), dtype=torch.uint8),
    }
    data = io.BytesIO()
    torch.save(outer, data)  # into memory first: a full disk is then a plain OSError of write
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_output(path, "wb") as f:
        f.write(data.getbuffer())


def load_checkpoint(path: str | os.PathLike) -> dict[str, Any]:
    """Read a checkpoint written by :func:`save_checkpoint`.

    Raises:
        CheckpointError: if the file is missing, is not such a checkpoint, is
            truncated or altered, or holds anything but plain data.
    """
    path = Path(path)
    if not path.is_file():
        raise CheckpointError(f"{path}: no such checkpoint file")
    try:
        data = read_bounded(path, MAX_CHECKPOINT_BYTES, "checkpoint")
    except LimitError as e:
        raise CheckpointError(str(e)) from None
    outer = _safe_load(path, data, "file")
    if not isinstance(outer, dict) or outer.get("format") != FORMAT:
        raise CheckpointError(f"{path}: not a spar-rl checkpoint")
    if type(outer.get("format_version")) is not int or outer["format_version"] != FORMAT_VERSION:
        raise CheckpointError(
            f"{path}: checkpoint format version {outer.get('format_version')!r}; "
            f"this spar-rl reads version {FORMAT_VERSION}"
        )
    payload = outer.get("payload")
    if not isinstance(payload, torch.Tensor) or payload.dtype != torch.uint8:
        raise CheckpointError(f"{path}: the checkpoint has no payload")
    blob = payload.numpy().tobytes()
    if hashlib.sha256(blob).hexdigest() != outer.get("sha256"):
        raise CheckpointError(f"{path}: the checkpoint is damaged (its SHA-256 digest differs)")
    inner = _safe_load(path, blob, "payload")
    if not isinstance(inner, dict):
        raise CheckpointError(f"{path}: the checkpoint payload is not a dict")
    return inner


def _safe_load(path: Path, data: bytes, what: str) -> Any:
    try:
        return torch.load(io.BytesIO(data), weights_only=True, map_location="cpu")
    except Exception as e:  # torch raises UnpicklingError, RuntimeError, EOFError, ...
        reason = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        if "weights_only" in str(e) or "Unsupported global" in str(e):
            reason = "it holds objects other than plain data (refused unread: only weights load)"
        raise CheckpointError(f"{path}: cannot read the checkpoint {what}: {reason}") from None
