"""A rating ladder kept in a folder: entrants join, pair matches are played a batch at a time,
and every entrant gets a rating with a 95% interval on one scale (``spar league``).

- :mod:`spar_train.league.ladder`: joining, planning and playing rounds, and the table
  (:func:`add_entrants`, :func:`play_league`, :func:`standings`);
- :mod:`spar_train.league.store`: the league file (atomic writes, a lock, checked reads);
- :mod:`spar_train.league.ratings`: the ratings, their intervals and the schedule;
- :mod:`spar_train.league.matches`: playing the matches, here or on Ray.

The schedule is planned a *round* of matches at a time, from the results of the rounds
before, and written to the league before any of them is played; so a league gives the same
table whether its matches run here or on Ray, and a stopped ``play`` resumes with the
matches it had planned.
"""

from spar_train.league.ladder import (
    DEFAULT_MATCH_DEALS,
    DEFAULT_ROUND,
    Standings,
    add_entrants,
    play_league,
    standings,
)
from spar_train.league.store import League, load

__all__ = [
    "DEFAULT_MATCH_DEALS",
    "DEFAULT_ROUND",
    "League",
    "Standings",
    "add_entrants",
    "load",
    "play_league",
    "standings",
]
