"""spar-rl: a vectorised engine, RL environments and agents for Spar and its relatives."""

from spar_env.records import replay
from spar_env.rules import PRESETS, Ruleset, c_notation, make_rules

__all__ = ["PRESETS", "Ruleset", "c_notation", "make_rules", "replay"]
__version__ = "0.1.0"
