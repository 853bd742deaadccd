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
``obs_version``      :data:`spar_env.observe.OBS_VERSION` of the encoding
``obs_size``         width of the observation vector
``obs_dtype``        ``uint8``: the observation as :func:`spar_env.observe.encode`
                     gives it, unscaled (the model divides by each entry's bound)
``num_actions``      width of the mask and of the probabilities
``actions``          JSON list: the name of each action id, in order
``action_ids``       how the ids are laid out, in words
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

from agents.signature import describe, game_signature
from spar_env.rules import Ruleset

FORMAT = "spar-rl onnx bot"
FORMAT_VERSION = 1
OBS_INPUT, MASK_INPUT, PROBS_OUTPUT = "obs", "mask", "probs"
OBS_DTYPE = "uint8"


class BotError(ValueError):
    """An exported bot that cannot be used: unreadable, not a bot, or made for another game."""


def action_names(rules: Ruleset) -> list[str]:
    """The name of every action id: card ids (``AC``, ``KC``, ...), then KEEP and EXCHANGE."""
    names = [rules.card_name(c) for c in range(rules.num_card_ids)]
    return names + (["KEEP", "EXCHANGE"] if rules.weak_hand_exchange else [])


def action_layout(rules: Ruleset) -> str:
    """The action ids in words, for a reader of the file."""
    text = (
        f"card id = suit index * {rules.num_ranks} + rank index, suits "
        f"{' '.join(rules.suits)}, ranks high to low {' '.join(rules.ranks)} "
        "(a card left out of the deck keeps its id and is never legal)"
    )
    if rules.weak_hand_exchange:
        text += f"; then KEEP = {rules.keep_action}, EXCHANGE = {rules.exchange_action}"
    return text


def bot_metadata(
    rules: Ruleset, run: Mapping[str, Any], config: Mapping[str, Any]
) -> dict[str, str]:
    """The metadata of a bot for ``rules``, trained by ``run`` with ``config`` (module docstring)."""
    signature = game_signature(rules)
    return {
        "format": FORMAT,
        "format_version": str(FORMAT_VERSION),
        "variant": signature["variant"],
        "players": str(signature["players"]),
        "options": json.dumps(signature["options"], sort_keys=True),
        "obs_version": str(signature["obs_version"]),
        "obs_size": str(signature["obs_size"]),
        "obs_dtype": OBS_DTYPE,
        "num_actions": str(signature["num_actions"]),
        "actions": json.dumps(action_names(rules)),
        "action_ids": action_layout(rules),
        "run": json.dumps(dict(run), sort_keys=True),
        "config": json.dumps(dict(config), sort_keys=True),
    }


def signature_of(meta: Mapping[str, str], where: str) -> dict[str, Any]:
    """The game signature that a bot's metadata gives (as :func:`agents.signature.game_signature`).

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
            "options": json.loads(meta["options"]),
            "obs_version": int(meta["obs_version"]),
            "obs_size": int(meta["obs_size"]),
            "num_actions": int(meta["num_actions"]),
        }
    except (KeyError, ValueError) as e:
        raise BotError(f"{where}: the bot's metadata is broken ({type(e).__name__}: {e})") from None
    if not isinstance(signature["options"], dict):
        raise BotError(f"{where}: the bot's metadata is broken (options is not a JSON object)")
    return signature


def check_bot(meta: Mapping[str, str], rules: Ruleset, where: str) -> None:
    """Refuse a bot made for another game than ``rules``, naming both.

    Raises:
        BotError: if the metadata is not a bot's, or it names another game,
            observation encoding or action count.
    """
    signature = signature_of(meta, where)
    wanted = game_signature(rules)
    if signature != wanted:
        raise BotError(
            f"{where} was trained for {describe(signature)}, but this game is {describe(wanted)}"
        )
    if meta.get("obs_dtype") != OBS_DTYPE:
        raise BotError(f"{where}: observations of type {meta.get('obs_dtype')!r}; expected uint8")


def run_of(meta: Mapping[str, str]) -> dict[str, Any]:
    """The training run a bot came from (``{}`` if its metadata has none)."""
    try:
        run = json.loads(meta.get("run", "{}"))
    except ValueError:
        return {}
    return run if isinstance(run, dict) else {}
