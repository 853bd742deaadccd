"""Load on ``spar serve``: many concurrent games from scripted clients against one server process.

Starts the real command (``spar serve --port 0``, 127.0.0.1 only) in its own
process, then plays ``--games`` sessions at once from this process
(asyncio, one keep-alive connection per game), each to the end of its
session (4-player spar to 10 points against the shipped bot by default),
each client choosing a random legal card and waiting ``--think`` seconds
between moves. Everything stops by ``--time-limit``.

It reports games completed, errors (any answer but 200/201, or a failed
request), lost or mixed-up games (an answer for another game id, a turn
that did not advance by one, a hand that did not lose the card played, a
session that did not end, records that do not match the hands played) and
the 50th and 99th percentile of a move's response time as the client
sees it.

    python benchmarks/web_load.py --games 200 --think 1.0
    python benchmarks/web_load.py --games 200 --think 0     # as fast as the server answers
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

SPAR = Path(sys.executable).parent / "spar"


class Connection:
    """One keep-alive HTTP/1.1 connection on asyncio streams: a client much lighter than the
    server it measures (with httpx, the clients took three times the server's CPU)."""

    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def request(self, method: str, path: str, body: object = None) -> tuple[int, dict, bytes]:
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        data = b"" if body is None else json.dumps(body).encode()
        head = (
            f"{method} {path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\n\r\n"
        )
        self.writer.write(head.encode() + data)
        status_line = await self.reader.readline()
        if not status_line:
            raise ConnectionError("the server closed the connection")
        status = int(status_line.split()[1])
        headers = {}
        while (line := await self.reader.readline()) not in (b"\r\n", b""):
            key, _, value = line.decode("latin-1").partition(":")
            headers[key.strip().lower()] = value.strip()
        content = await self.reader.readexactly(int(headers.get("content-length", 0)))
        return status, headers, content

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()


@dataclass
class Tally:
    completed: int = 0
    errors: list[str] = field(default_factory=list)
    mixed: list[str] = field(default_factory=list)
    unfinished: int = 0
    moves: list[float] = field(default_factory=list)  # seconds per move request
    server: list[float] = field(default_factory=list)  # of which in the game (Server-Timing)
    hands: int = 0


async def one_game(client, form, think: float, rng, tally: Tally, deadline: float) -> None:
    try:
        status, _, content = await client.request("POST", "/api/games", form)
        if status != 201:
            tally.errors.append(f"new game: {status} {content[:100]!r}")
            return
        view = json.loads(content)
        game = view["game"]
        hands = 0  # finished hands that leave a record (not a tie-break hand some seats sat out)
        while time.monotonic() < deadline:
            if view["phase"] == "over":
                hands += all(view["summary"]["dealt"])
                if view["session_over"]:
                    break
                path, body = "next", {"turn": view["turn"]}
            else:
                legal = [h["card"] for h in view["hand"] if h["legal"]]
                legal = legal or [c["action"] for c in view["choices"]]
                path, body = "move", {"move": legal[rng.integers(len(legal))], "turn": view["turn"]}
            if think:
                await asyncio.sleep(think * rng.uniform(0.5, 1.5))
            start = time.perf_counter()
            status, headers, content = await client.request(
                "POST", f"/api/games/{game}/{path}", body
            )
            elapsed = time.perf_counter() - start
            if status != 200:
                tally.errors.append(f"{path}: {status} {content[:100]!r}")
                return
            new = json.loads(content)
            if path == "move":
                tally.moves.append(elapsed)
                timing = headers.get("server-timing", "game;dur=nan")
                tally.server.append(float(timing.partition("dur=")[2]) / 1000)
            problem = _mixed_up(view, new, game, body)
            if problem:
                tally.mixed.append(problem)
                return
            view = new
        else:
            tally.unfinished += 1
            return
        status, _, content = await client.request("GET", f"/api/games/{game}/records")
        lines = content.decode().splitlines()
        if status != 200 or len(lines) != view["records"] or len(lines) != hands:
            tally.mixed.append(f"{game}: {len(lines)} records for {hands} hands")
            return
        for line in lines:
            json.loads(line)
        tally.completed += 1
        tally.hands += hands
    except (OSError, asyncio.IncompleteReadError, KeyError, ValueError) as e:
        tally.errors.append(f"{type(e).__name__}: {e}")
    finally:
        client.close()


def _mixed_up(old: dict, new: dict, game: str, body: dict) -> str | None:
    if new["game"] != game:
        return f"asked {game}, answered {new['game']}"
    if new["turn"] != old["turn"] + 1:
        return f"{game}: turn {old['turn']} -> {new['turn']}"
    if body.get("move") and old["phase"] == "play" and new["hand_number"] == old["hand_number"]:
        before = [h["card"] for h in old["hand"]]
        after = [h["card"] for h in new["hand"]]
        if body["move"] in after or len(after) != len(before) - 1:
            return f"{game}: played {body['move']}, hand {before} -> {after}"
    return None


async def run(url: str, args) -> tuple[Tally, float]:
    tally = Tally()
    form = {"variant": args.variant, "players": args.players, "opponents": args.opponents}
    host, port = url.removeprefix("http://").rstrip("/").rsplit(":", 1)
    deadline = time.monotonic() + args.time_limit
    start = time.perf_counter()
    games = [
        one_game(
            Connection(host, int(port)),
            form,
            args.think,
            np.random.default_rng([args.seed, k]),
            tally,
            deadline,
        )
        for k in range(args.games)
    ]
    try:
        await asyncio.wait_for(asyncio.gather(*games), args.time_limit + 30)
    except TimeoutError:
        tally.errors.append("the run did not end within its time limit")
    return tally, time.perf_counter() - start


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.partition("\n\n")[0])
    p.add_argument("--games", type=int, default=200)
    p.add_argument("--think", type=float, default=1.0, help="mean seconds between a client's moves")
    p.add_argument("--time-limit", type=float, default=900.0, help="seconds for the whole run")
    p.add_argument("--variant", default="spar")
    p.add_argument("--players", type=int, default=4)
    p.add_argument("--opponents", default="shipped", help="an id of the server's offer")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument(
        "--url", help="a server already running on this machine (http://127.0.0.1:PORT/)"
    )
    args = p.parse_args()
    if args.url:
        if not args.url.startswith(("http://127.", "http://localhost:")):
            p.error("--url must be a server on this machine (loopback)")
        tally, wall = asyncio.run(run(args.url, args))
        return report(args, tally, wall)

    server = subprocess.Popen(
        [SPAR, "serve", "--port", "0", "--seed", str(args.seed)],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "OMP_NUM_THREADS": "1"},
    )
    try:
        line = server.stdout.readline()
        if "the table is at" not in line:
            print(f"the server did not start: {line!r}", file=sys.stderr)
            return 1
        url = line.split()[6]
        tally, wall = asyncio.run(run(url, args))
    finally:
        server.send_signal(signal.SIGINT)
        server.wait(timeout=60)
    return report(args, tally, wall)


