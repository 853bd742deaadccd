"""``search``: search guided by a learned policy. Worlds weighted by how the seats played, then played out.

``pimc`` (:mod:`spar_agents.pimc`) draws the hidden cards uniformly among the deals
consistent with what its seat has seen, and values each card as if every seat
then played perfectly with every hand open. But how the other seats played
says more than which cards they could hold (a seat that led a low heart
probably holds no high ones), and no seat plays with open cards.
:class:`SearchAgent` models every seat by a learned policy (an exported bot or
a PPO run; by default the shipped universal bot) and, for each decision,

1. samples ``worlds * candidates`` worlds uniformly among the consistent ones
   (:func:`spar_agents.worlds.sample_worlds`, as ``pimc`` does);
2. **belief inference**: replays the hand so far in every candidate world on
   the batch core (the world's hands as dealt, the plays as seen), and weighs
   the world by the policy's likelihood of every play the *other* seats made,
   each seen from that seat's own observation in that world (one pass of the
   network for all of them): ``weight = prod(max(p, FLOOR)) ** beta``
   (``beta=0`` is ``pimc``'s uniform belief; the floor keeps a play the model
   finds unlikely from ruling a world out alone). ``beta`` is ``belief`` (1:
   the model's own likelihood), tempered when that would leave too few
   worlds: the largest ``beta`` up to ``belief`` whose weights keep an
   effective sample size (``sum(w)**2 / sum(w**2)``) of at least
   ``ess * worlds``. Untempered, the product over a dozen plays puts nearly
   all the weight on one or two worlds, and a decision on so few worlds plays
   worse than ``pimc``;
3. resamples ``worlds`` worlds by those weights (systematic resampling);
4. values each legal card in each of them (``leaf``):

   - ``rollout`` (the default): plays the card, then the rest of the hand
     with the policy (greedy) in every seat, on the batch core, and takes the
     payoff. Every card is valued in the same worlds, so the comparison
     between cards is paired;
   - ``solve``: the exact open-card solve of ``pimc`` (:mod:`spar_agents.perfect_info.solver`:
     max-n, every seat maximising its own payoff with every hand visible);

5. plays the card with the best score, its mean value plus ``prior`` times the
   policy's own probability of it at this decision (the lowest card id among
   equals). With ``prior=0`` the search decides alone; the default, 1, keeps
   the policy's choice unless the search finds a card better by a margin
   (values from a few dozen worlds are noisy, and an argmax over noisy values
   overrides a good policy too often).

Why these defaults, measured against three copies of ``onnx:spar4`` (2,000
duplicate deals; ``benchmarks/README.md``, Policy-guided search): rollouts
beat the open-card solve (the solve assumes seats that see every card), the
belief beats uniform worlds (+0.088 against +0.060 with 32 worlds), and 64
worlds beat 32 (+0.124 against +0.088) while 128 add little (+0.129) for
nearly twice the time.

The replay reads only the deciding seat's view (its hand, the public plays)
and public facts of the hand (the dealer, the seats in the hand, the session
scores, from the situation's public fields); hidden cards come from the
sampled worlds alone. The rulesets it takes: no weak-hand exchange (its
decision depends on the stock's order, which the replay does not model); a
hand where some seats sit out (a ``stones`` tie-break) keeps ``pimc``'s
uniform belief.

**Randomness and time** are ``pimc``'s: each decision's generator is seeded
by ``seed`` and the information state, so the same view gives the same card.
``time_limit`` (seconds per decision, from its start) stops adding worlds:
solved ones with ``leaf=solve`` (at least one), rolled-out ones in chunks of
``ROLLOUT_CHUNK`` with ``leaf=rollout`` (at least one chunk). The replay of
the candidate worlds always runs whole.
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np

from spar_agents.base import Decision, Situation
from spar_agents.belief import (
    Believed,
    Policy,
    public_facts,
    replay,
    systematic,
    tempered,
)
from spar_agents.card_estimates import CardEstimates, HandEnds
from spar_agents.pimc import PimcAgent, play_position
from spar_agents.worlds import SeatView, sample_worlds, seat_views
from spar_env.core import State
from spar_env.core.bits import lowest_bit_index
from spar_env.history import History, step_with_history
from spar_env.limits import MAX_WORLDS
from spar_env.rules import Ruleset

LEAVES = ("solve", "rollout")
ROLLOUT_CHUNK = 8  # worlds rolled out at once under a time limit (all at once without one)
POLICY_ROWS = 256  # rows a forward pass of the rollouts: larger batches spill the caches


class SearchAgent(PimcAgent):
    """Policy-guided search (see the module docstring).

    Args:
        rules: the ruleset.
        policy: the model of the seats: a situation -> its action probabilities.
        worlds: worlds valued per decision.
        candidates: worlds sampled per world valued, before the belief resamples them.
        belief: the largest exponent of the likelihood (0: uniform, as ``pimc``).
        ess: the least effective number of weighted worlds, times ``worlds`` (tempering).
        prior: the weight of the policy's own probabilities in the choice (step 5).
        leaf: ``solve`` or ``rollout``.
        seed, time_limit: as ``pimc``'s.
    """

    def __init__(
        self,
        rules: Ruleset,
        policy: Policy,
        worlds: int = 64,
        candidates: int = 4,
        belief: float = 1.0,
        ess: float = 1.0,
        prior: float = 1.0,
        leaf: str = "rollout",
        seed: int = 0,
        time_limit: float | None = None,
    ) -> None:
        super().__init__(rules, worlds=worlds, seed=seed, time_limit=time_limit)
        check_rules(rules)
        if isinstance(candidates, bool) or not isinstance(candidates, int) or candidates < 1:
            raise ValueError(
                f"search: candidates must be a positive whole number; got {candidates!r}"
            )
        if worlds * candidates > MAX_WORLDS:
            raise ValueError(
                f"search: worlds x candidates is at most {MAX_WORLDS:,} (a limit of spar-rl); "
                f"got {worlds:,} x {candidates:,}"
            )
        for name, value, above in (("belief", belief, False), ("ess", ess, True),
                                   ("prior", prior, False)):  # fmt: skip
            if not _finite_number(value) or value < 0 or (above and value == 0):
                least = "above 0" if above else "of at least 0"
                raise ValueError(f"search: {name} must be a finite number {least}; got {value!r}")
        if leaf not in LEAVES:
            raise ValueError(f"search: leaf must be one of {', '.join(LEAVES)}; got {leaf!r}")
        self.policy = policy
        self.candidates = candidates
        self.belief = float(belief)
        self.ess = float(ess)
        self.prior = float(prior)
        self.leaf = leaf

    def act(self, situation: Situation, rng: np.random.Generator | None = None) -> Decision:
        legal = situation.legal
        actions = lowest_bit_index(legal)  # right wherever there is a single legal action
        searched = np.flatnonzero(np.bitwise_count(legal) > 1)
        if searched.size:
            chosen = Situation(situation.state, situation.history, situation.games[searched])
            own = self._own_probs(situation, searched)
            for i, values, p in zip(searched, self.card_values(chosen), own, strict=True):
                values = values + p
                choices = [a for a in range(self.rules.num_card_ids) if int(legal[i]) >> a & 1]
                actions[i] = max(choices, key=lambda a: (values[a], -a))
        probs = np.zeros((situation.size, self.rules.num_actions), dtype=np.float32)
        probs[np.arange(situation.size), actions] = 1.0
        return Decision(actions, probs)

    def _own_probs(self, situation: Situation, rows: np.ndarray) -> np.ndarray:
        """``prior`` times the policy's probabilities at the decisions ``rows`` (0 if no prior)."""
        if self.prior == 0:
            return np.zeros((rows.size, self.rules.num_card_ids))
        probs = self.policy(Situation(situation.state, situation.history, situation.games[rows]))
        return self.prior * probs[:, : self.rules.num_card_ids].astype(np.float64)

    def card_values(self, situation: Situation) -> np.ndarray:
        """``float64 [G, C]``: each legal card's mean value to the seat to move, over the
        believed worlds, at each of the situation's decisions (-inf for an illegal card):
        what :meth:`act` chooses from, before the policy's ``prior``.

        With ``leaf=rollout`` and no time limit, the rollouts of every decision's worlds run
        as one batch on the core, with one pass of the network a step for all of them (the
        same values as :meth:`search_values` decision by decision, many times faster).
        """
        means = [e.mean for e in self.card_estimates(situation)]
        return np.stack(means) if means else np.zeros((0, self.rules.num_card_ids))

    def card_estimates(self, situation: Situation) -> list[CardEstimates]:
        """Each decision's legal cards valued in every believed world (:meth:`card_values`
        is their means): the values world by world, with their standard errors, and with
        ``leaf=rollout`` how the hand ended after each card (:mod:`spar_agents.card_estimates`)."""
        views = seat_views(situation)
        believed = [self._believed(view, public_facts(situation.state, int(game)))
                    for game, view in zip(situation.games, views, strict=True)]  # fmt: skip
        out: list[CardEstimates | None] = [None] * len(views)
        together, decisions = [], []
        for i, b in enumerate(believed):
            if self._rolls_out(b) and b.states is not None and b.history is not None:
                together.append(i)
                decisions.append((b.states, b.history, views[i].seat))
        for i, (per_world, legal, ends) in zip(together, self._rollouts(decisions), strict=True):
            out[i] = CardEstimates(per_world, believed[i].counts, legal, ends)
        for i in sorted(set(range(len(views))) - set(together)):
            out[i] = self._valued(views[i], believed[i], time.perf_counter())
        return [e for e in out if e is not None]

    def search_values(self, view: SeatView, public: dict[str, np.ndarray]) -> np.ndarray:
        """``float64 [C]`` each legal card's mean value over the believed worlds (-inf if illegal)."""
        begin = time.perf_counter()
        return self._valued(view, self._believed(view, public), begin).mean

    def _believed(self, view: SeatView, public: dict[str, np.ndarray]) -> Believed:
        """Steps 1 to 3: the worlds drawn, replayed, weighed and resampled."""
        rng = self._generator(view)
        pool = sample_worlds(view, self.worlds * self.candidates, rng)
        states, history, loglik = replay(self.rules, view, pool, public, self.policy)
        if self.belief > 0 and states is not None:
            beta = tempered(loglik, self.belief, self.ess * self.worlds)
            weights = np.exp(beta * (loglik - loglik.max()))
            picks = systematic(weights, self.worlds, rng)
        else:
            picks = rng.choice(pool.count, size=self.worlds, replace=pool.count < self.worlds)
        rows, counts = np.unique(picks, return_counts=True)
        if states is None or history is None:
            return Believed(pool.hands[rows], counts, None, None)
        return Believed(pool.hands[rows], counts, states.take(rows), history.take(rows))

    def _rolls_out(self, believed: Believed) -> bool:
        """Whether a decision's worlds are rolled out with the others' (:meth:`card_values`)."""
        return self.leaf == "rollout" and self.time_limit is None and believed.states is not None

    def _valued(self, view: SeatView, believed: Believed, begin: float) -> CardEstimates:
        """Step 4 for one decision: each legal card in each world (fewer under a time limit)."""
        ends = None
        if self.leaf == "rollout" and believed.states is not None and believed.history is not None:
            values, legal, ends = self._rolled_out(
                believed.states, believed.history, view.seat, begin
            )
        else:
            values, legal = self._solved(view, believed.hands)
        return CardEstimates(values, believed.counts[: values.shape[0]], legal, ends)

    def _solved(self, view: SeatView, hands: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``pimc``'s open-card values of every card in each world, and which cards are legal."""
        position = play_position(view)
        payoff = self.solver.payoff_table(view.active)[:, view.seat]
        (codes,) = self._solve([hands], lambda w: self.solver.solve_worlds(w, position, view.seat))
        legal = np.asarray((codes >= 0).all(axis=0))
        return np.where(codes >= 0, payoff[np.maximum(codes, 0)], 0.0), legal

    def _rolled_out(
        self, states: State, history: History, seat: int, begin: float
    ) -> tuple[np.ndarray, np.ndarray, HandEnds | None]:
        """:meth:`_rollouts` of every world at once; under a time limit, ``ROLLOUT_CHUNK``
        worlds at a time until the decision's time (from ``begin``) is spent (one chunk at
        least), and then no hand ends."""
        if self.time_limit is None:
            return self._rollouts([(states, history, seat)])[0]
        parts = []
        for start in range(0, states.batch_size, ROLLOUT_CHUNK):
            rows = np.arange(start, min(start + ROLLOUT_CHUNK, states.batch_size))
            parts.append(self._rollouts([(states.take(rows), history.take(rows), seat)])[0])
            if time.perf_counter() - begin > self.time_limit:
                break
        return np.concatenate([values for values, _, _ in parts]), parts[0][1], None

    def _rollouts(
        self, decisions: list[tuple[State, History, int]]
    ) -> list[tuple[np.ndarray, np.ndarray, HandEnds]]:
        """For each decision (its worlds' states and histories, and the seat to move): the
        payoff to the seat of each legal card, then the policy's greedy play, per world, which
        cards are legal, and how each of those hands ended. Every decision's every world and
        card is one game of one batch."""
        self.searched += len(decisions)
        c = self.rules.num_card_ids
        states, histories, seats, first, sizes = [], [], [], [], []
        for worlds, history, seat in decisions:
            self.worlds_solved += worlds.batch_size
            legal_bits = int(worlds.legal[0])  # the seat's legal cards: the same in every world
            cards = np.array([a for a in range(c) if legal_bits >> a & 1], dtype=np.int64)
            copies = np.repeat(np.arange(worlds.batch_size), cards.size)
            states.append(worlds.take(copies))
            histories.append(history.take(copies))
            seats.append(np.full(copies.size, seat))
            first.append(np.tile(cards, worlds.batch_size))
            sizes.append((worlds.batch_size, cards))
        if not decisions:
            return []
        games, played = State.concat(states), History.concat(histories)
        seat_of, rows = np.concatenate(seats), np.arange(games.batch_size)
        payoff = step_with_history(games, np.concatenate(first), played)[rows, seat_of]
        payoff = payoff.astype(np.float64)
        while not games.terminated.all():
            live = np.flatnonzero(~games.terminated)
            actions = np.zeros(games.batch_size, dtype=np.int64)
            for start in range(0, live.size, POLICY_ROWS):
                part = live[start : start + POLICY_ROWS]
                actions[part] = self.policy(Situation(games, played, part)).argmax(axis=1)
            payoff += step_with_history(games, actions, played, check=False)[rows, seat_of]
        last = _last_cards(played, seat_of)
        out, start = [], 0
        for w, cards in sizes:
            rows = np.arange(start, start + w * cards.size)
            values = np.zeros((w, c))
            values[:, cards] = payoff[rows].reshape(w, cards.size)
            start += w * cards.size
            legal = np.zeros(c, dtype=bool)
            legal[cards] = True
            out.append((values, legal, HandEnds.of(games.take(rows), w, cards, c, last[rows])))
        return out


def _last_cards(history: History, seats: np.ndarray) -> np.ndarray:
    """``int64 [B]``: the card each game's ``seats[g]`` played last (in a finished hand, its
    card in the last trick)."""
    mine = history.seats == seats[:, None]
    last = mine.shape[1] - 1 - np.argmax(mine[:, ::-1], axis=1)
    return history.cards[np.arange(seats.size), last].astype(np.int64)


def check_rules(rules: Ruleset) -> None:
    """Raise ``ValueError`` for a ruleset the search does not take (module docstring)."""
    if rules.weak_hand_exchange:
        raise ValueError("search: rulesets with the weak-hand exchange are not supported; use pimc")


def _finite_number(value: object) -> bool:
    return (not isinstance(value, bool) and isinstance(value, int | float)
            and math.isfinite(value))  # fmt: skip


def policy_of(agent: Any, spec: str) -> Policy:
    """The model of the seats that a learned agent (``onnx:...``, ``ppo:...``, built from
    ``spec``) gives: its own action probabilities of a situation (greedy or not, the same).

    Raises:
        ValueError: for an agent with no probabilities (a rule-based or search agent).
    """
    if callable(getattr(agent, "game_probs", None)):  # an exported bot (onnx:)
        return Policy(lambda situation: (situation.obs, situation.mask), agent.game_probs)
    if getattr(agent, "model", None) is not None and callable(getattr(agent, "inputs", None)):
        from spar_agents.ppo.agent import policy_probs  # a PPO run (ppo:); torch only then

        rng = np.random.default_rng(0)  # decide's draw for a sampling agent; probs do not use it

        def ppo_probs(obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
            probs = agent.decide(policy_probs(agent.model, obs, mask), mask, rng).probs
            return np.asarray(probs)

        return Policy(agent.inputs, ppo_probs)
    raise ValueError(
        f"search: policy {spec} has no action probabilities to model the seats by; "
        "give a learned agent (onnx:FILE, ppo:RUN)"
    )
