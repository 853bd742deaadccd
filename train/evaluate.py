"""Evaluation of a policy during training: duplicate deals against fixed opponents.

Each evaluation plays the learner in one seat against ``N - 1`` copies of
one opponent, with the duplicate-deal tournament of ``spar bench``
(:func:`spar_train.tournament.run_tournament`) on the same deals every time (a
fixed seed), so successive points of a curve differ by the policy alone.
:func:`evaluate_matches` does the same with whole matches (``eval.matches``),
for the share of matches the learner wins.
"""

from __future__ import annotations

from collections.abc import Sequence

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
