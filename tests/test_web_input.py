"""``spar serve`` against bad input: illegal cards, moves out of turn, forged and expired game
ids, malformed JSON, oversized bodies, floods, files asked for by name, faults, two tabs, and
the command itself. Every refusal is one JSON line with a status, and the game goes on."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest
from helpers.cli import default_sigint
from starlette.testclient import TestClient

from spar_agents.shipped import default_bot_specs
from spar_apps.web import Limits, Lobby, create_app

SPAR = Path(sys.executable).parent / "spar"
CALM = Limits(game_burst=1e6, game_rate=1e6, new_burst=1e6)


JSON = {"content-type": "application/json"}


def client(limits: Limits = CALM, **kwargs) -> TestClient:
    app = create_app(Lobby(default_bot_specs(), ["random"]), limits, seed=0, **kwargs)
    return TestClient(app, base_url="http://127.0.0.1", raise_server_exceptions=False)


def new_game(c: TestClient, **form) -> dict:
    response = c.post(
        "/api/games", json={"variant": "spar", "players": 4, "opponents": "random", **form}
    )
    assert response.status_code == 201, response.text
    return response.json()


def refused(response, status: int, words: str) -> str:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/json")
    error = response.json()["error"]
    assert words in error and "Traceback" not in error and "\n" not in error
    return error


def legal(view: dict) -> list[str]:
    return [h["card"] for h in view["hand"] if h["legal"]]


def view_where(c: TestClient, test) -> dict:
    """A game whose person's turn passes ``test`` (tries a few deals)."""
    for _ in range(50):
        view = new_game(c)
        if view["phase"] == "play" and test(view):
            return view
    raise AssertionError("no deal found")


def test_a_card_not_held_and_a_card_that_does_not_follow_suit_are_refused_and_nothing_moves():
    c = client()
    view = view_where(c, lambda v: v["current"]["plays"] and len(legal(v)) < len(v["hand"]))
    game, turn = view["game"], view["turn"]
    held = {h["card"] for h in view["hand"]}
    other = next(code for code in ("6H", "7H", "8H", "9H", "6C", "7C") if code not in held)
    refused(
        c.post(f"/api/games/{game}/move", json={"move": other, "turn": turn}),
        400,
        "you do not hold",
    )
    wrong = next(h["card"] for h in view["hand"] if not h["legal"])
    refused(
        c.post(f"/api/games/{game}/move", json={"move": wrong, "turn": turn}),
        400,
        "must follow suit",
    )
    refused(
        c.post(f"/api/games/{game}/move", json={"move": "zz", "turn": turn}), 400, "type a card"
    )
    refused(c.post(f"/api/games/{game}/move", json={"move": "9", "turn": turn}), 400, "no choice 9")
    refused(c.post(f"/api/games/{game}/move", json={"move": 7, "turn": turn}), 400, "short text")
    refused(c.post(f"/api/games/{game}/move", json={"move": "q", "turn": turn}), 400, "new game")
    assert c.get(f"/api/games/{game}").json() == view  # nothing moved
    played = c.post(f"/api/games/{game}/move", json={"move": legal(view)[0], "turn": turn})
    assert played.status_code == 200 and played.json()["turn"] == turn + 1


def test_moves_out_of_turn_are_refused():
    c = client()
    view = new_game(c)
    game, turn = view["game"], view["turn"]
    refused(
        c.post(f"/api/games/{game}/move", json={"move": "1", "turn": turn + 1}), 409, "out of turn"
    )
    refused(c.post(f"/api/games/{game}/move", json={"move": "1"}), 400, "turn")
    refused(c.post(f"/api/games/{game}/move", json={"move": "1", "turn": True}), 400, "turn")
    refused(c.post(f"/api/games/{game}/next", json={"turn": turn}), 409, "still running")
    view = c.post(f"/api/games/{game}/move", json={"move": "1", "turn": turn}).json()
    # the same click again (a double click): its turn has passed
    refused(c.post(f"/api/games/{game}/move", json={"move": "1", "turn": turn}), 409, "out of turn")
    while view["phase"] != "over":
        view = c.post(f"/api/games/{game}/move", json={"move": "1", "turn": view["turn"]}).json()
    refused(
        c.post(f"/api/games/{game}/move", json={"move": "1", "turn": view["turn"]}),
        409,
        "next hand",
    )
    refused(c.get(f"/api/games/{game}/hint"), 409, "no move")
    assert c.post(f"/api/games/{game}/next", json={"turn": view["turn"]}).status_code == 200


