"""Training and evaluation: :func:`run` (every algorithm's one entry, :mod:`spar_train.entry`),
the duplicate-deal tournament (``spar bench``) and its statistics.

The package's face is lazy, the way Scientific Python's SPEC 1 makes one: the names of
:data:`LAZY` are imported from their modules on first use, so that the tournament and the other
light modules of the package load without torch (``spar_train.run`` would add a few seconds of
torch and the trainers to ``spar bench``'s start). The imports under ``TYPE_CHECKING`` name
each one's module for a reader and for mypy; code in the project imports each name from its
module (``from spar_train.entry import run``).
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from spar_train.entry import run as run
    from spar_train.progress import Progress as Progress

LAZY = {"run": "spar_train.entry", "Progress": "spar_train.progress"}  # name -> its module
__all__ = sorted(LAZY)


def __getattr__(name: str) -> Any:
    if name not in LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(LAZY[name]), name)


def __dir__() -> list[str]:
    return __all__
