"""A PPO run's evaluations: its greedy policy on fixed duplicate deals, and its exploitability.

Each evaluation plays the learner's greedy policy in one seat against ``N - 1`` copies of each
``eval.opponents`` entry, on the same deals every time (``eval.seed``), with the duplicate-deal
tournament of ``spar bench`` (:func:`spar_train.evaluate.evaluate`), so that successive points
of a curve differ by the policy alone. :func:`evaluate_learner` evaluates a single game's
network (with its skills, ``pimc`` every ``eval.pimc_every`` evaluations, matches where
``eval.matches`` asks); :func:`evaluate_each_game` a mix's network, game by game and then the
mean over games; :func:`log_exploitability` is the exact exploitability of a small game
(``eval.exact``). The run's evaluation hook (:mod:`spar_train.ppo.hooks`) calls the one its
games ask for (:func:`evaluate_games`). With ``eval.regret_positions``, :func:`judge_run` values
a fixed set of positions once (:mod:`spar_train.regret`) and :func:`log_regret` gives the
greedy policy's regret on them at each evaluation.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from spar_agents.cfr.readback import cached_representatives, exact_exploitability
from spar_agents.ppo.agent import PPOAgent, policy_probs
from spar_agents.ppo.network import ActorCritic
from spar_agents.registry import make_agent
from spar_agents.search import SearchAgent
from spar_env.core import State
from spar_env.observation.per_game import encode
from spar_env.rules import Ruleset
from spar_train.evaluate import evaluate, log_match_evaluations, tag_of
from spar_train.games import GameMix, OwnGame
from spar_train.regret import Judged, judge_positions, regret_of, self_play
from spar_train.sections import Config


def evaluate_learner(
    config: Config, rules: Ruleset, model: ActorCritic, writer: Any, step: int
) -> dict[str, dict[str, float]]:
    """The greedy policy's duplicate-deal figures against each eval opponent (``pimc`` every
    ``eval.pimc_every`` evaluations, matches where ``eval.matches`` asks), logged under
    ``eval/`` and ``skill/``; by opponent."""
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


def evaluate_games(
    mix: GameMix, config: Config, model: ActorCritic, writer: Any, step: int
) -> dict[str, dict[str, float]]:
    """The learner on the run's games: a run of one game (no ``game.mix``) against every eval
    opponent (and ``pimc`` when due), with its skills (:func:`evaluate_learner`); a mix's every
    game, then the mean over games, by opponent (:func:`evaluate_each_game`)."""
    if isinstance(mix, OwnGame):
        return evaluate_learner(config, mix.home, model, writer, step)
    return evaluate_each_game(config, [(g.name, g.rules) for g in mix.games], model, writer, step)


def evaluate_each_game(
    config: Config,
    games: Sequence[tuple[str, Ruleset]],
    model: ActorCritic,
    writer: Any,
    step: int,
) -> dict[str, dict[str, float]]:
    """Every game (``(name, rules)``, read in observation v2) against every ``eval.opponents``
    entry; logs ``eval/<game>/payoff_vs_<tag>``, then the mean over games.

    Returns, by opponent, the mean over games of the mean payoff with its 95% interval, the
    number of games whose 95% interval lies above 0 (``games_above``) and the number of games.
    """
    out: dict[str, dict[str, float]] = {}
    begin = time.perf_counter()
    e = config.eval
    for spec in e.opponents:
        tag = tag_of(spec)
        means, cis, above = [], [], 0
        for name, rules in games:
            agent = PPOAgent(rules, model, greedy=True, universal=True)
            (result,) = evaluate(agent, rules, [spec], e.deals, e.seed).values()
            writer.add_scalar(f"eval/{name}/payoff_vs_{tag}", result.mean_payoff, step)
            writer.add_scalar(f"eval/{name}/payoff_vs_{tag}_ci95", result.ci95, step)
            means.append(result.mean_payoff)
            cis.append(result.ci95)
            above += int(result.mean_payoff - result.ci95 > 0)
        writer.add_scalar(f"eval/payoff_vs_{tag}", float(np.mean(means)), step)
        writer.add_scalar(f"eval/games_above_0_vs_{tag}", above, step)
        # The interval of the mean over games, from each game's (independent deals).
        ci95 = float(np.sqrt(np.sum(np.square(cis)))) / len(cis)
        out[spec] = {"mean_payoff": float(np.mean(means)), "ci95": ci95, "games_above": above,
                     "games": len(means)}  # fmt: skip
    for name, rules in games:  # whole matches, where eval.matches asks for them
        agent = PPOAgent(rules, model, greedy=True, universal=True)
        log_match_evaluations(config, agent, rules, writer, step, prefix=f"{name}/")
    writer.add_scalar("time/eval_seconds", time.perf_counter() - begin, step)
    writer.flush()
    return out


def log_exploitability(rules: Ruleset, model: ActorCritic, writer: Any, step: int) -> float:
    """The exact exploitability of the policy the learner samples from (not the greedy one the
    duplicate deals play), read back into the game's tree; logged as ``eval/exploitability``."""

    def policy(states: State) -> np.ndarray:
        return policy_probs(model, encode(states, states.current_player), states.legal_mask())

    value = exact_exploitability(cached_representatives(rules), policy)
    writer.add_scalar("eval/exploitability", value, step)
    writer.flush()
    return value


def judge_run(config: Config, rules: Ruleset) -> Judged:
    """The positions of the regret (``eval.regret_positions`` decisions of hands dealt with
    ``eval.seed`` and played by ``eval.regret_by``), each card valued by ``eval.regret_judge``:
    the same for the same config, so a resumed run judges on the same ones."""
    e = config.eval
    positions = self_play(rules, e.regret_positions, e.seed, make_agent(e.regret_by, rules))
    judge = make_agent(e.regret_judge, rules)
    if not isinstance(judge, SearchAgent):  # the config check has refused any other already
        raise ValueError(f"eval.regret_judge must be a search (search:...), got {e.regret_judge!r}")
    return judge_positions(positions, judge)


def log_regret(
    judged: Judged, model: ActorCritic, writer: Any, step: int, *, universal: bool
) -> dict[str, float]:
    """The greedy policy's regret on the judged positions (network forward passes alone),
    logged under its tags (``eval/regret``, ``eval/regret_ci95``, ...); the tags' values."""
    agent = PPOAgent(judged.positions.rules, model, greedy=True, universal=universal)
    scalars = regret_of(agent, judged).scalars()
    for tag, value in scalars.items():
        writer.add_scalar(tag, value, step)
    writer.flush()
    return scalars
