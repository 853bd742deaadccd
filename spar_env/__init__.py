"""spar-rl: a vectorised engine, RL environments and agents for Spar and its relatives."""

from spar_env.envs import SelfPlay, SparEnv, SparVectorEnv, env, raw_env, register_envs
from spar_env.records import RecordError, replay
from spar_env.rules import PRESETS, Ruleset, c_notation, make_rules

register_envs()

__all__ = [
    "PRESETS",
    "RecordError",
    "Ruleset",
    "SelfPlay",
    "SparEnv",
    "SparVectorEnv",
    "c_notation",
    "env",
    "make_rules",
    "raw_env",
    "register_envs",
    "replay",
]
__version__ = "0.1.0"
