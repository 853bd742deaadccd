"""Opponents for the single-agent and vector envs: agent specs and policy callables.

A policy is called on a batch: ``policy(obs, mask, rng) -> actions`` with
``obs`` ``uint8 [G, D]`` (see :mod:`spar_env.observation.per_game`), ``mask`` ``bool [G, A]``
and an ``np.random.Generator``; it returns ``int [G]`` legal actions. The
single-agent env calls it with ``G = 1``.

An opponent is given as a spec string, such a callable, or an agent (an
object with ``act(situation, rng) -> Decision``, see :mod:`spar_agents.base`), which
decides from a :class:`~spar_env.situation.Situation`. ``"random"`` is built
in; any other spec (``"heuristic"``, ``"pimc:worlds=32"``, ...) is built by an
*agent builder*, ``builder(spec, rules) -> agent``, that the env is given:

- the ``agent_builder`` argument of the envs, when given (any callable);
- else the builder installed under the entry-point group :data:`BUILDER_GROUP`:
  spar-rl installs its agent registry, :func:`spar_agents.make_agent`, there.

So the engine imports nothing above it: the agents reach it through packaging
metadata, as Gymnasium's own env plugins do, and only when a spec is given.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Sequence
from importlib.metadata import entry_points
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

AgentBuilder = Callable[[str, Ruleset], Any]
"""``builder(spec, rules) -> agent``: builds the agent a spec string names."""

BUILDER_GROUP = "spar_env.agent_builders"
"""The entry-point group of the installed agent builder (see the module docstring)."""


@functools.lru_cache(maxsize=1)
def installed_builder() -> AgentBuilder | None:
    """The agent builder installed under :data:`BUILDER_GROUP`, or ``None`` if there is none.

    With several installed, the first by name is taken.
    """
    found = sorted(entry_points(group=BUILDER_GROUP), key=lambda e: e.name)
    return found[0].load() if found else None


def resolve_policy(
    spec: PolicySpec,
    rules: Ruleset,
    where: str = "opponents",
    builder: AgentBuilder | None = None,
) -> Policy | Any:
    """A policy or agent from a spec string, a callable or an agent (returned as is).

    A spec other than ``"random"`` is built by ``builder``, else by the installed
    builder (see the module docstring).

    Raises:
        ValueError: for an unknown spec, naming it (as ``where``) and the known ones;
            for a spec when no builder is given or installed.
    """
    if is_agent(spec) or callable(spec):
        return spec
    if spec == "random":
        return RandomPolicy()
    if not isinstance(spec, str):
        raise ValueError(f"{where} must be {OPPONENT_KINDS}; got {spec!r}")
    build = builder or installed_builder()
    if build is None:
        raise ValueError(
            f"{where}={spec!r} names an agent, but no agent builder is installed (entry-point "
            f"group {BUILDER_GROUP!r}): pass agent_builder=..., or give a policy callable"
        )
    return build(spec, rules)


def resolve_opponents(
    opponents: PolicySpec | Sequence[PolicySpec],
    rules: Ruleset,
    builder: AgentBuilder | None = None,
) -> list[Policy | Any]:
    """One policy per seat after the learner's, in order of play (``N - 1`` of them).

    ``opponents`` is one spec for every other seat, or a sequence of ``N - 1``;
    ``builder`` builds the specs (see :func:`resolve_policy`).
    """
    n = rules.players
    if isinstance(opponents, str) or callable(opponents) or is_agent(opponents):
        policy = resolve_policy(opponents, rules, builder=builder)
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
    return [resolve_policy(s, rules, f"opponents[{i}]", builder) for i, s in enumerate(specs)]
