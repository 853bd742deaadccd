"""A person against bots at one table, as ``spar play`` runs it in the terminal, testable
without one.

- :mod:`~spar_apps.terminal.screen`: what the person sees (rich renderables).
- :mod:`~spar_apps.terminal.loop`: show, ask, play, until the session ends or the
  person leaves (:func:`play_session`).
- :mod:`~spar_apps.terminal.challenge`: the duplicate challenge's results, after each
  hand and at the end.

The table itself, the reading of a typed move and the session's texts are the web's too:
:mod:`spar_apps.table` (:class:`HumanTable`, :func:`read_move`), whose names this package
gives again for its callers. Bots are agents built by the caller (the command line uses the
agent registry); the table only calls their ``act``.
"""

from spar_apps.table import HumanTable, MoveError, Quit, read_move
from spar_apps.terminal.loop import Outcome, Terminal, play_session

__all__ = ["HumanTable", "MoveError", "Quit", "Outcome", "Terminal", "play_session", "read_move"]
