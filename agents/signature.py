"""What a trained policy is bound to: the game, its observation encoding and its actions.

A checkpoint (:mod:`agents.ppo`) and an exported bot (:mod:`agents.export`)
both carry a *game signature*; asked to play another game they refuse, with
a message that names both. Options that only change how scores are written
(:data:`DISPLAY_ONLY`: c-notation) are left out, so a bot plays the same game
whichever way the scores are written. This module imports no torch, so that
an exported bot runs on onnxruntime alone.
"""

from __future__ import annotations

from typing import Any

from spar_env.observe import OBS_VERSION, layout_for
from spar_env.rules import Ruleset, make_rules

DISPLAY_ONLY = frozenset({"c_notation"})  # how scores are written: nothing a policy sees or does


def game_signature(rules: Ruleset) -> dict[str, Any]:
    """What a policy is bound to: the game, its observation encoding and its actions."""
    return {
        "variant": rules.variant,
        "players": rules.players,
        "options": {k: v for k, v in rules.options().items() if k not in DISPLAY_ONLY},
        "obs_version": OBS_VERSION,
        "obs_size": layout_for(rules).size,
        "num_actions": rules.num_actions,
    }


def rules_of(signature: dict[str, Any]) -> Ruleset:
    """The ruleset a policy was trained for."""
    return make_rules(signature["variant"], players=signature["players"], **signature["options"])


def describe(signature: dict[str, Any]) -> str:
    """``spar with 4 players (last_two=bonus), observation v1 of 379``."""
    opts = ", ".join(f"{k}={v}" for k, v in signature["options"].items())
    return (
        f"{signature['variant']} with {signature['players']} players"
        + (f" ({opts})" if opts else "")
        + f", observation v{signature['obs_version']} of {signature['obs_size']}"
    )
