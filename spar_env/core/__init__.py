"""The rules core: a batch of games as NumPy arrays, moved by pure-ish functions.

    state = reset(rules, batch, rng)          # deal the first hand of each session
    rewards = step(state, actions)            # in place; rewards float32 [B, N]
    next_hand(state, games, rng)              # the winner deals the next hand
    start_sessions(state, games, rng)         # per-game auto-reset

Games in a batch may finish at different times: a finished game keeps its
final state (``terminated``) and ignores its actions until the caller deals it
a new hand or session. The rules themselves are compiled loops over the
games (Numba, :mod:`spar_env.core.kernel`), so a batch of one game is as
cheap to step as its arithmetic, and a large batch takes one pass per step.
This layer imports NumPy and Numba only.
"""

import spar_env.core.compile_cache  # noqa: F401  (first: every kernel is cached fresh)
from spar_env.core.bits import random_member, unpack
from spar_env.core.deal import next_hand, reset, shuffle_decks, start_sessions
from spar_env.core.play import describe_action, step
from spar_env.core.state import EXCHANGE, OVER, PLAY, State
from spar_env.core.tables import NO_CARD, Tables, tables_for

__all__ = [
    "EXCHANGE",
    "NO_CARD",
    "OVER",
    "PLAY",
    "State",
    "Tables",
    "describe_action",
    "next_hand",
    "random_member",
    "reset",
    "shuffle_decks",
    "start_sessions",
    "step",
    "tables_for",
    "unpack",
]
