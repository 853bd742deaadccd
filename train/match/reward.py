"""The match reward of ``ppo.reward = "match"``: each hand pays the change of the seat's
chance to win the match.

A hand that takes a seat from a 30% chance of winning the match to 45% pays it
+0.15. Over a match these sum to the match's result (1 for the winner, 0 for
the others) less the chance at its start, so the learner is paid for winning
matches, with far less noise than the final result alone: each hand's reward
still arrives at the hand's end. The chances come from the exact
:class:`~spar_train.match.equity.EquityTable` of the game, solved for a hand
model of ``ppo.match_model`` playing itself (``ppo.match_deals`` deals, each
dealt by every seat), so only ``target:T`` sessions qualify.
"""

from __future__ import annotations

import numpy as np

from spar_env.core import State
from spar_env.rules import Ruleset
from spar_train.match.equity import EXACT_LIMIT, EquityTable, equity_table, table_cells
from spar_train.match.model import estimate_hand_model
from spar_train.sections import Config

REWARDS = ("hand", "match")


def why_no_match_reward(rules: Ruleset) -> str | None:
    """Why ``rules`` cannot be trained on the match reward, or ``None``."""
    if rules.end_kind != "target":
        return f"a session to a target (end = target:T); {rules.variant} ends {rules.end}"
    if table_cells(rules.players, rules.end_value or 0) > EXACT_LIMIT:
        return f"an exact equity table, and {rules.players} players to {rules.end} is too large"
    return None


def match_reward_table(rules: Ruleset, model_spec: str, deals: int, seed: int) -> EquityTable:
    """The equity table the match reward reads (module docstring).

    Raises:
        ValueError: for a game :func:`why_no_match_reward` refuses, or a bad spec.
    """
    why = why_no_match_reward(rules)
    if why is not None:
        raise ValueError(f"the match reward needs {why}")
    model = estimate_hand_model([model_spec], rules, deals, seed)
    return equity_table(model, rules.end_value or 0)


def chances_now(table: EquityTable, state: State) -> np.ndarray:
    """``float64 [B, N]``: each seat's chance to win its match in every game of ``state``.

    At a hand's start: from the scores, with ``state.dealer`` dealing. Once the hand is
    over: 1 for a seat whose match it won, else from the new scores with the hand's
    winner dealing next.
    """
    over = state.terminated
    dealers = np.where(over, state.winner, state.dealer)
    scores = np.minimum(state.scores, table.target - 1)  # a winning score: answered below
    chances = table.lookup(scores, np.maximum(dealers, 0))
    won = over & state.session_over
    if won.any():
        chances[won] = np.eye(table.players)[state.session_winner[won]]
    return chances


def match_table_of(config: Config, rules: Ruleset) -> EquityTable | None:
    """The table ``ppo.reward = "match"`` reads for ``rules``; ``None`` for hand rewards."""
    p = config.ppo
    if p.reward != "match":
        return None
    return match_reward_table(rules, p.match_model, p.match_deals, config.run.seed)