def test_unicode_digits_are_no_move_and_no_server_fault():
    """``"²"`` and ``"①"`` are digits to ``str.isdigit`` but not numbers to ``int``."""
    c = client()
    view = new_game(c)
    game = view["game"]
    for word in ("²", "①", "¹²", "٣٣"):
        refused(c.post(f"/api/games/{game}/move", json={"move": word, "turn": view["turn"]}),
                400, "")  # fmt: skip
    legal = c.get(f"/api/games/{game}").json()
    assert legal["turn"] == view["turn"]  # nothing was played, and the game goes on
    moved = c.post(f"/api/games/{game}/move", json={"move": "1", "turn": view["turn"]})
    assert moved.status_code == 200, moved.text


@pytest.mark.parametrize(
    ("headers", "status", "words"),
    [
        ({"content-type": "text/plain", "origin": "http://evil.com"}, 403, "another origin"),
        ({"content-type": "text/plain"}, 415, "Content-Type: application/json"),
        ({**JSON, "origin": "http://evil.com"}, 403, "Origin: http://evil.com"),
        ({**JSON, "origin": "null"}, 403, "another origin"),
        ({**JSON, "sec-fetch-site": "cross-site"}, 403, "Sec-Fetch-Site: cross-site"),
        ({**JSON, "sec-fetch-site": "same-site"}, 403, "another site"),
    ],
)
def test_cross_origin_requests_that_change_state_are_refused(headers, status, words):
    c = client()
    body = b'{"variant": "spar", "players": 4, "opponents": "random"}'
    refused(c.post("/api/games", content=body, headers=headers), status, words)
    assert len(c.app.state.store) == 0  # no game was made
    same = {**JSON, "origin": "http://127.0.0.1", "sec-fetch-site": "same-origin"}
    assert c.post("/api/games", content=body, headers=same).status_code == 201
    assert c.get("/api/offer", headers={"origin": "http://evil.com"}).status_code == 200  # reads


def test_forged_and_expired_game_ids_are_refused():
    c = client(Limits(ttl=60, game_burst=1e6, game_rate=1e6, new_burst=1e6))
    view = new_game(c)
    real = view["game"]
    # one character changed: the last one, to a letter it is not (ids are random, and a
    # fixed replacement equals the real last character one time in 64)
    near = real[:-1] + ("x" if real[-1] != "x" else "y")
    assert near != real
    refused(c.get("/api/games/..%2F..%2Fetc%2Fpasswd"), 404, "not found")
    for forged in ("nosuchgame", near, "%00", "a" * 300):
        refused(c.get(f"/api/games/{forged}"), 404, "no such game")
        refused(
            c.post(f"/api/games/{forged}/move", json={"move": "1", "turn": 0}), 404, "no such game"
        )
    store = c.app.state.store
    now = store.clock()
    store.clock = lambda: now + 61
    refused(c.get(f"/api/games/{view['game']}"), 404, "expired")
    refused(c.get(f"/api/games/{view['game']}/records"), 404, "expired")


@pytest.mark.parametrize(
    ("body", "words"),
    [
        (b"{not json", "malformed JSON"),
        (b"\xff\xfe{}", "malformed JSON"),
        (b"[" * 100_000 + b"]" * 100_000, "over"),
        (b"[" * 2000 + b"]" * 2000, "nested too deeply"),
        (b'"a string"', "JSON object"),
        (b"[1, 2]", "JSON object"),
    ],
)
def test_malformed_json_is_refused(body, words):
    c = client()
    view = new_game(c)
    status = 413 if len(body) > CALM.body_bytes else 400
    refused(c.post(f"/api/games/{view['game']}/move", content=body, headers=JSON), status, words)
    refused(c.post("/api/games", content=body, headers=JSON), status, "")
    assert c.get(f"/api/games/{view['game']}").json() == view


