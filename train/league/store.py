"""A league on disk: one JSON file in the league's folder, written atomically, and a lock
that keeps a second process out.

``league.json`` holds the game (variant, players, options), the league's seed, the entrants'
specs in the order they joined, the pair matches played (each with its seed, so every game
of it can be played again exactly) and the matches planned but not yet played (a stopped
``spar league play`` finishes them first). The file is rewritten whole, through a temporary
file and a rename, after every match: a process killed at any moment leaves the last
complete file. It is plain JSON, read with checks on every field: a damaged or hostile file
is refused with a message that names the field, never executed. Every size in it has the
bounds its command-line flag has (a match's deals those of ``--match``), and the file's
own size and nesting are bounded before it is read (:mod:`spar_env.limits`).
"""

from __future__ import annotations

import contextlib
import json
import math
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from spar_env.atomic import atomic_output, refuse_links
from spar_env.limits import (
    MAX_ENTRANTS,
    MAX_GAMES,
    MAX_LEAGUE_BYTES,
    check_at_most,
    load_json,
    read_bounded,
)
from spar_env.lockfile import LockHeld, take_lock
from spar_env.rules import Ruleset, make_rules
from spar_train.league.ratings import PairResult

FILE = "league.json"
LOCK = "league.lock"
FORMAT = "spar-league"
VERSION = 1
LEVELS = 8  # the deepest a league file nests: 4 (a match's pair, an option's list), with room


@dataclass(frozen=True)
class Match:
    """A pair match: played when ``result`` is set, planned otherwise."""

    index: int  # its place in the league's schedule (its seed derives from it)
    a: int
    b: int
    deals: int
    seed: int
    result: PairResult | None = None


@dataclass
class League:
    """A league's contents (module docstring)."""

    game: dict[str, Any]  # variant, players, options
    seed: int
    entrants: list[str] = field(default_factory=list)
    played: list[Match] = field(default_factory=list)
    planned: list[Match] = field(default_factory=list)

    @property
    def rules(self) -> Ruleset:
        g = self.game
        return make_rules(g["variant"], players=g["players"], **g["options"])

    def match_seed(self, index: int) -> int:
        """The deal seed of the league's match ``index``: a function of the league's seed."""
        return int(np.random.SeedSequence([self.seed, index]).generate_state(1)[0])

    def next_index(self) -> int:
        return len(self.played) + len(self.planned)

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "version": VERSION,
            "game": self.game,
            "seed": self.seed,
            "entrants": self.entrants,
            "played": [_match_json(m) for m in self.played],
            "planned": [_match_json(m) for m in self.planned],
        }


def game_of(rules: Ruleset) -> dict[str, Any]:
    return {"variant": rules.variant, "players": rules.players, "options": rules.options()}


def load(folder: Path) -> League:
    """The league in ``folder``.

    Raises:
        ValueError: when there is none, or its file is damaged (naming what is wrong).
    """
    path = Path(folder) / FILE
    if not path.is_file():
        raise _no_league(folder)
    text = read_bounded(path, MAX_LEAGUE_BYTES, "league file")  # LimitError names the path
    try:
        data = load_json(text, LEVELS, str(path))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ValueError(f"{path}: not a league file: {e}") from None
    try:
        return _league(data)
    except (KeyError, TypeError, ValueError) as e:
        raise ValueError(f"{path}: damaged league file: {e}") from None


def save(folder: Path, league: League) -> None:
    """Write ``league`` to ``folder`` atomically (module docstring)."""
    with atomic_output(Path(folder) / FILE) as f:
        json.dump(league.to_json(), f, indent=1)
        f.write("\n")


@contextlib.contextmanager
def locked(folder: Path, create: bool = False) -> Iterator[None]:
    """Hold the league's lock, or refuse at once if another process holds it.

    ``create``: make the folder if need be (the add that starts a league); otherwise a folder
    without a league is refused before anything is written in it, or made.

    Raises:
        ValueError: naming the process that holds the league, or a lock file that is not
            one (a link, say: :mod:`spar_env.lockfile`), a ``league.json`` that is a link
            (:func:`spar_env.atomic.refuse_links`), or (without ``create``) no league.
    """
    if create:
        Path(folder).mkdir(parents=True, exist_ok=True)
    elif not (Path(folder) / FILE).is_file():
        raise _no_league(folder)
    try:
        fd = take_lock(Path(folder) / LOCK)
    except LockHeld as held:
        raise ValueError(
            f"{folder}: the league is in use by process {held.holder or 'another process'}; "
            "wait for it to finish (or stop it: a stopped league loses only its unfinished match)"
        ) from None
    try:
        refuse_links(folder, [FILE])  # written after each match: never through a link
        yield
    finally:
        os.close(fd)  # closing releases the lock


