"""Opponents for the single-agent and vector envs: agent specs and policy callables.

A policy is called on a batch: ``policy(obs, mask, rng) -> actions`` with
``obs`` ``uint8 [G, D]`` (see :mod:`spar_env.observe`), ``mask`` ``bool [G, A]``
and an ``np.random.Generator``; it returns ``int [G]`` legal actions. The
single-agent env calls it with ``G = 1``.

An opponent is given as a spec string or as such a callable. Only ``"random"``
is known for now; :func:`resolve_policy` is the one place where a registry of
agent specs (``"heuristic"``, ``"pimc:worlds=32"``, ...) will plug in.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol, runtime_checkable

import numpy as np

from spar_env.core import random_member


@runtime_checkable
class Policy(Protocol):
    def __call__(
        self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator
    ) -> np.ndarray: ...


class RandomPolicy:
    """Uniformly random legal actions.

    Besides the policy call, it acts straight from the core's legal-action bit
    sets (:meth:`act_on_legal_bits`), so envs can skip encoding observations
    that it would not read.
    """

    def __call__(self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        weights = np.asarray(mask, dtype=np.float64)
        totals = weights.sum(axis=1, keepdims=True)
        if (totals == 0).any():
            raise ValueError("RandomPolicy: a mask has no legal action")
        cumulative = np.cumsum(weights / totals, axis=1)
        draws = rng.random((weights.shape[0], 1))
        return np.minimum((cumulative <= draws).sum(axis=1), weights.shape[1] - 1)

    def act_on_legal_bits(self, legal: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        return random_member(legal, rng)

    def __repr__(self) -> str:
        return "RandomPolicy()"


PolicySpec = str | Callable[[np.ndarray, np.ndarray, np.random.Generator], np.ndarray]


def resolve_policy(spec: PolicySpec) -> Policy:
    """A policy from a spec string (``"random"``) or a callable (returned as is).

    Raises:
        ValueError: for an unknown spec, naming it and the known ones.
    """
    if callable(spec):
        return spec  # type: ignore[return-value]
    if spec == "random":
        return RandomPolicy()
    raise ValueError(f"unknown agent spec {spec!r}; known specs: 'random' (or pass a callable)")


def resolve_opponents(
    opponents: PolicySpec | Sequence[PolicySpec], num_players: int
) -> list[Policy]:
    """One policy per seat after the learner's, in order of play (``N - 1`` of them).

    ``opponents`` is one spec for every other seat, or a sequence of ``N - 1``.
    """
    if isinstance(opponents, str) or callable(opponents):
        policy = resolve_policy(opponents)
        return [policy] * (num_players - 1)
    specs = list(opponents)
    if len(specs) != num_players - 1:
        raise ValueError(
            f"opponents must be one spec or {num_players - 1} specs (one per other seat); "
            f"got {len(specs)}"
        )
    return [resolve_policy(s) for s in specs]
