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
(:mod:`train.distributed.bench`) plays each batch as a task and gets the
figures of a local run. Each deal is one hand; session rules (targets, stones)
do not enter.

**The batch core.** A batch holds ``chunk`` deals times the rotations. At
every step the games are grouped by the agent in the seat to move; each agent
decides its group at once on a :class:`~agents.base.Situation`, and one core
step moves every game. A :class:`~spar_env.history.History` follows the plays.

**Figures, per agent** (over the hands it played, one hand per seat it held):

- ``mean_payoff``: payoff per hand (``rules.payoff``: stakes or points), with
  a 95% confidence interval. The deal is the independent unit: the agent's
  mean payoff over all its seats and rotations of one deal is one sample, and
  the interval is Student's t over the deals (:func:`train.stats.mean_ci`).
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
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from agents import Agent, Situation, make_agent
from spar_env.core import reset, shuffle_decks, tables_for
from spar_env.core.bits import popcount
from spar_env.history import History, step_with_history
from spar_env.rules import Ruleset
from train.stats import mean_ci

DEAL_BLOCK = 1024  # deals drawn from one generator: deal i depends only on (seed, i)
DEFAULT_CHUNK = 8192  # deals per batch (times the rotations: games in the batch)

Progress = Callable[[int, int], None]  # (deals done, deals in all)


@dataclass(frozen=True)
class Seating:
    """Which agent sits where, in each rotation of one deal."""

    agents: tuple[str, ...]  # distinct specs, in lineup order
    table: np.ndarray  # int64 [R, N] index into agents of the agent at each seat, per rotation

    @property
    def rotations(self) -> int:
        return int(self.table.shape[0])

    @property
    def seats(self) -> np.ndarray:
        """``int64 [A]`` seats each agent holds at the table (the same in every rotation)."""
        return np.bincount(self.table[0], minlength=len(self.agents))


def seating(lineup: Sequence[str], players: int) -> Seating:
    """Seat ``lineup`` at ``players`` seats and list the distinct rotations (module docstring).

    Raises:
        ValueError: for a lineup longer than the table or with fewer than two agents.
    """
    specs = [spec.strip() for spec in lineup]
    if len(specs) > players:
        raise ValueError(
            f"a lineup of {len(specs)} agents does not fit {players} seats; "
            f"give at most {players} agent specs (or raise --players)"
        )
    agents = tuple(dict.fromkeys(specs))
    if len(agents) < 2:
        raise ValueError(f"a tournament needs at least two different agents; got {specs}")
    pattern = np.array([agents.index(specs[s % len(specs)]) for s in range(players)])
    rotations: list[tuple[int, ...]] = []
    for r in range(players):
        row = tuple(np.roll(pattern, r).tolist())
        if row not in rotations:
            rotations.append(row)
    return Seating(agents=agents, table=np.array(rotations, dtype=np.int64))


