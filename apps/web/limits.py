"""The web server's limits: how many requests, how big a body, how many games, how many bot
moves at once and waiting, how many live connections.

:class:`Limits` holds the numbers (tests pass small ones). A
:class:`RateLimiter` keeps one token bucket per key: a game's requests are
keyed by its id, new games and new tables by the client's address, a live connection's
messages by the connection. A request past its
bucket gets ``429`` with a line saying when to try again, never a stuck
game. Bodies are read with :func:`read_json`, which stops at
``Limits.body_bytes`` (``413``) and answers malformed JSON with ``400``.

Every connection holds an open file, and a process that runs out of them can take no
connection at all. So the server's connections stay below the process's limit on open files
(``RLIMIT_NOFILE``): :func:`connection_cap` of them at once (:mod:`~spar_apps.web.deadline`
makes room past it), of which at most :func:`websocket_cap` are the tables' live
connections, so that half stays free for HTTP.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from starlette.requests import Request

try:
    import resource
except ImportError:  # Windows: no limit to read
    resource = None  # type: ignore[assignment]

HELLO_SECONDS = 5.0  # a live connection's first message (its seat's key) comes within this
UNLIMITED_FILES = 1_000_000  # the open files assumed where the limit is unlimited or unknown


def open_file_limit() -> int:
    """The process's (soft) limit on open files, ``RLIMIT_NOFILE``."""
    if resource is None:
        return UNLIMITED_FILES
    soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    return UNLIMITED_FILES if soft == resource.RLIM_INFINITY else min(soft, UNLIMITED_FILES)


def connection_cap(files: int | None = None) -> int:
    """The connections held at once with ``files`` open files (default: the process's limit):
    an eighth of them, and at least 48, kept for the rest (the games' folder, the bots'
    files, the server's own)."""
    files = open_file_limit() if files is None else files
    return max(1, files - max(48, files // 8))


def websocket_cap(files: int | None = None) -> int:
    """The live connections held at once: half of :func:`connection_cap`, so that the rest
    stays free for HTTP (and the connections a flood of them is opening)."""
    return max(1, connection_cap(files) // 2)


@dataclass(frozen=True)
class Limits:
    body_bytes: int = 4096  # a request body past this is refused (413)
    games: int = 1000  # games held at once
    ttl: float = 1800.0  # seconds a game or a table is kept after its last action
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
    sockets_per_address: int = 32  # live connections open from one address (past it: 4429)
    sockets: int = field(default_factory=websocket_cap)  # ...and from all (past it: 4503)
    hello_seconds: float = HELLO_SECONDS  # a live connection silent this long is closed (4408)


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
