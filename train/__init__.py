"""Training and evaluation: :func:`run` (every algorithm's one entry, :mod:`train.entry`),
the duplicate-deal tournament (``spar bench``) and its statistics.

``train.run`` and ``train.Progress`` are imported on first use, so that the
tournament and the other light modules of the package load without torch.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from train.entry import run
    from train.progress import Progress

__all__ = ["Progress", "run"]


def __getattr__(name: str) -> Any:
    if name == "run":
        from train.entry import run

        return run
    if name == "Progress":
        from train.progress import Progress

        return Progress
    raise AttributeError(f"module 'train' has no attribute {name!r}")
