"""The names the PPO trainer gives its checkpoints, and a run's checkpoints in update order.

A checkpoint is ``checkpoints/update_NNNNNN.pt`` (the update number, six
digits or more) and nothing else: a user's ``update_best.pt`` or a
temporary file of an interrupted write is not one, so it is never taken as
the newest, loaded by ``ppo:runs/NAME`` or counted when old ones are pruned.
They are ordered by update number, not by name.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

CHECKPOINT_DIR = "checkpoints"  # inside a run folder
NAME = re.compile(r"update_(\d{6,})\.pt")


def checkpoint_name(update: int) -> str:
    """The file name of the checkpoint written after ``update`` updates."""
    return f"update_{update:06d}.pt"


def update_of(path: str | os.PathLike) -> int | None:
    """The update number of a checkpoint file name, or ``None`` if it is not one."""
    found = NAME.fullmatch(Path(path).name)
    return int(found.group(1)) if found else None


def list_checkpoints(folder: str | os.PathLike) -> list[Path]:
    """The checkpoint files in ``folder`` (a run's ``checkpoints/``), oldest first."""
    folder = Path(folder)
    if not folder.is_dir():
        return []
    found = [(update_of(p), p) for p in folder.iterdir() if p.is_file()]
    return [p for n, p in sorted((n, p) for n, p in found if n is not None)]
