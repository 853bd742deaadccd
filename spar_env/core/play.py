"""Stepping a batch: one action per game (a card, or an exchange decision).

:func:`step` is the one entry point that moves a batch forward; it updates the
state in place, through the compiled rules of :mod:`spar_env.core.kernel`.
Games whose hand is over ignore their action: deal them a new hand
(:func:`~spar_env.core.deal.next_hand`) or a new session
(:func:`~spar_env.core.deal.start_sessions`) when you choose: the core never
resets a game by itself.
"""

from __future__ import annotations

import numpy as np

from spar_env.core.kernel import step_games
from spar_env.core.state import State

_EVERYONE = np.ones(0, dtype=bool)  # the ``moving`` of a step where every live game moves


def step(
    state: State,
    actions: np.ndarray,
    *,
    moving: np.ndarray | None = None,
    check: bool = True,
) -> np.ndarray:
    """Apply one action per game (in place) and return the rewards ``float32 [B, N]``.

    Args:
        state: the batch, changed in place.
        actions: ``int [B]``, the action of each game's ``current_player``
            (card ids, or KEEP/EXCHANGE in the exchange phase). Ignored for
            games whose hand is over, and for games left out of ``moving``.
        moving: optional ``bool [B]``: only these games move; the others wait
            (for example while a learner's turn comes round in some games).
        check: raise ``ValueError`` on an illegal action (naming the game, the
            action and the legal actions), before any game moves. Turn off
            only for trusted agents.

    Returns:
        The zero-sum payoffs paid by this step; non-zero only in games whose
        hand ended now. The array is ``state.rewards`` and is overwritten by
        the next step.
    """
    b = state.batch_size
    actions = np.asarray(actions)
    if actions.shape != (b,):
        raise ValueError(f"actions must have shape ({b},); got {actions.shape}")
    actions = np.ascontiguousarray(actions, dtype=np.int64)
    if moving is None:
        moving, everyone = _EVERYONE, True
    else:
        moving, everyone = np.ascontiguousarray(moving, dtype=bool), False
        if moving.shape != (b,):
            raise ValueError(f"moving must have shape ({b},); got {moving.shape}")
    bad = step_games(state.compiled, actions, moving, everyone, check)
    if bad >= 0:
        _refuse(state, bad, int(actions[bad]))
    return state.rewards


def _refuse(state: State, game: int, action: int) -> None:
    rules = state.tables.rules
    legal_ids = [i for i in range(rules.num_actions) if int(state.legal[game]) >> i & 1]
    raise ValueError(
        f"game {game}: seat {int(state.current_player[game])} cannot play "
        f"{describe_action(rules, action)}; legal: "
        f"{', '.join(describe_action(rules, i) for i in legal_ids)}"
    )


def describe_action(rules, action: int) -> str:
    """A card's name, ``KEEP``/``EXCHANGE``, or the bad number itself."""
    if rules.weak_hand_exchange and action == rules.keep_action:
        return "KEEP"
    if rules.weak_hand_exchange and action == rules.exchange_action:
        return "EXCHANGE"
    if 0 <= action < rules.num_card_ids:
        return rules.card_name(action)
    return f"action {action}"