def report(args, tally: Tally, wall: float) -> int:
    moves = np.array(tally.moves) * 1000
    load = os.getloadavg()[0]
    print(
        f"games                 {args.games} at once, {args.variant} {args.players} players vs {args.opponents}, think {args.think} s"
    )
    print(f"completed             {tally.completed} ({tally.hands} hands) in {wall:.1f} s")
    print(f"unfinished            {tally.unfinished}")
    print(f"errors                {len(tally.errors)}")
    print(f"lost or mixed up      {len(tally.mixed)}")
    if len(moves):
        print(f"moves                 {len(moves)} ({len(moves) / wall:.0f}/s)")
        print(
            f"move p50 / p99 / max  {np.percentile(moves, 50):.1f} / {np.percentile(moves, 99):.1f} / {moves.max():.1f} ms"
        )
        game = np.array(tally.server) * 1000
        print(
            f"  in the game         {np.percentile(game, 50):.1f} / {np.percentile(game, 99):.1f} / {game.max():.1f} ms (Server-Timing: the bots and the view)"
        )
    print(f"load average (1 min)  {load:.1f}")
    for message in (tally.errors + tally.mixed)[:5]:
        print("  ", message)
    return 0 if not tally.errors and not tally.mixed and not tally.unfinished else 1


if __name__ == "__main__":
    sys.exit(main())
