"""Training and evaluation: :func:`run` (every algorithm's one entry, :mod:`spar_train.entry`),
the duplicate-deal tournament (``spar bench``) and its statistics.

``spar_train.run`` and ``spar_train.Progress`` are imported on first use, so that the
tournament and the other light modules of the package load without torch.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from spar_train.entry import run
    from spar_train.progress import Progress

__all__ = ["Progress", "run"]


def __getattr__(name: str) -> Any:
    if name == "run":
        from spar_train.entry import run

        return run
    if name == "Progress":
        from spar_train.progress import Progress

        return Progress
    raise AttributeError(f"module 'train' has no attribute {name!r}")
