"""Whether a run's agent can join a league: checked when ``spar train --league`` starts.

``spar train CONFIG --league L`` adds the run's agent to the league in ``L`` when the run
ends. :func:`check_joinable` refuses, before any training, what that add would refuse
after it: a path that cannot be a league folder (a plain file, or under one), a damaged
league file, and a league of another game than the one the run's agent is added for.
"""

from __future__ import annotations

from pathlib import Path

from spar_agents.signature import describe_game
from spar_env.rules import Ruleset
from spar_train.games import game_mix
from spar_train.league.store import FILE, game_of, load
from spar_train.sections import Config


def joining_rules(config: Config) -> Ruleset:
    """The game a run's agent joins a league for: the run's game (a mix: its home game, the
    one its ``ppo:`` agent plays, :attr:`spar_train.games.GameMix.home`)."""
    return game_mix(config).home


def check_joinable(folder: Path, config: Config) -> None:
    """Raise ``ValueError`` naming ``folder`` if the run of ``config`` could not join it.

    A folder without a league is fine (the run starts one for its game); one with a league
    must hold a league of the run's game.
    """
    folder = Path(folder)
    existing = next((p for p in (folder, *folder.parents) if p.exists()), None)
    if existing is not None and not existing.is_dir():
        where = "is" if existing == folder else f"lies under {existing}, which is"
        raise ValueError(f"--league {folder}: {where} a file, not a folder; a league is a "
                         f"folder holding {FILE} (spar league add starts one)")  # fmt: skip
    if not (folder / FILE).exists():
        return
    try:
        league = load(folder)
    except ValueError as e:
        raise ValueError(f"--league {folder}: {e}") from None
    rules = joining_rules(config)
    if game_of(rules) != league.game:
        raise ValueError(
            f"--league {folder}: a league of {describe_game(league.game)}; this run trains "
            f"for {describe_game(game_of(rules))}, so its agent could not join it"
        )
