"""The match chances a table shows after each hand (``spar play``, ``spar serve``).

A person at the table wants to know what the score means: who is likely to
take the match from here. :func:`table_chances` answers for a table of equal
players, with a hand model of ``heuristic`` self-play (:data:`MODEL_DEALS`
deals, each dealt by every seat; estimated once per game and kept), so the
chances say what the score and the deal are worth, not who the players are.

A person waits on the chances after every hand, so their cost is bounded
whatever the session's end: exact for targets whose table is small
(:data:`LIVE_EXACT_LIMIT` cells, a fraction of a second, made once per game);
otherwise sampled (:data:`SAMPLED_MATCHES` matches, about ±0.7 points at 95%, or
as many as :data:`TABLE_HANDS` hands of play allow: a match to a far target has
thousands of hands left, and its chances come from fewer matches).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import numpy as np

from spar_env.rules import Ruleset
from spar_train.match.equity import (
    EquityTable,
    equity_table,
    simulate_equity,
    table_cells,
)
from spar_train.match.model import HandModel, estimate_hand_model

MODEL_AGENT = "heuristic"  # fast, and no network: the table's chances are of equal players
MODEL_DEALS = 1000
SAMPLED_MATCHES = 20_000
LIVE_EXACT_LIMIT = 1_000_000  # cells of an exact table made at the table (8 MB, ~0.3 s at most)
TABLE_HANDS = 2_000_000  # hands simulated at most for one hand's chances (~0.2 s)


def has_chances(rules: Ruleset) -> bool:
    """Whether a session of ``rules`` is a match someone wins over several hands."""
    return rules.end_kind in ("target", "stones", "hands")


@functools.lru_cache(maxsize=16)
def table_model(rules: Ruleset) -> HandModel:
    """The hand model of equal ``heuristic`` players at ``rules`` (kept per game)."""
    return estimate_hand_model([MODEL_AGENT], rules, MODEL_DEALS, seed=0)


@functools.lru_cache(maxsize=8)
def _exact(rules: Ruleset) -> EquityTable | None:
    value = rules.end_value or 0
    if rules.end_kind != "target" or table_cells(rules.players, value) > LIVE_EXACT_LIMIT:
        return None
    return equity_table(table_model(rules), value)


def table_chances(
    rules: Ruleset,
    scores: Sequence[int],
    dealer: int,
    *,
    stones: Sequence[int] | None = None,
    hands_played: int = 0,
) -> np.ndarray | None:
    """``float64 [N]``: each seat's chance to win the match from this state, with ``dealer``
    dealing the next hand; ``None`` for a session with no match to win (open, one hand)."""
    if not has_chances(rules):
        return None
    exact = _exact(rules)
    if exact is not None:
        return exact.at(scores, dealer)
    sampled = simulate_equity(
        table_model(rules),
        rules,
        scores,
        dealer,
        matches=SAMPLED_MATCHES,
        stones=stones,
        hands_played=hands_played,
        budget=TABLE_HANDS,
    )
    return sampled.win
