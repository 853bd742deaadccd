"""Opponents for the single-agent and vector envs: agent specs and policy callables.

A policy is called on a batch: ``policy(obs, mask, rng) -> actions`` with
``obs`` ``uint8 [G, D]`` (see :mod:`spar_env.observe`), ``mask`` ``bool [G, A]``
and an ``np.random.Generator``; it returns ``int [G]`` legal actions. The
single-agent env calls it with ``G = 1``.

An opponent is given as a spec string, such a callable, or an agent (an
object with ``act(situation, rng) -> Decision``, see :mod:`agents.base`), which
decides from a :class:`~spar_env.situation.Situation`. ``"random"`` is built
in; any other spec (``"heuristic"``, ``"pimc:worlds=32"``, ...) is built by the
agent registry, :func:`agents.make_agent`: the one place where the env layer
reaches up to the agents, and only when such a spec is given.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, Protocol, TypeGuard, runtime_checkable

import numpy as np

from spar_env.core import random_member
from spar_env.rules import Ruleset


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


PolicySpec = str | Callable[[np.ndarray, np.ndarray, np.random.Generator], np.ndarray] | Any


class SituationAgent(Protocol):
    """An agent of :mod:`agents` as the envs see it (duck-typed: the envs import no agents)."""

    def act(self, situation: Any, rng: np.random.Generator) -> Any: ...


def is_agent(policy: object) -> TypeGuard[SituationAgent]:
    """An agent decides from situations (``act``), not from observations and masks."""
    return callable(getattr(policy, "act", None))


OPPONENT_KINDS = "an agent spec string such as 'heuristic', a policy callable or an agent"


def resolve_policy(spec: PolicySpec, rules: Ruleset, where: str = "opponents") -> Policy | Any:
    """A policy or agent from a spec string, a callable or an agent (returned as is).

    Raises:
        ValueError: for an unknown spec, naming it (as ``where``) and the known ones.
    """
    if is_agent(spec) or callable(spec):
        return spec
    if spec == "random":
        return RandomPolicy()
    if not isinstance(spec, str):
        raise ValueError(f"{where} must be {OPPONENT_KINDS}; got {spec!r}")
    from agents import make_agent  # the agent registry (see the module docstring)

    return make_agent(spec, rules)


def resolve_opponents(
    opponents: PolicySpec | Sequence[PolicySpec], rules: Ruleset
) -> list[Policy | Any]:
    """One policy per seat after the learner's, in order of play (``N - 1`` of them).

    ``opponents`` is one spec for every other seat, or a sequence of ``N - 1``.
    """
    n = rules.players
    if isinstance(opponents, str) or callable(opponents) or is_agent(opponents):
        policy = resolve_policy(opponents, rules)
        return [policy] * (n - 1)
    if not isinstance(opponents, Iterable):
        raise ValueError(
            f"opponents must be {OPPONENT_KINDS}, or a sequence of {n - 1} of them "
            f"(one per other seat); got {opponents!r}"
        )
    specs = list(opponents)
    if len(specs) != n - 1:
        raise ValueError(
            f"opponents must be one spec or {n - 1} specs (one per other seat); got {len(specs)}"
        )
    return [resolve_policy(s, rules, f"opponents[{i}]") for i, s in enumerate(specs)]
