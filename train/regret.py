"""How far a player is from search, decision by decision: the regret against a strong search.

On positions from self-play, a *judge* (a :class:`~spar_agents.search.SearchAgent` with many
worlds) values every legal card of every decision, each card in the same sampled worlds, so
the comparison between cards is paired (:meth:`~spar_agents.search.SearchAgent.card_estimates`).
An agent's regret at a decision is

    regret = Q(best) - Q(the agent's card)

in the game's payoff units (the same as a bench's payoff a hand), where ``Q`` is the judge's
mean value of a card and ``best`` the card the judge would play (the best mean; the lowest card
id among equals, as the search breaks ties). It needs no matches: the positions and the judge's
values are made once, and every agent is then asked for one card at each position.

    from spar_agents import make_agent
    from spar_env.rules import make_rules
    from spar_train.regret import judge_positions, regret_of, self_play

    rules = make_rules("spar", players=4)
    positions = self_play(rules, 400, seed=0, player=make_agent("onnx:universal", rules))
    judge = make_agent("search:worlds=128,prior=0,seed=1000", rules)
    judged = judge_positions(positions, judge)
    report = regret_of(make_agent("onnx:exit4", rules), judged)
    report.mean, report.half  # the mean regret over decisions with a choice, its 95% interval

**Decisions with a single legal card** have no regret (0) and are left out of the mean; their
share is :attr:`Regret.forced_share`. **The breakdown**: by trick and by leading or following
(:attr:`Regret.by_trick`, :attr:`Regret.by_role`); each group's ``contribution`` (its share of
the decisions with a choice times its mean) sums to the total mean. :func:`difference` breaks
down the gap between two agents the same way: where one is nearer the judge than the other.
The player count is the ruleset's: measure each count on its own positions.

**Intervals.** The decisions of one hand are not independent, so the 95% interval treats each
self-play hand as one draw (a ratio estimator over hands). The judge's own noise is in it: each
position's worlds are drawn afresh. Two agents judged on the same positions are compared
decision by decision (:func:`difference`), which is tighter than comparing their intervals.

**What the judge cannot see.** The best card is the argmax of noisy means, so every agent's
regret carries the same upward offset at a position (an agent that plays the judge's own best
card has regret 0, one that plays the truly best card a little more); the difference between
two agents on the same positions has no such offset. The judge values cards by its policy's
rollouts: an agent that plays better than that policy would be judged by it all the same,
and a search over the same policy is favoured (judge with the strongest policy at hand). A
search agent is judged only by a judge with more worlds than it and another seed (else it
would be judged by its own sampled worlds): :func:`check_judge` refuses the rest.

**Randomness.** ``self_play`` draws every deal and every sampled card from a generator seeded
by ``seed``; the judge seeds each decision's worlds by its own seed and what the seat sees; an
agent's draws (a sampling policy, ``random``) come from ``regret_of``'s ``seed``. The same
seeds give the same figures, whatever the chunk size.

**TensorBoard.** :meth:`Regret.scalars` names the figures as tags (``eval/regret``,
``eval/regret_ci95``, ``eval/regret_agreement``, ``eval/regret_trick1``, ...,
``eval/regret_lead``, ``eval/regret_follow``): a hook judges a fixed set of positions once, then
calls :func:`regret_of` on the learner at each evaluation (the network's cards alone, in
milliseconds) and writes the scalars.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from spar_agents import Agent
from spar_agents.pimc import PimcAgent
from spar_agents.search import SearchAgent
from spar_env.core import PLAY, State, reset
from spar_env.core.bits import lowest_bit_index
from spar_env.history import History, step_with_history
from spar_env.rules import Ruleset
from spar_env.situation import Situation

CHUNK = 32  # decisions handed to an agent (or the judge) at once: bounds the search's memory
Z95 = 1.959963984540054  # the normal quantile of a two-sided 95% interval
LEAD, FOLLOW = "lead", "follow"


@dataclass(frozen=True)
class Positions:
    """Decisions from self-play, one game of a batch each, in the order they were played."""

    state: State  # [P] each decision's game, the seat to move about to play
    history: History  # [P] the plays of each decision's hand so far
    hand: np.ndarray  # int64 [P] the self-play hand each decision came from
    trick: np.ndarray  # int64 [P] 0-based trick number
    leading: np.ndarray  # bool [P] the seat leads the trick (no card played to it yet)
    choice: np.ndarray  # bool [P] more than one legal card

    @property
    def count(self) -> int:
        return int(self.hand.shape[0])

    @property
    def rules(self) -> Ruleset:
        return self.state.tables.rules

    def situation(self, rows: np.ndarray) -> Situation:
        """The decisions ``rows`` as a situation for an agent."""
        return Situation(self.state, self.history, rows)


@dataclass(frozen=True)
class Judged:
    """Positions with the judge's value of every legal card at each decision with a choice."""

    positions: Positions
    values: np.ndarray  # float64 [P, C] mean value of each card (-inf illegal; forced rows too)
    best: np.ndarray  # int64 [P] the judge's card (the only legal one where there is no choice)
    judge: str  # what judged, in words


