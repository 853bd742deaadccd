"""Silent sockets against ``spar serve``: many live connections that never say hello, the
server allowed few open files, and how fast a new player is still answered.

Starts the real command (``spar serve --port 0``, 127.0.0.1 only) allowed ``--files`` open
files (as ``ulimit -n`` would), makes one table of friends, then holds ``--sockets``
connections from ``--addresses`` loopback addresses (127.0.1.1 and on, so the cap per
address leaves most of them to the server's cap in all): each opens the table's WebSocket and
never says hello; when the server closes one, it opens again ``--reopen`` seconds later (5;
1 is a flood of about 400 connections a second here), until ``--seconds`` have passed.
Meanwhile, every ``--every`` seconds, a new player (a connection of its own) makes a new game
(``POST /api/games``, the page's default game) and plays a move.

It reports, for the new players (after one untimed, which loads the bot) before the silent
sockets come, while the server answers their first opening (``opening``: a burst of
``--sockets`` connections at once), and once every one has been answered (``during``), the time of the new game, of the move, and of both
(each on a new connection), as 50th and 99th percentiles and the largest, and any that
failed; the silent connections opened, and how each ended (closed at the hello deadline
4408, refused past the cap of an address 4429 or of all 4503, let go with no close frame for
a newer connection, dropped unanswered past the server's cap on connections, still open);
the most files the server held open (``/proc``), and the CPU it used while they came. It stops by itself: every loop is bounded by ``--seconds``.

    python benchmarks/idle_sockets.py                  # 1,000 silent sockets, ulimit -n 256
    python benchmarks/idle_sockets.py --reopen 1           # ...opened again at once: a flood
    python benchmarks/idle_sockets.py --sockets 40 --seconds 8 --files 96
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing
import os
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import serving
from figures import add_record_option, record

from spar_env.atomic import atomic_output

FORM = {"variant": "spar", "players": 4}  # the page's default game, against the shipped bot
CONNECT_SECONDS = 10.0  # a silent socket's wait for its connection and its handshake's answer
REQUEST_SECONDS = 30.0  # a new player's wait for an answer before it counts as failed
BASELINE = 5  # new players before the silent sockets come
GRACE = 60.0  # seconds the silent sockets' process may take to end once they stop


@dataclass
class Tally:
    opened: int = 0  # silent connections opened
    answered: int = 0  # silent sockets whose first connection the server has answered or ended
    shared: Any = None  # ...also told to the players' process (a multiprocessing Value)

    def heard(self) -> None:
        self.answered += 1
        if self.shared is not None:
            self.shared.value = self.answered

    ends: Counter = field(default_factory=Counter)  # how each ended: its close code, or why


@dataclass
class Player:
    game: list[float] = field(default_factory=list)  # seconds for a new game
    move: list[float] = field(default_factory=list)  # ...for a move
    both: list[float] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    since: float = field(default_factory=time.monotonic)  # when its first player came


def upgrade_request(table: str, port: int) -> bytes:
    return (
        f"GET /api/tables/{table}/live HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
        "Upgrade: websocket\r\nConnection: Upgrade\r\n"
        "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    ).encode()


def close_code(data: bytes) -> str:
    """How a silent connection ended, from all it was sent: the code of the WebSocket close
    that followed the 101 answer, else what came."""
    if not data:
        return "dropped"  # closed unanswered: past the server's cap on connections
    head, _, frames = data.partition(b"\r\n\r\n")
    if not head.startswith(b"HTTP/1.1 101"):
        return f"http {head[9:12].decode(errors='replace')}"
    while len(frames) >= 2:  # the server's frames: unmasked
        size, start = frames[1] & 0x7F, 2
        if size == 126:
            size, start = int.from_bytes(frames[2:4], "big"), 4
        elif size == 127:
            size, start = int.from_bytes(frames[2:10], "big"), 10
        if frames[0] & 0x0F == 0x8 and size >= 2:
            return str(int.from_bytes(frames[start : start + 2], "big"))
        frames = frames[start + size :]
    return "closed"  # ended with no close frame


async def silent(address: str, port: int, table: str, tally: Tally, stop: float,
                 reopen: float) -> None:  # fmt: skip
    """One silent socket, opened again whenever it is closed, until ``stop``."""
    request = upgrade_request(table, port)
    first = True
    while time.monotonic() < stop:
        writer = None
        data = b""
        try:
            reader, writer = await asyncio.wait_for(
                asyncio.open_connection("127.0.0.1", port, local_addr=(address, 0)),
                CONNECT_SECONDS,
            )
            tally.opened += 1
            writer.write(request)
            while time.monotonic() < stop:
                chunk = await asyncio.wait_for(
                    reader.read(4096), max(0.01, stop - time.monotonic())
                )
                if first:
                    tally.heard()
                    first = False
                if not chunk:
                    break
                data += chunk
            else:
                tally.ends["open at the end"] += 1
                return
            tally.ends[close_code(data)] += 1
        except TimeoutError:
            tally.ends["open at the end" if data else "no answer"] += 1
            if time.monotonic() >= stop:
                return
        except OSError as e:
            tally.ends[close_code(data) if data else f"error {e.__class__.__name__}"] += 1
        finally:
            if writer is not None:
                writer.close()
            if first:
                tally.heard()
                first = False
        await asyncio.sleep(reopen)


async def new_player(host: str, port: int, player: Player) -> None:
    """A new game and a move on a connection of its own, timed."""
    client = serving.Connection(host, port)
    began = time.perf_counter()
    try:
        status, _, body = await asyncio.wait_for(
            client.request("POST", "/api/games", FORM), REQUEST_SECONDS
        )
        made = time.perf_counter()
        if status != 201:
            player.failed.append(f"new game: {status} {body[:100]!r}")
            return
        view = json.loads(body)
        card = next(h["card"] for h in view["hand"] if h["legal"])
        path = f"/api/games/{view['game']}/move"
        status, _, body = await asyncio.wait_for(
            client.request("POST", path, {"move": card, "turn": view["turn"]}), REQUEST_SECONDS
        )
        if status != 200:
            player.failed.append(f"move: {status} {body[:100]!r}")
            return
        done = time.perf_counter()
        player.game.append(made - began)
        player.move.append(done - made)
        player.both.append(done - began)
    except (TimeoutError, ConnectionError) as e:
        player.failed.append(f"{e.__class__.__name__} after {time.perf_counter() - began:.2f} s "
                             f"at {time.monotonic() - player.since:.1f} s: {str(e)[:100]}")  # fmt: skip
    finally:
        client.close()


def silent_crowd(port: int, table: str, sockets: int, addresses: int, reopen: float,
                 stop: float, answered: Any, out: Any) -> None:  # fmt: skip
    """The silent sockets, in a process of their own (so that their loop never delays the
    players' timing): each opened from its address until ``stop``; then their tally out."""
    serving.more_files()
    tally = Tally(shared=answered)

    async def crowd() -> None:
        await asyncio.gather(*(silent(f"127.0.1.{1 + k % addresses}", port, table, tally, stop,
                                      reopen) for k in range(sockets)))  # fmt: skip

    asyncio.run(crowd())
    out.put((tally.opened, tally.ends))


async def files_of(pid: int, most: list[int], stop: float) -> None:
    """Keep in ``most[0]`` the most files process ``pid`` held open (Linux ``/proc``)."""
    folder = Path(f"/proc/{pid}/fd")
    while time.monotonic() < stop:
        with contextlib.suppress(OSError):
            most[0] = max(most[0], len(os.listdir(folder)))
        await asyncio.sleep(0.1)


async def run(url: str, pid: int, args: argparse.Namespace) -> dict:
    host, port = url.split("//")[1].rstrip("/").split(":")
    port_number = int(port)
    before, opening, during, tally = Player(), Player(), Player(), Tally()
    await new_player(host, port_number, Player())  # the bot loaded: not timed
    for _ in range(BASELINE):
        await new_player(host, port_number, before)
        await asyncio.sleep(args.every / 2)
    client = serving.Connection(host, port_number)
    status, _, body = await client.request(
        "POST", "/api/tables", {**FORM, "people": 2, "name": "Ada"}
    )
    client.close()
    if status != 201:
        raise SystemExit(f"the table was not made: {status} {body[:200]!r}")
    table = json.loads(body)["table"]
    cpu = serving.cpu_seconds(pid)
    began = time.monotonic()
    opening.since = began  # a failure says when, from the silent sockets' coming
    stop = began + args.seconds
    most = [0]
    spawn = multiprocessing.get_context("spawn")  # the silent sockets' own process and loop
    answered, out = spawn.Value("i", 0, lock=False), spawn.Queue()
    crowd = spawn.Process(target=silent_crowd, args=(port_number, table, args.sockets,
                          args.addresses, args.reopen, stop, answered, out))  # fmt: skip
    crowd.start()
    watch = asyncio.create_task(files_of(pid, most, stop))
    await asyncio.sleep(min(0.5, args.every))  # the silent sockets come first
    while answered.value < args.sockets and time.monotonic() + args.every < stop:
        await new_player(host, port_number, opening)  # while the server answers them
        await asyncio.sleep(args.every)
    during.since = time.monotonic()
    while time.monotonic() + args.every < stop:
        await new_player(host, port_number, during)  # every one of them opened and answered
        await asyncio.sleep(args.every)
    await watch
    tally.opened, tally.ends = await asyncio.to_thread(out.get, True, GRACE + args.seconds)
    crowd.join(GRACE)
    used = serving.cpu_seconds(pid)
    cpu_share = None if cpu is None or used is None else (used - cpu) / (time.monotonic() - began)
    return {
        "sockets": args.sockets,
        "addresses": args.addresses,
        "files": args.files,
        "seconds": args.seconds,
        "before": summary(before),
        "opening": summary(opening),
        "during": summary(during),
        "silent_opened": tally.opened,
        "silent_ends": dict(tally.ends.most_common()),
        "server_most_files": most[0],
        "server_cpu_per_second": cpu_share,
    }


def summary(player: Player) -> dict:
    return {
        "players": len(player.both) + len(player.failed),
        "failed": len(player.failed),
        "failures": player.failed[:5],
        "game_ms": serving.spread(player.game, (50, 99)),
        "move_ms": serving.spread(player.move, (50, 99)),
        "both_ms": serving.spread(player.both, (50, 99)),
    }


def show(figures: dict) -> None:
    print(f"{figures['sockets']} silent sockets from {figures['addresses']} addresses, "
          f"spar serve allowed {figures['files']} open files, {figures['seconds']:g} s")  # fmt: skip
    for when in ("before", "opening", "during"):
        part = figures[when]
        print(f"  new players {when:7}  {part['players']} ({part['failed']} failed)")
        for what in ("game", "move", "both"):
            if part[f"{what}_ms"]:
                print(f"    {what:4} p50 / p99 / max  {serving.spread_text(part[f'{what}_ms'])}")
        for failure in part["failures"]:
            print(f"    failed: {failure}")
    print(f"  silent connections opened {figures['silent_opened']}; how they ended: "
          f"{figures['silent_ends']}")  # fmt: skip
    print(f"  the server held at most {figures['server_most_files']} open files", end="")
    share = figures["server_cpu_per_second"]
    print("" if share is None else f", and used {share:.2f} CPU seconds a second")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.partition("\n\n")[0])
    p.add_argument("--sockets", type=int, default=1000, help="silent sockets held (1000)")
    p.add_argument("--addresses", type=int, default=100, help="loopback addresses they come "
                   "from (100; at most 254)")  # fmt: skip
    p.add_argument("--files", type=int, default=256, help="the server's limit on open files "
                   "(256, as ulimit -n 256)")  # fmt: skip
    p.add_argument("--seconds", type=float, default=20.0, help="how long they are held (20)")
    p.add_argument("--every", type=float, default=0.5, help="seconds between new players (0.5)")
    p.add_argument("--reopen", type=float, default=5.0,
                   help="seconds before a closed silent socket opens again (5)")  # fmt: skip
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", type=Path, help="also write the figures here")
    add_record_option(p)
    args = p.parse_args(argv)
    if not (1 <= args.sockets <= 10_000 and 1 <= args.addresses <= 254 and args.files >= 32
            and args.seconds > 0 and args.every > 0 and args.reopen >= 0):  # fmt: skip
        p.error("--sockets 1..10000, --addresses 1..254, --files at least 32, and positive "
                "--seconds and --every")  # fmt: skip
    cores = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else set()
    server_cores = {min(cores)} if len(cores) > 1 else None  # else: both share it
    options = ["--port", str(serving.free_port())]
    server, url = serving.start_server(args.seed, options, server_cores, files=args.files)
    if url is None:
        return 1
    if server_cores is not None:
        serving.pin(cores - server_cores)
    try:
        figures = asyncio.run(run(url, server.pid, args))
    finally:
        with contextlib.suppress(Exception):
            serving.stop_server(server)
    show(figures)
    if args.json:
        with atomic_output(args.json) as f:
            f.write(json.dumps(figures, indent=2) + "\n")
    during = figures["during"]
    if args.record and during["both_ms"]:
        record(f"{args.record}.max_ms", round(during["both_ms"]["max"], 1), None, decimals=1,
               what=f"the slowest new game and first move (milliseconds, new connection each) "
               f"while {args.sockets} WebSockets that never say hello are held (each opened "
               f"again {args.reopen:g} s after the server closes it) against one spar serve "
               f"allowed {args.files} open files, once all have opened (target: under 1000)")  # fmt: skip
    failed = sum(figures[when]["failed"] for when in ("before", "opening", "during"))
    return 0 if during["players"] and not failed else 1


if __name__ == "__main__":
    sys.exit(main())
