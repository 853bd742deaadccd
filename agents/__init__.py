"""Agents: one batched protocol (:class:`Agent`), and a registry that builds them from spec strings."""

from spar_agents.base import Agent, Decision, Situation
from spar_agents.registry import AGENTS, make_agent

__all__ = ["AGENTS", "Agent", "Decision", "Situation", "make_agent"]
