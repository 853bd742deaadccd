"""``spar serve`` under 1,200 random and malformed requests on loopback: methods, paths,
headers and bodies, unicode and broken bytes included. No answer is a 500, the log holds no
traceback, and a normal game is made and played afterwards.

The requests are drawn from a seeded generator and sent on raw sockets (a client library
would refuse to send most of them), each on its own connection, with a time bound.
"""

from __future__ import annotations

import json
import random
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from helpers.cli import default_sigint

SPAR = Path(sys.executable).parent / "spar"
REQUESTS = 1200
METHODS = ["GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "HEAD", "BREW", "GÉT", "", "POST "]
BODIES = [
    b"", b"{}", b"[]", b"null", b"{", b'{"move": "\xc2\xb2", "turn": 0}', b'{"move": "\xe2\x91\xa0"}',
    b'{"move": 1e999, "turn": "x"}', b'{"variant": "spar", "players": 99}', b"\xff\xfe\x00",
    b'{"variant": "\xf0\x9f\x82\xa0", "players": "4"}', b"[" * 5000 + b"]" * 5000,
    b'{"turn": -1, "move": null}', b'{"variant": "sipa", "players": 3, "opponents": "pimc:worlds=0"}',
    b'{"opponents": "onnx:/etc/passwd"}', b'{"options": {"hand_size": 40}}', b"x" * 5000,
]  # fmt: skip
HEADERS = [
    "Content-Type: application/json", "Content-Type: text/plain", "Content-Type: ;;;",
    "Content-Length: 999999999", "Content-Length: -1", "Content-Length: ²", "Content-Length: abc",
    "Origin: http://evil.com", "Origin: null", "Sec-Fetch-Site: cross-site", "X-Forwarded-For: 1.2.3.4",
    "Host: evil.example", "Host: ", "Transfer-Encoding: chunked", "Cookie: " + "a" * 9000,
    "X-É: ü", "Accept: */*", "Connection: keep-alive", "Expect: 100-continue",
]  # fmt: skip


def _paths(rng: random.Random, game: str) -> str:
    return rng.choice([
        "/", "/api/offer", "/api/games", f"/api/games/{game}", f"/api/games/{game}/move",
        f"/api/games/{game}/next", f"/api/games/{game}/hint", f"/api/games/{game}/records",
        "/static/table.js", "/static/../../pyproject.toml", "/%00", "/api/games/%ff%fe",
        "/" + "a" * 10000, "/api/games/" + "".join(rng.choice("é²①🂠/.%") for _ in range(20)),
        "*", "http://evil.example/api/offer", "/api//games", "/api/games/x/move?turn=1",
    ])  # fmt: skip


def _near_valid(rng: random.Random, port: int, game: str) -> bytes:
    """A request the page could send, with a body drawn at random: it reaches the game code."""
    path = rng.choice(["/api/games", f"/api/games/{game}/move", f"/api/games/{game}/next"])
    body = rng.choice(BODIES)
    return (f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json"
            f"\r\nContent-Length: {len(body)}\r\n\r\n").encode() + body  # fmt: skip


def _request(rng: random.Random, port: int, game: str) -> bytes:
    if rng.random() < 0.3:
        return _near_valid(rng, port, game)
    method = rng.choice(METHODS)
    path = _paths(rng, game)
    body = rng.choice(BODIES)
    lines = [f"{method} {path} HTTP/1.1"]
    if rng.random() < 0.9:
        lines.append(f"Host: 127.0.0.1:{port}")
    if rng.random() < 0.6:
        lines.append(f"Content-Length: {len(body)}")
    lines += rng.sample(HEADERS, rng.randint(0, 4))
    head = "\r\n".join(lines).encode("utf-8", "surrogateescape") + b"\r\n\r\n"
    return head + body if rng.random() < 0.9 else head[: rng.randint(1, len(head))]


def _send(port: int, data: bytes) -> int | None:
    """The status of the answer, or None if the server closed without one."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(data)
        s.shutdown(socket.SHUT_WR)
        answer = b""
        while len(answer) < 64:
            chunk = s.recv(4096)
            if not chunk:
                break
            answer += chunk
    if not answer.startswith(b"HTTP/1."):
        return None
    return int(answer.split(b" ", 2)[1])


def _json_request(port: int, method: str, path: str, body: dict | None = None) -> dict:
    data = b"" if body is None else json.dumps(body).encode()
    head = (f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\n\r\n")  # fmt: skip
    with socket.create_connection(("127.0.0.1", port), timeout=60) as s:
        s.sendall(head.encode() + data)
        answer = b""
        while chunk := s.recv(65536):
            answer += chunk
    status = int(answer.split(b" ", 2)[1])
    assert status in (200, 201), answer[:500]
    return json.loads(answer.partition(b"\r\n\r\n")[2])


def test_a_thousand_malformed_requests_break_nothing(tmp_path: Path) -> None:
    log = open(tmp_path / "server.log", "w+")  # noqa: SIM115  (read back after the server ends)
    server = subprocess.Popen([SPAR, "serve", "--port", "0", "--seed", "0"],
                              stdout=subprocess.PIPE, stderr=log, text=True,
                              preexec_fn=default_sigint)  # fmt: skip
    try:
        line = server.stdout.readline()
        port = int(line.split("http://127.0.0.1:", 1)[1].split("/", 1)[0])
        game = _json_request(port, "POST", "/api/games",
                             {"variant": "spar", "players": 2, "opponents": "heuristic"})["game"]  # fmt: skip
        rng = random.Random(2026)
        statuses: dict[int | None, int] = {}
        deadline = time.monotonic() + 300
        for _ in range(REQUESTS):
            assert time.monotonic() < deadline, "the fuzz took over 5 minutes"
            status = _send(port, _request(rng, port, game))
            statuses[status] = statuses.get(status, 0) + 1
        assert 500 not in statuses and sum(statuses.values()) == REQUESTS, statuses
        reached = sum(n for status, n in statuses.items() if status not in (None, 400))
        assert reached > 150 and statuses.get(400, 0) > 150, statuses  # the app's and the parser's
        # and it still plays: a new game, and a move in it
        view = _json_request(port, "POST", "/api/games",
                             {"variant": "sipa", "players": 3, "opponents": "heuristic"})  # fmt: skip
        moved = _json_request(port, "POST", f"/api/games/{view['game']}/move",
                              {"move": "1", "turn": view["turn"]})  # fmt: skip
        assert moved["turn"] > view["turn"]
    finally:
        server.send_signal(signal.SIGINT)
        server.communicate(timeout=60)
    log.seek(0)
    text = log.read()
    assert "Traceback" not in text and "Exception" not in text, text[-3000:]