def test_oversized_bodies_are_refused_declared_or_streamed():
    c = client()
    big = b'{"move": "' + b"x" * 10_000 + b'", "turn": 0}'
    refused(c.post("/api/games", content=big, headers=JSON), 413, "over 4096 bytes")

    def chunks():  # no Content-Length: the body is counted as it comes
        for _ in range(100):
            yield b" " * 1000

    refused(c.post("/api/games", content=chunks(), headers=JSON), 413, "over 4096 bytes")
    refused(c.post("/api/games", content=b"{}", headers={**JSON, "content-length": "abc"}), 413,
            "over")  # fmt: skip


def test_a_flood_of_requests_gets_429():
    c = client(Limits(game_burst=5, game_rate=1, new_burst=3, new_rate=1))
    view = new_game(c)
    answers = [c.get(f"/api/games/{view['game']}").status_code for _ in range(20)]
    assert answers[:5] == [200] * 5 and set(answers[5:]) == {429}
    refused(c.get(f"/api/games/{view['game']}"), 429, "too many requests to this game")
    new_game(c), new_game(c)
    refused(c.post("/api/games", json={}), 429, "too many new games")
    assert c.get("/api/offer").status_code == 200  # the page itself is not limited


def test_the_limiter_refills():
    from spar_apps.web.limits import LimitError, RateLimiter

    now = [0.0]
    limiter = RateLimiter(2, 1, clock=lambda: now[0])
    limiter.take("a", "x"), limiter.take("a", "x")
    with pytest.raises(LimitError, match="try again in 1.0 s"):
        limiter.take("a", "x")
    limiter.take("b", "x")  # another key has its own bucket
    now[0] = 1.0
    limiter.take("a", "x")


def test_a_full_server_says_so():
    c = client(Limits(games=2, game_burst=1e6, game_rate=1e6, new_burst=1e6))
    new_game(c), new_game(c)
    refused(c.post("/api/games", json={}), 503, "server is full")


@pytest.mark.parametrize(
    ("form", "words"),
    [
        ({"opponents": "onnx:/etc/passwd"}, "opponents must be one of random, shipped"),
        ({"opponents": "ppo:runs/x"}, "opponents must be one of"),
        ({"path": "/etc/passwd"}, "unknown field 'path'"),
        ({"variant": "poker"}, "variant must be one of"),
        ({"players": 99}, "players"),
        ({"players": "4"}, "whole number"),
        ({"players": 2.5}, "whole number"),
        ({"ace_of_spades": "yes"}, "true or false"),
        ({"last_two": "double"}, "last_two must be one of off, sum, bonus"),
        ({"end": "target:7"}, "end must be one of default, target:5"),
        ({"variant": "mini", "ace_of_spades": True}, "ace_of_spades"),
        ({"variant": "sipa", "last_two": "sum"}, "last_two"),
    ],
)
def test_a_bad_form_names_the_field(form, words):
    c = client()
    refused(c.post("/api/games", json={"variant": "spar", **form}), 400, words)


def test_the_client_can_name_no_file():
    c = client()
    for path in ("/static/../../pyproject.toml", "/static/..%2F..%2Fpyproject.toml",
                 "/static/lobby.py", "/static/index.html.bak", "/etc/passwd"):  # fmt: skip
        response = c.get(path)
        assert response.status_code == 404 and "error" in response.json()
    refused(c.delete("/api/games"), 405, "Method Not Allowed")
    page = c.get("/")
    assert page.status_code == 200 and "table.js" in page.text
    assert "default-src 'self'" in page.headers["content-security-policy"]
    assert c.get("/static/table.js").headers["content-type"].startswith("text/javascript")


