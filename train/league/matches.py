"""Playing a league's pair matches (``spar league play``): here, one after another, or on Ray,
a round at a time.

A match is ``spar bench A B`` over its own seed's deals, played as one batch, so its result
depends on the match alone: the same on Ray as here, and again after a restart.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Sequence

from spar_agents import Agent, make_agent
from spar_env.rules import Ruleset
from spar_train.league.ratings import PairResult
from spar_train.league.store import Match
from spar_train.tournament import Progress, run_tournament

TASK_NAME = "spar-league"


def play_match(
    rules: Ruleset,
    specs: tuple[str, str],
    match: Match,
    agents: dict[str, Agent] | None = None,
    progress: Progress | None = None,
) -> PairResult:
    """Play ``match`` between the agents of ``specs`` (its entrants ``a`` and ``b``)."""
    result = run_tournament(list(specs), rules, match.deals, match.seed, chunk=match.deals,
                            agents=agents, progress=progress)  # fmt: skip
    pay = result.payoff_by_deal  # [deals, 2], the lineup's order
    margin = pay[:, 0] - pay[:, 1]
    return PairResult(match.a, match.b, match.deals, float(margin.sum()),
                      float((margin**2).sum()), (float(pay[:, 0].sum()), float(pay[:, 1].sum())))  # fmt: skip


def play_here(
    rules: Ruleset,
    matches: Sequence[Match],
    specs: Callable[[Match], tuple[str, str]],
    agents: dict[str, Agent],
    progress: Callable[[float], None] | None = None,
) -> Iterator[tuple[Match, PairResult]]:
    """Each match in turn, with the ready ``agents`` by spec; ``progress(n)`` hears each
    further ``n`` deals played as the match goes."""
    for match in matches:
        step = None
        if progress is not None:
            told = [0.0]

            def step(done: float, _total: int, told: list[float] = told) -> None:
                progress(done - told[0])
                told[0] = done

        yield match, play_match(rules, specs(match), match, agents, step)


def play_on_ray(
    rules: Ruleset,
    matches: Sequence[Match],
    specs: Callable[[Match], tuple[str, str]],
    address: str = "",
) -> Iterator[tuple[Match, PairResult]]:
    """The matches as Ray tasks at once, yielded as they finish (a task whose worker dies is
    run again: it gives the same result)."""
    from spar_train.distributed import connect
    from spar_train.distributed.bench import TASK_RETRIES

    ray = connect(address)
    task = ray.remote(max_retries=TASK_RETRIES)(_remote).options(name=TASK_NAME)
    pending = {task.remote(rules, specs(m), m): m for m in matches}
    try:
        while pending:
            (ready,), _ = ray.wait(list(pending), num_returns=1)
            yield pending.pop(ready), ray.get(ready)
    finally:  # an error or Ctrl-C: the other tasks are of no use
        for ref in pending:
            ray.cancel(ref)


def _remote(rules: Ruleset, specs: tuple[str, str], match: Match) -> PairResult:
    return play_match(rules, specs, match, {s: _agent(rules, s) for s in specs})


@functools.lru_cache(maxsize=16)
def _agent(rules: Ruleset, spec: str) -> Agent:
    """An agent kept for the worker's next tasks, as a local league keeps it."""
    return make_agent(spec, rules)
