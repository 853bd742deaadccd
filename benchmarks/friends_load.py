"""Load on the tables of friends of ``spar serve``: many tables of four people at once, each
person on a WebSocket of their own, the server on one core. Needs the ``web`` extra.

Starts the real command (``spar serve --port 0``, 127.0.0.1 only) pinned to one core, and
this process (the people) on the other cores. It makes ``--tables`` tables of 4-player
spar, every seat a person's (so no bot moves: the shipped bot, the form's default, would
only stand in for a person past the turn timer, which no one here reaches), each person
taking the seat over HTTP from an address of their own (``X-Forwarded-For``, trusted from
127.0.0.1 with ``--proxy``: the server limits new tables and seats per address) and
connecting a WebSocket (:mod:`spar_apps.web.live`). Once every table is seated, the people
play: each moves a random legal card ``--think`` seconds (uniform within a third of it) after
the view that says it is their turn arrives, the maker deals each next hand and starts
another match at a match's end, until each table has made ``--moves`` moves or
``--time-limit`` seconds have passed. ``--think 0`` moves at once: the server's throughput
(each person still sends at most the server's message rate, 20 a second, as no person
types faster).

For every move it measures the time from the moment the mover sends it to the moment each
other person of the table receives the view that holds it (the first view of a later
``turn``), and reports their 50th, 90th and 99th percentiles and the largest; the moves
made, the messages received, errors (an error message, a dropped connection, a move whose
view never came), views that arrived out of order (a seat's ``(match, turn)`` going back),
and the CPU each process used.

    python benchmarks/friends_load.py --tables 200 --think 1.5
    python benchmarks/friends_load.py --tables 200 --think 0     # as fast as the server goes
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import sys
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import serving
from figures import add_record_option, record
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from spar_apps.web.limits import Limits
from spar_env.atomic import atomic_output

PEOPLE = 4  # 4-player spar, every seat a person's
POINTS = (50, 90, 99)
SETUP_AT_ONCE = 16  # tables being made and seated at once
GRACE = 30.0  # seconds the last moves' views may take to arrive once the run stops
Key = tuple[int, int]  # a view's place in the table's story: (match, turn)


@dataclass
class Action:
    """A message a person sent to change the table, made at the view of ``key``."""

    key: Key
    sent: float  # perf_counter when it was sent
    seat: int
    kind: str  # move, next or again
    refused: bool = False


@dataclass
class Tally:
    moves: int = 0  # moves sent
    sent: dict[str, int] = field(default_factory=dict)  # actions sent by kind (move, next, again)
    messages: int = 0  # messages received
    views: int = 0
    latency: list[float] = field(default_factory=list)  # seconds, a move to another person
    own: list[float] = field(default_factory=list)  # seconds, a move to its mover's view
    errors: list[str] = field(default_factory=list)
    out_of_order: int = 0
    lost: int = 0  # (action, person) pairs whose view never came


class Person:
    """One seat's browser: its WebSocket, its last view, and how far it has seen the table."""

    def __init__(self, table: Table, seat: int, socket: ClientConnection, rng) -> None:
        self.table, self.seat, self.socket, self.rng = table, seat, socket, rng
        self.view: dict[str, Any] | None = None
        self.last: Key = (-1, -1)  # the latest view's key
        self.answered: Key | None = None  # the view it last acted on
        self.seen = 0  # the table's actions before this index are in a view it received
        self.sent_at = -1.0  # when it last sent (its messages kept under the server's rate)
        self.closing = False


@dataclass
class Table:
    id: str
    people: list[Person] = field(default_factory=list)
    actions: list[Action] = field(default_factory=list)  # in the order sent
    moves: int = 0  # moves sent


