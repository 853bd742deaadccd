"""The rules' reasons, for tables that teach: why a move is open or closed, how a hand scored,
and a variant's rules written from its ruleset.

- :mod:`spar_env.explain.moves`: :func:`move_reasons` for the seat to act.
- :mod:`spar_env.explain.score`: :func:`explain_hand` once a hand is over.
- :mod:`spar_env.explain.phrase`: what they say, as message keys and fields (:class:`Phrase`),
  which the tables say in the reader's language (a variant's rules, all words, are the
  tables' own: ``spar_apps.table.rules_text``).
"""

from spar_env.explain.moves import (
    MoveReason,
    face_down_reason,
    high_ranks,
    move_reasons,
)
from spar_env.explain.phrase import Phrase, phrase
from spar_env.explain.score import HandScore, Term, explain_hand

__all__ = [
    "HandScore",
    "MoveReason",
    "Term",
    "explain_hand",
    "face_down_reason",
    "high_ranks",
    "move_reasons",
    "Phrase",
    "phrase",
]
