"""Load on ``spar serve``: many concurrent games from scripted clients against one server process.
Needs the ``web`` extra (``spar serve``).

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

``--search-games N`` plays N more games at once against ``search`` (the
slowest bot, thinking up to ``spar serve --think`` seconds a move), each
group's moves reported apart. ``--restart-after S`` runs the server with
``--state DIR`` and stops it (Ctrl-C) after S seconds, then starts it again
on the same folder and port: the clients reconnect, and every game must be
taken up and finish, none lost or mixed up. ``--cap`` starts the server with
``--max-games`` equal to the games played, and once they all run sends 50
more new games, which must each be answered 503 (their times reported).

    python benchmarks/web_load.py --games 200 --think 1.0
    python benchmarks/web_load.py --games 200 --think 0     # as fast as the server answers
    python benchmarks/web_load.py --games 200 --search-games 20
    python benchmarks/web_load.py --games 200 --restart-after 60
    python benchmarks/web_load.py --games 200 --cap
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
from dataclasses import dataclass, field

import numpy as np
from serving import Connection, free_port, spread, spread_text, start_server, stop_server

RESTART_WAIT = 180.0  # seconds a client keeps trying to reach a server that restarts


async def call(client: Connection, method: str, path: str, body: object = None):
    """A request that outlives a restart of the server: on a broken connection, reconnect and
    try again until ``RESTART_WAIT`` seconds have passed. Returns (status, headers, content,
    retried)."""
    give_up = time.monotonic() + RESTART_WAIT
    retried = False
    while True:
        try:
            return (*await client.request(method, path, body), retried)
        except ConnectionError:
            if time.monotonic() > give_up:
                raise
            retried = True
            await asyncio.sleep(0.5)


@dataclass
class Tally:
    completed: int = 0
    errors: list[str] = field(default_factory=list)
    mixed: list[str] = field(default_factory=list)
    unfinished: int = 0
    moves: list[float] = field(default_factory=list)  # seconds per move request
    server: list[float] = field(default_factory=list)  # of which in the game (Server-Timing)
    hands: int = 0
    retried: int = 0  # moves sent again after the server restarted
    started: int = 0  # games created


async def one_game(client, form, think: float, rng, tally: Tally, deadline: float) -> None:
    try:
        status, _, content, _ = await call(client, "POST", "/api/games", form)
        if status != 201:
            tally.errors.append(f"new game: {status} {content[:100]!r}")
            return
        view = json.loads(content)
        game = view["game"]
        tally.started += 1
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
            status, headers, content, retried = await call(
                client, "POST", f"/api/games/{game}/{path}", body
            )
            elapsed = time.perf_counter() - start
            if retried and status == 409:  # the move was made before the restart: look again
                status, headers, content, _ = await call(client, "GET", f"/api/games/{game}")
            if retried:
                tally.retried += 1
                elapsed = float("nan")  # a restart's wait is no move time
            if status != 200:
                tally.errors.append(f"{path}: {status} {content[:100]!r}")
                return
            new = json.loads(content)
            if path == "move" and not retried:
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
        status, _, content, _ = await call(client, "GET", f"/api/games/{game}/records")
        lines = content.decode().splitlines()
        if status != 200 or len(lines) != view["records"] or len(lines) != hands:
            tally.mixed.append(f"{game}: {len(lines)} records for {hands} hands")
            return
        for line in lines:
            json.loads(line)
        tally.completed += 1
        tally.hands += hands
    except (OSError, ConnectionError, KeyError, ValueError) as e:
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
        forced = new["phase"] == "over" and len(before) == 2  # the last card plays itself
        if body["move"] in after or len(after) != len(before) - 1 - forced:
            return f"{game}: played {body['move']}, hand {before} -> {after}"
    return None


async def run(url: str, args) -> tuple[dict[str, Tally], float, list[tuple[int, float]]]:
    """Every group's games at once; the new games past the cap (status, seconds) with --cap."""
    groups = {args.opponents: (args.games, Tally())}
    if args.search_games:
        groups["search"] = (args.search_games, Tally())
    host, port = url.removeprefix("http://").rstrip("/").rsplit(":", 1)
    deadline = time.monotonic() + args.time_limit
    start = time.perf_counter()
    games = []
    for g, (opponents, (count, tally)) in enumerate(groups.items()):
        form = {"variant": args.variant, "players": args.players, "opponents": opponents}
        games += [
            one_game(
                Connection(host, int(port)),
                form,
                args.think,
                np.random.default_rng([args.seed, g, k]),
                tally,
                deadline,
            )
            for k in range(count)
        ]
    refused: list[tuple[int, float]] = []
    everything = asyncio.gather(*games)
    try:
        if args.cap:  # once every game has started, the server is full
            while sum(t.started for _, t in groups.values()) < len(games) and not everything.done():
                await asyncio.sleep(0.05)
            refused = await over_the_cap(Connection(host, int(port)), args)
        await asyncio.wait_for(everything, args.time_limit + 30)
    except TimeoutError:
        next(iter(groups.values()))[1].errors.append("the run did not end within its time limit")
    return (
        {name: tally for name, (_, tally) in groups.items()},
        time.perf_counter() - start,
        refused,
    )


