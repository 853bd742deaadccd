"""``spar bench --ray``: the duplicate-deal tournament, and the match bench, with their batches
as Ray tasks.

A local run plays batch after batch of ``chunk`` deals
(:func:`spar_train.tournament.play_deals`), or of matches
(:func:`spar_train.match.bench.play_matches`); here every batch is one Ray task, run
wherever the cluster has a free CPU, and the driver sums the outcomes in batch
order (:func:`spar_train.tournament.summarise`). A batch's outcome depends on the
seed and the batch alone, so the figures are exactly those of a local run
with the same seed and chunk, whatever the number of workers.

**Faults.** A task whose worker dies (a killed process, a lost node) is run
again by Ray, up to :data:`TASK_RETRIES` times; being a pure function of its
batch, it gives the same outcome again, so the figures do not change. An
error in the task itself (an agent that cannot be built there) is not retried:
it is raised.

**Balance.** ``deals / chunk`` tasks share the CPUs: with fewer tasks than
CPUs some stay idle, and the last task decides the time. A smaller chunk
spreads the work wider (:func:`spread`); it changes the figures as it would
locally, since the agents draw one generator per batch.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from typing import Any

from spar_agents import Agent, make_agent
from spar_env.rules import Ruleset
from spar_train.distributed import connect
from spar_train.match.bench import (
    DEFAULT_MATCH_CHUNK,
    MatchResult,
    play_matches,
    summarise_matches,
)
from spar_train.match.model import require_match_end
from spar_train.tournament import (
    DEFAULT_CHUNK,
    Batch,
    Progress,
    Seating,
    TournamentResult,
    batches,
    check_request,
    play_deals,
    seating,
    summarise,
)

TASK_RETRIES = 3  # reruns of a task whose worker died
TASK_NAME = "spar-bench"  # as Ray shows the tasks (ray list tasks) and their processes


def run_tournament_on_ray(
    lineup: Sequence[str],
    rules: Ruleset,
    deals: int,
    seed: int = 0,
    *,
    chunk: int = DEFAULT_CHUNK,
    progress: Progress | None = None,
    address: str = "",
) -> TournamentResult:
    """:func:`spar_train.tournament.run_tournament` with one Ray task per batch (module docstring).

    Joins the cluster at ``address`` (``""``: a local Ray) unless Ray is
    already up. ``progress(done, deals)`` hears the deals of each task as it
    finishes.

    Raises:
        ValueError: for a bad lineup, agent spec, count or seed, before any task starts.
    """
    check_request(deals, chunk, seed)
    seats = _seats(lineup, rules)
    outcomes = _play_on_ray(play_deals, rules, seats, seed, deals, chunk, progress, address)
    return summarise(lineup, rules, deals, seed, seats, outcomes)


def run_match_bench_on_ray(
    lineup: Sequence[str],
    rules: Ruleset,
    matches: int,
    seed: int = 0,
    *,
    chunk: int = DEFAULT_MATCH_CHUNK,
    progress: Progress | None = None,
    address: str = "",
) -> MatchResult:
    """:func:`spar_train.match.bench.run_match_bench` with one Ray task per batch of matches:
    the figures of a local run with the same seed and chunk.

    Raises:
        ValueError: for a bad lineup, spec, count or seed, or an open session, before any task.
    """
    check_request(matches, chunk, seed)
    require_match_end(rules)
    seats = _seats(lineup, rules)
    outcomes = _play_on_ray(play_matches, rules, seats, seed, matches, chunk, progress, address)
    return summarise_matches(lineup, rules, matches, seed, seats, outcomes)


def _seats(lineup: Sequence[str], rules: Ruleset) -> Seating:
    """The seating, after building each spec once here: a bad one fails before any task."""
    seats = seating(lineup, rules.players)
    for spec in seats.agents:
        make_agent(spec, rules)
    return seats


def _play_on_ray(
    play: Callable[..., Any],
    rules: Ruleset,
    seats: Seating,
    seed: int,
    total: int,
    chunk: int,
    progress: Progress | None,
    address: str,
) -> list[Any]:
    """``play(rules, agents, seats, seed, batch)`` for every batch as a Ray task; the outcomes
    in batch order."""
    ray = connect(address)
    task = ray.remote(max_retries=TASK_RETRIES)(_play).options(name=TASK_NAME)
    pending = {
        task.remote(play, rules, seats, seed, batch): batch for batch in batches(total, chunk)
    }
    outcomes: dict[int, Any] = {}
    done = 0
    try:
        while pending:
            (ready,), _ = ray.wait(list(pending), num_returns=1)
            batch = pending.pop(ready)
            outcomes[batch.index] = ray.get(ready)
            done += batch.count
            if progress is not None:
                progress(done, total)
    finally:  # an error or Ctrl-C: the other tasks are of no use
        for ref in pending:
            ray.cancel(ref)
    return [outcomes[i] for i in sorted(outcomes)]


def spread(deals: int, chunk: int, cpus: int) -> int | None:
    """A chunk that gives each of ``cpus`` CPUs a task, if ``chunk`` leaves some idle; else None."""
    if math.ceil(deals / chunk) >= cpus or deals < cpus:
        return None
    return math.ceil(deals / cpus)


def _play(play: Callable[..., Any], rules: Ruleset, seats: Seating, seed: int, batch: Batch) -> Any:
    """One task: build the agents (once per worker process) and play the batch."""
    return play(rules, _agents(rules, seats.agents), seats, seed, batch)


@functools.lru_cache(maxsize=4)
def _agents(rules: Ruleset, specs: tuple[str, ...]) -> list[Agent]:
    """The agents of ``specs``, kept for the worker's next tasks, as a local run keeps them."""
    return [make_agent(spec, rules) for spec in specs]
