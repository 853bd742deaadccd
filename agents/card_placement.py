"""Uniform random placement of cards into places of fixed sizes, each place taking only some cards.

The problem: ``T`` cards, places ``0..L-1`` of sizes ``size[l]`` that may hold
only the cards of ``allowed[l]`` (a bit set), and a *rest* that takes what is
left (any card). Draw a placement uniformly among all valid ones.

How (exact): places with the same allowed cards are pooled. A dynamic
programme over the cards computes ``ways[i][e]``, the number of ways to place
cards ``i..T-1`` so that the pools receive exactly ``e`` more cards (a vector
of room left, flattened), the rest taking the others. Card ``i`` then goes to
the rest or to a pool with room with probability proportional to the ways of
completing the placement afterwards; the product of these choices is
``1 / ways[0][room]`` for every placement, so every placement to pools is
equally likely. Each pool's cards are then put in a uniformly random order and
dealt to its places in turn, which keeps every placement to places equally
likely. Counts are floats: uniform up to rounding (relative 1e-15).

If the tables would exceed :data:`MAX_TABLE` entries, the smallest pools are
merged (allowing the union of their cards) and :attr:`PoolSampler.exact` is
False: draws are then uniform over placements that respect the merged rules,
and a caller rejects those that break a place's own rule (see
:mod:`spar_agents.worlds`).

The counting and drawing loops are compiled with Numba; randomness comes from
the caller's ``np.random.Generator`` as arrays of uniforms and keys.
"""

from __future__ import annotations

import numpy as np
from numba import njit

MAX_TABLE = 1 << 22  # entries of the counting tables ((T + 1) x pooled room vectors)


class PoolSampler:
    """Draws placements of ``cards`` into places (see the module docstring).

    Args:
        cards: the card ids to place.
        sizes: cards each place holds.
        allowed: bit set of the cards each place may hold.

    Raises:
        ValueError: if the places hold more cards than there are, or no valid
            placement exists.
    """

    def __init__(self, cards: list[int], sizes: list[int], allowed: list[int]) -> None:
        self.cards = np.array(cards, dtype=np.int64)
        self.sizes = list(sizes)
        if sum(sizes) > len(cards):
            raise ValueError(f"{sum(sizes)} places to fill with {len(cards)} cards")
        groups: dict[int, list[int]] = {}
        for place, mask in enumerate(allowed):
            groups.setdefault(int(mask), []).append(place)
        pools = sorted(groups.items(), key=lambda item: item[1][0])
        self.exact = True
        while len(pools) > 1 and _table_size(pools, sizes, len(cards)) > MAX_TABLE:
            pools.sort(key=lambda item: sum(sizes[p] for p in item[1]))
            (m1, a), (m2, b) = pools[0], pools[1]
            pools = [(m1 | m2, a + b), *pools[2:]]
            self.exact = False
        self.place_order = [p for _, places in pools for p in places]
        room = np.array([sum(sizes[p] for p in places) for _, places in pools], dtype=np.int64)
        self.room = room
        self.allowed = np.array(
            [[mask >> int(c) & 1 for mask, _ in pools] for c in cards], dtype=np.bool_
        ).reshape(len(cards), len(pools))
        shape = room + 1
        self.strides = np.array(
            [int(np.prod(shape[j + 1 :])) for j in range(len(shape))], dtype=np.int64
        )
        self.ways = _count_ways(self.allowed, shape, self.strides, int(np.prod(shape)))
        if self.ways[0, int(room @ self.strides)] == 0:
            raise ValueError("no placement of the cards respects every place's allowed cards")

    @property
    def count(self) -> float:
        """The number of valid placements to pools (as a float)."""
        return float(self.ways[0, int(self.room @ self.strides)])

    def starts(self) -> list[int]:
        """Column where each place's cards start in a draw (places in ``place_order``)."""
        out = [0] * len(self.sizes)
        at = 0
        for p in self.place_order:
            out[p] = at
            at += self.sizes[p]
        return out

    def draw(self, count: int, rng: np.random.Generator) -> np.ndarray:
        """``int64 [count, T]``: each row a placement; place ``p`` holds the ``sizes[p]``
        cards from column ``starts()[p]``, and the rest holds the columns after all places."""
        t = len(self.cards)
        uniforms = rng.random((count, t))
        keys = rng.integers(0, 1 << 32, size=(count, t), dtype=np.int64)
        return _draw(self.ways, self.allowed, self.room, self.strides, self.cards, uniforms, keys)


def _table_size(pools: list, sizes: list[int], cards: int) -> int:
    total = cards + 1
    for _, places in pools:
        total *= sum(sizes[p] for p in places) + 1
    return total


@njit(cache=True)
def _count_ways(allowed, shape, strides, box):
    """``ways[i, e]``: placements of cards ``i..`` that fill room ``e`` (flat index) exactly."""
    t, k = allowed.shape
    ways = np.zeros((t + 1, box))
    ways[t, 0] = 1.0
    for i in range(t - 1, -1, -1):
        for e in range(box):
            v = ways[i + 1, e]
            for j in range(k):
                if allowed[i, j] and (e // strides[j]) % shape[j] > 0:
                    v += ways[i + 1, e - strides[j]]
            ways[i, e] = v
    return ways


@njit(cache=True)
def _draw(ways, allowed, room, strides, cards, uniforms, keys):
    count, t = uniforms.shape
    k = room.shape[0]
    out = np.empty((count, t), dtype=np.int64)
    left = np.empty(k, dtype=np.int64)
    sort_keys = np.empty(t, dtype=np.int64)
    for w in range(count):
        left[:] = room
        e = 0
        for j in range(k):
            e += room[j] * strides[j]
        for i in range(t):
            target = uniforms[w, i] * ways[i, e]
            acc = ways[i + 1, e]
            pick = k  # the rest
            if not target < acc:
                for j in range(k):
                    if allowed[i, j] and left[j] > 0:
                        weight = ways[i + 1, e - strides[j]]
                        if weight > 0:
                            pick = j  # the last possible pool also absorbs rounding
                            acc += weight
                            if target < acc:
                                break
            if pick < k:
                left[pick] -= 1
                e -= strides[pick]
            sort_keys[i] = pick * (1 << 32) + keys[w, i]
        order = np.argsort(sort_keys)
        for i in range(t):
            out[w, i] = cards[order[i]]
    return out