@dataclass(frozen=True)
class Group:
    """A mean over one part of the decisions (a trick, leading or following): of an agent's
    regret, or of one agent's regret less another's (:class:`Gap`)."""

    name: str
    decisions: int  # decisions with a choice in the group
    forced: int  # decisions with a single legal card in the group
    share: float  # its share of all decisions with a choice
    mean: float  # mean regret over its decisions with a choice (nan if none)
    half: float  # half-width of the 95% interval (nan if none, inf from a single hand)

    @property
    def contribution(self) -> float:
        """``share * mean``: the groups of one breakdown sum to the total mean."""
        return self.share * self.mean if self.decisions else 0.0


@dataclass(frozen=True)
class Gap:
    """One agent's regret less another's on the same decisions, with the same breakdown."""

    mean: float  # over the decisions with a choice (negative: the first is nearer the judge)
    half: float  # half-width of its 95% interval
    by_trick: tuple[Group, ...]  # each group's mean difference; contributions sum to ``mean``
    by_role: tuple[Group, ...]


@dataclass(frozen=True)
class Regret:
    """An agent's regret on judged positions (module docstring)."""

    players: int
    decisions: int  # every position, forced ones included
    forced: int  # positions with a single legal card (regret 0, left out of the mean)
    mean: float  # mean regret over the decisions with a choice
    half: float  # half-width of its 95% interval
    agreement: float  # share of the decisions with a choice where the agent played the judge's card
    by_trick: tuple[Group, ...]
    by_role: tuple[Group, ...]  # leading, then following
    per_decision: np.ndarray  # float64 [P] regret at each position (0 where forced)
    hand: np.ndarray  # int64 [P] the self-play hand of each position (for paired comparisons)
    trick: np.ndarray  # int64 [P] its 0-based trick
    leading: np.ndarray  # bool [P] its seat leads the trick
    choice: np.ndarray  # bool [P]

    @property
    def forced_share(self) -> float:
        return self.forced / self.decisions if self.decisions else 0.0

    def scalars(self, prefix: str = "eval/regret") -> dict[str, float]:
        """The figures as TensorBoard tags: the mean, its interval, the agreement, and each
        group's mean (groups without a decision with a choice left out)."""
        out = {prefix: self.mean, f"{prefix}_ci95": self.half,
               f"{prefix}_agreement": self.agreement}  # fmt: skip
        for group in (*self.by_trick, *self.by_role):
            if group.decisions:
                out[f"{prefix}_{group.name}"] = group.mean
        return out