def test_an_unknown_host_header_is_refused():
    c = client(allowed_hosts=["127.0.0.1", "localhost"])
    assert c.get("/api/offer").status_code == 200
    assert c.get("/api/offer", headers={"host": "evil.example"}).status_code == 400


def test_a_fault_of_the_server_is_a_json_500_without_traceback_and_the_game_goes_on():
    c = client()
    view = new_game(c)
    game = c.app.state.store.get(view["game"])
    real = game.table.play

    def broken(action):
        raise RuntimeError("a bug")

    game.table.play = broken
    response = c.post(f"/api/games/{view['game']}/move", json={"move": "1", "turn": view["turn"]})
    error = refused(response, 500, "server failed")
    assert "a bug" not in error
    game.table.play = real
    response = c.post(f"/api/games/{view['game']}/move", json={"move": "1", "turn": view["turn"]})
    assert response.status_code == 200


def test_a_bot_that_fails_once_leaves_no_stuck_game():
    c = client()
    view = new_game(c)
    game_id = view["game"]
    bot = c.app.state.store.get(game_id).table.bots[1]
    real, failed = bot.act, []

    def fails_once(situation, rng):
        if not failed:
            failed.append(True)
            raise RuntimeError("a bug")
        return real(situation, rng)

    def act(view: dict):
        path = "next" if view["phase"] == "over" else "move"
        return c.post(f"/api/games/{game_id}/{path}", json={"move": "1", "turn": view["turn"]})

    bot.act = fails_once
    try:
        for _ in range(30):  # until seat 1 is asked to move
            response = act(view)
            if response.status_code == 500:
                break
            view = response.json()
        assert failed
        view = c.get(f"/api/games/{game_id}").json()  # the bots finish their moves
        assert view["phase"] == "over" or view["to_move"] == 0
        assert act(view).status_code == 200
    finally:
        bot.act = real


def test_two_tabs_play_two_games_and_never_see_each_other():
    c = client()
    a, b = new_game(c), new_game(c)
    assert a["game"] != b["game"]
    store = c.app.state.store
    for _ in range(4):
        a = c.post(f"/api/games/{a['game']}/move", json={"move": "1", "turn": a["turn"]}).json()
        b = c.post(f"/api/games/{b['game']}/move", json={"move": "1", "turn": b["turn"]}).json()
        hand_a = {h["card"] for h in a["hand"]}
        hand_b = {h["card"] for h in b["hand"]}
        table_a, table_b = store.get(a["game"]).table, store.get(b["game"]).table
        assert hand_a == {table_a.rules.card_name(x) for x in table_a.hand()}
        assert hand_b == {table_b.rules.card_name(x) for x in table_b.hand()}
        assert not hand_a & hand_b
    assert store.get(a["game"]).turn == 4 and store.get(b["game"]).turn == 4


