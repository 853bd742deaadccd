"""Evaluation of a policy during training: duplicate deals against fixed opponents.

Each evaluation plays the learner in one seat against ``N - 1`` copies of
one opponent, with the duplicate-deal tournament of ``spar bench``
(:func:`spar_train.tournament.run_tournament`) on the same deals every time (a
fixed seed), so successive points of a curve differ by the policy alone.
:func:`evaluate_matches` does the same with whole matches (``eval.matches``),
for the share of matches the learner wins. :func:`evaluate_learner` is a PPO run's
evaluation of its greedy policy, and :func:`log_exploitability` its exact exploitability
on a small game (``eval.exact``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from spar_agents import Agent
from spar_agents.ppo.agent import PPOAgent
from spar_agents.ppo.network import ActorCritic
from spar_env.core import State
from spar_env.rules import Ruleset
from spar_train.match.bench import MatchAgentResult, run_match_bench
from spar_train.sections import Config
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


def evaluate_learner(
    config: Config, rules: Ruleset, model: ActorCritic, writer: Any, step: int
) -> dict[str, dict[str, float]]:
    """The greedy policy's duplicate-deal figures against each eval opponent (``pimc`` every
    ``eval.pimc_every`` evaluations, matches where ``eval.matches`` asks), logged under
    ``eval/`` and ``skill/``; by opponent (a mix: :func:`spar_train.game_mix.evaluate_mix`)."""
    agent = PPOAgent(rules, model, greedy=True)
    e = config.eval
    specs = list(e.opponents)
    evals_done = step // e.every
    if e.pimc_every and evals_done % e.pimc_every == 0:
        specs.append("pimc")
    out: dict[str, dict[str, float]] = {}
    for spec in specs:
        deals = e.pimc_deals if spec == "pimc" else e.deals
        (result,) = evaluate(agent, rules, [spec], deals, e.seed).values()
        tag = tag_of(spec)
        writer.add_scalar(f"eval/payoff_vs_{tag}", result.mean_payoff, step)
        writer.add_scalar(f"eval/payoff_vs_{tag}_ci95", result.ci95, step)
        figures = {"mean_payoff": result.mean_payoff, "ci95": result.ci95}
        skills = {
            "kept_low_card": result.low_card_kept,
            "won_last_with_low_card": result.low_card_wins,
            "won_trick_before_last": result.before_last_wins,
        }
        for name, value in skills.items():
            if value is not None:
                writer.add_scalar(f"skill/{name}_vs_{tag}", value, step)
                figures[name] = value
        out[spec] = figures
    for spec, match in log_match_evaluations(config, agent, rules, writer, step).items():
        out[spec].update(match)
    writer.flush()
    return out


def log_exploitability(rules: Ruleset, model: ActorCritic, writer: Any, step: int) -> float:
    """The exact exploitability of the policy the learner samples from (not the greedy one the
    duplicate deals play), read back into the game's tree; logged as ``eval/exploitability``."""
    from spar_agents.cfr.readback import cached_representatives, exact_exploitability
    from spar_agents.ppo.agent import policy_probs
    from spar_env.observation.per_game import encode

    def policy(states: State) -> np.ndarray:
        return policy_probs(model, encode(states, states.current_player), states.legal_mask())

    value = exact_exploitability(cached_representatives(rules), policy)
    writer.add_scalar("eval/exploitability", value, step)
    writer.flush()
    return value
