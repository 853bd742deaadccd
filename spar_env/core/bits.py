"""Bit-set helpers for ``uint64`` card and action sets: NumPy ones for batches, and
compiled (Numba) ones on single values for the per-game kernels.

The compiled helpers (:func:`count_of`, :func:`lowest_of`, :func:`bit_of`) are
compiled into kernels of other modules; an edit to them reaches those kernels
on the next call (:mod:`spar_env.core.compile_cache`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

_ONE = np.uint64(1)


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


def unpack_into(bits: np.ndarray, out: np.ndarray) -> np.ndarray:
    """``uint64 [G]`` bit sets written as 0/1 rows into ``out [G, width]`` (bool or int); returns ``out``."""
    bits = np.asarray(bits, dtype=np.uint64)
    if out.ndim != 2 or out.shape[0] != bits.shape[0] or out.shape[1] > 64:
        raise ValueError(f"out must have shape ({bits.shape[0]}, width <= 64); got {out.shape}")
    _unpack_rows(bits, out)
    return out


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
    bits = np.asarray(bits, dtype=np.uint64)
    return _kth_members(bits, rng.bit_generator.random_raw(bits.shape[0]))


_M1 = np.uint64(0x5555555555555555)
_M2 = np.uint64(0x3333333333333333)
_M4 = np.uint64(0x0F0F0F0F0F0F0F0F)
_H01 = np.uint64(0x0101010101010101)


@njit(cache=True, inline="always")
def count_of(x: np.uint64) -> np.int64:
    """Number of set bits of one ``uint64`` (compiled; the SWAR popcount)."""
    x = x - ((x >> np.uint64(1)) & _M1)
    x = (x & _M2) + ((x >> np.uint64(2)) & _M2)
    x = (x + (x >> np.uint64(4))) & _M4
    return np.int64((x * _H01) >> np.uint64(56))


@njit(cache=True, inline="always")
def lowest_of(x: np.uint64) -> np.int64:
    """Index of the lowest set bit of one non-zero ``uint64`` (compiled)."""
    return count_of((x & (~x + np.uint64(1))) - np.uint64(1))


@njit(cache=True, inline="always")
def bit_of(i: int) -> np.uint64:
    """``1 << i`` as a ``uint64`` (compiled)."""
    return np.uint64(1) << np.uint64(i)


@njit(cache=True)
def _kth_members(bits, draws):
    """The ``k``-th set bit of ``bits[i]``, ``k = ((draws[i] >> 32) * count) >> 32``."""
    out = np.empty(bits.shape[0], dtype=np.int64)
    for i in range(bits.shape[0]):
        x = bits[i]
        k = ((draws[i] >> np.uint64(32)) * np.uint64(count_of(x))) >> np.uint64(32)
        for _ in range(k):
            x &= x - np.uint64(1)  # skip the lowest set bit
        out[i] = lowest_of(x)
    return out


@njit(cache=True)
def _unpack_rows(bits, out):
    for i in range(bits.shape[0]):
        x = bits[i]
        for j in range(out.shape[1]):
            out[i, j] = (x >> np.uint64(j)) & np.uint64(1)
