"""The web table's HTTP interface: a Starlette app over a :class:`~spar_apps.web.lobby.Lobby`
and a :class:`~spar_apps.web.store.GameStore`, whose handlers are the methods of one
:class:`TableApp`.

==========================================  ======================================
request                                     answer
==========================================  ======================================
``GET /``                                   the page (``static/index.html``)
``GET /static/table.css``, ``table.js``     the page's style and scripts (``friends.js``: the
                                            tables of friends)
``GET /static/favicon.svg``                 the page's icon
``GET /favicon.ico``                        the same icon, for clients that ask for it
``GET /api/messages``                       the page's message catalogue (``messages``)
                                            and its ``language``; ``languages`` offered
``GET /api/offer``                          what a new game may be (``Lobby.offer``)
``GET /api/rules?variant=sipa&players=3``   the rules of a game before it starts
``POST /api/games`` (the form)              a new game: its view (201)
``GET /api/games/{id}``                     the game's view
``POST /api/games/{id}/move``               ``{"move": "KD", "turn": 3}``: play, then the view
``POST /api/games/{id}/next``               ``{"turn": 4}``: deal the next hand, then the view
``GET /api/games/{id}/hint``                the bot's probabilities for the person's move
``GET /api/games/{id}/records``             the finished hands' records (JSONL download)
``GET /api/games/{id}/review``              the review of the hand just over, by search
``GET /api/games/{id}/report``              the session's mistakes by kind
``/api/tables/...``                         the tables of friends (:mod:`spar_apps.web.live`)
==========================================  ======================================

Every answer speaks the request's language: ``?lang=fr``, else the browser's
``Accept-Language``, else English (:mod:`spar_apps.table.messages`); the page keeps no
sentence of its own but fills the catalogue's templates.

Every error is JSON, ``{"error": "one line saying why"}``, with its status:
400 a bad move or form, 404 an unknown or expired game, 409 a move out of
turn, 413 a body too big, 429 too many requests, 503 a full server, and 500
(with no traceback) for a fault of the server, which is logged. The static
files are read once from the package (:mod:`importlib.resources`), so a
request can name only those; the page gets a strict Content-Security-Policy.
A review is searched on the searching bots' workers.
Handlers run on the event loop; a game's work (the bots' moves and the view)
runs on a pool of worker threads (``Limits.workers``; the games against a
searching bot on a pool of their own, ``Limits.search_workers``), so a slow
bot delays only the games of its pool, and each game is moved by one request
at a time (its lock). Past ``Limits.queue`` requests waiting for a worker, a request is
answered 503 ("the table is busy") at once. A move's answer has a
``Server-Timing`` header: the milliseconds it took (waiting for a worker,
the bots' moves and the view), without the HTTP.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from importlib import resources
from typing import Any, TypeVar
from urllib.parse import urlsplit

import anyio
import anyio.to_thread
from starlette.applications import Starlette
from starlette.datastructures import Headers
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from spar_apps.table.messages import (
    LANGUAGES,
    Language,
    catalogue,
    say,
)
from spar_apps.web.answers import (
    HEADERS,
    error_answer,
    json_answer,
    json_object,
    request_language,
)
from spar_apps.web.friends_store import FriendsTables
from spar_apps.web.game_store import GameError, WebGame
from spar_apps.web.limits import LimitError, Limits, RateLimiter, read_json
from spar_apps.web.live import FriendsRoutes
from spar_apps.web.lobby import FormError, Lobby
from spar_apps.web.saved import GameFolder
from spar_apps.web.store import GameStore

LOG = logging.getLogger("spar.serve")
T = TypeVar("T")
STATIC = {
    "index.html": "text/html",
    "table.css": "text/css",
    "table.js": "text/javascript",
    "friends.js": "text/javascript",
    "favicon.svg": "image/svg+xml",
}


def static_files() -> dict[str, bytes]:
    """The page's files, from the package."""
    folder = resources.files("spar_apps.web") / "static"
    return {name: (folder / name).read_bytes() for name in STATIC}


