"""A deadline on request headers for ``spar serve``: a connection that has not sent a
whole request header within :data:`HEADER_SECONDS` is closed.

uvicorn closes idle keep-alive connections, but waits for ever on a client that
opens a connection and sends half a header (a slow-loris): a few hundred such
clients hold a server's sockets. :func:`header_deadline` makes uvicorn's HTTP
protocol class (httptools, or h11 without the web extra's httptools) start a
timer when a connection opens and after each response, and stop it when the
blank line that ends the header arrives.
"""

from __future__ import annotations

import asyncio
from typing import Any

HEADER_SECONDS = 10.0  # from the connection (or the last response) to a whole header
END_OF_HEADER = b"\r\n\r\n"


def header_deadline(protocol: type, seconds: float = HEADER_SECONDS) -> type:
    """``protocol`` (a uvicorn HTTP protocol class) with the header deadline."""

    class WithHeaderDeadline(protocol):  # type: ignore[misc,valid-type]
        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            self._deadline: asyncio.TimerHandle | None = None
            self._tail = b""
            self._arm()

        def _arm(self) -> None:
            self._disarm()
            self._tail = b""
            self._deadline = asyncio.get_running_loop().call_later(seconds, self._expire)

        def _disarm(self) -> None:
            if getattr(self, "_deadline", None) is not None:
                self._deadline.cancel()  # type: ignore[union-attr]
                self._deadline = None

        def _expire(self) -> None:
            self._deadline = None
            self.transport.close()

        def data_received(self, data: bytes) -> None:
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


def deadline_protocol(seconds: float = HEADER_SECONDS) -> type:
    """uvicorn's preferred HTTP protocol here (httptools, else h11), with the deadline."""
    try:
        from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol as base
    except ImportError:  # no httptools: uvicorn's pure-Python h11 protocol
        from uvicorn.protocols.http.h11_impl import H11Protocol as base
    return header_deadline(base, seconds)
