"""Registers the built-in agents' factories in :mod:`spar_agents.registry.factories` (which
:mod:`spar_agents.registry` builds agents from)."""

from __future__ import annotations

from spar_agents.baselines import RandomAgent, RankAgent
from spar_agents.heuristic import HeuristicAgent
from spar_agents.registry.factories import register
from spar_env.rules import Ruleset


@register("random")
def _random(rules: Ruleset) -> RandomAgent:
    return RandomAgent()


@register("high")
def _high(rules: Ruleset) -> RankAgent:
    return RankAgent(rules, "high")


@register("low")
def _low(rules: Ruleset) -> RankAgent:
    return RankAgent(rules, "low")


@register("heuristic")
def _heuristic(rules: Ruleset, exchange: bool = True) -> HeuristicAgent:
    return HeuristicAgent(rules, exchange)


@register("pimc")
def _pimc(rules: Ruleset, worlds: int = 32, seed: int = 0, time_limit: float | None = None):
    from spar_agents.pimc import PimcAgent  # imported on use: it compiles its search with Numba

    return PimcAgent(rules, worlds=worlds, seed=seed, time_limit=time_limit)


@register("ppo")
def _ppo(rules: Ruleset, path: str | None = None, greedy: bool = True):
    from spar_agents.ppo.agent import PPOAgent  # imported on use: it needs torch

    if path is None:
        raise ValueError("ppo needs a run folder or checkpoint file: ppo:runs/<name>")
    return PPOAgent.from_path(rules, str(path), greedy=greedy)


@register("cfr")
def _cfr(rules: Ruleset, path: str | None = None, greedy: bool = False, average: bool = False):
    from spar_agents.cfr import policy, sampled_policy

    if path is None:
        raise ValueError("cfr needs a policy file: cfr:runs/<name>/policy.npz")
    if sampled_policy.read_meta(path).get("format") == sampled_policy.FORMAT:
        tables = sampled_policy.load_sampled(path, rules)
        return sampled_policy.SampledCFRAgent(tables, greedy, average)
    if greedy or average:
        raise ValueError("cfr: greedy and average are for sampled-CFR tables, not exact policies")
    return policy.CFRAgent.from_path(path, rules)


@register("onnx")
def _onnx(rules: Ruleset, path: str | None = None, greedy: bool = True):
    from spar_agents.export.bot import (
        OnnxAgent,  # imported on use: it needs onnxruntime (not torch)
    )
    from spar_agents.shipped import resolve_bot

    if path is None:
        raise ValueError("onnx needs an exported bot file or a shipped bot's name: onnx:spar4")
    return OnnxAgent.from_path(rules, resolve_bot(str(path)), greedy=greedy)


@register("py")
def _py(rules: Ruleset, path: str | None = None, **params: object):
    from spar_agents.registry.user import user_agent

    return user_agent(path, rules, params)