def create_app(
    lobby: Lobby,
    limits: Limits | None = None,
    *,
    allowed_hosts: list[str] | None = None,
    seed: int | None = None,
    folder: GameFolder | None = None,
) -> Starlette:
    """The app: ``lobby`` says what games may be, ``limits`` how many and how fast
    (:class:`TableApp` answers its requests).

    Args:
        allowed_hosts: the Host headers answered (against DNS rebinding); all if None.
        seed: fixes the deals of the games, in the order they are made.
        folder: keeps every game on disk after each change, and takes up the unfinished
            ones of an earlier server on start (:mod:`spar_apps.web.saved`).
    """
    return TableApp(lobby, limits or Limits(), seed=seed, folder=folder).starlette(allowed_hosts)


class TableApp:
    """The web table's games, its pools of worker threads and its rate limits, with a method
    for each request of the module docstring's table.

    Args:
        lobby: what games may be.
        limits: how many games, how fast, how many worker threads.
        seed: fixes the deals of the games, in the order they are made.
        folder: where the games are kept on disk (:mod:`spar_apps.web.saved`), if anywhere.
    """

    def __init__(
        self,
        lobby: Lobby,
        limits: Limits,
        *,
        seed: int | None = None,
        folder: GameFolder | None = None,
    ) -> None:
        self.lobby = lobby
        self.limits = limits
        self.store = GameStore(limits.games, limits.ttl, folder=folder)
        if seed is not None:
            self.store.seed_with(seed)
        self.restored = self.store.restore(lobby.setup)  # games taken up from the folder
        self.tables = FriendsTables(limits.tables, limits.ttl, folder,
                                    shortest_timer=limits.shortest_timer)  # fmt: skip
        if seed is not None:
            self.tables.seed_with(seed)
        self.restored += self.tables.restore(lobby.setup)
        self.friends = FriendsRoutes(self, self.tables)
        self.workers = anyio.CapacityLimiter(limits.workers)
        self.search_workers = anyio.CapacityLimiter(limits.search_workers)
        self.per_game = RateLimiter(limits.game_burst, limits.game_rate)
        self.new_games = RateLimiter(limits.new_burst, limits.new_rate)
        self.files = static_files()

    def starlette(self, allowed_hosts: list[str] | None = None) -> Starlette:
        """The Starlette app of these handlers, behind the origin (and Host) checks."""
        middleware = [Middleware(SameOrigin)]
        if allowed_hosts is not None:
            middleware.insert(0, Middleware(HostCheck, allowed_hosts=allowed_hosts))
        app = Starlette(
            routes=self.routes(),
            middleware=middleware,
            exception_handlers={
                GameError: self.refused,
                LimitError: self.refused,
                FormError: self.refused,
                HTTPException: self.refused,
                Exception: self.fault,
            },
        )
        app.state.store = self.store  # for tests and the benchmark: the games, by id
        app.state.tables = self.tables  # ...and the tables of friends
        app.state.restored = self.restored  # games taken up from the folder on start
        app.state.workers = self.workers  # the pool of bot moves (its statistics, for tests)
        return app

    def routes(self) -> list[BaseRoute]:
        return [
            Route("/", self.page),
            Route("/static/{name}", self.static),
            Route(
                "/favicon.ico", self.icon
            ),  # for clients that ask without reading the page's link
            Route("/api/messages", self.messages),
            Route("/api/offer", self.offer),
            Route("/api/rules", self.rules),
            Route("/api/games", self.new_game, methods=["POST"]),
            Route("/api/games/{game}", self.show),
            Route("/api/games/{game}/move", self.move, methods=["POST"]),
            Route("/api/games/{game}/next", self.next_hand, methods=["POST"]),
            Route("/api/games/{game}/hint", self.hint),
            Route("/api/games/{game}/records", self.records),
            Route("/api/games/{game}/review", self.review),
            Route("/api/games/{game}/report", self.report),
            *self.friends.routes(),
        ]

    # ----- the page ---------------------------------------------------------------------
    async def page(self, request: Request) -> Response:
        return _file(self.files, "index.html")

    async def static(self, request: Request) -> Response:
        name = request.path_params["name"]
        if name not in self.files or name == "index.html":
            return error_answer(404, f"no such file: {name}")
        return _file(self.files, name)

    async def icon(self, request: Request) -> Response:
        return _file(self.files, "favicon.svg")

    async def messages(self, request: Request) -> Response:
        lang = request_language(request)
        names = {code: say("language.name", code) for code in LANGUAGES}
        return json_answer({"language": lang, "languages": names, "messages": catalogue(lang)})

    async def offer(self, request: Request) -> Response:
        return json_answer(self.lobby.offer(request_language(request)))

    async def rules(self, request: Request) -> Response:
        form = {k: v for k, v in request.query_params.items() if k != "lang"}
        return json_answer(self.lobby.rules(form, request_language(request)))

    # ----- the games --------------------------------------------------------------------
    async def new_game(self, request: Request) -> Response:
        self.new_games.take(request.client.host if request.client else "?", "new games")
        form = await read_json(request, self.limits.body_bytes)
        lang = request_language(request)
        game_id, seed = self.store.reserve()
        try:

            def make() -> WebGame:  # the lobby may build an agent, and the bots move first
                return WebGame(game_id, self.lobby.setup(form), seed, json_object(form))

            game = await self._off_loop(make, self.lobby.searching(form))
        except BaseException:
            self.store.cancel()
            raise
        self.store.add(game)
        lang = request_language(request)
        async with game.busy:
            return json_answer(
                await self._off_loop(lambda: self._kept(game, lang), game.setup.searching), 201
            )

    async def show(self, request: Request) -> Response:
        game, lang = self._game(request), request_language(request)
        async with game.busy:
            return json_answer(await self._off_loop(lambda: game.view(lang), game.setup.searching))

    async def move(self, request: Request) -> Response:
        """``{"move": "KD", "turn": 3}``: the person's move, then the view."""
        return await self._change(request, _play)

    async def next_hand(self, request: Request) -> Response:
        """``{"turn": 4}``: the session's next hand, then the view."""
        return await self._change(request, _deal)

    async def hint(self, request: Request) -> Response:
        game, lang = self._game(request), request_language(request)
        async with game.busy:
            return json_answer(await self._off_loop(lambda: game.hint(lang), game.setup.searching))

    async def records(self, request: Request) -> Response:
        game = self._game(request)
        return Response(
            game.records_jsonl(),
            media_type="application/x-ndjson",
            headers={**HEADERS, "Content-Disposition": 'attachment; filename="spar-records.jsonl"'},
        )

    async def review(self, request: Request) -> Response:
        """The review of the hand just over: a search of every decision, on the searching
        bots' workers (it takes a second or two)."""
        game = self._game(request)
        language = request_language(request)
        async with game.busy:
            return json_answer(await self._off_loop(lambda: game.review(language), True))

    async def report(self, request: Request) -> Response:
        """The session report: every finished hand reviewed (once), its mistakes by kind."""
        game = self._game(request)
        language = request_language(request)
        async with game.busy:
            return json_answer(await self._off_loop(lambda: game.report(language), True))

    # ----- errors -----------------------------------------------------------------------
    async def refused(self, request: Request, exc: Exception) -> Response:
        if isinstance(exc, GameError):
            return error_answer(exc.status, exc.say(request_language(request)))
        if isinstance(exc, LimitError):
            return error_answer(exc.status, str(exc))
        if isinstance(exc, FormError):
            return error_answer(400, exc.say(request_language(request)))
        assert isinstance(exc, HTTPException)
        if exc.status_code == 404:
            return error_answer(404, f"not found: {request.url.path}")
        return error_answer(exc.status_code, exc.detail)

    async def fault(self, request: Request, exc: Exception) -> Response:
        LOG.exception("%s %s failed", request.method, request.url.path, exc_info=exc)
        return error_answer(500, "the server failed on this request (its log says why)")

    # ----- helpers ----------------------------------------------------------------------
    async def _change(
        self, request: Request, change: Callable[[WebGame, dict[str, Any], Language], None]
    ) -> Response:
        """Apply ``change(game, body, language)`` to the request's game on a worker thread,
        one request at a time, then keep the game and answer its view, timed
        (``Server-Timing``)."""
        game, lang = self._game(request), request_language(request)
        body = json_object(await read_json(request, self.limits.body_bytes))
        async with game.busy:
            start = time.perf_counter()

            def work() -> dict[str, Any]:
                change(game, body, lang)
                return self._kept(game, lang)

            return json_answer(await self._off_loop(work, game.setup.searching), timed=start)

    def _game(self, request: Request) -> WebGame:
        """The request's game, once its rate allows another request."""
        game_id = request.path_params["game"]
        game = self.store.get(game_id)
        self.per_game.take(game_id, "requests to this game")
        return game

    def _kept(self, game: WebGame, lang: Language) -> dict[str, Any]:
        """After a change: keep the game on disk, and its view. A change is made before it is
        saved, so a save that fails (a full disk) does not undo it: the game goes on in
        memory, and the view's ``warning`` says a restart would lose it."""
        view = game.view(lang)
        try:
            self.store.save(game)
        except OSError as e:
            LOG.warning("spar serve: game %s not saved: %s", game.id, e)
            view["warning"] = say("error.not_saved", lang, why=e.strerror or e)
        return view

    async def _off_loop(self, work: Callable[[], T], searching: bool = False) -> T:
        """``work`` (bots' moves, a view) on a worker thread, so that a slow bot delays only
        the games of its pool (the searching bots have their own); refused (503) when too
        many already wait for a worker."""
        pool = self.search_workers if searching else self.workers
        if pool.statistics().tasks_waiting >= self.limits.queue:
            raise LimitError(
                "the table is busy: too many bot moves are waiting; try again in a few seconds",
                503,
            )
        return await anyio.to_thread.run_sync(work, limiter=pool)