class Run:
    """The people of every table, playing; what they saw kept in ``tally``."""

    def __init__(self, args: argparse.Namespace, tally: Tally) -> None:
        self.args, self.tally = args, tally
        self.go = False
        self.stop_at = float("inf")
        self.gap = 1.0 / Limits().message_rate  # a person's shortest gap between messages
        self.tasks: set[asyncio.Task] = set()

    def playing(self, table: Table) -> bool:
        return self.go and time.perf_counter() < self.stop_at and table.moves < self.args.moves

    def arrived(self, person: Person, text: str | bytes, now: float) -> None:
        """A message to ``person``: a view is checked for order, the moves it holds timed, and
        answered if it is the person's turn."""
        tally = self.tally
        tally.messages += 1
        message = json.loads(text)
        if message.get("type") == "error":
            tally.errors.append(f"seat {person.seat}: {message.get('status')} "
                                f"{str(message.get('error'))[:100]}")  # fmt: skip
            mine = [a for a in person.table.actions[person.seen :] if a.seat == person.seat]
            if mine:  # its action was refused: no view will hold it
                mine[-1].refused = True
            return
        view = message["view"]
        tally.views += 1
        key = (view["friends"]["match"], view.get("turn", -1))
        if key < person.last:
            tally.out_of_order += 1
        person.last = max(key, person.last)
        person.view = view
        actions = person.table.actions
        while person.seen < len(actions) and actions[person.seen].key < key:
            action = actions[person.seen]
            person.seen += 1
            if action.refused or action.kind != "move":
                continue
            (tally.own if action.seat == person.seat else tally.latency).append(now - action.sent)
        self.answer(person)

    def answer(self, person: Person) -> None:
        """Act on the person's view if it asks something of them: a move on their turn, and
        for the maker a next hand or another match."""
        view, table = person.view, person.table
        if view is None or not self.playing(table) or view["phase"] == "waiting":
            return
        key = (view["friends"]["match"], view["turn"])
        if person.answered == key:
            return
        if view["session_over"]:
            message, kind = {"do": "again"}, "again"
        elif view["phase"] == "over":
            message, kind = {"do": "next", "turn": view["turn"]}, "next"
        elif view["my_turn"]:
            move = self.pick(person, view)
            message, kind = {"do": "move", "move": move, "turn": view["turn"]}, "move"
        else:
            return
        if kind != "move" and person.seat != 0:
            return
        person.answered = key
        think = self.args.think * person.rng.uniform(2 / 3, 4 / 3)
        task = asyncio.get_running_loop().create_task(self.send(person, key, kind, message, think))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    def pick(self, person: Person, view: dict[str, Any]) -> str:
        """A random legal move of the view (in an exchange, a random legal choice)."""
        if view["phase"] == "exchange":
            legal = [c["action"] for c in view["choices"] if c["legal"]]
        else:
            legal = [h["card"] for h in view["hand"] if h["legal"]]
        return legal[person.rng.integers(len(legal))]

    async def send(
        self, person: Person, key: Key, kind: str, message: dict[str, Any], think: float
    ) -> None:
        await asyncio.sleep(max(think, person.sent_at + self.gap - time.perf_counter()))
        table = person.table
        if not self.playing(table) or person.closing:
            return
        now = time.perf_counter()
        table.actions.append(Action(key, now, person.seat, kind))
        table.moves += kind == "move"
        self.tally.moves += kind == "move"
        self.tally.sent[kind] = self.tally.sent.get(kind, 0) + 1
        person.sent_at = now
        with contextlib.suppress(ConnectionClosed):  # its reader says so
            await person.socket.send(json.dumps(message))

    async def read(self, person: Person) -> None:
        try:
            async for text in person.socket:
                self.arrived(person, text, time.perf_counter())
            if not person.closing:
                self.tally.errors.append(f"seat {person.seat}: the server closed the connection")
        except ConnectionClosed as e:
            if not person.closing:
                self.tally.errors.append(f"seat {person.seat}: connection dropped ({e})")

    def pending(self, tables: list[Table]) -> int:
        """(action, person) pairs whose view has not come yet."""
        return sum(len(t.actions) - p.seen for t in tables for p in t.people)


async def seat_table(host: str, port: int, form: dict[str, Any], number: int) -> list[str]:
    """Make a table and seat its people, each from an address of their own: the keys."""
    client = serving.Connection(host, port)
    keys: list[str] = []
    try:
        for seat in range(PEOPLE):
            where = {"X-Forwarded-For": address(number, seat)}
            if seat == 0:
                status, _, content = await client.request("POST", "/api/tables", form, where)
                table = json.loads(content).get("table") if status == 201 else None
            else:
                status, _, content = await client.request(
                    "POST", f"/api/tables/{table}/seats", {"name": f"P{seat}"}, where
                )
            if status != 201:
                raise ConnectionError(f"seat {seat}: {status} {content[:100]!r}")
            keys.append(json.loads(content)["key"])
        return [table, *keys]
    finally:
        client.close()


def address(table: int, seat: int) -> str:
    """A person's own address (in 10.0.0.0/8)."""
    n = table * PEOPLE + seat + 1
    return f"10.{n >> 16 & 255}.{n >> 8 & 255}.{n & 255}"


