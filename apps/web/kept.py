"""What a server keeps by id for a while: :class:`Kept`, the games' and the tables' store.

Each item is forgotten ``ttl`` seconds after its last action (:meth:`Kept.get`: a request,
a move, a live connection's message); forgetting one calls ``forget(id)`` (the store's folder
removes its file). An item ``held`` (a table with a person connected to it) is never
forgotten: its time counts from the moment it is let go. A request for an item past its time
finds none, as if it had been forgotten on time.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")


class Kept(Generic[T]):
    """Items by id, each with the time of its last request (module docstring).

    Args:
        ttl: seconds an item is kept without a request.
        forget: called with the id of each item forgotten.
        clock: the time in seconds (``time.monotonic``; tests pass their own).
        held: whether an item is held now, so kept whatever its time (default: none is).
    """

    def __init__(self, ttl: float, forget: Callable[[str], None],
                 clock: Callable[[], float] = time.monotonic,
                 held: Callable[[str], bool] = lambda key: False) -> None:  # fmt: skip
        self.ttl, self.clock, self._forget, self.held = ttl, clock, forget, held
        self._items: dict[str, tuple[T, float]] = {}

    def __len__(self) -> int:
        return len(self._items)

    def put(self, key: str, item: T, age: float = 0.0) -> None:
        """Keep ``item``, last asked for ``age`` seconds ago."""
        self._items[key] = (item, self.clock() - age)

    def get(self, key: str) -> T | None:
        """The item of ``key``, its clock restarted; None if there is none, or its time is up
        (then it is forgotten)."""
        entry = self._items.get(key)
        now = self.clock()
        if entry is None or (now - entry[1] > self.ttl and not self.held(key)):
            if self._items.pop(key, None) is not None:
                self._forget(key)
            return None
        self._items[key] = (entry[0], now)
        return entry[0]

    def expire(self) -> None:
        """Forget every item whose time is up; one held has its clock restarted instead."""
        now = self.clock()
        for key in [k for k, (_, seen) in self._items.items() if now - seen > self.ttl]:
            if self.held(key):
                self._items[key] = (self._items[key][0], now)
                continue
            del self._items[key]
            self._forget(key)

    def items(self) -> list[T]:
        """Every item kept, in the order they were first kept."""
        return [item for item, _ in self._items.values()]
