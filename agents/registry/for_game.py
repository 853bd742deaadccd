"""The agents that play a given game: the first of some specs whose agent plays it, and the
note a table shows when none does (it then seats a stand-in such as ``heuristic``).

A learned agent made for another game refuses to be built for this one (``ValueError``), so
trying to build it is the test; the caller's builder may keep what it builds (``spar play``
and ``spar serve`` seat the agent that passed, not a second copy).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from spar_env.rules import Ruleset


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