async def play(
    url: str, args: argparse.Namespace, server_pid: int
) -> tuple[Tally, dict[str, float], dict[str, float | None]]:
    """Seat every table, then play: the tally, the run's times (seconds), and the CPU seconds
    the server and the people used while they played."""
    tally = Tally()
    run = Run(args, tally)
    host, port = url.removeprefix("http://").rstrip("/").rsplit(":", 1)
    form = {"variant": "spar", "players": PEOPLE, "end": args.end, "people": PEOPLE,
            "opponents": args.opponents, "timer": args.timer, "name": "P0"}  # fmt: skip
    began = time.perf_counter()
    limit = asyncio.Semaphore(SETUP_AT_ONCE)
    tables: list[Table] = []
    readers: list[asyncio.Task] = []

    async def one(number: int) -> None:
        async with limit:
            table_id, *keys = await seat_table(host, int(port), form, number)
            table = Table(table_id)
            live = f"ws://{host}:{port}/api/tables/{table_id}/live"
            for seat, key in enumerate(keys):
                socket = await connect(
                    live, compression=None, ping_interval=None, open_timeout=60,
                    additional_headers={"X-Forwarded-For": address(number, seat)},
                )  # fmt: skip
                rng = np.random.default_rng([args.seed, number, seat])
                person = Person(table, seat, socket, rng)
                table.people.append(person)
                await socket.send(json.dumps({"key": key}))
                readers.append(asyncio.create_task(run.read(person)))
            tables.append(table)

    seatings = asyncio.gather(*(one(n) for n in range(args.tables)), return_exceptions=True)
    try:
        failed = [e for e in await asyncio.wait_for(seatings, args.time_limit) if e is not None]
    except TimeoutError as e:
        failed = [e]
    tally.errors += [f"seating a table: {type(e).__name__}: {e}" for e in failed]
    seated = start = time.perf_counter()
    cpu = {"server": serving.cpu_seconds(server_pid), "people": time.process_time()}
    run.go, run.stop_at = True, start + args.time_limit
    for table in tables:
        for person in table.people:
            run.answer(person)
    while time.perf_counter() < run.stop_at and any(run.playing(t) for t in tables):
        await asyncio.sleep(0.05)
    played = time.perf_counter()
    now = {"server": serving.cpu_seconds(server_pid), "people": time.process_time()}
    cpu = {k: None if v is None or now[k] is None else now[k] - v for k, v in cpu.items()}
    run.stop_at = played  # no new action from now on; the last views arrive
    while run.tasks:
        await asyncio.gather(*list(run.tasks))
    while run.pending(tables) and time.perf_counter() < played + GRACE:
        await asyncio.sleep(0.05)
    for table in tables:
        for person in table.people:
            left = [a for a in table.actions[person.seen :] if not a.refused]
            tally.lost += len(left)
            person.closing = True
    await asyncio.gather(*(p.socket.close() for t in tables for p in t.people),
                         return_exceptions=True)  # fmt: skip
    await asyncio.gather(*readers, return_exceptions=True)
    if tally.lost:
        tally.errors.append(f"{tally.lost} views that hold an action never came")
    return tally, {"seating": seated - began, "playing": played - start}, cpu


def report(
    args, cores: dict[str, list[int]], tally: Tally, times: dict[str, float], cpu: dict
) -> dict:
    """The run's figures, as JSON data."""
    wall = times["playing"]
    return {
        "cores": cores,
        "tables": args.tables,
        "people": PEOPLE,
        "think": args.think,
        "end": args.end,
        "moves_per_table": args.moves,
        "seconds": {k: round(v, 2) for k, v in times.items()},
        "moves": tally.moves,
        "moves_per_second": tally.moves / wall if wall else 0.0,
        "next_hands": tally.sent.get("next", 0),
        "new_matches": tally.sent.get("again", 0),
        "messages": tally.messages,
        "views": tally.views,
        "latency_ms": serving.spread(tally.latency, POINTS),
        "latency_count": len(tally.latency),
        "own_view_ms": serving.spread(tally.own, POINTS),
        "errors": len(tally.errors),
        "error_examples": tally.errors[:5],
        "out_of_order": tally.out_of_order,
        "lost": tally.lost,
        "cpu_per_second": {k: None if v is None else v / wall for k, v in cpu.items()},
        "load_average": os.getloadavg()[0] if hasattr(os, "getloadavg") else None,
    }


