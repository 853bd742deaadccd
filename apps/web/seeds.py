"""The seeds a server deals its games and tables from: 128 bits each, so that no seat can
recompute a deal from what it sees (:func:`spread`, :class:`Seeds`)."""

from __future__ import annotations

import numpy as np

SEED_WORDS = 4  # a seed drawn here holds 4 x 32 = 128 bits


def spread(*entropy: int) -> int:
    """A seed of 128 bits drawn from ``entropy`` (whole numbers of any size) by NumPy's
    ``SeedSequence``: what a seat sees of the deals it makes cannot narrow it to a number
    that a search could try one by one (a 32-bit seed can be: 2^32 deals are soon dealt)."""
    words = np.random.SeedSequence(list(entropy)).generate_state(SEED_WORDS, np.uint32)
    return int.from_bytes(words.astype("<u4").tobytes(), "little")


class Seeds:
    """The seeds of a server's games (or tables), in the order they are made: game k's is drawn
    from ``(seed, k)`` (:func:`spread`), so a server's ``--seed`` fixes every deal, on
    purpose; with no seed, from 128 bits of fresh entropy."""

    def __init__(self, seed: int | None = None) -> None:
        self._entropy = int(np.random.SeedSequence(seed).entropy)  # type: ignore[arg-type]
        self._count = 0

    def next(self) -> int:
        seed = spread(self._entropy, self._count)
        self._count += 1
        return seed
