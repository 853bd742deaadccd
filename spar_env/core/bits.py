"""Bit-set helpers for batches of ``uint64`` card and action sets."""

from __future__ import annotations

import numpy as np

_ONE = np.uint64(1)
_32 = np.uint64(32)


def every(mask: np.ndarray) -> bool:
    """``mask.all()``, faster on small arrays (the core calls it every step)."""
    return np.count_nonzero(mask) == mask.size


def some(mask: np.ndarray) -> bool:
    """``mask.any()``, faster on small arrays."""
    return np.count_nonzero(mask) > 0


def popcount(bits: np.ndarray) -> np.ndarray:
    """Number of set bits of each element, as int64."""
    return np.bitwise_count(bits).astype(np.int64)


def lowest_bit_index(bits: np.ndarray) -> np.ndarray:
    """Index of the lowest set bit of each (non-zero) element, as int64."""
    low = bits & (~bits + _ONE)
    return np.bitwise_count(low - _ONE).astype(np.int64)


def unpack(bits: np.ndarray, width: int) -> np.ndarray:
    """``uint64 [...]`` bit sets as ``bool [..., width]``."""
    shifts = np.arange(width, dtype=np.uint64)
    return ((bits[..., None] >> shifts) & _ONE).astype(bool)


def pack(mask: np.ndarray) -> np.ndarray:
    """``bool [..., width]`` (width <= 64) as ``uint64 [...]`` bit sets."""
    weights = np.left_shift(_ONE, np.arange(mask.shape[-1], dtype=np.uint64))
    return np.bitwise_or.reduce(np.where(mask, weights, np.uint64(0)), axis=-1)


def random_member(bits: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random set bit of each non-empty bit set, as an int64 index.

    Draws one 64-bit word per element and picks the k-th set bit with
    ``k = (32 random bits * count) >> 32`` (bias below 2**-26). Empty sets
    give an arbitrary index.
    """
    count = np.bitwise_count(bits)
    k = ((rng.bit_generator.random_raw(bits.shape[0]) >> _32) * count) >> _32
    x = bits.copy()
    for i in range(int(k.max(initial=0))):
        # Clear the lowest set bit where we still have to skip bits.
        x &= x - (k > i).view(np.uint8)
    return lowest_bit_index(x)
