"""What a trained policy is bound to: the game, its observation encoding and its actions.

A checkpoint (:mod:`spar_agents.ppo`) and an exported bot (:mod:`spar_agents.export`)
both carry a *game signature*; asked to play another game they refuse, with
a message that names both. Options that only change how scores are written
(:data:`DISPLAY_ONLY`: c-notation) are left out, so a bot plays the same game
whichever way the scores are written. This module imports no torch, so that
an exported bot runs on onnxruntime alone.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from spar_env.observation.per_game import OBS_VERSION, layout_for
from spar_env.observation.universal import NUM_ACTIONS_V2, OBS_V2, OBS_V2_SIZE, check_v2
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


def game_key(rules: Ruleset) -> dict[str, Any]:
    """The game alone (variant, players, options), as a universal signature lists it."""
    sig = game_signature(rules)
    return {k: sig[k] for k in ("variant", "players", "options")}


def universal_signature(games: Iterable[Ruleset]) -> dict[str, Any]:
    """What a policy on observation v2 is bound to: the games it was trained for, in order.

    Raises:
        ValueError: if observation v2 cannot hold one of the games.
    """
    keys = []
    for rules in games:
        check_v2(rules)
        keys.append(game_key(rules))
    return {"games": keys, "obs_version": OBS_V2, "obs_size": OBS_V2_SIZE,
            "num_actions": NUM_ACTIONS_V2}  # fmt: skip


def is_universal(signature: dict[str, Any]) -> bool:
    """Whether a signature is a universal one (observation v2, a list of games)."""
    return "games" in signature


def check_signature(signature: dict[str, Any], rules: Ruleset, where: str) -> str | None:
    """Why a policy with ``signature`` may not play ``rules`` (naming both), or ``None``.

    A universal policy covers its games with any session end (:func:`hand_game`)."""
    if is_universal(signature):
        if hand_game(game_key(rules)) in map(hand_game, signature["games"]):
            return None
        return f"{where} covers {describe(signature)}, but not {describe_game(game_key(rules))}"
    wanted = game_signature(rules)
    if signature == wanted:
        return None
    theirs, ours = describe(signature), describe(wanted)
    if theirs == ours:  # the same in words (an altered action count): name what differs
        keys = [k for k in {**wanted, **signature} if signature.get(k) != wanted.get(k)]
        theirs += f" ({', '.join(f'{k} {signature.get(k)!r:.40}' for k in keys)})"
        ours += f" ({', '.join(f'{k} {wanted.get(k)!r:.40}' for k in keys)})"
    return f"{where} was trained for {theirs}, but this game is {ours}"


def hand_game(game: dict[str, Any]) -> dict[str, Any]:
    """A game key without its session end: what one hand is.

    A universal policy reads the session end and the scores as inputs, and was
    trained on the payoff of each hand, so a game it covers is covered with
    any end: to 6 or 20 points, with stones or for K hands. ``spar bench
    --matches`` measures how it plays them (benchmarks/README.md).
    """
    options = {k: v for k, v in game["options"].items() if k != "end"}
    return {**game, "options": options}


def rules_of(signature: dict[str, Any]) -> Ruleset:
    """The ruleset a policy was trained for; for a universal policy, the game to play when
    none is named: the default game (``spar``, 4 players) if it covers it, else its first."""
    if not is_universal(signature):
        return make_rules(
            signature["variant"], players=signature["players"], **signature["options"]
        )
    default = make_rules("spar")
    if game_key(default) in signature["games"]:
        return default
    game = signature["games"][0]
    return make_rules(game["variant"], players=game["players"], **game["options"])


def describe_game(game: dict[str, Any]) -> str:
    """``spar with 4 players (last_two=bonus)``."""
    opts = ", ".join(f"{k}={v}" for k, v in game["options"].items())
    return f"{game['variant']} with {game['players']} players" + (f" ({opts})" if opts else "")


def describe(signature: dict[str, Any]) -> str:
    """``spar with 4 players (last_two=bonus), observation v1 of 379``; for a universal
    signature, ``51 games (spar with 2-7 players, ...), observation v2 of 1212``."""
    where = f", observation v{signature['obs_version']} of {signature['obs_size']}"
    if not is_universal(signature):
        return describe_game(signature) + where
    games = signature["games"]
    return f"{len(games)} games ({covered_text(games)}){where}"


def covered_text(games: list[dict[str, Any]]) -> str:
    """The games of a universal policy in short: ``spar with 2-7 players, sipa with 3 players``."""
    counts: dict[str, list[int]] = {}
    for game in games:
        opts = ", ".join(f"{k}={v}" for k, v in game["options"].items())
        name = game["variant"] + (f" ({opts})" if opts else "")
        counts.setdefault(name, []).append(int(game["players"]))
    parts = []
    for name, players in counts.items():
        ps = sorted(set(players))
        contiguous = ps == list(range(ps[0], ps[-1] + 1)) and len(ps) > 1
        text = f"{ps[0]}-{ps[-1]}" if contiguous else ", ".join(map(str, ps))
        parts.append(f"{name} with {text} players")
    return "; ".join(parts)