def _no_league(folder: Path) -> ValueError:
    return ValueError(f"{folder}: no league here (no {FILE}); start one with spar league add")


def _match_json(m: Match) -> dict[str, Any]:
    out: dict[str, Any] = {"index": m.index, "pair": [m.a, m.b], "deals": m.deals, "seed": m.seed}
    if m.result is not None:
        r = m.result
        out |= {"margin_sum": r.margin_sum, "margin_sumsq": r.margin_sumsq,
                "payoff_sum": list(r.payoff_sum)}  # fmt: skip
    return out


def _league(data: Any) -> League:
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError(f"format is not {FORMAT!r}")
    if type(data.get("version")) is not int or data["version"] != VERSION:  # true == 1
        raise ValueError(f"version {data.get('version')!r}; this spar reads version {VERSION}")
    game = data["game"]
    if not isinstance(game, dict) or set(game) != {"variant", "players", "options"}:
        raise ValueError("game must hold variant, players and options")
    if not isinstance(game["options"], dict):
        raise ValueError("game.options must be an object")
    make_rules(game["variant"], players=game["players"], **game["options"])  # checks the game
    entrants = data["entrants"]
    if not isinstance(entrants, list) or not all(isinstance(e, str) and e for e in entrants):
        raise ValueError("entrants must be a list of agent specs")
    if len(set(entrants)) != len(entrants):
        raise ValueError("an entrant is listed twice")
    check_at_most("entrants", len(entrants), MAX_ENTRANTS)
    league = League(game=game, seed=_count(data["seed"], "seed"), entrants=entrants)
    league.played = [_match(m, len(entrants), league, played=True) for m in data["played"]]
    league.planned = [_match(m, len(entrants), league, played=False) for m in data["planned"]]
    indices = [m.index for m in league.played + league.planned]
    if sorted(indices) != list(range(len(indices))):
        raise ValueError("match indices must be 0, 1, 2, ... once each")
    return league


def _match(m: Any, entrants: int, league: League, played: bool) -> Match:
    if not isinstance(m, dict):
        raise ValueError("a match must be an object")
    pair = m["pair"]
    if not (isinstance(pair, list) and len(pair) == 2
            and all(_is_count(x) and x < entrants for x in pair) and pair[0] != pair[1]):  # fmt: skip
        raise ValueError(f"match pair {pair!r} does not name two entrants")
    index, deals = _count(m["index"], "match index"), _count(m["deals"], "match deals")
    if deals < 1:
        raise ValueError("a match has at least one deal")
    check_at_most(f"match {index}'s deals", deals, MAX_GAMES)  # spar league play --match
    seed = _count(m["seed"], "match seed")
    if seed != league.match_seed(index):
        raise ValueError(f"match {index}'s seed is not the league's seed for it")
    result = None
    if played:
        pays = m["payoff_sum"]
        if not (isinstance(pays, list) and len(pays) == 2):
            raise ValueError("payoff_sum must hold two numbers")
        numbers = [_number(m["margin_sum"]), _number(m["margin_sumsq"]), *map(_number, pays)]
        if numbers[1] < 0:
            raise ValueError("margin_sumsq cannot be negative")
        result = PairResult(pair[0], pair[1], deals, numbers[0], numbers[1],
                            (numbers[2], numbers[3]))  # fmt: skip
    return Match(index, pair[0], pair[1], deals, seed, result)


def _is_count(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool) and x >= 0


def _count(x: Any, what: str) -> int:
    if not _is_count(x):
        raise ValueError(f"{what} must be a whole number, 0 or more; got {x!r}")
    return x


def _number(x: Any) -> float:
    if isinstance(x, bool) or not isinstance(x, int | float) or not math.isfinite(x):
        raise ValueError(f"expected a finite number; got {x!r}")
    return float(x)
