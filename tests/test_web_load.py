"""``spar serve`` under load: bots off the event loop, honest limits, and games that survive a
restart.

A slow bot (one that waits on an event) in one game must not delay another game's move: the
order of completion shows it, with no wall-clock threshold. Past the queue of waiting bot
moves, a request is answered 503 at once. A server started again on its ``--state`` folder
takes up every unfinished game exactly: the same views and the same records as a game that
was never interrupted, in process and through the real ``spar serve``. Broken, hostile and
expired files are set aside, and a folder serves one server at a time.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import signal
import subprocess
import sys
import threading
import urllib.request
from pathlib import Path

import httpx
import pytest
from helpers.cli import default_sigint

from spar_agents import make_agent
from spar_agents.shipped import default_bot_specs
from spar_apps.web import Limits, Lobby, create_app
from spar_apps.web.saved import GameFolder

SPAR = Path(sys.executable).parent / "spar"
CALM = Limits(game_burst=1e6, game_rate=1e6, new_burst=1e6)
SPAR4 = {"variant": "spar", "players": 4}


class Gate:
    """A bot that plays like ``random`` but, while the gate is shut, waits for it to open."""

    def __init__(self) -> None:
        self.open = threading.Event()
        self.open.set()
        self.waiting = threading.Event()  # set once a decision waits at the shut gate

    def agent(self, rules):
        inner = make_agent("random", rules)
        gate = self

        class Slow:
            def act(self, situation, rng):
                if not gate.open.is_set():
                    gate.waiting.set()
                    gate.open.wait(timeout=120)
                return inner.act(situation, rng)

        return Slow()


def app_with_gate(gate: Gate, limits: Limits = CALM, **kwargs):
    def build(spec, rules):
        return gate.agent(rules) if spec == "slow" else make_agent(spec, rules)

    lobby = Lobby(default_bot_specs(), ["slow", "random"], make_agent=build)
    return create_app(lobby, limits, seed=0, **kwargs)


def client(app) -> httpx.AsyncClient:
    transport = httpx.ASGITransport(app=app)
    return httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1")


async def start(c: httpx.AsyncClient, opponents: str, **form) -> dict:
    response = await c.post("/api/games", json={**SPAR4, "opponents": opponents, **form})
    assert response.status_code == 201, response.text
    return response.json()


def first_move(view: dict) -> dict:
    """The person's first legal move, as the page sends it."""
    if view["phase"] == "over":
        return {"turn": view["turn"]}
    legal = [h["card"] for h in view["hand"] if h["legal"]]
    return {"move": legal[0] if legal else "k", "turn": view["turn"]}


async def send(c: httpx.AsyncClient, view: dict) -> httpx.Response:
    path = "next" if view["phase"] == "over" else "move"
    return await c.post(f"/api/games/{view['game']}/{path}", json=first_move(view))


async def wait_for(event: threading.Event) -> None:
    while not event.is_set():
        await asyncio.sleep(0.005)


def test_a_slow_bot_delays_only_its_own_game() -> None:
    gate = Gate()

    async def scenario() -> None:
        async with client(app_with_gate(gate)) as c:
            slow = await start(c, "slow")
            quick = await start(c, "random")
            gate.open.clear()
            try:
                slow_move = asyncio.create_task(send(c, slow))  # its bots wait at the gate
                await wait_for(gate.waiting)
                answer = await send(c, quick)  # another game moves meanwhile
                assert answer.status_code == 200, answer.text
                assert not slow_move.done()  # the slow game is still thinking
                shown = await c.get(f"/api/games/{quick['game']}")
                assert shown.status_code == 200 and not slow_move.done()
            finally:
                gate.open.set()
            assert (await slow_move).status_code == 200

    asyncio.run(scenario())


