"""Build agents from spec strings: ``random``, ``high``, ``low``, ``heuristic``, ``pimc:worlds=32,seed=1``.

A spec is a name, then optionally ``:`` and ``key=value`` pairs separated by
commas (values are read as in ``--set``: ints, floats, bools, text). The
command line, the benchmark and the environments share this one registry.

    >>> from spar_env import make_rules
    >>> make_agent("high", make_rules("spar"))  # doctest: +ELLIPSIS
    <agents.baselines.RankAgent object at ...>
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agents.base import Agent
from spar_env.rules import Ruleset

Factory = Callable[..., Agent]
AGENTS: dict[str, Factory] = {}


def register(name: str) -> Callable[[Factory], Factory]:
    """Register ``factory(rules, **params) -> Agent`` under ``name``."""

    def add(factory: Factory) -> Factory:
        AGENTS[name] = factory
        return factory

    return add


def parse_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """``"pimc:worlds=32,seed=1"`` -> ``("pimc", {"worlds": 32, "seed": 1})``.

    A parameter without ``=`` is a path-like value: ``"ppo:runs/a.onnx"`` gives
    ``{"path": "runs/a.onnx"}``.
    """
    from spar_env.cli.overrides import parse_value

    name, _, rest = spec.strip().partition(":")
    params: dict[str, Any] = {}
    if rest:
        if "=" not in rest:
            return name, {"path": rest}
        for item in rest.split(","):
            key, sep, value = item.partition("=")
            if not sep or not key.strip():
                raise ValueError(f"agent spec {spec!r}: expected key=value, got {item!r}")
            params[key.strip()] = parse_value(value)
    return name, params


def make_agent(spec: str, rules: Ruleset) -> Agent:
    """The agent a spec names, for ``rules``.

    Raises:
        ValueError: for an unknown name or parameter, naming it and the known ones.
    """
    _load_builtin()
    name, params = parse_spec(spec)
    if name not in AGENTS:
        raise ValueError(f"unknown agent {name!r}; known agents: {', '.join(sorted(AGENTS))}")
    try:
        return AGENTS[name](rules, **params)
    except TypeError as e:
        raise ValueError(f"agent spec {spec!r}: {e}") from None


def _load_builtin() -> None:
    """Import the modules that register the built-in agents."""
    import agents.builtin  # noqa: F401