def draw_deals(rules: Ruleset, seed: int, start: int, count: int) -> tuple[np.ndarray, np.ndarray]:
    """Deals ``start .. start+count-1`` of ``seed``: ``(decks int8 [count, deck], dealers [count])``."""
    t = tables_for(rules)
    decks, dealers = [], []
    for block in range(start // DEAL_BLOCK, (start + count - 1) // DEAL_BLOCK + 1):
        rng = np.random.default_rng([seed, 0, block])
        block_decks = shuffle_decks(t, DEAL_BLOCK, rng)
        if rules.first_dealer is None:
            block_dealers = rng.integers(0, rules.players, DEAL_BLOCK)
        else:
            block_dealers = np.full(DEAL_BLOCK, rules.first_dealer, dtype=np.int64)
        lo = max(start - block * DEAL_BLOCK, 0)
        hi = min(start + count - block * DEAL_BLOCK, DEAL_BLOCK)
        decks.append(block_decks[lo:hi])
        dealers.append(block_dealers[lo:hi])
    return np.concatenate(decks), np.concatenate(dealers).astype(np.int64)


@dataclass(frozen=True)
class Outcome:
    """How each game of a batch ended."""

    payoffs: np.ndarray  # float64 [B, N] payoff of each seat
    winner: np.ndarray  # int64 [B] seat that won the hand
    points: np.ndarray  # int64 [B] points it scored
    won_low: np.ndarray  # bool [B] the last trick was won with a scoring rank
    had_low: np.ndarray  # bool [B, N] the seat held a scoring rank at trick 1
    kept_low: np.ndarray  # bool [B, N] its card in the last trick was a scoring rank
    before_last: np.ndarray  # int64 [B] seat that won trick H-1 (-1 for one-card hands)


def play_batch(
    rules: Ruleset,
    agents: Sequence[Agent],
    agent_at: np.ndarray,
    decks: np.ndarray,
    dealers: np.ndarray,
    rng: np.random.Generator,
    on_step: Callable[[float], None] | None = None,
) -> Outcome:
    """Play one hand in every game: ``agent_at[g, s]`` (index into ``agents``) holds seat ``s``.

    ``on_step(done)``, if given, hears after each step the share of the batch's cards played.
    """
    t = tables_for(rules)
    n, h = rules.players, rules.hand_size
    state = reset(rules, decks.shape[0], rng, decks=decks, dealers=dealers)
    history = History(state)
    payoffs = np.zeros((state.batch_size, n))
    max_steps = n * h + n  # every card, plus at most one exchange decision per seat
    for _ in range(max_steps + 1):
        rows = np.flatnonzero(~state.terminated)
        if rows.size == 0:
            break
        owner = agent_at[rows, state.current_player[rows]]
        actions = np.zeros(state.batch_size, dtype=np.int64)
        for a, agent in enumerate(agents):
            games = rows[owner == a]
            if games.size:
                actions[games] = agent.act(Situation(state, history, games), rng).actions
        step_with_history(state, actions, history)
        payoffs += state.rewards
        if on_step is not None:
            on_step(float(history.count.sum()) / (state.batch_size * n * h))
    else:
        raise RuntimeError(f"hands still running after {max_steps} steps")
    low_bits = np.bitwise_or.reduce(t.card_bit[: t.num_cards][t.card_points[:-1] > 0])
    last = slice(n * (h - 1), n * h)
    last_cards = np.zeros((state.batch_size, n), dtype=np.int64)
    np.put_along_axis(
        last_cards, history.seats[:, last].astype(np.int64), history.cards[:, last], axis=1
    )
    return Outcome(
        payoffs=payoffs,
        winner=state.winner.copy(),
        points=state.points.copy(),
        won_low=t.card_points[state.trick_card[:, h - 1].astype(np.int64)] > 0,
        had_low=popcount(state.held & low_bits) > 0,
        kept_low=t.card_points[last_cards] > 0,
        before_last=(
            state.trick_winner[:, h - 2].astype(np.int64) if h >= 2 else np.full(len(dealers), -1)
        ),
    )


@dataclass
class _Tally:
    """Running sums over batches: per-deal samples and per-agent counts."""

    num_agents: int
    payoff_by_deal: list[np.ndarray] = field(default_factory=list)  # [D, A] per batch
    net_by_deal: list[np.ndarray] = field(default_factory=list)  # [D, A, A] per batch
    hands: np.ndarray = field(init=False)
    wins: np.ndarray = field(init=False)
    points: np.ndarray = field(init=False)
    won_low: np.ndarray = field(init=False)
    had_low: np.ndarray = field(init=False)
    kept_low: np.ndarray = field(init=False)
    before_last: np.ndarray = field(init=False)

    def __post_init__(self) -> None:
        names = ("hands", "wins", "points", "won_low", "had_low", "kept_low", "before_last")
        for name in names:
            setattr(self, name, np.zeros(self.num_agents, dtype=np.int64))

    def add(self, outcome: Outcome, seated: Seating) -> None:
        a = self.num_agents
        rotations, seats = seated.rotations, seated.seats
        games = outcome.winner.shape[0]
        deals = games // rotations
        agent_at = np.tile(seated.table, (deals, 1))  # game d * R + r has rotation r
        deal = np.repeat(np.arange(deals), rotations)
        hands_per_deal = rotations * seats  # [A] seat-hands of each agent in one deal
        pay = np.bincount(
            (deal[:, None] * a + agent_at).ravel(),
            weights=outcome.payoffs.ravel(),
            minlength=deals * a,
        ).reshape(deals, a)
        self.payoff_by_deal.append(pay / hands_per_deal)
        winner_agent = agent_at[np.arange(games), outcome.winner]
        others = np.arange(agent_at.shape[1])[None, :] != outcome.winner[:, None]
        index = (deal[:, None] * a + winner_agent[:, None]) * a + agent_at
        paid = np.bincount(
            index[others],
            weights=np.broadcast_to(outcome.points[:, None], others.shape)[others],
            minlength=deals * a * a,
        ).reshape(deals, a, a)
        net = paid - paid.transpose(0, 2, 1)
        self.net_by_deal.append(net / (rotations * seats[:, None] * seats[None, :]))
        self.hands += deals * hands_per_deal
        self.wins += np.bincount(winner_agent, minlength=a)
        self.points += np.bincount(winner_agent, weights=outcome.points, minlength=a).astype(
            np.int64
        )
        self.won_low += np.bincount(winner_agent[outcome.won_low], minlength=a)
        self.had_low += np.bincount(agent_at[outcome.had_low], minlength=a)
        self.kept_low += np.bincount(agent_at[outcome.had_low & outcome.kept_low], minlength=a)
        took = outcome.before_last >= 0
        rows = np.flatnonzero(took)
        self.before_last += np.bincount(agent_at[rows, outcome.before_last[rows]], minlength=a)


@dataclass(frozen=True)
class AgentResult:
    """One agent's figures (module docstring)."""

    spec: str
    seats: int  # seats it holds at each table
    hands: int  # hands it played (deals x rotations x seats)
    mean_payoff: float
    ci95: float  # half-width of the 95% confidence interval of mean_payoff
    win_share: float
    points_per_win: float | None  # None if it never won
    low_card_wins: float | None  # None for a variant without scoring ranks
    low_card_kept: float | None  # None without scoring ranks, or never dealt one
    before_last_wins: float | None = None  # None for one-card hands

    def to_dict(self) -> dict[str, object]:
        """Plain data; an interval that one deal cannot give is ``None``."""
        half = _number(self.ci95)
        return {
            "spec": self.spec,
            "seats": self.seats,
            "hands": self.hands,
            "mean_payoff": self.mean_payoff,
            "ci95": None if half is None else [self.mean_payoff - half, self.mean_payoff + half],
            "ci95_halfwidth": half,
            "win_share": self.win_share,
            "points_per_win": self.points_per_win,
            "low_card_wins": self.low_card_wins,
            "low_card_kept": self.low_card_kept,
            "before_last_wins": self.before_last_wins,
        }


@dataclass(frozen=True)
class TournamentResult:
    rules: Ruleset
    lineup: tuple[str, ...]
    seed: int
    deals: int
    seating: Seating
    agents: tuple[AgentResult, ...]
    head_to_head: np.ndarray  # float64 [A, A] mean net stake from a seat of j to a seat of i
    head_to_head_ci95: np.ndarray  # float64 [A, A] half-widths
    payoff_by_deal: np.ndarray  # float64 [D, A] each agent's mean payoff per hand in each deal

    @property
    def games(self) -> int:
        """Games played: deals x rotations (one hand each)."""
        return self.deals * self.seating.rotations

    def to_dict(self) -> dict[str, object]:
        """Plain data for ``--json``: the same seed gives the same dict."""
        return {
            "variant": self.rules.variant,
            "players": self.rules.players,
            "options": self.rules.options(),
            "lineup": list(self.lineup),
            "seed": self.seed,
            "deals": self.deals,
            "rotations": self.seating.rotations,
            "games": self.games,
            "seating": self.seating.table.tolist(),
            "agents": [a.to_dict() for a in self.agents],
            "head_to_head": {
                "agents": list(self.seating.agents),
                "mean": self.head_to_head.tolist(),
                "ci95_halfwidth": [[_number(x) for x in row] for row in self.head_to_head_ci95],
            },
        }


def _number(x: float) -> float | None:
    """``x`` as a JSON-safe float, ``None`` for NaN."""
    return None if math.isnan(x) else float(x)


def run_tournament(
    lineup: Sequence[str],
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
    built from their specs (a trainer evaluates its live policy this way).

    Raises:
        ValueError: for a bad lineup, agent spec, count or seed, naming it.
    """
    check_request(deals, chunk, seed)
    seats = seating(lineup, rules.players)
    ready = dict(agents or {})
    players = [ready[spec] if spec in ready else make_agent(spec, rules) for spec in seats.agents]

    def outcomes() -> Iterator[Outcome]:
        for batch in batches(deals, chunk):
            on_step = None
            if progress is not None:  # report the deals of this batch as its cards get played

                def on_step(done: float, batch: Batch = batch) -> None:
                    progress(batch.start + int(done * batch.count), deals)

            yield play_deals(rules, players, seats, seed, batch, on_step)
            if progress is not None:
                progress(batch.start + batch.count, deals)

    return summarise(lineup, rules, deals, seed, seats, outcomes())


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


def summarise(
    lineup: Sequence[str],
    rules: Ruleset,
    deals: int,
    seed: int,
    seats: Seating,
    outcomes: Iterable[Outcome],
) -> TournamentResult:
    """The figures of a run from the outcomes of its batches, in batch order."""
    tally = _Tally(len(seats.agents))
    for outcome in outcomes:
        tally.add(outcome, seats)
    return _result(lineup, rules, deals, seed, seats, tally)


def _result(
    lineup: Sequence[str], rules: Ruleset, deals: int, seed: int, seats: Seating, tally: _Tally
) -> TournamentResult:
    payoff = np.concatenate(tally.payoff_by_deal)
    net = np.concatenate(tally.net_by_deal)
    scoring = bool(rules.rank_points)
    results = []
    for a, spec in enumerate(seats.agents):
        mean, half = mean_ci(payoff[:, a])
        wins, had = int(tally.wins[a]), int(tally.had_low[a])
        results.append(
            AgentResult(
                spec=spec,
                seats=int(seats.seats[a]),
                hands=int(tally.hands[a]),
                mean_payoff=mean,
                ci95=half,
                win_share=wins / int(tally.hands[a]),
                points_per_win=int(tally.points[a]) / wins if wins else None,
                low_card_wins=int(tally.won_low[a]) / int(tally.hands[a]) if scoring else None,
                low_card_kept=int(tally.kept_low[a]) / had if scoring and had else None,
                before_last_wins=(
                    int(tally.before_last[a]) / int(tally.hands[a])
                    if rules.hand_size >= 2
                    else None
                ),
            )
        )
    a = len(seats.agents)
    h2h = np.zeros((a, a))
    h2h_ci = np.zeros((a, a))
    for i in range(a):
        for j in range(a):
            if i != j:
                h2h[i, j], h2h_ci[i, j] = mean_ci(net[:, i, j])
    return TournamentResult(
        rules=rules,
        lineup=tuple(lineup),
        seed=seed,
        deals=deals,
        seating=seats,
        agents=tuple(results),
        head_to_head=h2h,
        head_to_head_ci95=h2h_ci,
        payoff_by_deal=payoff,
    )
