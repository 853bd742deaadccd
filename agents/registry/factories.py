"""The agent factories by name (:data:`AGENTS`), and the decorator that registers one: what
:mod:`spar_agents.registry.builtin` registers into and :mod:`spar_agents.registry` builds agents from."""

from __future__ import annotations

from collections.abc import Callable

from spar_agents.base import Agent

Factory = Callable[..., Agent]
AGENTS: dict[str, Factory] = {}


def register(name: str) -> Callable[[Factory], Factory]:
    """Register ``factory(rules, **params) -> Agent`` under ``name``."""

    def add(factory: Factory) -> Factory:
        AGENTS[name] = factory
        return factory

    return add
