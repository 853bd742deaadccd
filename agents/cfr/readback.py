"""Any policy read back into a tabular profile of a small game, for its exact exploitability.

On rulesets whose whole tree fits (``micro``, ``mini``: :mod:`spar_agents.cfr.build`), a
policy that reads only what its seat sees (a network, a bot) plays one distribution
at each information set, however many nodes the set holds. :func:`representatives`
walks the tree once and keeps one node of each information set, as a game state;
:func:`profile_of` asks the policy at those states and writes its answers into a
behavioural profile on the sequence form, and :func:`exact_exploitability` evaluates it
exactly (:func:`spar_agents.cfr.evaluation.exploitability`). That is how a learner
that never sees the tree (PPO, its equilibrium variant) is checked where the truth
is known.

The states are those of a hand at the start of a session (scores 0), which is the
game the tree solves.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from spar_agents.cfr.build import build_tree, check_supported, num_deals
from spar_agents.cfr.evaluation import Profile, exploitability
from spar_agents.cfr.seqform import SequenceForm, sequence_form
from spar_env.core import State
from spar_env.core.bits import popcount
from spar_env.rules import Ruleset

# A policy as the read-back asks it: the probabilities ``float [G, A]`` of each game's
# seat to act, given the states (one game each).
PolicyProbs = Callable[[State], np.ndarray]
MAX_DEALS = 100_000  # mini has 36,960: its tree and sequence form take seconds


def check_exact(rules: Ruleset) -> None:
    """A ``ValueError`` saying why, unless ``rules`` is a game this module reads back exactly:
    two players, every play seen, at most :data:`MAX_DEALS` deals."""
    if rules.players != 2:
        raise ValueError(f"the exact exploitability is for two players; got {rules.players}")
    check_supported(rules)
    if num_deals(rules) > MAX_DEALS:
        raise ValueError(
            f"{rules.variant} with 2 players has {num_deals(rules):,} deals; the exact "
            f"exploitability reads back trees of at most {MAX_DEALS:,} (micro, mini)"
        )


@dataclass(frozen=True, eq=False)
class Representatives:
    """One state for each information set of a ruleset's tree, level by level."""

    sf: SequenceForm
    levels: tuple[tuple[State, np.ndarray], ...]  # (states, their tree information sets)

    @property
    def num_infosets(self) -> int:
        return sum(int(ids.shape[0]) for _, ids in self.levels)


def representatives(rules: Ruleset) -> Representatives:
    """Walk the tree of ``rules`` once; keep the first node of each information set."""
    parts: list[tuple[State, np.ndarray]] = []

    def keep_first(frontier: State, keys: np.ndarray) -> None:
        unique, first = np.unique(keys, return_index=True)
        parts.append((frontier.take(first), unique))

    tree = build_tree(rules, visit=keep_first)
    assert tree.infoset_keys is not None  # a tree built from a ruleset has its keys
    levels = tuple(
        (states, np.searchsorted(tree.infoset_keys, keys).astype(np.int64))
        for states, keys in parts
    )
    return Representatives(sequence_form(tree), levels)


@functools.lru_cache(maxsize=4)
def cached_representatives(rules: Ruleset) -> Representatives:
    """:func:`representatives`, kept for the next call (a run evaluates many times)."""
    return representatives(rules)


def profile_of(reps: Representatives, policy: PolicyProbs) -> Profile:
    """The policy's behavioural profile on ``reps.sf`` (forced sets: their one action).

    Raises:
        ValueError: if the policy puts weight on an illegal action, or its rows do not sum
            to 1.
    """
    sf = reps.sf
    table = sf.tree_policy(sf.uniform())
    for states, ids in reps.levels:
        probs = np.asarray(policy(states), dtype=np.float64)
        legal = states.legal_mask()
        if (probs[~legal] > 0).any():
            raise ValueError("the policy gives an illegal action a positive probability")
        if not np.allclose(probs.sum(axis=1), 1.0, atol=1e-4):
            raise ValueError("the policy's probabilities do not sum to 1")
        table[ids] = probs / probs.sum(axis=1, keepdims=True)
    return sf.from_tree_policy(table)


def merged_infosets(reps: Representatives, observe: Callable[[State], np.ndarray]) -> int:
    """How many information sets with a choice (two legal cards or more) a policy that reads
    ``observe(states)`` (``uint8 [G, D]``) cannot tell from another set of the same depth:
    those whose observation and legal cards equal an earlier set's. A policy of that
    observation plays the same distribution at all of them, so a positive count means it
    cannot express every strategy of the tree (it plays an imperfect-recall abstraction of
    the game). Forced sets are left out: they have nothing to choose."""
    merged = 0
    for states, _ in reps.levels:
        choice = popcount(states.legal) > 1
        legal = states.legal[choice].astype(">u8").view(np.uint8).reshape(-1, 8)
        rows = np.concatenate([np.asarray(observe(states), dtype=np.uint8)[choice], legal], 1)
        merged += rows.shape[0] - np.unique(rows, axis=0).shape[0]
    return merged


def exact_exploitability(reps: Representatives, policy: PolicyProbs) -> float:
    """The policy's exact exploitability in points a hand: the mean over both seats of what a
    best response wins against it (half its NashConv; 0 at an equilibrium)."""
    return exploitability(reps.sf, profile_of(reps, policy))
