"""What ``spar serve`` holds open, and for how long: a live connection that never says hello is
closed, the live connections are capped from one address and in all (below the process's
limit on open files, with room for HTTP), each refusal says why; a table lives while it is
played, and a solo game too. The servers run in this process (uvicorn on a thread, with
small limits) or as the real command under a low limit on open files. No time is asserted
but generous bounds on waits that must end."""

from __future__ import annotations

import contextlib
import json
import os
import resource
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import uvicorn
from friends_clients import Person, live_url, move_of
from test_web_browser import SPAR, stop
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from spar_apps.cli.serve import server_config
from spar_apps.table.messages import say
from spar_apps.web import Limits, Lobby, create_app
from spar_apps.web.deadline import deadline_protocol
from spar_apps.web.kept import Kept
from spar_apps.web.limits import connection_cap, websocket_cap
from spar_apps.web.saved import GameFolder

TABLE = {"variant": "spar", "players": 2, "opponents": "random", "timer": 120}
GAME = {"variant": "spar", "players": 2, "opponents": "random"}


@contextlib.contextmanager
def served(
    limits: Limits, state: Path | None = None, connections: int | None = None
) -> Iterator[tuple[str, object]]:
    """A server of ``limits`` on a thread (the real uvicorn settings of ``spar serve``, at
    most ``connections`` at once if given): its address and its Starlette app."""
    folder = None if state is None else GameFolder(state)
    app = create_app(Lobby([], ["random"]), limits, folder=folder)
    config = server_config(uvicorn, app, None)
    config.host, config.port = "127.0.0.1", 0
    if connections is not None:
        config.http = deadline_protocol(connections=connections)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        for _ in range(1000):
            if server.started:
                break
            time.sleep(0.01)
        port = server.servers[0].sockets[0].getsockname()[1]
        yield f"http://127.0.0.1:{port}", app
    finally:
        server.should_exit = True
        thread.join(timeout=30)
        if folder is not None:
            folder.close()


def new_table(url: str) -> tuple[str, str]:
    made = httpx.post(f"{url}/api/tables", json={**TABLE, "people": 2, "name": "Ada"}, timeout=30)
    assert made.status_code == 201, made.text
    return made.json()["table"], made.json()["key"]


def seat_two(url: str) -> tuple[str, list[Person]]:
    """A table of two people, both seated and connected, each greeted with a view."""
    table, key = new_table(url)
    taken = httpx.post(f"{url}/api/tables/{table}/seats", json={"name": "Bo"}, timeout=30)
    assert taken.status_code == 201, taken.text
    crowd = []
    for seat, k in enumerate((key, taken.json()["key"])):
        person = Person(seat, k, connect(live_url(url, table), open_timeout=10))
        person.send({"key": k})
        assert person.read(timeout=10)
        crowd.append(person)
    return table, crowd


def closed_with(socket: ClientConnection, within: float = 15.0) -> tuple[int, str]:
    """The code and reason the server closed ``socket`` with (its messages before skipped)."""
    give_up = time.monotonic() + within
    try:
        while True:
            socket.recv(timeout=max(0.01, give_up - time.monotonic()))
    except ConnectionClosed as e:
        assert e.rcvd is not None, "the connection ended without a close from the server"
        return e.rcvd.code, e.rcvd.reason
    except TimeoutError:
        raise AssertionError(f"the server did not close the connection in {within:g} s") from None


# ----- the caps ----------------------------------------------------------------------------------
def test_the_caps_stay_below_the_limit_on_open_files_with_room_for_http():
    for files in (96, 256, 1024, 4096, 65536):
        connections, sockets = connection_cap(files), websocket_cap(files)
        assert 0 < sockets < connections < files
        assert files - connections >= 48  # the folder's, the bots' and the server's own files
        assert connections - sockets >= connections // 4  # HTTP's room
    soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    if soft != resource.RLIM_INFINITY:
        assert Limits().sockets == websocket_cap(soft) < soft


def test_a_silent_connection_is_closed_at_the_hello_deadline():
    with served(Limits(hello_seconds=0.5)) as (url, _):
        table, key = new_table(url)
        silent = connect(live_url(url, table), open_timeout=10)
        began = time.monotonic()
        code, reason = closed_with(silent)
        assert code == 4408 and "0.5 s" in reason, (code, reason)
        assert time.monotonic() - began >= 0.4
        # one that says hello in time holds its seat past the deadline
        with connect(live_url(url, table), open_timeout=10) as seated:
            seated.send(json.dumps({"key": key}))
            assert json.loads(seated.recv(timeout=10))["type"] == "view"
            time.sleep(1.0)
            seated.send(json.dumps({"lang": "fr"}))
            assert json.loads(seated.recv(timeout=10))["type"] == "view"


