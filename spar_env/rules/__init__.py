"""The ruleset as data: the :class:`Ruleset` dataclass, the preset registry and card notation."""

from spar_env.rules.cards import c_notation, format_card, parse_card
from spar_env.rules.presets import PRESETS, make_rules
from spar_env.rules.ruleset import Ruleset

__all__ = ["PRESETS", "Ruleset", "c_notation", "format_card", "make_rules", "parse_card"]
