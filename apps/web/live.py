"""The tables of friends on the wire: HTTP to make a table and take a seat, a WebSocket per
seat for everything live (:class:`FriendsRoutes`, part of :class:`~spar_apps.web.app.TableApp`).

==========================================  ==========================================
request                                     answer
==========================================  ==========================================
``POST /api/tables``                        the form of a new game with ``people``,
                                            ``timer`` and ``name``: the table (201),
                                            ``table``, the maker's ``seat`` and ``key``,
                                            and its ``info``
``GET /api/tables/{id}``                    the table's public ``info``: the game and
                                            who sits where (an invitation's page)
``POST /api/tables/{id}/seats``             ``{"name": "Kofi"}``: a free seat (201):
                                            ``seat`` and ``key``
``WS /api/tables/{id}/live``                the seat's live connection (below)
==========================================  ==========================================

On the WebSocket the browser first sends ``{"key": KEY}`` (the key never goes in a URL,
which servers and proxies log), then the seat's actions, ``{"do": "move", "move": "KD",
"turn": 3}``, ``{"do": "next", "turn": 4}``, ``{"do": "start"}`` or ``{"do": "again"}``
(:meth:`~spar_apps.web.friends.FriendsTable.act`); ``{"lang": "fr"}`` changes its language.
The server sends ``{"type": "view", "view": ...}``, that seat's view and nothing else, at
once and after every change at the table, whoever made it (a person, a bot, the timer),
and ``{"type": "error", "error": "...", "status": 409}`` for an action refused. A bad key,
an unknown table, or a connection that sends too many messages is told why and closed
(code 4000 + the HTTP status: 4403, 4404, 4429).

The live connections are bounded, since each holds one of the process's open files: one that
has not said hello within ``Limits.hello_seconds`` (5 s) is closed (4408); past
``Limits.sockets_per_address`` open from one address (4429), or ``Limits.sockets`` from all
(4503: half of what the process's limit on open files leaves, so HTTP keeps the rest), a
new one is closed at once. Each says why in its close's reason.

A table lives while it is played: every action at it (a request, a connection's hello and
messages, a move of its timer) restarts its time to live (``Limits.ttl``), and a table with a
seat connected is kept whatever its time; it counts again from the moment the last one leaves.
A table whose last connection has left pauses after the hand in progress (no next hand is
dealt while no one is there: :attr:`~spar_apps.web.friends.FriendsTable.deserted`); the
first connection back resumes it, its timer counting from then.

The HTTP requests have the limits of the rest of the server (body size, new tables per
address as new games, the origin checks); a connection's messages are rate-limited,
each at most ``Limits.body_bytes``; a seat holds at most ``Limits.sockets_per_seat``
connections (a new one closes the oldest). Changes are made one at a time per table
(its lock), on the worker threads, and their views are sent under the same lock, so every
browser sees the table's changes in order.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import logging
from collections.abc import Callable
from typing import Any, Protocol, TypeVar

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from spar_apps.table.messages import Language, language, say
from spar_apps.web.answers import json_answer, json_object, request_language
from spar_apps.web.friends import FriendsTable, read_name, table_form
from spar_apps.web.friends_store import FriendsTables
from spar_apps.web.game_store import GameError
from spar_apps.web.limits import LimitError, Limits, RateLimiter, read_json
from spar_apps.web.lobby import Lobby


class TableApp(Protocol):
    """What the tables of friends use of the server's :class:`~spar_apps.web.app.TableApp`
    (named so, not imported: the app imports this module)."""

    lobby: Lobby
    limits: Limits
    new_games: RateLimiter
    per_game: RateLimiter

    async def _off_loop(self, work: Callable[[], T], searching: bool = False) -> T: ...


LOG = logging.getLogger("spar.serve")
T = TypeVar("T")
SEND_SECONDS = 10.0  # a browser that takes longer to take a message is dropped


class Closed(Exception):
    """The connection must end: ``code`` and the reason said to the browser."""

    def __init__(self, code: int, reason: str) -> None:
        super().__init__(reason)
        self.code = code


class FriendsRoutes:
    """The tables of friends of one server: their HTTP and WebSocket handlers, their live
    connections and their timers."""

    def __init__(self, app: TableApp, tables: FriendsTables) -> None:
        self.app = app
        self.tables = tables
        self.sockets: dict[str, dict[WebSocket, tuple[int, Language]]] = {}  # by table id
        self.open: dict[str, int] = {}  # live connections open, by address...
        self.open_count = 0  # ...and in all
        tables.held = lambda table_id: bool(self.sockets.get(table_id))
        self.timers: dict[str, asyncio.TimerHandle] = {}
        self.tasks: set[asyncio.Task] = set()  # the timers' moves under way (kept referenced)
        self.messages = RateLimiter(app.limits.message_burst, app.limits.message_rate)
        self._ids = itertools.count()

    def routes(self) -> list[BaseRoute]:
        return [
            Route("/api/tables", self.create, methods=["POST"]),
            Route("/api/tables/{table}", self.info),
            Route("/api/tables/{table}/seats", self.join, methods=["POST"]),
            WebSocketRoute("/api/tables/{table}/live", self.live),
        ]

    # ----- HTTP ----------------------------------------------------------------------------
    async def create(self, request: Request) -> Response:
        app = self.app
        app.new_games.take(request.client.host if request.client else "?", "new tables")
        form = await read_json(request, app.limits.body_bytes)
        lang = request_language(request)

        def make() -> tuple[FriendsTable, str]:  # the lobby may build an agent
            setup, game_form, people, timer, name = table_form(
                app.lobby, form, app.limits.shortest_timer
            )
            table = self.tables.new(setup, game_form, people, timer)
            return table, table.take(name)[1]

        table, key = await app._off_loop(make, app.lobby.searching(form))
        self._save(table)
        return json_answer({"table": table.id, "seat": 0, "key": key, "info": table.info(lang)},
                           201)  # fmt: skip

    async def info(self, request: Request) -> Response:
        table = self._table(request)
        return json_answer(table.info(request_language(request)))

    async def join(self, request: Request) -> Response:
        app = self.app
        app.new_games.take(request.client.host if request.client else "?", "seats taken")
        body = json_object(await read_json(request, app.limits.body_bytes))
        table = self._table(request)
        name = read_name(body.get("name"))
        async with table.busy:
            seat, key = await app._off_loop(lambda: table.take(name), table.setup.searching)
            self._save(table)
            await self._broadcast(table)
        return json_answer({"table": table.id, "seat": seat, "key": key,
                            "info": table.info(request_language(request))}, 201)  # fmt: skip

    # ----- the live connection ------------------------------------------------------------------
    async def live(self, websocket: WebSocket) -> None:
        lang = request_language(websocket)
        address = websocket.client.host if websocket.client else "?"
        refusal = self._refusal(address, lang)
        if refusal is not None:  # accepted to be told why, then closed
            with contextlib.suppress(Exception):
                await websocket.accept()
                await websocket.close(refusal.code, _reason(str(refusal)))
            return
        self.open[address] = self.open.get(address, 0) + 1  # counted before the first await
        self.open_count += 1
        connection = str(next(self._ids))
        table: FriendsTable | None = None
        try:
            await websocket.accept()
            table = self.tables.get(websocket.path_params["table"])
            hello = await self._hello(websocket, connection, lang)
            lang = _language_of(hello, lang)
            if "key" not in hello:
                raise GameError.said("friends.hello_first", 403)
            seat = table.seat_of(hello["key"])
            self._join(table, websocket, seat, lang)
            async with table.busy:
                table.back()  # a table paused with no one there resumes
                await _send(websocket, await self._view(table, seat, lang))
                self._schedule(table)
            while True:
                message = await self._receive(websocket, connection, lang)
                self._touch(table)
                if "lang" in message:
                    lang = _language_of(message, lang)
                    self._join(table, websocket, seat, lang)
                if "do" in message:
                    await self._act(table, websocket, seat, message, lang)
                elif "lang" in message:
                    async with table.busy:
                        await _send(websocket, await self._view(table, seat, lang))
        except GameError as e:
            with contextlib.suppress(Exception):
                await _send(websocket, _error(e.say(lang), e.status))
                await websocket.close(4000 + e.status)
        except Closed as e:
            with contextlib.suppress(Exception):
                await _send(websocket, _error(str(e), e.code - 4000))
                await websocket.close(e.code, _reason(str(e)))
        except (WebSocketDisconnect, RuntimeError):
            pass  # the browser left (RuntimeError: it left while a message was sent)
        finally:
            self.messages.forget(connection)
            self.open_count -= 1
            left = self.open.pop(address, 1) - 1
            if left:
                self.open[address] = left
            if table is not None:
                if self.sockets.get(table.id, {}).pop(websocket, None) is not None:
                    self._touch(table)  # its time to live counts from now
                if not self.sockets.get(table.id, True):
                    del self.sockets[table.id]
                if table.id not in self.sockets:  # no one is left: pause after this hand
                    self._schedule(table)

    def _refusal(self, address: str, lang: Language) -> Closed | None:
        """Why a new live connection from ``address`` is refused (past a cap), or None."""
        limits = self.app.limits
        if self.open.get(address, 0) >= limits.sockets_per_address:
            return Closed(4429, say("friends.too_many_here", lang, n=limits.sockets_per_address))
        if self.open_count >= limits.sockets:
            return Closed(4503, say("friends.too_many_sockets", lang))
        return None

    async def _hello(self, websocket: WebSocket, connection: str, lang: Language) -> dict:
        """The connection's first message, within ``Limits.hello_seconds``.

        Raises:
            Closed: (4408) for a connection silent that long.
        """
        seconds = self.app.limits.hello_seconds
        try:
            return await asyncio.wait_for(self._receive(websocket, connection, lang), seconds)
        except TimeoutError:
            raise Closed(4408, say("friends.no_hello", lang, n=f"{seconds:g}")) from None

    def _touch(self, table: FriendsTable) -> None:
        """An action at the table: its time to live starts again (it is the store's item)."""
        with contextlib.suppress(GameError):
            self.tables.get(table.id)

    async def _act(
        self,
        table: FriendsTable,
        websocket: WebSocket,
        seat: int,
        message: dict[str, Any],
        lang: Language,
    ) -> None:
        """A seat's action: made, kept and sent to every seat; or refused to this one."""
        async with table.busy:
            try:
                await self.app._off_loop(lambda: table.act(seat, message, lang),
                                         table.setup.searching)  # fmt: skip
            except GameError as e:
                await _send(websocket, _error(e.say(lang), e.status))
                if e.status == 409:  # the table moved on: show it as it is
                    await _send(websocket, await self._view(table, seat, lang))
                return
            self._save(table)
            await self._broadcast(table)

    def _join(self, table: FriendsTable, websocket: WebSocket, seat: int, lang: Language) -> None:
        """Count the connection among its seat's; past the cap, the seat's oldest is closed."""
        sockets = self.sockets.setdefault(table.id, {})
        sockets.pop(websocket, None)
        sockets[websocket] = (seat, lang)
        mine = [w for w, (s, _) in sockets.items() if s == seat]
        for old in mine[: max(0, len(mine) - self.app.limits.sockets_per_seat)]:
            del sockets[old]
            task = asyncio.get_running_loop().create_task(old.close(4409))
            self.tasks.add(task)
            task.add_done_callback(self.tasks.discard)

    async def _receive(self, websocket: WebSocket, connection: str, lang: Language) -> dict:
        """The connection's next message, a JSON object within the limits.

        Raises:
            Closed: for a connection past its rate; WebSocketDisconnect when it ends.
        """
        while True:
            message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                raise WebSocketDisconnect(message.get("code", 1000))
            try:
                self.messages.take(connection, "messages")
            except LimitError:
                raise Closed(4429, say("friends.too_fast", lang)) from None
            text = message.get("text")
            limit = self.app.limits.body_bytes
            if text is None or len(text) > limit:
                await _send(websocket, _error(f"a message is JSON text of at most {limit} "
                                              "bytes", 400))  # fmt: skip
                continue
            try:
                return json_object(json.loads(text))
            except (ValueError, RecursionError, LimitError) as e:
                await _send(websocket, _error(f"malformed message: {str(e)[:100]}", 400))

    # ----- every seat told ----------------------------------------------------------------
    async def _broadcast(self, table: FriendsTable) -> None:
        """Send every connection of the table its seat's view (the table's lock held), then
        set the timer for the table's next deadline."""
        sockets = dict(self.sockets.get(table.id, {}))
        wanted = set(sockets.values())

        def views() -> dict[tuple[int, Language], str]:
            return {
                (seat, lang): json.dumps({"type": "view", "view": table.view(seat, lang)})
                for seat, lang in wanted
            }

        said = await self.app._off_loop(views, table.setup.searching) if wanted else {}
        await asyncio.gather(*(_send_text(w, said[where]) for w, where in sockets.items()))
        self._schedule(table)

    def _schedule(self, table: FriendsTable) -> None:
        """Wake at the table's deadline, if it has one: the bot moves for the person away.
        A table with no seat connected is :attr:`~spar_apps.web.friends.FriendsTable.deserted`
        (it deals no next hand), whether its people left or never came."""
        table.deserted = not self.sockets.get(table.id)
        handle = self.timers.pop(table.id, None)
        if handle is not None:
            handle.cancel()
        when = table.deadline()
        if when is None:
            return
        loop = asyncio.get_running_loop()

        def wake() -> None:
            self.timers.pop(table.id, None)
            task = loop.create_task(self._time_out(table))
            self.tasks.add(task)
            task.add_done_callback(self.tasks.discard)

        self.timers[table.id] = loop.call_later(max(0.0, when - table.clock()) + 0.01, wake)

    async def _time_out(self, table: FriendsTable) -> None:
        try:
            async with table.busy:
                if await self.app._off_loop(table.timed_out, table.setup.searching):
                    self._touch(table)
                    self._save(table)
                    await self._broadcast(table)
                else:
                    self._schedule(table)  # the deadline moved: a move came first
        except Exception:
            LOG.exception("spar serve: the timer of table %s failed", table.id)

    # ----- helpers ----------------------------------------------------------------------
    async def _view(self, table: FriendsTable, seat: int, lang: Language) -> dict[str, Any]:
        """The seat's view, as a message (made on a worker: a bot may move first)."""
        view = await self.app._off_loop(lambda: table.view(seat, lang), table.setup.searching)
        return {"type": "view", "view": view}

    def _table(self, request: Request) -> FriendsTable:
        table_id = request.path_params["table"]
        table = self.tables.get(table_id)
        self.app.per_game.take(table_id, "requests to this table")
        return table

    def _save(self, table: FriendsTable) -> None:
        try:
            self.tables.save(table)
        except OSError as e:
            LOG.warning("spar serve: table %s not saved: %s", table.id, e)

    def close(self) -> None:
        for handle in self.timers.values():
            handle.cancel()


def _language_of(message: dict[str, Any], default: Language) -> Language:
    asked = message.get("lang")
    if isinstance(asked, str):
        with contextlib.suppress(ValueError):
            return language(asked[:20])
    return default


def _reason(text: str) -> str:
    """``text`` cut to fit a close's reason (123 bytes of UTF-8)."""
    cut = text.encode()[:123]
    return cut.decode(errors="ignore")


def _error(text: str, status: int) -> dict[str, Any]:
    return {"type": "error", "error": text, "status": status}


async def _send(websocket: WebSocket, message: dict[str, Any]) -> None:
    await _send_text(websocket, json.dumps(message))


async def _send_text(websocket: WebSocket, text: str) -> None:
    """Send, or drop a browser too slow to take it (it may come back with its link)."""
    try:
        await asyncio.wait_for(websocket.send_text(text), SEND_SECONDS)
    except Exception:  # a browser gone or stuck: its connection ends, the table goes on
        with contextlib.suppress(Exception):
            await websocket.close(1011)
