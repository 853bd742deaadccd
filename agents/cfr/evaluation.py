"""Exact evaluation of strategy profiles on a sequence form: never part of a solver.

A *profile* is a pair of behavioural strategies over sequences (see
:mod:`spar_agents.cfr.seqform`). Everything here is exact on the whole tree and in
points per hand (the payoff is ``stakes``: the winner +points, the loser
-points):

- :func:`expected_value`: seat 0's expected payoff of a profile;
- :func:`best_response`: a player's exact best response and its value, by
  one bottom-up pass over his sequences (max over actions at each
  information set);
- :func:`nash_conv`: the sum of what each seat gains by best-responding
  (0 at an equilibrium); :func:`exploitability` is half of it;
- :func:`game_value_bounds`: the equilibrium value of seat 0 lies between
  what the opponent's best response concedes to seat 0's strategy and what
  seat 0's best response wins against the opponent's.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from spar_agents.cfr.seqform import SequenceForm

Profile = tuple[np.ndarray, np.ndarray]


@dataclass(frozen=True)
class BestResponse:
    value: float  # the best responder's expected payoff
    sigma: np.ndarray  # a pure behavioural strategy over his sequences


def expected_value(sf: SequenceForm, profile: Profile) -> float:
    """Seat 0's expected payoff (seat 1's is its negative)."""
    x = sf.realization(0, profile[0])
    y = sf.realization(1, profile[1])
    return float(x @ (sf.payoff @ y))


def best_response(sf: SequenceForm, player: int, opponent_sigma: np.ndarray) -> BestResponse:
    """Exact best response of ``player`` to the opponent's behavioural strategy."""
    ps = sf.players[player]
    opp = sf.realization(1 - player, opponent_sigma)
    value = sf.utility_vector(player, opp)
    best = np.zeros(ps.num_infosets, dtype=np.int64)  # sequence chosen at each infoset
    for ilo, ihi, lo, hi in reversed(ps.levels):
        starts = ps.first_seq[ilo:ihi] - lo
        top = np.maximum.reduceat(value[lo:hi], starts)
        # The first action reaching the maximum: ties broken by the lowest action.
        hit = value[lo:hi] == np.repeat(top, ps.num_actions[ilo:ihi])
        first_hit = np.minimum.reduceat(np.where(hit, np.arange(hi - lo), hi - lo), starts)
        best[ilo:ihi] = lo + first_hit
        value[:lo] += np.bincount(ps.parent_seq[ilo:ihi], weights=top, minlength=lo)
    sigma = np.zeros(ps.num_sequences)
    sigma[0] = 1.0
    sigma[best] = 1.0
    return BestResponse(value=float(value[0]), sigma=sigma)


def nash_conv(sf: SequenceForm, profile: Profile) -> float:
    """Sum over seats of the gain from deviating to a best response (points per hand)."""
    br0 = best_response(sf, 0, profile[1]).value
    br1 = best_response(sf, 1, profile[0]).value
    return br0 + br1  # zero-sum: the profile's values cancel


def exploitability(sf: SequenceForm, profile: Profile) -> float:
    """Half the NashConv: the mean gain of a best responder."""
    return nash_conv(sf, profile) / 2.0


def game_value_bounds(sf: SequenceForm, profile: Profile) -> tuple[float, float]:
    """``(low, high)`` around seat 0's equilibrium value; ``high - low`` is the NashConv."""
    low = -best_response(sf, 1, profile[0]).value
    high = best_response(sf, 0, profile[1]).value
    return low, high
