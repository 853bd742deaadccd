"""The sequence-form linear program (Koller, Megiddo and von Stengel), solved by HiGHS.

A solver of its own, used to cross-check the CFR family. With ``E x = e``
and ``F y = f`` the realization-plan constraints of seats 0 and 1 (row 0:
the empty sequence has weight 1; one row per information set: its sequences
add up to its parent sequence) and ``A`` seat 0's payoff matrix:

- seat 0's side: ``max q_0`` over ``x >= 0, q`` with ``E x = e`` and
  ``F^T q <= A^T x`` (``q`` prices seat 1's best reply, the dual of its
  inner minimisation);
- seat 1's side: ``min p_0`` over ``y >= 0, p`` with ``F y = f`` and
  ``E^T p >= A y``.

Both optima are the game value of seat 0, and ``x``, ``y`` are equilibrium
realization plans. Matrices stay sparse (``scipy.sparse``) throughout.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.optimize import linprog

from spar_agents.cfr.seqform import PlayerSequences, SequenceForm


@dataclass(frozen=True)
class LPSolution:
    value_seat0_side: float  # optimum of seat 0's program
    value_seat1_side: float  # optimum of seat 1's program
    profile: tuple[np.ndarray, np.ndarray]  # behavioural strategies from the two plans
    plans: tuple[np.ndarray, np.ndarray]  # the realization plans

    @property
    def value(self) -> float:
        return 0.5 * (self.value_seat0_side + self.value_seat1_side)


def constraints(ps: PlayerSequences) -> sp.csr_matrix:
    """The realization-plan constraint matrix ``[1 + infosets, sequences]`` (right side e_0)."""
    k = ps.num_infosets
    rows = [np.array([0]), 1 + ps.seq_infoset[1:], 1 + np.arange(k)]
    cols = [np.array([0]), np.arange(1, ps.num_sequences), ps.parent_seq]
    vals = [np.array([1.0]), np.ones(ps.num_sequences - 1), -np.ones(k)]
    return sp.csr_matrix(
        (np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
        shape=(1 + k, ps.num_sequences),
    )


def _solve(objective_index: int, a_ub, a_eq, n_plan: int, n_free: int, sense: float):
    n = n_plan + n_free
    c = np.zeros(n)
    c[n_plan + objective_index] = sense
    b_eq = np.zeros(a_eq.shape[0])
    b_eq[0] = 1.0
    bounds = [(0, None)] * n_plan + [(None, None)] * n_free
    res = linprog(
        c,
        A_ub=a_ub,
        b_ub=np.zeros(a_ub.shape[0]),
        A_eq=a_eq,
        b_eq=b_eq,
        bounds=bounds,
        method="highs",
    )
    if res.status != 0:
        raise RuntimeError(f"HiGHS did not solve the sequence-form LP: {res.message}")
    return res.x[:n_plan], sense * res.fun


def solve_lp(sf: SequenceForm) -> LPSolution:
    """Solve the game from both seats' sides; return both values and an equilibrium."""
    e = constraints(sf.players[0])
    f = constraints(sf.players[1])
    a = sf.payoff
    n0, n1 = a.shape
    m0, m1 = e.shape[0], f.shape[0]
    # Seat 0: variables [x, q]; -A^T x + F^T q <= 0; E x = e.
    ub0 = sp.hstack([-a.T, f.T]).tocsr()
    eq0 = sp.hstack([e, sp.csr_matrix((m0, m1))]).tocsr()
    x, v0 = _solve(0, ub0, eq0, n0, m1, -1.0)
    # Seat 1: variables [y, p]; A y - E^T p <= 0; F y = f.
    ub1 = sp.hstack([a, -e.T]).tocsr()
    eq1 = sp.hstack([f, sp.csr_matrix((m1, m0))]).tocsr()
    y, v1 = _solve(0, ub1, eq1, n1, m0, 1.0)
    x, y = np.maximum(x, 0.0), np.maximum(y, 0.0)
    profile = (sf.behavioural(0, x), sf.behavioural(1, y))
    return LPSolution(value_seat0_side=v0, value_seat1_side=v1, profile=profile, plans=(x, y))
