"""The rules' reasons, for tables that teach: why a move is open or closed, how a hand scored,
and a variant's rules written from its ruleset.

- :mod:`spar_env.explain.moves`: :func:`move_reasons` for the seat to act.
- :mod:`spar_env.explain.score`: :func:`explain_hand` once a hand is over.
- :mod:`spar_env.explain.rules_text`: :func:`rules_sections`, a variant's rules as short
  sections, and the texts that depend on the deck (ranks, typing examples, the tagline).
"""

from spar_env.explain.moves import (
    MoveReason,
    face_down_reason,
    high_ranks,
    move_reasons,
    suit_name,
)
from spar_env.explain.rules_text import rank_list, rules_sections, tagline, typing_examples
from spar_env.explain.score import HandScore, Term, explain_hand

__all__ = [
    "HandScore",
    "MoveReason",
    "Term",
    "explain_hand",
    "face_down_reason",
    "high_ranks",
    "move_reasons",
    "rank_list",
    "rules_sections",
    "suit_name",
    "tagline",
    "typing_examples",
]