def _play(game: WebGame, body: dict[str, Any], lang: Language) -> None:
    game.move(body.get("move"), body.get("turn"), lang)


def _deal(game: WebGame, body: dict[str, Any], lang: Language) -> None:
    game.next_hand(body.get("turn"), lang)


_HOST_ACCEPTED = "spar.host_accepted"  # set in the request's scope by the check's inner app


class HostCheck:
    """Starlette's Host check (against DNS rebinding), with its refusal answered as JSON like
    every other error of the server."""

    def __init__(self, app: ASGIApp, allowed_hosts: list[str]) -> None:
        self.app = app
        self.check = TrustedHostMiddleware(_accept, allowed_hosts, www_redirect=False)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket"):
            await self.check(scope, receive, _discard)  # calls _accept, or answers to nobody
            if not scope.pop(_HOST_ACCEPTED, False):
                message = "invalid Host header: this server answers for its own names only"
                await _refuse(scope, receive, send, 400, message)
                return
        await self.app(scope, receive, send)


class SameOrigin:
    """Requests that change state (every method but GET and HEAD, and every WebSocket) come
    from the page itself: a cross-site ``Sec-Fetch-Site`` or an ``Origin`` of another host is
    refused (403; a WebSocket is closed before it opens), and a body (POST, PUT, PATCH) that is
    not declared JSON is refused (415), so that no other web page a player visits can drive
    the server with the plain form posts browsers send without asking, nor open a seat's
    connection with the player's cookies or address."""

    SAFE = ("GET", "HEAD")

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        websocket = scope["type"] == "websocket"
        if websocket or (scope["type"] == "http" and scope["method"] not in self.SAFE):
            refusal = _cross_origin(Headers(scope=scope), scope.get("method", "WEBSOCKET"))
            if refusal is not None:
                await _refuse(scope, receive, send, *refusal)
                return
        await self.app(scope, receive, send)


