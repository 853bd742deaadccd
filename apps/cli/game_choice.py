"""The game a command plays (``spar bench``, ``spar play``): its options', or else the first
learned agent's.

When neither ``--variant`` nor ``--players`` is given, the game is the one that the first
``ppo:``, ``onnx:`` or ``cfr:`` agent of the lineup was made for
(:attr:`spar_agents.registry.spec.AgentSpec.game`, read from the file's header), with any
``--set`` on top, and one line says so. Given options win; an agent made for another game
then refuses with the error that names both games.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterable
from typing import TYPE_CHECKING

from spar_apps.cli.overrides import rules_from_args, ruleset_overrides
from spar_env.rules import Ruleset, make_rules

if TYPE_CHECKING:  # the agents load on use: `spar --help` imports no agent
    from spar_agents.registry.spec import AgentSpec


def rules_from_lineup(
    args: argparse.Namespace, specs: Iterable[str | AgentSpec]
) -> tuple[Ruleset, str | None]:
    """The ruleset of the command, and the note to print when it came from an agent."""
    if args.variant is not None or args.players is not None:
        return rules_from_args(args), None
    from spar_agents.registry.spec import AgentSpec, game_count, lineup_game

    parsed = [AgentSpec.of(s) for s in specs]  # each read once, here and by the command
    found = lineup_game(parsed)
    if found is None:
        return rules_from_args(args), None
    spec, game = found
    overrides = ruleset_overrides(args.overrides)
    rules = make_rules(game.variant, players=game.players, **{**game.options(), **overrides})
    made_for = next(p for p in parsed if p.text == spec)
    return rules, game_note(rules, spec, game_count(made_for))


def game_note(rules: Ruleset, spec: str, games: int) -> str:
    """Why the game is the one it is: the one ``spec`` was made for, or, for a bot made for
    many (``games``), the one of them it plays when none is named."""
    made = (
        f"as {spec} was made for"
        if games == 1
        else f"the default of the {games} games {spec} was made for"
    )
    return f"the game is {describe_game(rules)}, {made} (--variant and --players choose another)"


def describe_game(rules: Ruleset) -> str:
    """``spar with 2 players`` or ``spar with 4 players (last_two=bonus)``."""
    options = ", ".join(f"{k}={v}" for k, v in rules.options().items())
    return f"{rules.variant} with {rules.players} players" + (f" ({options})" if options else "")
