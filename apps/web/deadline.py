"""Deadlines and a cap on the connections of ``spar serve``, so that no client holds its
sockets: a connection that has not sent a whole request header within :data:`HEADER_SECONDS`
is closed, a connection past the server's cap is closed as it comes, and a live connection
the server closes is cut :data:`CLOSE_SECONDS` later if the client does not answer.

uvicorn closes idle keep-alive connections, but waits for ever on a client that
opens a connection and sends half a header (a slow-loris): a few hundred such
clients hold a server's sockets. :func:`header_deadline` makes uvicorn's HTTP
protocol class (httptools, or h11 without the web extra's httptools) start a
timer when a connection opens and after each response, and stop it when the
blank line that ends the header arrives; given a cap
(:func:`~spar_apps.web.limits.connection_cap`, below the process's limit on open files), a
connection that would hold more makes room by closing the connection quiet the longest (a
WebSocket that has said nothing since it opened; else one that has waited
:data:`IDLE_SECONDS` or more for a request and sent no byte of it); else the newest HTTP
connection of the address that holds the most, if it holds more than the new one's; else the
new one is closed at once. So the server never runs out of files, and neither silent sockets
nor a flood of connections from other addresses keeps a new player out. uvicorn waits 10 s for a client to answer
a WebSocket's closing; :func:`closing_protocol` waits :data:`CLOSE_SECONDS`, so the
connections the server refuses or closes (:mod:`spar_apps.web.live`) free their files soon.
"""

from __future__ import annotations

import asyncio
from typing import Any

HEADER_SECONDS = 10.0  # from the connection (or the last response) to a whole header
CLOSE_SECONDS = 0.2  # from a WebSocket's close sent by the server to its socket closed
IDLE_SECONDS = 1.0  # a connection waiting this long for a request may be let go for another
END_OF_HEADER = b"\r\n\r\n"


def header_deadline(
    protocol: type, seconds: float = HEADER_SECONDS, connections: int | None = None
) -> type:
    """``protocol`` (a uvicorn HTTP protocol class) with the header deadline, and, given
    ``connections``, no more than that many at once (uvicorn counts the HTTP and the
    WebSocket ones together): past it, the connection quiet the longest is closed, or else
    the new one."""

    class WithHeaderDeadline(protocol):  # type: ignore[misc,valid-type]
        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            self._deadline: asyncio.TimerHandle | None = None
            self._tail = b""
            self.quiet_since: float | None = None
            self.made = asyncio.get_running_loop().time()
            if connections is not None and len(self.connections) > connections:
                other = _quietest(self.connections) or _crowding(self.connections, self)
                if other is None:
                    transport.close()  # over the cap, and none to let go: no answer
                    return
                other.transport.close()  # its file freed now
            self._arm()

        def _arm(self) -> None:
            self._disarm()
            self._tail = b""
            self._deadline = asyncio.get_running_loop().call_later(seconds, self._expire)
            self.quiet_since = asyncio.get_running_loop().time()  # waiting for a request

        def _disarm(self) -> None:
            if getattr(self, "_deadline", None) is not None:
                self._deadline.cancel()  # type: ignore[union-attr]
                self._deadline = None

        def _expire(self) -> None:
            self._deadline = None
            self.transport.close()

        def data_received(self, data: bytes) -> None:
            self.quiet_since = None
            if self._deadline is not None:  # watch for the header's end, across packets
                seen = self._tail + data
                if END_OF_HEADER in seen:
                    self._disarm()
                else:
                    self._tail = seen[-(len(END_OF_HEADER) - 1) :]
            super().data_received(data)

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing():
                self._arm()  # the next request on this connection has its own deadline

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

    WithHeaderDeadline.__name__ = f"{protocol.__name__}WithHeaderDeadline"
    return WithHeaderDeadline


def _quietest(connections: set[Any]) -> Any | None:
    """The connection to let go for a new one: the WebSocket quiet the longest, else the
    HTTP connection quiet the longest if for :data:`IDLE_SECONDS` (``quiet_since``, set by
    these protocols while a connection waits for its client's first byte); or None."""
    quiet = [c for c in connections if getattr(c, "quiet_since", None) is not None]
    quiet = [c for c in quiet if not c.transport.is_closing()]
    sockets = [c for c in quiet if isinstance(c, QuietSocket)]
    if sockets:
        return min(sockets, key=lambda c: c.quiet_since)
    idle = asyncio.get_running_loop().time() - IDLE_SECONDS
    return min((c for c in quiet if c.quiet_since <= idle), key=lambda c: c.quiet_since,
               default=None)  # fmt: skip


def deadline_protocol(seconds: float = HEADER_SECONDS, connections: int | None = None) -> type:
    """uvicorn's preferred HTTP protocol here (httptools, else h11), with the deadline and
    the cap on ``connections``."""
    try:
        from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol as base
    except ImportError:  # no httptools: uvicorn's pure-Python h11 protocol
        from uvicorn.protocols.http.h11_impl import H11Protocol as base
    return header_deadline(base, seconds, connections)


def _crowding(connections: set[Any], new: Any) -> Any | None:
    """The newest HTTP connection of the address holding the most connections, if it holds
    more than ``new``'s address does; or None."""
    count: dict[Any, int] = {}
    for c in connections:
        address = c.client[0] if c.client else None
        count[address] = count.get(address, 0) + 1
    mine = count.get(new.client[0] if new.client else None, 0)
    heaviest = max(count, key=count.__getitem__)
    if count[heaviest] <= mine + 1:
        return None
    theirs = [c for c in connections if c is not new and not isinstance(c, QuietSocket)
              and (c.client[0] if c.client else None) == heaviest
              and not c.transport.is_closing()]  # fmt: skip
    return max(theirs, key=lambda c: getattr(c, "made", 0.0), default=None)


class QuietSocket:
    """What :func:`closing_protocol`'s WebSockets are (for :func:`_quietest` to know them)."""


def closing_protocol(seconds: float = CLOSE_SECONDS) -> type:
    """uvicorn's WebSocket protocol (websockets' sans-I/O one), its socket closed ``seconds``
    after the server's close if the client has not answered it."""
    from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

    class QuickClose(WebSocketsSansIOProtocol, QuietSocket):
        """Also says how long it has been quiet: from its opening to its client's first
        message (a seat's hello), for the cap on connections to let it go first."""

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.close_timeout = seconds
            self.quiet_since: float | None = None

        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            self.quiet_since = self.loop.time()

        def data_received(self, data: bytes) -> None:
            if self.handshake_complete:  # a frame from the client: it is not silent
                self.quiet_since = None
            super().data_received(data)

    return QuickClose
