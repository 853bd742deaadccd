"""What an exported bot says about itself, in the ONNX file's ``metadata_props``.

Every value is a string (ONNX metadata is text); structured values are JSON.

===================  ==========================================================
key                  value
===================  ==========================================================
``format``           ``spar-rl onnx bot``
``format_version``   ``1``
``variant``          the preset, e.g. ``spar``
``players``          the player count, e.g. ``4``
``options``          JSON: the ruleset fields that differ from the preset
``obs_version``      :data:`spar_env.observation.per_game.OBS_VERSION` of the encoding
``obs_size``         width of the observation vector
``obs_dtype``        ``uint8``: the observation as :func:`spar_env.observation.per_game.encode`
                     gives it, unscaled (the model divides by each entry's bound)
``num_actions``      width of the mask and of the probabilities
``actions``          JSON list: the name of each action id, in order
``action_ids``       how the ids are laid out, in words
``games``            JSON list (universal bots, observation v2 only): every game the
                     bot covers, each ``{"variant", "players", "options"}``;
                     ``variant``, ``players`` and ``options`` then name the game it
                     plays when none is named (4-player ``spar`` if covered)
``run``              JSON: ``name``, ``update`` and ``checkpoint`` of the training run
``config``           JSON: the training config in force
===================  ==========================================================

The graph has two inputs and one output:

- ``obs``: ``uint8 [batch, obs_size]``;
- ``mask``: ``bool [batch, num_actions]``, the legal actions;
- ``probs``: ``float32 [batch, num_actions]``, the policy over legal actions
  (exactly 0 on illegal ones; a row whose mask is all False is all 0).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from spar_agents.signature import check_signature, game_signature, is_universal
from spar_env.limits import LimitError, load_json
from spar_env.observation.universal import NUM_ACTIONS_V2, view_for
from spar_env.rules import Ruleset

FORMAT = "spar-rl onnx bot"
FORMAT_VERSION = 1
OBS_INPUT, MASK_INPUT, PROBS_OUTPUT = "obs", "mask", "probs"
OBS_DTYPE = "uint8"
MAX_DEPTH = 8  # nesting of a JSON value in the metadata (a universal bot's games need 4)


class BotError(ValueError):
    """An exported bot that cannot be used: unreadable, not a bot, or made for another game."""


def action_names(rules: Ruleset, universal: bool = False) -> list[str]:
    """The name of every action id: card ids (``AC``, ``KC``, ...), then KEEP and EXCHANGE
    (``universal``: the 48 cards of the v2 grid, 3C ... AS, then KEEP and EXCHANGE)."""
    if universal:
        from spar_env.rules.cards import RANKS, SUITS

        return [r + s for s in SUITS for r in RANKS] + ["KEEP", "EXCHANGE"]
    names = [rules.card_name(c) for c in range(rules.num_card_ids)]
    return names + (["KEEP", "EXCHANGE"] if rules.weak_hand_exchange else [])


def action_layout(rules: Ruleset, universal: bool = False) -> str:
    """The action ids in words, for a reader of the file."""
    if universal:
        return (
            "v2 grid for every game: card = suit index * 12 + rank index, suits C D H S, "
            "ranks low to high 3 4 5 6 7 8 9 10 J Q K A; then KEEP = 48, EXCHANGE = 49 "
            f"({NUM_ACTIONS_V2} in all; a card a game lacks is never legal)"
        )
    text = (
        f"card id = suit index * {rules.num_ranks} + rank index, suits "
        f"{' '.join(rules.suits)}, ranks high to low {' '.join(rules.ranks)} "
        "(a card left out of the deck keeps its id and is never legal)"
    )
    if rules.weak_hand_exchange:
        text += f"; then KEEP = {rules.keep_action}, EXCHANGE = {rules.exchange_action}"
    return text


def bot_metadata(
    rules: Ruleset,
    run: Mapping[str, Any],
    config: Mapping[str, Any],
    signature: Mapping[str, Any] | None = None,
) -> dict[str, str]:
    """The metadata of a bot for ``rules``, trained by ``run`` with ``config`` (module docstring).

    A universal bot passes its ``signature`` (:func:`spar_agents.signature.universal_signature`);
    ``rules`` is then the game it plays when none is named (:func:`spar_agents.signature.rules_of`).
    """
    universal = signature is not None and is_universal(dict(signature))
    sig = dict(signature) if universal and signature is not None else game_signature(rules)
    first = game_signature(rules)
    meta = {
        "format": FORMAT,
        "format_version": str(FORMAT_VERSION),
        "variant": first["variant"],
        "players": str(first["players"]),
        "options": json.dumps(first["options"], sort_keys=True),
        "obs_version": str(sig["obs_version"]),
        "obs_size": str(sig["obs_size"]),
        "obs_dtype": OBS_DTYPE,
        "num_actions": str(sig["num_actions"]),
        "actions": json.dumps(action_names(rules, universal)),
        "action_ids": action_layout(rules, universal),
        "run": json.dumps(dict(run), sort_keys=True),
        "config": json.dumps(dict(config), sort_keys=True),
    }
    if universal:
        meta["games"] = json.dumps(sig["games"], sort_keys=True)
    return meta


def signature_of(meta: Mapping[str, str], where: str) -> dict[str, Any]:
    """The game signature that a bot's metadata gives (as :func:`spar_agents.signature.game_signature`).

    Raises:
        BotError: if the metadata is not that of a spar-rl bot of this format.
    """
    if meta.get("format") != FORMAT:
        raise BotError(f"{where}: not a spar-rl bot (its ONNX metadata has no format {FORMAT!r})")
    if meta.get("format_version") != str(FORMAT_VERSION):
        raise BotError(
            f"{where}: bot format version {meta.get('format_version')!r}; "
            f"this spar-rl reads version {FORMAT_VERSION}"
        )
    try:
        signature: dict[str, Any] = {
            "variant": meta["variant"],
            "players": int(meta["players"]),
            "options": load_json(meta["options"], MAX_DEPTH, "options"),
            "obs_version": int(meta["obs_version"]),
            "obs_size": int(meta["obs_size"]),
            "num_actions": int(meta["num_actions"]),
        }
    except (KeyError, ValueError) as e:
        raise BotError(f"{where}: the bot's metadata is broken ({type(e).__name__}: {e})") from None
    if not isinstance(signature["options"], dict):
        raise BotError(f"{where}: the bot's metadata is broken (options is not a JSON object)")
    if "games" in meta:
        return _universal_signature_of(meta, signature, where)
    return signature


def _universal_signature_of(
    meta: Mapping[str, str], first: dict[str, Any], where: str
) -> dict[str, Any]:
    """The signature of a universal bot's metadata: its games, observation v2 and actions."""
    try:
        games = load_json(meta["games"], MAX_DEPTH, "games")
        ok = (
            isinstance(games, list)
            and bool(games)
            and all(
                isinstance(g, dict) and set(g) == {"variant", "players", "options"} for g in games
            )
        )
    except LimitError as e:
        raise BotError(f"{where}: the bot's metadata is broken ({e})") from None
    except ValueError:
        ok = False
    if not ok:
        raise BotError(f"{where}: the bot's metadata is broken (games is not a list of games)")
    keys = ("obs_version", "obs_size", "num_actions")
    return {"games": games, **{k: first[k] for k in keys}}


def check_bot(meta: Mapping[str, str], rules: Ruleset, where: str) -> None:
    """Refuse a bot made for another game than ``rules``, naming both.

    Raises:
        BotError: if the metadata is not a bot's, or it names another game,
            observation encoding or action count.
    """
    signature = signature_of(meta, where)
    why = check_signature(signature, rules, where)
    if why is not None:
        raise BotError(why)
    if is_universal(signature):
        view_for(rules)  # observation v2 holds every game a universal bot lists
    if meta.get("obs_dtype") != OBS_DTYPE:
        raise BotError(f"{where}: observations of type {meta.get('obs_dtype')!r}; expected uint8")


def run_of(meta: Mapping[str, str]) -> dict[str, Any]:
    """The training run a bot came from (``{}`` if its metadata has none)."""
    try:
        run = load_json(meta.get("run", "{}"), MAX_DEPTH, "run")
    except ValueError:
        return {}
    return run if isinstance(run, dict) else {}
