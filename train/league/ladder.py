"""The league's ladder: entrants join (:func:`add_entrants`), pair matches are planned a round
at a time and played (:func:`play_league`), and the table is read off the results
(:func:`standings`); the package docstring (:mod:`spar_train.league`) says how.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from spar_agents import Agent, make_agent
from spar_agents.registry.trust import code_specs
from spar_agents.signature import describe_game
from spar_env.limits import MAX_ENTRANTS, check_at_most
from spar_env.rules import Ruleset
from spar_train.league.matches import play_here, play_on_ray
from spar_train.league.ratings import PairTotals, Ratings, fit, plan
from spar_train.league.store import League, Match, game_of, load, locked, save

DEFAULT_MATCH_DEALS = 200  # deals per pair match
DEFAULT_ROUND = 4  # matches planned at once (and played at once on Ray)
PER_100 = 100.0  # ratings and margins are shown per 100 hands


def add_entrants(folder: Path, specs: Sequence[str], rules: Ruleset, seed: int = 0) -> list[str]:
    """Add ``specs`` to the league in ``folder``, starting it for ``rules`` if there is none.

    Each spec is built once for the league's game, so one that cannot play it is refused
    here. A spec already in the league is left as it is. Returns the specs added.

    Raises:
        ValueError: for a spec that cannot play the league's game, another game than the
            league's, or a league in use by another process.
    """
    folder = Path(folder)
    with locked(folder, create=True):
        if (folder / "league.json").exists():
            league = load(folder)
            if game_of(rules) != league.game:
                raise ValueError(f"{folder} is a league of {describe_game(league.game)}, "
                                 f"not {describe_game(game_of(rules))}")  # fmt: skip
        else:
            league = League(game=game_of(rules), seed=seed)
        joining = {s.strip() for s in specs} - set(league.entrants)
        check_at_most(f"{folder}: entrants", len(league.entrants) + len(joining), MAX_ENTRANTS)
        added = []
        for spec in (s.strip() for s in specs):
            if spec in league.entrants or spec in added:
                continue
            make_agent(spec, league.rules)  # an error names the spec and why
            added.append(spec)
        league.entrants += added
        save(folder, league)
    return added


def play_league(
    folder: Path,
    deals: int | None,
    *,
    match_deals: int = DEFAULT_MATCH_DEALS,
    round_size: int = DEFAULT_ROUND,
    minutes: float | None = None,
    ray: str | None = None,
    on_skip: Callable[[str, str], None] | None = None,
    on_deals: Callable[[float], None] | None = None,
    trust_code: bool = False,
) -> int:
    """Play about ``deals`` deals of pair matches in the league (whole matches: the matches a
    stopped run had planned first, then rounds planned as the module docstring says); stop
    after the match under way when ``minutes`` have passed. ``deals`` None: no bound on the
    deals, ``minutes`` alone ends the play. Returns the deals played.

    An entrant that no longer loads is skipped (``on_skip(spec, why)``), with its planned
    matches. ``on_deals(n)`` hears the deals of each match as they are played (here) or as
    each match ends (on Ray). ``ray``: None plays here, else the Ray address (``""``: local).
    An entrant that would run code (``py:``) is skipped so too, unless ``trust_code``: the
    league file may have been handed to us (:mod:`spar_agents.registry.trust`).

    Raises:
        ValueError: for sizes below 1, neither ``deals`` nor ``minutes``, a league with fewer
            than two entrants that load, or a league in use by another process.
    """
    if deals is None and minutes is None:
        raise ValueError("give the deals to play, the minutes, or both")
    if (deals is not None and deals < 1) or match_deals < 2 or round_size < 1:
        raise ValueError("deals and round size must be at least 1, deals per match at least 2")
    limit = float("inf") if deals is None else deals
    folder = Path(folder)
    started = time.monotonic()
    with locked(folder):
        league = load(folder)
        rules = league.rules
        agents = _loadable(league, rules, on_skip, trust_code)
        active = [n for n, spec in enumerate(league.entrants) if spec in agents]
        if len(active) < 2:
            raise ValueError(f"{folder}: a league plays with two entrants that load; "
                             f"it has {len(active)}")  # fmt: skip
        league.planned = [m for m in league.planned if m.a in active and m.b in active]
        done = 0
        while done < limit and not _late(started, minutes):
            if not league.planned:
                league.planned = _plan_round(league, active, limit - done, match_deals, round_size)
                save(folder, league)
            specs = _specs_of(league)
            if ray is None:
                played = play_here(rules, list(league.planned), specs, agents, on_deals)
            else:
                played = play_on_ray(rules, list(league.planned), specs, ray)
            for match, result in played:
                league.planned.remove(match)
                league.played.append(Match(match.index, match.a, match.b, match.deals, match.seed,
                                           result))  # fmt: skip
                save(folder, league)  # a match is kept the moment it ends
                done += match.deals
                if ray is not None and on_deals is not None:
                    on_deals(match.deals)
                if ray is None and (done >= limit or _late(started, minutes)):
                    break
    return done


@dataclass(frozen=True)
class Standings:
    """What ``spar league show`` prints: the ratings, the pair table and how well they agree."""

    rules: Ruleset
    entrants: tuple[str, ...]
    # whether each spec still loads (None: not checked; per entrant, None: it would run code)
    loads: tuple[bool | None, ...] | None
    ratings: Ratings  # per hand (``PER_100`` times this is shown)
    deals: np.ndarray  # int64 [K] deals each entrant played
    opponents: np.ndarray  # int64 [K] entrants each met in a pair match
    margin: np.ndarray  # [K, K] mean margin of row over column per hand (NaN: never met)
    margin_halfwidth: np.ndarray  # [K, K]
    agree: int  # pairs whose interval excludes 0 and whose rating difference has its sign
    decided: int  # pairs whose interval excludes 0
    matches: int

    def order(self) -> list[int]:
        """Entrants by rating, best first; unrated ones last, in joining order."""
        r = self.ratings.rating
        return sorted(range(len(self.entrants)),
                      key=lambda i: (np.isnan(r[i]), -np.nan_to_num(r[i]), i))  # fmt: skip

    def to_dict(self) -> dict[str, object]:
        def num(x: float) -> float | None:
            return None if np.isnan(x) else round(float(x) * PER_100, 6)

        return {
            "game": game_of(self.rules),
            "unit": f"{self.rules.payoff} per 100 hands",
            "matches": self.matches,
            "dispersion": self.ratings.dispersion,
            "agree": self.agree,
            "decided": self.decided,
            "entrants": [
                {
                    "spec": self.entrants[i],
                    "rating": num(self.ratings.rating[i]),
                    "ci95_halfwidth": num(self.ratings.halfwidth[i]),
                    "deals": int(self.deals[i]),
                    "loads": None if self.loads is None else self.loads[i],
                    "margin": {
                        self.entrants[j]: {
                            "mean": num(self.margin[i, j]),
                            "ci95_halfwidth": num(self.margin_halfwidth[i, j]),
                        }
                        for j in range(len(self.entrants))
                        if self.deals_between(i, j)
                    },
                }  # fmt: skip
                for i in self.order()
            ],
        }

    def deals_between(self, i: int, j: int) -> bool:
        return i != j and not np.isnan(self.margin[i, j])


def standings(league: League, check_loads: bool = False) -> Standings:
    """The league's table. With ``check_loads``, each spec is built to see that it still loads
    (an entrant that does not is still rated from the matches it played), but for one that
    would run code (``py:``), which is never built to be shown."""
    k = len(league.entrants)
    totals = _totals(league)
    ratings = fit(totals, range(k))
    margin, half = totals.mean(), totals.mean_halfwidth()
    rating = ratings.rating
    agree = decided = 0
    for i in range(k):
        for j in range(i + 1, k):
            if np.isfinite(half[i, j]) and abs(margin[i, j]) > half[i, j]:
                decided += 1
                diff = rating[i] - rating[j]
                agree += bool(np.isfinite(diff) and np.sign(diff) == np.sign(margin[i, j]))
    loads = None
    if check_loads:
        rules = league.rules
        loads = tuple(None if code_specs(spec) else _build(spec, rules, False)[0] is not None
                      for spec in league.entrants)  # fmt: skip
    return Standings(
        rules=league.rules, entrants=tuple(league.entrants), loads=loads, ratings=ratings,
        deals=totals.deals.sum(axis=1), opponents=(totals.deals > 0).sum(axis=1),
        margin=margin, margin_halfwidth=half, agree=agree, decided=decided,
        matches=len(league.played),
    )  # fmt: skip


def _plan_round(league: League, active: list[int], deals_left: float, match_deals: int,
                round_size: int) -> list[Match]:  # fmt: skip
    totals = _totals(league)
    count = int(min(round_size, -(-deals_left // match_deals)))  # deals_left may be inf
    first = league.next_index()
    return [Match(first + n, a, b, match_deals, league.match_seed(first + n))
            for n, (a, b) in enumerate(plan(totals, active, count, match_deals))]  # fmt: skip


def _specs_of(league: League) -> Callable[[Match], tuple[str, str]]:
    return lambda m: (league.entrants[m.a], league.entrants[m.b])


def _totals(league: League) -> PairTotals:
    """The played matches' totals, summed in schedule order (the same sums here and on Ray)."""
    played = sorted(league.played, key=lambda m: m.index)
    return PairTotals(len(league.entrants), (m.result for m in played if m.result is not None))


def _loadable(league: League, rules: Ruleset, on_skip: Callable[[str, str], None] | None,
              trust_code: bool) -> dict[str, Agent]:  # fmt: skip
    agents: dict[str, Agent] = {}
    for spec in league.entrants:
        agent, why = _build(spec, rules, trust_code)
        if agent is not None:
            agents[spec] = agent
        elif on_skip is not None:
            on_skip(spec, why)
    return agents


def _build(spec: str, rules: Ruleset, trust_code: bool) -> tuple[Agent | None, str]:
    """The agent of ``spec``, or None and why it does not load (or may not be built)."""
    if not trust_code and code_specs(spec):
        return None, (f"{code_specs(spec)[0]} would import and run Python code named by the "
                      "league file; play with --trust-code if you trust it")  # fmt: skip
    try:
        return make_agent(spec, rules), ""
    except (ValueError, OSError) as e:
        return None, " ".join(str(e).split())


def _late(started: float, minutes: float | None) -> bool:
    return minutes is not None and time.monotonic() - started >= minutes * 60
