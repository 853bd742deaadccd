"""Exact CFR-family solvers on the sequence form of a small two-player zero-sum game.

Every iteration is a handful of array passes: for each player in turn
(alternating updates), the opponent's realization plan (top-down, one slice
per depth), one sparse product with the payoff matrix, then the
counterfactual values bottom-up (``np.add.reduceat`` within each depth's
information sets, ``np.bincount`` into the parent sequences). No Python code
runs per node or per information set.

=================  ====================================  ===================  ==================
algorithm          regrets                               current strategy     average weight
=================  ====================================  ===================  ==================
``cfr``            sum                                   regret matching      1
``cfr+``           sum, floored at 0 each iteration      regret matching      t
``dcfr``           positive x t^a/(t^a+1), negative x    regret matching      t^gamma (a=1.5,
                   t^b/(t^b+1)                                                b=0, gamma=2)
``pcfr+``          as cfr+                               RM+ on regrets plus  t^2
                                                         the last regret
                                                         (the prediction)
=================  ====================================  ===================  ==================

The solvers only update strategies; measuring them is
:mod:`spar_agents.cfr.evaluation`'s job.
"""

from __future__ import annotations

import numpy as np

from spar_agents.cfr.seqform import PlayerSequences, SequenceForm

ALGORITHMS = ("cfr", "cfr+", "dcfr", "pcfr+")


class CFRSolver:
    """Vanilla CFR with alternating updates; subclasses change the three hooks."""

    name = "cfr"

    def __init__(self, sf: SequenceForm) -> None:
        self.sf = sf
        self.iteration = 0
        n = [p.num_sequences for p in sf.players]
        self.regrets = [np.zeros(k) for k in n]
        self.sigma = list(sf.uniform())
        self.avg = [np.zeros(k) for k in n]  # weighted sum of realization plans
        self._plans = [sf.realization(p, self.sigma[p]) for p in (0, 1)]  # of the current sigma

    # --- hooks ------------------------------------------------------------------
    def _update_regrets(self, p: int, inst: np.ndarray) -> None:
        self.regrets[p] += inst

    def _next_strategy(self, p: int, inst: np.ndarray) -> np.ndarray:
        return regret_matching(self.sf.players[p], self.regrets[p])

    def _accumulate(self, p: int, plan: np.ndarray) -> None:
        self.avg[p] += plan

    # --- one iteration ----------------------------------------------------------
    def step(self, iterations: int = 1) -> None:
        """Run ``iterations`` iterations (each updates seat 0, then seat 1)."""
        for _ in range(iterations):
            self.iteration += 1
            for p in (0, 1):
                utility = self.sf.utility_vector(p, self._plans[1 - p])
                inst = instant_regrets(self.sf.players[p], self.sigma[p], utility)
                self._accumulate(p, self._plans[p])
                self._update_regrets(p, inst)
                self.sigma[p] = self._next_strategy(p, inst)
                self._plans[p] = self.sf.realization(p, self.sigma[p])

    def average_policy(self) -> tuple[np.ndarray, np.ndarray]:
        """The average strategy (what converges), as behavioural strategies."""
        if self.iteration == 0:
            return self.sf.uniform()
        return self.sf.behavioural(0, self.avg[0]), self.sf.behavioural(1, self.avg[1])

    def current_policy(self) -> tuple[np.ndarray, np.ndarray]:
        return self.sigma[0].copy(), self.sigma[1].copy()


class CFRPlusSolver(CFRSolver):
    """CFR+: regrets floored at zero, linear averaging."""

    name = "cfr+"

    def _update_regrets(self, p: int, inst: np.ndarray) -> None:
        np.maximum(self.regrets[p] + inst, 0.0, out=self.regrets[p])

    def _accumulate(self, p: int, plan: np.ndarray) -> None:
        self.avg[p] += self.iteration * plan


class DCFRSolver(CFRSolver):
    """Discounted CFR (Brown and Sandholm 2019)."""

    name = "dcfr"

    def __init__(self, sf: SequenceForm, alpha: float = 1.5, beta: float = 0.0, gamma: float = 2.0):
        super().__init__(sf)
        self.alpha, self.beta, self.gamma = alpha, beta, gamma

    def _update_regrets(self, p: int, inst: np.ndarray) -> None:
        t = float(self.iteration)
        r = self.regrets[p]
        r += inst
        pos = t**self.alpha / (t**self.alpha + 1.0)
        neg = t**self.beta / (t**self.beta + 1.0)
        r *= np.where(r > 0, pos, neg)

    def _accumulate(self, p: int, plan: np.ndarray) -> None:
        t = float(self.iteration)
        self.avg[p] *= ((t - 1.0) / t) ** self.gamma
        self.avg[p] += plan


class PCFRPlusSolver(CFRPlusSolver):
    """Predictive CFR+ (Farina, Kroer and Sandholm 2021): the last regret predicts the next."""

    name = "pcfr+"

    def _next_strategy(self, p: int, inst: np.ndarray) -> np.ndarray:
        return regret_matching(self.sf.players[p], np.maximum(self.regrets[p] + inst, 0.0))

    def _accumulate(self, p: int, plan: np.ndarray) -> None:
        self.avg[p] += float(self.iteration) ** 2 * plan


SOLVERS: dict[str, type[CFRSolver]] = {
    "cfr": CFRSolver,
    "cfr+": CFRPlusSolver,
    "dcfr": DCFRSolver,
    "pcfr+": PCFRPlusSolver,
}


def make_solver(algorithm: str, sf: SequenceForm) -> CFRSolver:
    """A solver by name, one of :data:`ALGORITHMS`."""
    if algorithm not in SOLVERS:
        raise ValueError(f"unknown algorithm {algorithm!r}; choose one of {', '.join(ALGORITHMS)}")
    return SOLVERS[algorithm](sf)


def regret_matching(ps: PlayerSequences, regrets: np.ndarray) -> np.ndarray:
    """Behavioural strategy proportional to the positive regrets (uniform where none)."""
    sigma = np.ones(ps.num_sequences)
    if ps.num_infosets == 0:
        return sigma
    pos = np.maximum(regrets[1:], 0.0, out=sigma[1:])
    sums = np.add.reduceat(pos, ps.first_seq - 1)
    none = sums <= 0
    # Per information set: 1/sum, or 0 and a uniform share where no regret is positive.
    scale = np.divide(1.0, sums, out=np.zeros_like(sums), where=~none)
    pos *= scale[ps.seq_infoset[1:]]
    if none.any():
        pos += (none / ps.num_actions)[ps.seq_infoset[1:]]
    return sigma


def instant_regrets(ps: PlayerSequences, sigma: np.ndarray, utility: np.ndarray) -> np.ndarray:
    """Counterfactual regret of every sequence this iteration (``utility`` from the leaves).

    Bottom-up over depths: an information set's value is its strategy's mean
    of its sequences' values, and it adds into its parent sequence.
    """
    cfv = utility.copy()
    infoset_value = np.zeros(ps.num_infosets)
    for ilo, ihi, lo, hi in reversed(ps.levels):
        v = np.add.reduceat(sigma[lo:hi] * cfv[lo:hi], ps.first_seq[ilo:ihi] - lo)
        infoset_value[ilo:ihi] = v
        cfv[:lo] += np.bincount(ps.parent_seq[ilo:ihi], weights=v, minlength=lo)
    inst = np.zeros(ps.num_sequences)
    inst[1:] = cfv[1:] - infoset_value[ps.seq_infoset[1:]]
    return inst