def test_past_the_queue_of_waiting_bot_moves_the_table_is_busy() -> None:
    gate = Gate()
    app = app_with_gate(gate, Limits(game_burst=1e6, game_rate=1e6, new_burst=1e6, workers=1,
                                     queue=1))  # fmt: skip

    async def scenario() -> None:
        async with client(app) as c:
            slow = await start(c, "slow")
            other = await start(c, "random")
            third = await start(c, "random")
            gate.open.clear()
            try:
                busy = asyncio.create_task(send(c, slow))  # holds the one worker
                await wait_for(gate.waiting)
                queued = asyncio.create_task(c.get(f"/api/games/{other['game']}"))  # waits
                while app.state.workers.statistics().tasks_waiting < 1:
                    await asyncio.sleep(0.005)
                refused = await c.get(f"/api/games/{third['game']}")  # one too many
                assert refused.status_code == 503
                assert "the table is busy" in refused.json()["error"]
                assert not busy.done() and not queued.done()
            finally:
                gate.open.set()
            assert (await busy).status_code == 200 and (await queued).status_code == 200

    asyncio.run(scenario())


# ----- games that survive a restart ------------------------------------------------------
async def play(c: httpx.AsyncClient, view: dict, moves: int) -> list[dict]:
    """``moves`` of the person's first legal moves (and next hands); the views they got."""
    views = []
    for _ in range(moves):
        if view["session_over"]:
            break
        response = await send(c, view)
        assert response.status_code == 200, response.text
        view = response.json()
        views.append(view)
    return views


def comparable(view: dict) -> dict:
    return {k: v for k, v in view.items() if k != "game"}


async def records(c: httpx.AsyncClient, game: str) -> list[dict]:
    text = (await c.get(f"/api/games/{game}/records")).text
    return [json.loads(line) for line in text.splitlines()]


@pytest.mark.parametrize("opponents", ["random", "heuristic"])
def test_a_restarted_server_takes_up_each_game_exactly(tmp_path: Path, opponents: str) -> None:
    """A game broken off mid-hand by a restart goes on as the same game never broken off:
    every view and every record alike."""
    form = {"opponents": opponents, "end": "target:5"}

    async def unbroken() -> tuple[list[dict], list[dict]]:
        async with client(create_app(Lobby(default_bot_specs(), ["random"]), CALM, seed=3)) as c:
            view = await start(c, **form)
            views = [view, *await play(c, view, 200)]
            return views, await records(c, view["game"])

    async def broken() -> tuple[list[dict], list[dict]]:
        folder = GameFolder(tmp_path)
        async with client(create_app(Lobby(default_bot_specs(), ["random"]), CALM, seed=3,
                                     folder=folder)) as c:  # fmt: skip
            view = await start(c, **form)
            views = [view, *await play(c, view, 7)]  # the second hand, under way
            assert views[-1]["phase"] == "play" and views[-1]["hand_number"] == 2
        folder.close()  # the server stops
        again = create_app(
            Lobby(default_bot_specs(), ["random"]), CALM, seed=99, folder=GameFolder(tmp_path)
        )
        assert again.state.restored == 1
        async with client(again) as c:
            shown = (await c.get(f"/api/games/{view['game']}")).json()
            assert comparable(shown) == comparable(views[-1])  # where it was
            views += await play(c, views[-1], 200)
            return views, await records(c, view["game"])

    whole_views, whole_records = asyncio.run(unbroken())
    views, kept = asyncio.run(broken())
    assert whole_views[-1]["session_over"]
    assert [comparable(v) for v in views] == [comparable(v) for v in whole_views]
    assert kept == whole_records and len(kept) >= 2