async def over_the_cap(client: Connection, args) -> list[tuple[int, float]]:
    """50 new games on a full server, one after another: each answer's status and time."""
    form = {"variant": args.variant, "players": args.players, "opponents": args.opponents}
    out = []
    for _ in range(50):
        begin = time.perf_counter()
        status, _, _ = await client.request("POST", "/api/games", form)
        out.append((status, time.perf_counter() - begin))
    client.close()
    return out


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.partition("\n\n")[0])
    p.add_argument("--games", type=int, default=200)
    p.add_argument("--think", type=float, default=1.0, help="mean seconds between a client's moves")
    p.add_argument("--time-limit", type=float, default=900.0, help="seconds for the whole run")
    p.add_argument("--variant", default="spar")
    p.add_argument("--players", type=int, default=4)
    p.add_argument("--opponents", default="shipped", help="an id of the server's offer")
    p.add_argument("--search-games", type=int, default=0, help="more games, against search")
    p.add_argument("--restart-after", type=float, help="stop and start the server after S s")
    p.add_argument("--cap", action="store_true", help="--max-games = the games; then 50 more")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument(
        "--url", help="a server already running on this machine (http://127.0.0.1:PORT/)"
    )
    args = p.parse_args()
    if args.url:
        if not args.url.startswith(("http://127.", "http://localhost:")):
            p.error("--url must be a server on this machine (loopback)")
        if args.restart_after or args.cap:
            p.error("--restart-after and --cap start the server themselves: no --url")
        return report(args, *asyncio.run(run(args.url, args)))

    with tempfile.TemporaryDirectory(prefix="spar-web-load-") as state:
        extra = ["--port", str(free_port())]
        if args.restart_after:
            extra += ["--state", state]
        if args.cap:
            extra += ["--max-games", str(args.games + args.search_games)]
        server, url = start_server(args.seed, extra)
        if url is None:
            return 1
        restarts: list[str] = []

        async def restart_later() -> None:
            nonlocal server
            await asyncio.sleep(args.restart_after)
            await asyncio.to_thread(stop_server, server)
            server, line = await asyncio.to_thread(start_server, args.seed, extra)
            restarts.append(line or "the server did not start again")

        async def whole_run():
            if not args.restart_after:
                return await run(url, args)
            later = asyncio.create_task(restart_later())
            result = await run(url, args)
            await later
            return result

        try:
            tallies, wall, refused = asyncio.run(whole_run())
        finally:
            stop_server(server)
        for line in restarts:
            print(f"restarted             at {line.strip()} (the same folder and port)")
        return report(args, tallies, wall, refused)


def report(args, tallies: dict[str, Tally], wall: float, refused=()) -> int:
    counts = {args.opponents: args.games, "search": args.search_games}
    lineup = " + ".join(f"{counts[name]} vs {name}" for name in tallies)
    print(f"games                 {lineup} at once, {args.variant} {args.players} players, "
          f"think {args.think} s")  # fmt: skip
    bad = 0
    for name, tally in tallies.items():
        print(f"[{name}]")
        print(f"completed             {tally.completed} ({tally.hands} hands) in {wall:.1f} s")
        print(f"unfinished            {tally.unfinished}")
        print(f"errors                {len(tally.errors)}")
        print(f"lost or mixed up      {len(tally.mixed)}")
        if tally.retried:
            print(f"moves sent again      {tally.retried} (across the restart)")
        if tally.moves:
            moves = len(tally.moves)
            print(f"moves                 {moves} ({moves / wall:.0f}/s)")
            print(f"move p50 / p99 / max  {spread_text(spread(tally.moves))}")
            print(f"  in the game         {spread_text(spread(tally.server))} "
                  "(Server-Timing: waiting, the bots and the view)")  # fmt: skip
        for message in (tally.errors + tally.mixed)[:5]:
            print("  ", message)
        bad += len(tally.errors) + len(tally.mixed) + tally.unfinished
    if refused:
        statuses = sorted({status for status, _ in refused})
        times = spread([t for _, t in refused], (50,))
        print(f"past the cap          {len(refused)} new games: statuses {statuses}, "
              f"p50 / max {spread_text(times)}")  # fmt: skip
        bad += sum(status != 503 for status, _ in refused)
    print(f"load average (1 min)  {os.getloadavg()[0]:.1f}")
    return 0 if not bad else 1


if __name__ == "__main__":
    sys.exit(main())