def test_connections_past_the_cap_of_one_address_or_all_are_refused_with_a_reason():
    with served(Limits(sockets_per_address=3, hello_seconds=30)) as (url, app):
        table, _ = new_table(url)
        held = [connect(live_url(url, table), open_timeout=10) for _ in range(3)]
        fourth = connect(live_url(url, table), open_timeout=10)
        code, reason = closed_with(fourth)
        assert code == 4429 and "too many connections from your address" in reason
        held.pop().close()
        time.sleep(0.2)
        again = connect(live_url(url, table), open_timeout=10)  # room again: one left
        with pytest.raises(TimeoutError):
            again.recv(timeout=0.5)  # held open, waiting for its hello
        for s in [*held, again]:
            s.close()
    with served(Limits(sockets=2, sockets_per_address=10, hello_seconds=30)) as (url, app):
        table, _ = new_table(url)
        held = [connect(live_url(url, table), open_timeout=10) for _ in range(2)]
        code, reason = closed_with(connect(live_url(url, table), open_timeout=10))
        assert code == 4503 and "try again later" in reason
        fr = connect(live_url(url, table) + "?lang=fr", open_timeout=10)
        assert closed_with(fr) == (4503, say("friends.too_many_sockets", "fr"))
        # HTTP still answers, and a game is made and played
        made = httpx.post(f"{url}/api/games", json=GAME, timeout=30)
        assert made.status_code == 201, made.text
        for s in held:
            s.close()
        time.sleep(0.2)
        assert app.state.tables.tables()  # the table, untouched by the refusals


def test_past_the_cap_on_connections_a_new_one_lets_the_quietest_silent_socket_go():
    """Six connections at most: five silent WebSockets and a seated one hold them; a new
    player's request is answered all the same, the oldest silent socket let go for it, never
    the seated one."""
    with served(Limits(hello_seconds=30), connections=6) as (url, _):
        table, key = new_table(url)
        seated = connect(live_url(url, table), open_timeout=10)
        seated.send(json.dumps({"key": key}))
        assert json.loads(seated.recv(timeout=10))["type"] == "view"
        silent = []
        for _ in range(5):
            silent.append(connect(live_url(url, table), open_timeout=10))
            time.sleep(0.05)  # each quiet a little longer than the next
        for _ in range(2):
            made = httpx.post(f"{url}/api/games", json=GAME, timeout=30)
            assert made.status_code == 201, made.text
        with pytest.raises(ConnectionClosed):
            silent[0].recv(timeout=10)  # let go: the quietest
        seated.send(json.dumps({"lang": "fr"}))
        assert json.loads(seated.recv(timeout=10))["type"] == "view"  # kept
        for s in [seated, *silent]:
            s.close()


def loopback_socket(address: str, port: int) -> socket.socket:
    """A connection from ``address`` (any of 127.0.0.0/8) to the server."""
    s = socket.socket()
    s.settimeout(20)
    s.bind((address, 0))
    s.connect(("127.0.0.1", port))
    return s


def upgrade(s: socket.socket, table: str, port: int) -> None:
    """Open a WebSocket on ``s`` by hand, and then say nothing (its handshake's answer unread)."""
    s.sendall(
        f"GET /api/tables/{table}/live HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
        "Upgrade: websocket\r\nConnection: Upgrade\r\n"
        "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n".encode()
    )


def ended(s: socket.socket) -> bool:
    """Whether the server has closed ``s`` (its answers read and dropped)."""
    try:
        while s.recv(65536):
            pass
    except (TimeoutError, BlockingIOError):
        return False
    except OSError:
        return True
    return True


