"""The duplicate-deal tournament behind ``spar bench``: every agent holds every hand.

**Seating.** A lineup of ``L`` agent specs fills the ``N`` seats in order and,
when shorter than ``N``, repeats around the table: seat ``s`` gets
``lineup[s mod L]``. So ``heuristic random random random`` puts one heuristic
against three random players, and the two-agent lineup ``heuristic random``
at four seats sits them alternately (H R H R). Equal specs are one agent (one
object, called once per step for all its seats); its figures pool its seats.
Each deal is then played once for every distinct rotation of that seating
(everyone moves one seat on), so every agent holds every hand: ``N``
rotations for ``H R R R``, two for ``H R H R``. A lineup longer than ``N``, or
with one agent only, is an error.

**Deals.** Deal ``i`` of a seed (its deck order and dealer; the ruleset's
``first_dealer`` when it fixes one) depends on the seed and ``i`` only, not
on how many deals are asked for. The agents' random choices come from one
generator per batch of ``chunk`` deals, so the same seed and chunk size give
the same figures, however the batches are shared out: a run on Ray
(:mod:`spar_train.distributed.bench`) plays each batch as a task and gets the
figures of a local run. Each deal is one hand; session rules (targets, stones)
do not enter.

**The batch core.** A batch holds ``chunk`` deals times the rotations. At
every step the games are grouped by the agent in the seat to move; each agent
decides its group at once on a :class:`~spar_agents.base.Situation`, and one core
step moves every game. A :class:`~spar_env.history.History` follows the plays.

**Figures, per agent** (over the hands it played, one hand per seat it held):

- ``mean_payoff``: payoff per hand (``rules.payoff``: stakes or points), with
  a 95% confidence interval. The deal is the independent unit: the agent's
  mean payoff over all its seats and rotations of one deal is one sample, and
  the interval is Student's t over the deals (:func:`spar_train.tournament.stats.mean_ci`).
- ``win_share``: share of its hands it won; ``points_per_win``: the points it
  scored per hand won.
- ``low_card_wins``: share of its hands in which it won the last trick with a
  scoring rank (``rules.rank_points``: a 6 or 7 in Spar, a 7 in Sipa, a 3 in
  Fapfap); ``low_card_kept``: of its hands that held such a card at trick 1
  (after any exchange), the share in which its last card still was one. Both
  are ``None`` (n/a) for a variant without scoring ranks, such as ``one``.
- ``before_last_wins``: share of its hands in which it won trick ``H-1``, the
  trick that gives the lead of the last (``None`` for one-card hands).

**Head to head.** ``head_to_head[i, j]`` is the net stake that one seat
of agent ``j`` pays one seat of agent ``i`` per hand, where the winner of a
hand collects its points from every other seat (whatever the payoff option).
It is antisymmetric; with stakes payoffs agent ``i``'s mean payoff is
``sum_j seats[j] * head_to_head[i, j]``, and in a two-player game ``head_to_head[0, 1]`` is
agent 0's mean payoff. Its intervals are taken over deals as above.

The seating and the deals are in :mod:`spar_train.tournament.seating`, the play of a batch in
:mod:`spar_train.tournament.hands`, the figures in :mod:`spar_train.tournament.standings`; this module runs
a tournament from them (and re-exports their names).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from spar_agents import Agent, make_agent
from spar_agents.registry import AgentSpec
from spar_env.rules import Ruleset
from spar_train.tournament.hands import Outcome, play_batch
from spar_train.tournament.seating import DEAL_BLOCK, Seating, draw_deals, seating
from spar_train.tournament.standings import AgentResult, TournamentResult, summarise

__all__ = [
    "DEAL_BLOCK",
    "DEFAULT_CHUNK",
    "Progress",
    "AgentResult",
    "Batch",
    "Outcome",
    "Seating",
    "TournamentResult",
    "batches",
    "build_players",
    "check_request",
    "draw_deals",
    "play_batch",
    "play_deals",
    "run_tournament",
    "seating",
    "summarise",
]

DEFAULT_CHUNK = 8192  # deals per batch (times the rotations: games in the batch)

Progress = Callable[[float, int], None]  # (deals done, a running match as a fraction; in all)


def run_tournament(
    lineup: Sequence[str | AgentSpec],
    rules: Ruleset,
    deals: int,
    seed: int = 0,
    *,
    chunk: int = DEFAULT_CHUNK,
    progress: Progress | None = None,
    agents: Mapping[str, Agent] | None = None,
) -> TournamentResult:
    """Play ``deals`` duplicate deals among the agents of ``lineup`` (module docstring).

    ``agents`` may give ready agents by name; the lineup's other entries are
    built from their specs (a trainer evaluates its live policy this way), parsed
    already where the lineup gives them so.

    Raises:
        ValueError: for a bad lineup, agent spec, count or seed, naming it.
    """
    check_request(deals, chunk, seed)
    texts = [str(spec) for spec in lineup]
    seats = seating(texts, rules.players)
    players = build_players(lineup, seats, rules, agents)

    def outcomes() -> Iterator[Outcome]:
        for batch in batches(deals, chunk):
            on_step = None
            if progress is not None:  # report the deals of this batch as its cards get played

                def on_step(done: float, batch: Batch = batch) -> None:
                    progress(batch.start + int(done * batch.count), deals)

            yield play_deals(rules, players, seats, seed, batch, on_step)
            if progress is not None:
                progress(batch.start + batch.count, deals)

    return summarise(texts, rules, deals, seed, seats, outcomes())


def build_players(
    lineup: Sequence[str | AgentSpec],
    seats: Seating,
    rules: Ruleset,
    agents: Mapping[str, Agent] | None = None,
) -> list[Agent]:
    """The agents of ``seats.agents``, in order: ready ones from ``agents`` (by spec), the
    others built from their specs, each once (from the lineup's value, read already, when it
    has the seating's text)."""
    ready = dict(agents or {})
    given = {str(spec): spec for spec in lineup}
    return [ready[spec] if spec in ready else make_agent(given.get(spec, spec), rules)
            for spec in seats.agents]  # fmt: skip


def check_request(deals: int, chunk: int, seed: int) -> None:
    """Raise ``ValueError`` for a count, batch size or seed that cannot run."""
    if deals < 1:
        raise ValueError(f"deals must be at least 1; got {deals}")
    if chunk < 1:
        raise ValueError(f"chunk must be at least 1; got {chunk}")
    if seed < 0:
        raise ValueError(f"seed must be a non-negative integer; got {seed}")


@dataclass(frozen=True)
class Batch:
    """Deals ``start .. start+count-1``, played with the agents' generator number ``index``."""

    index: int
    start: int
    count: int


def batches(deals: int, chunk: int) -> list[Batch]:
    """The batches of a run of ``deals`` deals, ``chunk`` at a time."""
    return [
        Batch(index, start, min(chunk, deals - start))
        for index, start in enumerate(range(0, deals, chunk))
    ]


def play_deals(
    rules: Ruleset,
    players: Sequence[Agent],
    seats: Seating,
    seed: int,
    batch: Batch,
    on_step: Callable[[float], None] | None = None,
) -> Outcome:
    """Play one batch of ``seed``'s deals in every rotation of ``seats``.

    ``players`` are the agents of ``seats.agents``, in order. The outcome
    depends on ``(seed, batch)`` alone, wherever and whenever it is played.
    """
    decks, dealers = draw_deals(rules, seed, batch.start, batch.count)
    rotations = seats.rotations
    return play_batch(
        rules,
        players,
        np.tile(seats.table, (batch.count, 1)),  # game d * R + r has rotation r
        np.repeat(decks, rotations, axis=0),
        np.repeat(dealers, rotations),
        np.random.default_rng([seed, 1, batch.index]),
        on_step,
    )
