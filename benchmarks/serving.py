"""What the load benchmarks of ``spar serve`` share (:mod:`web_load`, :mod:`friends_load`): the
server in its own process (started on a free port of 127.0.0.1, pinned to chosen cores if asked,
its CPU time read, stopped with Ctrl-C), a light keep-alive HTTP client, and how a spread of
times is printed."""

from __future__ import annotations

import asyncio
import json
import os
import resource
import signal
import socket
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path

import numpy as np

SPAR = Path(sys.executable).parent / "spar"
FILES = 4096  # open files a process may hold: each table's four people hold a socket each


class Connection:
    """One keep-alive HTTP/1.1 connection on asyncio streams: a client much lighter than the
    server it measures (with httpx, the clients took three times the server's CPU)."""

    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def request(
        self, method: str, path: str, body: object = None, headers: dict[str, str] | None = None
    ) -> tuple[int, dict, bytes]:
        try:
            return await self._request(method, path, body, headers or {})
        except (OSError, asyncio.IncompleteReadError, ConnectionError):
            self.close()
            raise ConnectionError(f"{method} {path}: the connection failed") from None

    async def _request(
        self, method: str, path: str, body: object, headers: dict[str, str]
    ) -> tuple[int, dict, bytes]:
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        data = b"" if body is None else json.dumps(body).encode()
        extra = "".join(f"{key}: {value}\r\n" for key, value in headers.items())
        head = (
            f"{method} {path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\n{extra}"
            f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\n\r\n"
        )
        self.writer.write(head.encode() + data)
        status_line = await self.reader.readline()
        if not status_line:
            raise ConnectionError("the server closed the connection")
        status = int(status_line.split()[1])
        answer = {}
        while (line := await self.reader.readline()) not in (b"\r\n", b""):
            key, _, value = line.decode("latin-1").partition(":")
            answer[key.strip().lower()] = value.strip()
        content = await self.reader.readexactly(int(answer.get("content-length", 0)))
        return status, answer, content

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def more_files() -> None:
    """Let this process hold up to ``FILES`` open files (or its hard limit, if lower)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = FILES if hard == resource.RLIM_INFINITY else min(FILES, hard)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))


def pin(cores: Iterable[int] | None) -> None:
    """Run this process on ``cores`` only (None, or where the system cannot: anywhere)."""
    if cores is not None and hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, set(cores))


def start_server(
    seed: int, extra: list[str], cores: Iterable[int] | None = None, files: int | None = None
) -> tuple[subprocess.Popen, str | None]:
    """``spar serve`` with ``extra`` options, on ``cores`` if given, allowed ``files`` open files
    (default: ``FILES``): the process and its address (None: it failed); the line saying how
    many games it took up, if it took up any, is printed."""
    chosen = None if cores is None else sorted(cores)

    def child() -> None:
        if files is None:
            more_files()
        else:  # as ``ulimit -n files`` would
            hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
            resource.setrlimit(resource.RLIMIT_NOFILE, (files, hard))
        pin(chosen)

    server = subprocess.Popen(
        [SPAR, "serve", "--seed", str(seed), *extra],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "OMP_NUM_THREADS": "1"},
        preexec_fn=child,
    )
    line = server.stdout.readline()
    if "taken up" in line:
        print(line.strip())
        line = server.stdout.readline()
    if "the table is at" not in line:
        print(f"the server did not start: {line!r}", file=sys.stderr)
        return server, None
    return server, line.split()[6]


def stop_server(server: subprocess.Popen) -> None:
    server.send_signal(signal.SIGINT)
    server.wait(timeout=120)


def cpu_seconds(pid: int) -> float | None:
    """The CPU seconds (user and system) process ``pid`` has used, or None where
    ``/proc`` does not say."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime


def spread(seconds: Iterable[float], points: Iterable[int] = (50, 99)) -> dict[str, float]:
    """Percentiles (``p50``...) and the ``max`` of times in seconds, in milliseconds."""
    ms = np.asarray(list(seconds), dtype=float) * 1000
    if not len(ms):
        return {}
    out = {f"p{q}": float(np.percentile(ms, q)) for q in points}
    out["max"] = float(ms.max())
    return out


def spread_text(figures: dict[str, float]) -> str:
    """:func:`spread`'s figures as the reports print them: ``4.7 / 21.0 / 369.5 ms``."""
    return " / ".join(f"{v:.1f}" for v in figures.values()) + " ms"