def _cross_origin(headers: Headers, method: str) -> tuple[int, str] | None:
    """Why a state-changing request is refused (status, message), or ``None``."""
    site = headers.get("sec-fetch-site")
    if site is not None and site not in ("same-origin", "none"):
        return 403, f"a request from another site is refused (Sec-Fetch-Site: {site})"
    origin = headers.get("origin")
    if origin is not None and urlsplit(origin).netloc.lower() != headers.get("host", "").lower():
        return 403, f"a request from another origin is refused (Origin: {origin[:100]})"
    kind = headers.get("content-type", "").partition(";")[0].strip().lower()
    if method in ("POST", "PUT", "PATCH") and kind != "application/json":
        return 415, "the body must be JSON, sent with Content-Type: application/json"
    return None


async def _refuse(scope: Scope, receive: Receive, send: Send, status: int, message: str) -> None:
    """Answer a request with an error; close a WebSocket before it opens (the browser sees
    the handshake refused, 403)."""
    if scope["type"] == "websocket":
        await send({"type": "websocket.close", "code": 1008, "reason": message[:120]})
        return
    await error_answer(status, message)(scope, receive, send)


async def _accept(scope: Scope, receive: Receive, send: Send) -> None:
    scope[_HOST_ACCEPTED] = True


async def _discard(message: Message) -> None:
    pass


def _file(files: dict[str, bytes], name: str) -> Response:
    return Response(files[name], media_type=STATIC[name], headers=HEADERS)
