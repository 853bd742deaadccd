"""The web server's limits: how many requests, how big a body, how many games, how many bot
moves at once and waiting.

:class:`Limits` holds the numbers (tests pass small ones). A
:class:`RateLimiter` keeps one token bucket per key: a game's requests are
keyed by its id, new games and new tables by the client's address, a live connection's
messages by the connection. A request past its
bucket gets ``429`` with a line saying when to try again, never a stuck
game. Bodies are read with :func:`read_json`, which stops at
``Limits.body_bytes`` (``413``) and answers malformed JSON with ``400``.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass

from starlette.requests import Request


@dataclass(frozen=True)
class Limits:
    body_bytes: int = 4096  # a request body past this is refused (413)
    games: int = 1000  # games held at once
    ttl: float = 1800.0  # seconds a game is kept without a request
    game_burst: float = 40  # requests to one game at once...
    game_rate: float = 20  # ...and per second after that
    new_burst: float = 300  # new games from one address at once...
    new_rate: float = 2  # ...and per second after that
    workers: int = max(1, os.cpu_count() or 1)  # bot decisions run at once, off the event loop
    # ...and, apart, those of searching bots (seconds each), so they never hold up the others
    search_workers: int = max(1, (os.cpu_count() or 1) // 2)
    queue: int = 200  # requests waiting for a worker (in each pool); past it, 503 "busy"
    tables: int = 500  # tables of friends held at once
    shortest_timer: float = 5.0  # the shortest turn timer a table may set, in seconds
    message_burst: float = 40  # messages from one connection to a table at once...
    message_rate: float = 20  # ...and per second after that (as a game's requests)
    sockets_per_seat: int = 3  # a seat's live connections (its tabs); a new one closes the oldest


class LimitError(Exception):
    """A request over a limit; ``status`` and the message are the response."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


class RateLimiter:
    """Token buckets by key: ``burst`` requests at once, refilled at ``rate`` per second."""

    def __init__(
        self, burst: float, rate: float, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.burst, self.rate, self.clock = burst, rate, clock
        self._buckets: dict[str, tuple[float, float]] = {}  # key -> (tokens, when)

    def take(self, key: str, what: str) -> None:
        """Spend one token of ``key``'s bucket.

        Raises:
            LimitError: (429) if the bucket is empty.
        """
        now = self.clock()
        tokens, when = self._buckets.get(key, (self.burst, now))
        tokens = min(self.burst, tokens + (now - when) * self.rate)
        if tokens < 1:
            wait = max(0.1, (1 - tokens) / self.rate)
            raise LimitError(f"too many {what}: try again in {wait:.1f} s", 429)
        self._buckets[key] = (tokens - 1, now)
        if len(self._buckets) > 10_000:  # forget full buckets: they say nothing
            self._forget(now)

    def forget(self, key: str) -> None:
        """Drop ``key``'s bucket (a connection that has ended)."""
        self._buckets.pop(key, None)

    def _forget(self, now: float) -> None:
        full = [k for k, (t, w) in self._buckets.items() if t + (now - w) * self.rate >= self.burst]
        for key in full:
            del self._buckets[key]


async def read_json(request: Request, limit: int) -> object:
    """The JSON body of a request, read up to ``limit`` bytes.

    Raises:
        LimitError: 413 for a body over ``limit``, 400 for one that is not UTF-8 JSON.
    """
    declared = request.headers.get("content-length")
    if declared is not None and (not declared.isdecimal() or int(declared) > limit):
        raise LimitError(f"the request body is over {limit} bytes", 413)
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            raise LimitError(f"the request body is over {limit} bytes", 413)
    if not body.strip():
        return {}
    try:
        return json.loads(body.decode("utf-8"))
    except RecursionError:
        raise LimitError("malformed JSON: nested too deeply", 400) from None
    except (UnicodeDecodeError, ValueError) as e:
        raise LimitError(f"malformed JSON: {e}", 400) from None