def show(figures: dict) -> None:
    f = figures
    print(f"tables                {f['tables']} of {f['people']} people, 4-player spar, "
          f"think {f['think']} s, up to {f['moves_per_table']} moves a table")  # fmt: skip
    print(
        f"seated / played       {f['seconds']['seating']:.1f} s / {f['seconds']['playing']:.1f} s"
    )
    print(f"moves                 {f['moves']} ({f['moves_per_second']:.0f}/s), "
          f"{f['next_hands']} next hands dealt, {f['new_matches']} new matches")  # fmt: skip
    print(f"messages received     {f['messages']} ({f['views']} views)")
    if f["latency_ms"]:
        print(f"to the others         {_labelled(f['latency_ms'])} ({f['latency_count']} views)")
        print(f"  to the mover        {_labelled(f['own_view_ms'])}")
    print(f"errors                {f['errors']}")
    for example in f["error_examples"]:
        print("  ", example)
    print(f"out of order          {f['out_of_order']}")
    print(f"lost                  {f['lost']}")
    cpu = f["cpu_per_second"]
    shown = {k: "n/a" if v is None else f"{v:.2f}" for k, v in cpu.items()}
    print(f"CPU s per s           server {shown['server']}, people {shown['people']} "
          f"(cores: server {f['cores']['server']}, people {f['cores']['people']})")  # fmt: skip
    print(f"load average (1 min)  {f['load_average']:.1f}")


def _labelled(figures: dict[str, float]) -> str:
    return " / ".join(f"{k} {v:.1f}" for k, v in figures.items()) + " ms"


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.partition("\n\n")[0])
    p.add_argument("--tables", type=int, default=200)
    p.add_argument("--think", type=float, default=1.5,
                   help="mean seconds a person takes to move (0: at once)")  # fmt: skip
    p.add_argument("--moves", type=int, default=100, help="moves a table makes, at most")
    p.add_argument("--time-limit", type=float, default=300.0, help="seconds of play, at most")
    p.add_argument("--end", default="default", help="the matches' end (the form's: target:5...)")
    p.add_argument("--timer", type=float, default=300.0, help="the tables' turn timer, seconds")
    p.add_argument("--opponents", default="shipped", help="the bot that stands in, past the timer")
    p.add_argument("--server-core", type=int, default=0, help="the core of the server")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", metavar="FILE", help="write the figures to FILE as JSON")
    add_record_option(p)
    args = p.parse_args()
    if args.tables < 1 or args.moves < 1 or args.think < 0 or args.time_limit <= 0:
        p.error("--tables and --moves must be at least 1, --think at least 0, --time-limit above 0")
    cores = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else set()
    if len(cores) > 1 and args.server_core not in cores:
        p.error(f"--server-core must be one of this process's cores {sorted(cores)}")
    server_cores = {args.server_core} if len(cores) > 1 else None  # else: both share it
    serving.more_files()
    options = ["--port", str(serving.free_port()), "--proxy", "127.0.0.1",
               "--max-tables", str(args.tables)]  # fmt: skip
    server, url = serving.start_server(args.seed, options, server_cores)
    if url is None:
        return 1
    if server_cores is not None:
        serving.pin(cores - server_cores)
    pinned = {
        "server": sorted(server_cores or cores),
        "people": sorted(cores - (server_cores or set())),
    }
    try:
        figures = report(args, pinned, *asyncio.run(play(url, args, server.pid)))
    finally:
        with contextlib.suppress(Exception):
            serving.stop_server(server)
    show(figures)
    if args.json:
        with atomic_output(args.json) as f:
            f.write(json.dumps(figures, indent=2) + "\n")
    if args.record and figures["latency_ms"]:
        what = (f"{args.tables} tables of 4 people at once, think {args.think:g} s, "
                "one spar serve on one core")  # fmt: skip
        record(f"{args.record}.p99_ms", round(figures["latency_ms"]["p99"], 1), None, decimals=1,
               what=f"99th percentile milliseconds from a move sent to each other person's view "
               f"of it, {what}")  # fmt: skip
        record(f"{args.record}.moves_per_s", round(figures["moves_per_second"]), None, decimals=0,
               what=f"moves per second, {what}")  # fmt: skip
    bad = figures["errors"] + figures["out_of_order"] + figures["lost"]
    return 0 if not bad and figures["moves"] else 1


if __name__ == "__main__":
    sys.exit(main())