def self_play(rules: Ruleset, count: int, seed: int, player: Agent) -> Positions:
    """The first ``count`` decisions of hands dealt with ``seed`` and played by ``player`` in
    every seat, hand by hand (the last hand may be cut short).

    Raises:
        ValueError: for a count below 1, or a ruleset with the weak-hand exchange (the search
            values no exchange decision).
    """
    if isinstance(count, bool) or not isinstance(count, int) or count < 1:
        raise ValueError(f"regret: positions must be a positive whole number; got {count!r}")
    if rules.weak_hand_exchange:
        raise ValueError("regret: rulesets with the weak-hand exchange are not supported")
    rng = np.random.default_rng(seed)
    per_hand = rules.players * rules.hand_size
    hands = -(-count // per_hand)
    state = reset(rules, hands, rng)
    history = History(state)
    states, histories, rows = [], [], []
    while not state.terminated.all():
        live = np.flatnonzero(~state.terminated & (state.phase == PLAY))
        states.append(state.take(live))
        histories.append(history.take(live))
        rows.append(live)
        actions = np.zeros(hands, dtype=np.int64)
        actions[live] = player.act(Situation(state, history, live), rng).actions
        step_with_history(state, actions, history)
    hand = np.concatenate(rows)
    order = np.argsort(hand, kind="stable")[:count]  # hand by hand, each in the order played
    s = State.concat(states).take(order)
    h = History.concat(histories).take(order)
    return Positions(
        state=s,
        history=h,
        hand=hand[order],
        trick=s.trick.copy(),
        leading=s.pos == 0,
        choice=np.bitwise_count(s.legal) > 1,
    )


def check_judge(judge: SearchAgent, agents: dict[str, Agent]) -> None:
    """Refuse to judge a search agent by its own worlds (module docstring).

    Raises:
        ValueError: if ``judge`` is no search, or an agent that searches has as many worlds
            as the judge or more, or the judge's seed.
    """
    if not isinstance(judge, SearchAgent):
        raise ValueError("regret: the judge must be a search agent (search:...)")
    for name, agent in agents.items():
        if not isinstance(agent, PimcAgent):
            continue
        if agent.worlds >= judge.worlds:
            raise ValueError(
                f"regret: the judge needs more worlds than {name} ({agent.worlds}); "
                f"it has {judge.worlds}"
            )
        if agent.seed == judge.seed:
            raise ValueError(
                f"regret: {name} and the judge share the seed {agent.seed}, so they would draw "
                "the same worlds; give one of them another seed"
            )


def judge_positions(
    positions: Positions,
    judge: SearchAgent,
    chunk: int = CHUNK,
    progress: Callable[[int], None] | None = None,
) -> Judged:
    """The judge's value of every legal card at each decision with a choice, and its card;
    ``progress`` is told how many decisions each chunk valued (for a progress bar)."""
    check_judge(judge, {})
    c = positions.rules.num_card_ids
    values = np.full((positions.count, c), -np.inf)
    asked = np.flatnonzero(positions.choice)
    for start in range(0, asked.size, chunk):
        rows = asked[start : start + chunk]
        values[rows] = judge.card_values(positions.situation(rows))
        if progress is not None:
            progress(rows.size)
    forced = np.flatnonzero(~positions.choice)
    only = lowest_bit_index(positions.state.legal[forced])
    values[forced, only] = 0.0
    best = values.argmax(axis=1)  # the best mean, the lowest card id among equals (the first)
    words = (f"search: {judge.worlds} worlds x {judge.candidates} candidates, "
             f"belief {judge.belief:g}, leaf {judge.leaf}, seed {judge.seed}")  # fmt: skip
    return Judged(positions, values, best.astype(np.int64), words)


def regret_of(agent: Agent, judged: Judged, seed: int = 0, chunk: int = CHUNK) -> Regret:
    """``agent``'s regret on the judged positions, with its breakdown (module docstring).

    Raises:
        ValueError: if the agent plays an illegal card.
    """
    positions = judged.positions
    rng = np.random.default_rng(seed)
    rows_all = np.arange(positions.count)
    regret = np.zeros(positions.count)
    agreed = 0
    asked = rows_all[positions.choice]
    for start in range(0, asked.size, chunk):
        rows = asked[start : start + chunk]
        actions = np.asarray(agent.act(positions.situation(rows), rng).actions, dtype=np.int64)
        chosen = judged.values[rows, actions]
        if not np.isfinite(chosen).all():
            raise ValueError("regret: the agent played an illegal card")
        regret[rows] = judged.values[rows, judged.best[rows]] - chosen
        agreed += int((actions == judged.best[rows]).sum())
    n = int(positions.choice.sum())
    p = positions
    total = _broken_down(regret, p.choice, p.hand, p.trick, p.leading, p.rules.hand_size)
    return Regret(
        players=positions.rules.players,
        decisions=positions.count,
        forced=positions.count - n,
        mean=total.mean,
        half=total.half,
        agreement=agreed / n if n else math.nan,
        by_trick=total.by_trick,
        by_role=total.by_role,
        per_decision=regret,
        hand=p.hand.copy(),
        trick=p.trick.copy(),
        leading=p.leading.copy(),
        choice=p.choice.copy(),
    )


def difference(a: Regret, b: Regret) -> Gap:
    """``a``'s regret less ``b``'s, decision by decision on the same judged positions, with
    its 95% interval and its breakdown (negative: ``a`` is nearer the judge).

    Raises:
        ValueError: if the two were not measured on the same positions.
    """
    same = all(np.array_equal(getattr(a, f), getattr(b, f))
               for f in ("hand", "trick", "leading", "choice"))  # fmt: skip
    if not same:
        raise ValueError("regret: the two agents were judged on different positions")
    delta = a.per_decision - b.per_decision
    return _broken_down(delta, a.choice, a.hand, a.trick, a.leading, len(a.by_trick))


def _broken_down(
    values: np.ndarray,
    choice: np.ndarray,
    hand: np.ndarray,
    trick: np.ndarray,
    leading: np.ndarray,
    tricks: int,
) -> Gap:
    """The mean of ``values`` over the decisions with a choice, and by trick and by role."""
    n = int(choice.sum())

    def group(name: str, where: np.ndarray) -> Group:
        picked = where & choice
        m, h = clustered_mean(values[picked], hand[picked])
        k = int(picked.sum())
        return Group(name, k, int((where & ~choice).sum()), k / n if n else 0.0, m, h)

    mean, half = clustered_mean(values[choice], hand[choice])
    by_trick = tuple(group(f"trick{t + 1}", trick == t) for t in range(tricks))
    return Gap(mean, half, by_trick, (group(LEAD, leading), group(FOLLOW, ~leading)))


def clustered_mean(values: np.ndarray, clusters: np.ndarray) -> tuple[float, float]:
    """``(mean, half)``: the mean of ``values`` and the half-width of its 95% interval, each
    cluster (a hand) one draw: ``var = H/(H-1) * sum_h (S_h - mean * n_h)**2 / n**2`` over the
    ``H`` clusters' sums ``S_h`` and sizes ``n_h``. ``(nan, nan)`` for no value, and an infinite
    half-width from a single cluster."""
    n = values.size
    if n == 0:
        return math.nan, math.nan
    mean = float(values.mean())
    _, which = np.unique(clusters, return_inverse=True)
    k = int(which.max()) + 1
    if k < 2:
        return mean, math.inf
    sums = np.bincount(which, weights=values, minlength=k)
    sizes = np.bincount(which, minlength=k)
    variance = k / (k - 1) * float(((sums - mean * sizes) ** 2).sum()) / n**2
    return mean, Z95 * math.sqrt(variance)
