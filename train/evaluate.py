"""Evaluation of a policy during training: duplicate deals against fixed opponents.

Each evaluation plays the learner in one seat against ``N - 1`` copies of
one opponent, with the duplicate-deal tournament of ``spar bench``
(:func:`spar_train.tournament.run_tournament`) on the same deals every time (a
fixed seed), so successive points of a curve differ by the policy alone.
:func:`evaluate_matches` does the same with whole matches (``eval.matches``),
for the share of matches the learner wins. A PPO run's evaluations of its learner are
:mod:`spar_train.ppo.evaluation`'s.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from spar_agents import Agent
from spar_env.rules import Ruleset
from spar_train.match.bench import MatchAgentResult, run_match_bench
from spar_train.tournament import AgentResult, run_tournament

LEARNER = "learner"  # the learner's name in the lineup


def evaluate(
    agent: Agent, rules: Ruleset, opponents: Sequence[str], deals: int, seed: int
) -> dict[str, AgentResult]:
    """The learner's figures against each opponent spec (one learner, ``N - 1`` opponents)."""
    out = {}
    for spec in opponents:
        lineup = [LEARNER] + [spec] * (rules.players - 1)
        result = run_tournament(lineup, rules, deals, seed, agents={LEARNER: agent})
        out[spec] = result.agents[0]
    return out


def evaluate_matches(
    agent: Agent, rules: Ruleset, opponents: Sequence[str], matches: int, seed: int
) -> dict[str, MatchAgentResult]:
    """The learner's match figures against each opponent spec (one learner, ``N - 1``
    opponents, every rotation; :mod:`spar_train.match.bench`). Its fair share is ``1 / N``."""
    out = {}
    for spec in opponents:
        lineup = [LEARNER] + [spec] * (rules.players - 1)
        result = run_match_bench(lineup, rules, matches, seed, agents={LEARNER: agent})
        out[spec] = result.agents[0]
    return out


def tag_of(spec: str) -> str:
    """A TensorBoard-friendly name for an agent spec (``onnx:universal`` -> ``onnx_universal``)."""
    return "".join(ch if ch.isalnum() else "_" for ch in spec)


def log_match_evaluations(
    config: Any, agent: Agent, rules: Ruleset, writer: Any, step: int, prefix: str = ""
) -> dict[str, dict[str, float]]:
    """``eval.matches`` whole matches against each of ``eval.opponents``, logged as
    ``eval/<prefix>match_win_vs_<tag>`` and its ``_ci95`` (nothing for an open session)."""
    e = config.eval
    if not e.matches or rules.end_kind == "open":
        return {}
    out = {}
    for spec, result in evaluate_matches(agent, rules, e.opponents, e.matches, e.seed).items():
        tag = tag_of(spec)
        writer.add_scalar(f"eval/{prefix}match_win_vs_{tag}", result.match_share, step)
        writer.add_scalar(f"eval/{prefix}match_win_vs_{tag}_ci95", result.match_ci95, step)
        out[spec] = {"match_share": result.match_share, "match_ci95": result.match_ci95}
    return out
