"""``spar serve``: play against the bots in the browser, at a table served on this machine.

Serves one page: your hand as cards, the trick in progress, each seat's plays
(face-down ones as backs), the scores, what just happened, the end of each
hand with every dealt hand, a hint with the bot's probabilities, and a form
for a new game (variant, players, opponents, session target, options). The
game runs on the server, on the same table, agents and records as
``spar play``; the page is sent only what your seat may see. Each browser tab
plays its own game.

It listens on 127.0.0.1 (this machine only) unless --host says otherwise, and
prints the address to open. --port 0 takes a free port. Listening on another
address (0.0.0.0: every address of this machine) lets other machines play:
it warns so, and answers only the Host names of this machine and those of
--allow-host. Behind a reverse proxy, --proxy ADDRESS trusts that proxy's
X-Forwarded-For (the per-address limits then count the players, not the
proxy); without it no forwarded header is trusted. The opponents the page
offers are the shipped bot, heuristic, search (the strongest, slowest bot)
and pimc, and the specs given with --opponents (each built once at start: a
spec that cannot play is refused before the server starts); the searching
opponents (search and pimc, also as --opponents specs such as
pimc:worlds=3000) think at most --think seconds a move. --set changes a
ruleset field of every game; a game keeps the fields it was made with, even
when the server is started again with others.

Bots move on worker threads (--workers, default the cores), so a slow
opponent delays only its own game; a server full of games, or with too many
bot moves waiting, answers 503 at once. --state DIR keeps every game on
disk after each move, and a server started again on DIR takes up the
unfinished games where they were: a player's page carries on. DIR is the
server's own: a new or empty folder (or one of an earlier spar serve), with
games/, tables/ and records/ inside; it never follows a link there, and a
folder holding files of another is refused, untouched.

A table of friends (the page's "Play with friends") seats several people and
the bots: its maker sends the invitation link, each friend who opens it takes a
free seat, and every browser sees its own seat's cards, live (a WebSocket). A
person away past the table's turn timer has the bot move for them. With --state
DIR the tables survive a restart too, and every finished hand of a table is
written to DIR/records/ as a game record saying which seats were people
(spar replay and spar review read them).

    spar serve                                  # then open http://127.0.0.1:8000/
    spar serve --port 8080 --opponents random ppo:runs/spar4
    spar serve --state ~/.spar-games --think 1
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import socket
import sys
import threading

from spar_apps.cli.arguments import add_command, nonempty_path, positive_seconds, seed

DEFAULT_PORT = 8000
# How often Python hands its lock between the event loop and the bots' worker threads: the
# default 5 ms made a move wait for several hand-overs (benchmarks/README.md, The web table).
SWITCH_SECONDS = 0.0005


def register(subparsers: argparse._SubParsersAction) -> None:
    p = add_command(subparsers, "serve", "play against the bots in the browser", __doc__)
    p.add_argument("--host", default="127.0.0.1", help="address to listen on")
    p.add_argument("--port", type=int, default=DEFAULT_PORT, help="port (0: any free port)")
    p.add_argument(
        "--opponents",
        nargs="+",
        default=[],
        metavar="AGENT",
        help="agent specs the page offers as opponents, besides the shipped bot, heuristic and pimc",
    )
    p.add_argument(
        "--set",
        dest="overrides",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="change a ruleset field of every game, e.g. weak_hand_exchange=true (repeatable)",
    )
    p.add_argument("--seed", type=seed, help="seed of the deals of the games, in order")
    p.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="NAME",
        help="a Host name to answer besides this machine's own, when --host is not loopback "
        "(repeatable)",
    )
    p.add_argument(
        "--state",
        type=nonempty_path,
        metavar="DIR",
        help="keep every game in this folder, so that a restart loses none: the unfinished "
        "games are taken up on start (default: games live in memory only)",
    )
    p.add_argument(
        "--think",
        type=positive_seconds,
        metavar="SECONDS",
        help="the most the searching opponents (search, pimc, and --opponents specs of theirs) "
        "think about one move (default: 2)",
    )
    p.add_argument(
        "--workers",
        type=int,
        metavar="N",
        help="bot moves computed at once, off the server's event loop (default: the cores)",
    )
    p.add_argument(
        "--max-games",
        type=int,
        metavar="N",
        help="games held at once; a new game past them is answered 503 (default: 1000)",
    )
    p.add_argument(
        "--max-tables",
        type=int,
        metavar="N",
        help="tables of friends held at once; a new one past them is answered 503 (default: 500)",
    )
    p.add_argument(
        "--proxy",
        metavar="ADDRESS",
        help="the address of a reverse proxy whose X-Forwarded-For is trusted (default: none)",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        import uvicorn

        from spar_apps.web import Limits, Lobby, create_app
        from spar_apps.web.saved import GameFolder
    except ImportError as e:
        raise ValueError(f'spar serve needs the web extra: pip install -e ".[web]" ({e})') from None
    from spar_agents.registry import agent_names, parse_spec
    from spar_agents.shipped import default_bot_specs
    from spar_apps.cli.overrides import ruleset_overrides

    if not 0 <= args.port <= 65535:
        raise ValueError(f"--port must be 0..65535; got {args.port}")
    for spec in args.opponents:
        if parse_spec(spec)[0] not in agent_names():
            raise ValueError(
                f"--opponents {spec}: unknown agent; known agents: {', '.join(agent_names())}"
            )
        _check_opponent(spec)
    overrides = ruleset_overrides(args.overrides)
    if "players" in overrides:
        raise ValueError("--set players: the page chooses the player count of each game")
    limits = Limits()
    if args.workers is not None:
        if not 1 <= args.workers <= 256:
            raise ValueError(f"--workers must be 1..256; got {args.workers}")
        limits = dataclasses.replace(limits, workers=args.workers)
    if args.max_games is not None:
        if not 1 <= args.max_games <= 1_000_000:
            raise ValueError(f"--max-games must be 1..1000000; got {args.max_games}")
        limits = dataclasses.replace(limits, games=args.max_games)
    if args.max_tables is not None:
        if not 1 <= args.max_tables <= 100_000:
            raise ValueError(f"--max-tables must be 1..100000; got {args.max_tables}")
        limits = dataclasses.replace(limits, tables=args.max_tables)
    think = {} if args.think is None else {"think": args.think}
    lobby = Lobby(default_bot_specs(), args.opponents, overrides, **think)
    if not any(lobby.variants.values()):
        raise ValueError(f"--set {' '.join(args.overrides)}: {_why_no_variant(overrides)}")
    folder = None if args.state is None else GameFolder(args.state)  # refused if in use
    app = create_app(lobby, limits, allowed_hosts=allowed_hosts(args.host, args.allow_host),
                     seed=args.seed, folder=folder)  # fmt: skip
    if app.state.restored:
        print(f"spar serve: {app.state.restored} unfinished games and tables taken up from "
              f"{args.state}",
              flush=True)  # fmt: skip
    sys.setswitchinterval(SWITCH_SECONDS)
    # The searching bots' compiled kernels, loaded before a player's first move waits on them.
    warm = threading.Thread(target=lobby.warm, name="warm", daemon=True)
    warm.start()
    listener = _listen(args.host, args.port)
    host, port = listener.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host

    def announce() -> None:
        print(f"spar serve: the table is at http://{shown}:{port}/ (Ctrl-C stops the server)",
              flush=True)  # fmt: skip
        if not _loopback(args.host):
            print(f"spar serve: warning: listening on {args.host}: every machine that can reach "
                  "this one may play here, and the games are not private",
                  file=sys.stderr, flush=True)  # fmt: skip

    server = _announcing_server(uvicorn)(server_config(uvicorn, app, args.proxy), announce)
    with contextlib.suppress(KeyboardInterrupt):  # Ctrl-C is the way to stop it
        server.run(sockets=[listener])
    if warm.is_alive():  # a native thread pool torn down mid-decision aborts the process
        print("spar serve: letting the bots' warm-up end", file=sys.stderr, flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            warm.join()
    print("spar serve: stopped", file=sys.stderr)
    return 0


def _announcing_server(uvicorn):
    """A uvicorn server that announces the table once it serves: by then its Ctrl-C handler
    is in place, so a Ctrl-C sent on seeing the address stops it (one sent before would land
    in no handler and could be lost)."""

    class AnnouncingServer(uvicorn.Server):
        def __init__(self, config, announce) -> None:
            super().__init__(config)
            self._announce = announce

        async def startup(self, sockets=None) -> None:
            await super().startup(sockets=sockets)
            self._announce()

    return AnnouncingServer


def server_config(uvicorn, app, proxy: str | None, header_seconds: float | None = None):
    """uvicorn's settings: no forwarded header trusted unless ``proxy`` names the proxy, a
    deadline on request headers (:mod:`spar_apps.web.deadline`; default 10 s), the
    connections capped below the process's limit on open files, and a WebSocket's closing
    cut short."""
    from spar_apps.web.deadline import HEADER_SECONDS, closing_protocol, deadline_protocol
    from spar_apps.web.limits import connection_cap

    if header_seconds is None:
        header_seconds = HEADER_SECONDS
    return uvicorn.Config(
        app, log_level="warning", access_log=False, lifespan="off", ws=closing_protocol(),
        ws_max_size=16_384, ws_per_message_deflate=False,  # the tables' small JSON messages
        proxy_headers=proxy is not None, forwarded_allow_ips=proxy or "",
        http=deadline_protocol(header_seconds, connection_cap()),
    )  # fmt: skip  # httptools and uvloop (the web extra) where installed, else h11 and asyncio


def _loopback(host: str) -> bool:
    return host in ("localhost", "127.0.0.1", "::1") or host.startswith("127.")


def allowed_hosts(host: str, extra: list[str]) -> list[str]:
    """The Host headers to answer (against DNS rebinding): the address listened on and
    localhost; on every address (0.0.0.0, ::), this machine's names and addresses too; and
    the names of ``--allow-host``."""
    names = {host, "localhost", "127.0.0.1", *extra}
    if host in ("0.0.0.0", "::", ""):
        names.discard(host)
        names |= {socket.gethostname(), socket.getfqdn()}
        with contextlib.suppress(OSError):
            names |= {info[4][0] for info in socket.getaddrinfo(socket.gethostname(), None)}
    return sorted(names | {f"[{n}]" for n in names if ":" in n})


def _check_opponent(spec: str) -> None:
    """Build the agent of ``spec`` once (for the game its file was made for, else 4-player
    spar), so that a spec that cannot play is refused at start, not by a player's new game."""
    from spar_agents.registry import AgentSpec, make_agent
    from spar_env.rules import make_rules

    try:
        parsed = AgentSpec(spec)  # read once: its game, then its agent
        make_agent(parsed, parsed.game or make_rules("spar"))
    except (ValueError, OSError) as e:
        raise ValueError(f"--opponents {spec}: {e}") from None


def _why_no_variant(overrides: dict) -> str:
    """Why no variant takes ``overrides``: the default game's own reason, when it has one of
    its own (a value no game takes, such as ``ace_of_spades=maybe``)."""
    from spar_env.rules import make_rules

    try:
        make_rules("spar", **overrides)
    except (TypeError, ValueError) as e:
        return f"no variant can be played with it ({e})"
    return "no variant can be played with it"


def _listen(host: str, port: int) -> socket.socket:
    """A listening socket (so that the address printed is the one bound, even for port 0)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    listener = socket.socket(family, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listener.bind((host, port))
    except OSError as e:
        listener.close()
        raise ValueError(f"cannot listen on {host}:{port}: {e.strerror}") from None
    listener.listen(512)
    listener.set_inheritable(True)
    return listener
