"""Build agents from spec strings: ``random``, ``high``, ``low``, ``heuristic``, ``pimc:worlds=32,seed=1``.

A spec is a name, then optionally ``:`` and ``key=value`` pairs separated by
commas (:mod:`spar_agents.registry.spec` reads it, once, into an
:class:`~spar_agents.registry.spec.AgentSpec`). The command line, the benchmark
and the environments share this one registry; its agents' factories are in
:mod:`spar_agents.registry.factories`.

    >>> from spar_env import make_rules
    >>> make_agent("high", make_rules("spar"))  # doctest: +ELLIPSIS
    <spar_agents.baselines.RankAgent object at ...>
"""

from __future__ import annotations

import inspect
from typing import Any

import spar_agents.registry.builtin  # noqa: F401  (registers the built-in agents' factories)
from spar_agents.base import Agent
from spar_agents.registry.factories import AGENTS, Factory, register
from spar_agents.registry.spec import AgentSpec, parse_spec
from spar_env.rules import Ruleset

__all__ = ["AGENTS", "AgentSpec", "Factory", "agent_names", "agent_parameters", "make_agent",
           "parse_spec", "register"]  # fmt: skip


def make_agent(spec: str | AgentSpec, rules: Ruleset) -> Agent:
    """The agent a spec names (its text, or the text parsed already), for ``rules``.

    Raises:
        ValueError: for an unknown name or parameter, naming it and the known ones.
    """
    parsed = AgentSpec.of(spec)
    name, params = parsed.name, parsed.params
    if name not in agent_names():
        raise ValueError(f"unknown agent {name!r}; known agents: {', '.join(agent_names())}")
    known = agent_parameters(name)
    if not _takes_any(name):
        unknown = [key for key in params if key not in known]
        if unknown:
            takes = f"its parameters are {', '.join(known)}" if known else "it takes none"
            raise ValueError(
                f"agent spec {parsed.text!r}: {name} has no parameter {unknown[0]!r}; {takes}"
            )
    return AGENTS[name](rules, **params)


@register("search")
def _search(
    rules: Ruleset,
    policy: str = "onnx:universal",
    worlds: int = 64,
    candidates: int = 4,
    belief: float = 1.0,
    ess: float = 1.0,
    prior: float = 1.0,
    leaf: str = "rollout",
    seed: int = 0,
    time_limit: float | None = None,
) -> Agent:
    """``search`` (:mod:`spar_agents.search`): registered here, as it builds its policy from a spec."""
    from spar_agents.search import SearchAgent, check_rules, policy_of  # imported on use, as pimc

    check_rules(rules)  # before the policy, whose error would hide this one
    if not isinstance(policy, str) or not policy.strip():
        raise ValueError(f"search: policy must be a learned agent's spec, such as onnx:spar4; "
                         f"got {policy!r}")  # fmt: skip
    try:
        model = make_agent(policy, rules)
    except (ValueError, OSError) as err:
        raise ValueError(f"search: policy {policy}: {' '.join(str(err).split())}") from None
    return SearchAgent(rules, policy_of(model, policy), worlds, candidates, belief, ess, prior,
                       leaf, seed, time_limit)  # fmt: skip


def agent_names() -> list[str]:
    """The registered agents' names, sorted."""
    return sorted(AGENTS)


def agent_parameters(name: str) -> dict[str, Any]:
    """The parameters a spec may give agent ``name``, with their defaults (the factory's)."""
    return {
        p.name: p.default
        for p in _spec_parameters(name)
        if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
    }


def _spec_parameters(name: str) -> list[inspect.Parameter]:
    """The factory's parameters after the ruleset."""
    return list(inspect.signature(AGENTS[name]).parameters.values())[1:]


def _takes_any(name: str) -> bool:
    """A factory with ``**params`` checks its parameters itself."""
    return any(p.kind is p.VAR_KEYWORD for p in _spec_parameters(name))