# ----- the command --------------------------------------------------------------------------
def test_spar_serve_prints_its_address_serves_the_page_and_stops_on_ctrl_c():
    server = subprocess.Popen(
        [SPAR, "serve", "--port", "0", "--opponents", "random"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "OMP_NUM_THREADS": "1"},
        preexec_fn=default_sigint,  # it is stopped with SIGINT
    )
    try:
        line = server.stdout.readline()
        assert line.startswith("spar serve: the table is at http://127.0.0.1:"), line
        url = line.split()[6]
        with urllib.request.urlopen(url, timeout=30) as page:
            assert b"table.js" in page.read()
        with urllib.request.urlopen(url + "api/offer", timeout=30) as offer:
            assert b'"random"' in offer.read()
    finally:
        server.send_signal(signal.SIGINT)
        _, err = server.communicate(timeout=30)
    assert server.returncode == 0, err
    assert "Traceback" not in err


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--opponents", "nosuch"], "unknown agent"),
        (["--port", "70000"], "--port must be 0..65535"),
        (["--set", "players=3"], "the page chooses the player count"),
        (["--set", "hand_size=40"], "no variant can be played"),
        (["--set", "ace_of_spades=maybe"], "ace_of_spades must be true or false; got 'maybe'"),
        (["--opponents", "ppo:runs/nope"], "--opponents ppo:runs/nope: "),
        (["--opponents", "pimc:worlds=0"], "--opponents pimc:worlds=0: worlds must be"),
        (["--opponents", "onnx:/etc/passwd"], "--opponents onnx:/etc/passwd: "),
        (["--set", "nokey"], "key=value"),
    ],
)
def test_spar_serve_bad_arguments_are_one_line(args, words):
    # --port 0 first: should a bad argument pass, the server would not take a known port
    done = subprocess.run(
        [SPAR, "serve", "--port", "0", *args], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2
    assert words in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr


def test_forwarded_headers_are_trusted_only_from_the_named_proxy():
    import uvicorn

    from spar_apps.cli.serve import server_config

    app = create_app(Lobby([]))
    plain = server_config(uvicorn, app, None)
    assert plain.proxy_headers is False  # X-Forwarded-For from 127.0.0.1 cannot pose as players
    proxied = server_config(uvicorn, app, "10.1.2.3")
    assert proxied.proxy_headers is True and proxied.forwarded_allow_ips == "10.1.2.3"


def test_every_address_answers_this_machines_names_only():
    import socket

    from spar_apps.cli.serve import allowed_hosts

    names = allowed_hosts("0.0.0.0", ["table.example"])
    assert {socket.gethostname(), "localhost", "127.0.0.1", "table.example"} <= set(names)
    assert "0.0.0.0" not in names and "*" not in names and "evil.example" not in names
    assert set(allowed_hosts("127.0.0.1", [])) == {"127.0.0.1", "localhost"}


def test_a_bind_beyond_this_machine_warns():
    server = subprocess.Popen([SPAR, "serve", "--host", "0.0.0.0", "--port", "0"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              preexec_fn=default_sigint)  # fmt: skip
    try:
        assert "the table is at http://0.0.0.0:" in server.stdout.readline()
        warning = server.stderr.readline()
        assert "warning: listening on 0.0.0.0: every machine that can reach this one" in warning
    finally:
        server.send_signal(signal.SIGINT)
        server.communicate(timeout=30)


@pytest.mark.parametrize("impl", ["httptools", "h11"])
def test_a_half_sent_header_is_cut_off_and_a_whole_one_answered(impl: str) -> None:
    """A slow-loris client (half a header, then nothing) is closed at the header deadline;
    a client that sends its header in pieces in time, and its next request on the same
    connection, are answered."""
    import socket
    import threading
    import time

    import uvicorn

    from spar_apps.cli.serve import server_config
    from spar_apps.web.deadline import header_deadline

    config = server_config(uvicorn, create_app(Lobby([])), None, header_seconds=0.5)
    config.host, config.port = "127.0.0.1", 0
    if impl == "h11":
        from uvicorn.protocols.http.h11_impl import H11Protocol

        config.http = header_deadline(H11Protocol, 0.5)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        while not server.started:
            time.sleep(0.01)
        port = server.servers[0].sockets[0].getsockname()[1]
        request = b"GET /api/offer HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"

        def connect() -> socket.socket:
            s = socket.create_connection(("127.0.0.1", port), timeout=5)
            return s

        slow = connect()
        slow.sendall(request[:20])
        began = time.monotonic()
        assert slow.recv(100) == b""  # closed by the server, not answered
        assert 0.4 < time.monotonic() - began < 3

        polite = connect()
        for piece in (request[:10], request[10:30], request[30:]):
            polite.sendall(piece)
            time.sleep(0.1)
        assert polite.recv(4096).startswith(b"HTTP/1.1 200")
        time.sleep(0.2)
        polite.sendall(request)  # the same connection, a second request
        assert polite.recv(4096).startswith(b"HTTP/1.1 200")
        polite.close()
        slow.close()
    finally:
        server.should_exit = True
        thread.join(timeout=10)