def test_broken_hostile_and_expired_files_are_set_aside(tmp_path: Path, caplog) -> None:
    folder = GameFolder(tmp_path)

    async def one_game() -> str:
        async with client(create_app(Lobby(default_bot_specs(), ["random"]), CALM,
                                     folder=folder)) as c:  # fmt: skip
            view = await start(c, "random")
            await play(c, view, 2)
            return view["game"]

    game = asyncio.run(one_game())
    folder.close()
    games = tmp_path / "games"
    saved = json.loads((games / f"{game}.json").read_text())
    broken = {  # each is a good game's file with one thing wrong (names: valid game ids)
        "wrong-id": {"id": "x" * 24},
        "illegal-move": {"log": [*saved["log"], 9999]},
        "hostile-form": {"form": {"path": "/etc/passwd"}},
        "no-generator": {"choices": {"bit_generator": "MT19937"}},
        "no-such-turn": {"turn": -1},
        "negative-seed": {"seed": -5},
    }
    why = {  # the reason each is set aside, as the log says it
        "wrong-id": "its id is not its file's name", "illegal-move": "action 9999 is not legal",
        "hostile-form": "unknown field 'path'", "no-generator": "PCG64",
        "no-such-turn": "its turn -1 is no turn", "negative-seed": "its seed -5 is no seed",
        "garbage-file": "Expecting property name", "deep-nesting": "nested more than",
    }  # fmt: skip
    ids = {name: f"{name:x<24}" for name in why}  # a game's id: 24 letters, digits, - and _
    bad = {name: json.dumps({**saved, "id": ids[name], **wrong}) for name, wrong in broken.items()}
    bad |= {"garbage-file": "{not json", "deep-nesting": "[" * 100_000}
    for name, text in bad.items():
        (games / f"{ids[name]}.json").write_text(text)
    old_id = "oldgame".ljust(24, "X")
    old = {**saved, "id": old_id, "saved": saved["saved"] - 10_000}
    (games / f"{old_id}.json").write_text(json.dumps(old))
    with caplog.at_level(logging.WARNING, logger="spar.serve"):
        app = create_app(Lobby(default_bot_specs(), ["random"]), CALM,
                         folder=GameFolder(tmp_path))  # fmt: skip
    assert app.state.restored == 1  # the good game only
    for name, reason in why.items():
        (line,) = [r.getMessage() for r in caplog.records
                   if f"/{ids[name]}.json " in r.getMessage()]  # fmt: skip
        assert reason in line, (name, line)
    assert not (games / f"{old_id}.json").exists()  # expired while the server was down
    for name in bad:
        assert (games / f"{ids[name]}.json.broken").exists(), name  # kept for a look, not loaded
    assert (games / f"{game}.json").exists()


def test_a_folder_serves_one_server_at_a_time(tmp_path: Path) -> None:
    first = GameFolder(tmp_path)
    with pytest.raises(ValueError, match="another spar serve keeps its games there"):
        GameFolder(tmp_path)
    first.close()
    GameFolder(tmp_path).close()  # free again once the first server is gone


def test_spar_serve_state_takes_up_a_game_after_a_real_restart(tmp_path: Path) -> None:
    def serve() -> tuple[subprocess.Popen, str]:
        process = subprocess.Popen(
            [SPAR, "serve", "--port", "0", "--opponents", "random", "--state", str(tmp_path)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env={**os.environ, "OMP_NUM_THREADS": "1"}, preexec_fn=default_sigint,
        )  # fmt: skip
        lines = [process.stdout.readline()]
        if "taken up" in lines[0]:
            lines.append(process.stdout.readline())
        assert "the table is at" in lines[-1], (lines, process.poll())
        return process, lines

    def call(url: str, body: dict | None = None) -> dict:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(url, data, {"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=60) as answer:
            return json.loads(answer.read())

    def stop(process) -> str:
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=60)
        assert process.returncode == 0 and "Traceback" not in err, err
        return err

    process, lines = serve()
    url = lines[-1].split()[6]
    try:
        view = call(url + "api/games", {**SPAR4, "opponents": "random"})
        view = call(f"{url}api/games/{view['game']}/move", first_move(view))
    finally:
        stop(process)
    process, lines = serve()
    url = lines[-1].split()[6]
    try:
        assert lines[0].startswith("spar serve: 1 unfinished games and tables taken up from")
        again = call(f"{url}api/games/{view['game']}")
        assert comparable(again) == comparable(view)
        call(f"{url}api/games/{view['game']}/move", first_move(again))  # and it goes on
    finally:
        stop(process)


def test_the_load_benchmark_survives_a_restart_and_the_cap_answers_503() -> None:
    """benchmarks/web_load.py at a small size: a restart in the middle of the run loses no game,
    and new games past --max-games are refused; its own checks decide the exit status."""
    script = Path(__file__).resolve().parents[1] / "benchmarks" / "web_load.py"
    small = ["--games", "4", "--players", "2", "--think", "0.05", "--time-limit", "150"]
    for extra in (["--search-games", "1", "--restart-after", "3"], ["--cap"]):
        done = subprocess.run(
            [sys.executable, str(script), *small, *extra],
            capture_output=True, text=True, timeout=400,
        )  # fmt: skip
        assert done.returncode == 0, done.stdout + done.stderr
        assert "lost or mixed up      0" in done.stdout
    assert "past the cap          50 new games: statuses [503]" in done.stdout
