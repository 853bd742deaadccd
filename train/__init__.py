"""Training and evaluation: :func:`run` (every algorithm's one entry), the duplicate-deal
tournament (``spar bench``) and its statistics."""

from train.entry import run
from train.progress import Progress

__all__ = ["Progress", "run"]
