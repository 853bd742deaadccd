"""The game a learned agent's file was made for, read from its spec.

A PPO checkpoint (``ppo:runs/NAME``), an exported bot (``onnx:spar4``,
``onnx:bot.onnx``) and a CFR policy file (``cfr:runs/NAME/policy.npz``) each
record the game they were made for: the variant, the player count and the
options. ``spar bench`` and ``spar play`` take the game from the first such
agent of a lineup when no game option is given (:func:`lineup_game`).
Reading the game builds no agent and runs no network.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from typing import Any

from spar_agents.registry import parse_spec
from spar_env.rules import Ruleset, make_rules

LEARNED = ("ppo", "onnx", "cfr")  # the agents whose spec names a file that names a game


def spec_rules(spec: str) -> Ruleset | None:
    """The game the file of a ``ppo:``, ``onnx:`` or ``cfr:`` spec was made for, else ``None``.

    Raises:
        ValueError: if the file is missing or unreadable, naming it.
    """
    name, params = parse_spec(spec)
    path = params.get("path")
    if name not in LEARNED or path is None:
        return None
    return _READERS[name](str(path))


def lineup_game(specs: Iterable[str]) -> tuple[str, Ruleset] | None:
    """The first learned agent of a lineup and its game, or ``None`` if it has none."""
    for spec in specs:
        rules = spec_rules(spec)
        if rules is not None:
            return spec, rules
    return None


def first_that_plays(
    specs: Iterable[str], rules: Ruleset, build: Callable[[str, Ruleset], Any] | None = None
) -> str | None:
    """The first of ``specs`` whose agent plays ``rules``, else ``None`` (an agent made for
    another game refuses with ``ValueError``); ``build`` makes the agents (the registry's
    ``make_agent`` by default, or a caller's cache of it)."""
    if build is None:
        from spar_agents.registry import make_agent

        build = make_agent
    for spec in specs:
        try:
            build(spec, rules)
        except ValueError:
            continue
        return spec
    return None


def fallback_note(rules: Ruleset, fallback: str) -> str:
    """What a table says when no shipped bot plays its game: ``no shipped bot plays spar with
    4 players (end=target:20); your opponents are heuristic``."""
    from spar_agents.signature import describe_game, game_key

    return f"no shipped bot plays {describe_game(game_key(rules))}; your opponents are {fallback}"


def _ppo(path: str | os.PathLike) -> Ruleset:
    from spar_agents.ppo.agent import latest_checkpoint
    from spar_agents.ppo.checkpoint import CheckpointError, load_checkpoint
    from spar_agents.signature import rules_of

    file = latest_checkpoint(path)
    checkpoint = load_checkpoint(file)
    try:
        return rules_of(checkpoint["game"])
    except (KeyError, TypeError, ValueError, RecursionError) as e:  # a game no spar-rl plays
        raise CheckpointError(f"{file}: not a PPO policy checkpoint ({e})") from None


def _onnx(path: str | os.PathLike) -> Ruleset:
    from spar_agents.export.bot import bot_rules

    return bot_rules(path)


def _cfr(path: str | os.PathLike) -> Ruleset:
    from spar_agents.cfr.sampled_policy import read_meta

    meta = read_meta(path)
    try:
        return make_rules(meta["variant"], players=meta["players"], **meta["options"])
    except (KeyError, TypeError) as e:
        raise ValueError(f"{path}: not a CFR policy file (no game in its header: {e})") from None


_READERS: dict[str, Callable[[str], Ruleset]] = {"ppo": _ppo, "onnx": _onnx, "cfr": _cfr}
