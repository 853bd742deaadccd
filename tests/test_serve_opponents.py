"""``spar serve``: a searching bot given with ``--opponents`` searches apart and within
``--think``, and a game taken up after a restart keeps the rules it was made with (issue #58,
defects 2 and 3)."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import httpx
import pytest

from spar_agents import make_agent
from spar_apps.table.voice import say_phrase
from spar_apps.web import Limits, Lobby, create_app
from spar_apps.web.saved import GameFolder

CALM = Limits(game_burst=1e6, game_rate=1e6, new_burst=1e6, workers=1, search_workers=1)
DEEP = "pimc:worlds=3000"  # the red team's: 9.5 s a move, with no cap, on the fast bots' pool


def test_a_searching_spec_searches_apart_and_within_think() -> None:
    lobby = Lobby([], [DEEP, "pimc:worlds=8,time_limit=0.5", "pimc:time_limit=60", "random"],
                  think=1.5)  # fmt: skip
    assert lobby.searching({"opponents": DEEP}) and lobby.searching({})  # the first is default
    assert not lobby.searching({"opponents": "random"}) and not lobby.searching({"opponents": 3})
    deep = lobby.setup({"opponents": DEEP})
    assert deep.searching and "up to 1.5 s a move" in say_phrase(deep.lineup, "en")
    assert deep.bots[1].worlds == 3000 and deep.bots[1].time_limit == 1.5
    assert lobby.setup({"opponents": "pimc:worlds=8,time_limit=0.5"}).bots[1].time_limit == 0.5
    assert lobby.setup({"opponents": "pimc:time_limit=60"}).bots[1].time_limit == 1.5  # capped
    assert not lobby.setup({"opponents": "random"}).searching
    offered = {o["id"] for o in lobby.offer()["opponents"]}
    assert DEEP in offered  # the page still names it as given


def test_a_game_against_a_searching_spec_holds_up_no_fast_game() -> None:
    """With one worker in each pool, a fast game moves while the searching one thinks."""
    thinking, go_on = threading.Event(), threading.Event()

    def build(spec, rules):
        inner = make_agent("random", rules)
        if not spec.startswith("pimc"):
            return inner

        class Deep:  # thinks until told to go on
            def act(self, situation, rng):
                thinking.set()
                go_on.wait(timeout=60)
                return inner.act(situation, rng)

        return Deep()

    lobby = Lobby([], [DEEP, "random"], make_agent=build)
    app = create_app(lobby, CALM, seed=0)

    async def scenario() -> None:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as c:
            form = {"variant": "spar", "players": 4}
            deep = asyncio.create_task(c.post("/api/games", json={**form, "opponents": DEEP}))
            while not thinking.is_set():
                await asyncio.sleep(0.005)
            try:
                fast = await asyncio.wait_for(
                    c.post("/api/games", json={**form, "opponents": "random"}), timeout=20
                )
                assert fast.status_code == 201, fast.text
                assert not deep.done()  # still thinking: the fast game did not wait for it
            finally:
                go_on.set()
            assert (await deep).status_code == 201

    asyncio.run(scenario())


def test_a_restarted_server_keeps_each_games_rules(tmp_path: Path) -> None:
    """A game made under --set end=target:20 is still to 20 after a restart without it."""
    form = {"variant": "spar", "players": 2, "opponents": "random"}
    folder = GameFolder(tmp_path)
    first = create_app(Lobby([], ["random"], {"end": "target:20"}), CALM, seed=0, folder=folder)

    async def made() -> dict:
        transport = httpx.ASGITransport(app=first)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as c:
            answer = await c.post("/api/games", json=form)
            assert answer.status_code == 201, answer.text
            return answer.json()

    view = asyncio.run(made())
    assert view["goal"] == "first to 20 points"
    folder.close()
    again = create_app(Lobby([], ["random"]), CALM, seed=0, folder=GameFolder(tmp_path))
    assert again.state.restored == 1

    async def shown() -> dict:
        transport = httpx.ASGITransport(app=again)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as c:
            return (await c.get(f"/api/games/{view['game']}")).json()

    assert asyncio.run(shown())["goal"] == "first to 20 points"  # it said 10


@pytest.mark.parametrize("overrides", [["end"], {"end": 5}, {"no_such_field": 1}])
def test_a_saved_games_hostile_fields_are_refused(overrides: object) -> None:
    from spar_apps.web.lobby import FormError

    with pytest.raises(FormError):
        Lobby([], ["random"]).setup({"opponents": "random"}, overrides)