def test_silent_sockets_past_the_file_limit_leave_the_server_answering_and_are_closed():
    """The real command under a limit of 96 open files, and 120 connections that open a live
    connection and never say hello, from 40 addresses: a new game is made and a move played,
    and every one of the connections is closed by the server soon after its hello deadline
    (5 s)."""
    files = 96

    def low_limit() -> None:
        hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
        resource.setrlimit(resource.RLIMIT_NOFILE, (files, hard))

    process = subprocess.Popen([SPAR, "serve", "--port", "0", "--opponents", "random"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env={**os.environ, "OMP_NUM_THREADS": "1"},
                               preexec_fn=low_limit)  # fmt: skip
    try:
        line = process.stdout.readline()
        assert "the table is at" in line, (line, process.stderr.read() if process.poll() else "")
        url = line.split()[6].rstrip("/")
        port = int(url.rsplit(":", 1)[1])
        table, _ = new_table(url)
        idle = []
        for k in range(120):
            s = loopback_socket(f"127.0.0.{2 + k % 40}", port)
            upgrade(s, table, port)
            idle.append(s)
        for s in idle:  # each answered: the handshake, or its connection closed
            with contextlib.suppress(ConnectionResetError):
                s.recv(1)
        time.sleep(0.5)
        with httpx.Client(base_url=url, timeout=10) as http:
            made = http.post("/api/games", json=GAME)
            assert made.status_code == 201, made.text
            view = made.json()
            moved = http.post(f"/api/games/{view['game']}/move",
                              json={"move": move_of(view), "turn": view["turn"]})  # fmt: skip
            assert moved.status_code == 200, moved.text
        for s in idle:
            s.settimeout(0.05)
        give_up = time.monotonic() + 30
        while idle and time.monotonic() < give_up:
            idle = [s for s in idle if not ended(s)]
            time.sleep(0.1)
        assert not idle, f"{len(idle)} silent connections still open"
        assert httpx.get(f"{url}/api/offer", timeout=30).status_code == 200
    finally:
        stop(process)


# ----- a table lives while it is played --------------------------------------------------------
class Clock:
    """The stores' clock, moved by hand: a long play in no time."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_a_table_played_past_its_time_to_live_survives_and_its_people_come_back(tmp_path):
    """Two people play over their live connections for three times the time to live (a move
    every quarter of it), drop their connections, and a new table is made (which forgets the
    tables whose time is up): the table, its file and its state stay, and each person is
    seated again on coming back."""
    ttl, clock = 100.0, Clock()
    with served(Limits(ttl=ttl), tmp_path / "state") as (url, app):
        app.state.tables.clock = clock
        table, crowd = seat_two(url)
        for _ in range(100):  # a move (or the next hand) each round, until 3 TTL have passed
            if clock.now >= 3 * ttl:
                break
            for person in crowd:
                person.read(timeout=0.05)
            for person in crowd:
                view = person.view
                if view["phase"] == "over" and person.seat == 0:
                    message = {"do": "next", "turn": view["turn"]}
                elif view["phase"] == "play" and view["my_turn"]:
                    message = {"do": "move", "move": move_of(view), "turn": view["turn"]}
                else:
                    continue
                clock.now += ttl / 4
                person.send(message)
                assert person.read(timeout=10)
        assert clock.now >= 3 * ttl
        turn = max(p.view["turn"] for p in crowd)
        for person in crowd:
            person.socket.close()
        time.sleep(0.2)
        made = httpx.post(f"{url}/api/tables", json={**TABLE, "people": 2, "name": "Bo"})
        assert made.status_code == 201, made.text
        assert list(tmp_path.rglob(f"{table}.json")), "the table's file went"
        for person in crowd:
            with connect(live_url(url, table), open_timeout=10) as back:
                back.send(json.dumps({"key": person.key}))
                message = json.loads(back.recv(timeout=10))
                assert message["type"] == "view", message
                assert message["view"]["turn"] >= turn


def test_a_table_is_kept_while_a_seat_is_connected_and_forgotten_a_while_after_it_leaves():
    clock = Clock()
    with served(Limits(ttl=100)) as (url, app):
        tables = app.state.tables
        tables.clock = clock
        table, crowd = seat_two(url)
        clock.now += 500  # a long think: both still connected
        new_table(url)  # forgets the tables whose time is up
        assert table in {t.id for t in tables.tables()}
        crowd[0].socket.close()
        crowd[1].send({"lang": "fr"})  # the other seat still acts
        assert crowd[1].read(timeout=10)
        crowd[1].socket.close()
        time.sleep(0.3)
        clock.now += 60  # under the time to live since the last one left
        new_table(url)
        assert table in {t.id for t in tables.tables()}
        clock.now += 60  # past it: no one is there to come back
        new_table(url)
        assert table not in {t.id for t in tables.tables()}
        assert closed_with(connect(live_url(url, table), open_timeout=10))[0] == 4404


def test_kept_items_held_are_not_forgotten_and_count_from_their_release():
    clock, forgotten, held = [0.0], [], {"a"}
    kept: Kept[str] = Kept(10, forgotten.append, lambda: clock[0], lambda k: k in held)
    kept.put("a", "A")
    kept.put("b", "B")
    clock[0] = 11
    kept.expire()
    assert forgotten == ["b"] and kept.items() == ["A"]
    held.clear()
    clock[0] = 20  # 9 s after the expiry that saw it held
    assert kept.get("a") == "A"
    clock[0] = 31
    kept.expire()
    assert forgotten == ["b", "a"]


# ----- a solo game lives while it is played -------------------------------------------------------
def test_a_solo_game_played_past_its_time_to_live_survives(tmp_path):
    ttl, clock = 100.0, Clock()
    with served(Limits(ttl=ttl), tmp_path / "state") as (url, app):
        app.state.store.clock = clock
        with httpx.Client(base_url=url, timeout=30) as http:
            view = http.post("/api/games", json=GAME).json()
            while clock.now < 3 * ttl:
                clock.now += 0.3 * ttl
                game = f"/api/games/{view['game']}"
                if view["phase"] == "over":
                    view = http.post(f"{game}/next", json={"turn": view["turn"]}).json()
                else:
                    view = http.post(f"{game}/move", json={"move": move_of(view),
                                                           "turn": view["turn"]}).json()  # fmt: skip
                assert "error" not in view, view
            assert http.post("/api/games", json=GAME).status_code == 201  # forgets the old
            again = http.get(f"/api/games/{view['game']}")
            assert again.status_code == 200 and again.json()["turn"] == view["turn"]
            assert list(tmp_path.rglob(f"{view['game']}.json")), "the game's file went"
            clock.now += 1.1 * ttl  # then left alone past its time: forgotten
            assert http.post("/api/games", json=GAME).status_code == 201
            assert http.get(f"/api/games/{view['game']}").status_code == 404
            assert not list(tmp_path.rglob(f"{view['game']}.json"))
