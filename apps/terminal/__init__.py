"""A person against bots at one table, as ``spar play`` runs it, testable without a terminal.

- :mod:`~spar_apps.terminal.table`: the session on the core, the bots' moves and
  a line for each move (:class:`HumanTable`).
- :mod:`~spar_apps.terminal.moves`: a typed line as a move, or a message saying
  why it is not one.
- :mod:`~spar_apps.terminal.screen`: what the person sees (rich renderables).
- :mod:`~spar_apps.terminal.loop`: show, ask, play, until the session ends or the
  person leaves (:func:`play_session`).

Bots are agents built by the caller (the command line uses the agent
registry); this package only calls their ``act``.
"""

from spar_apps.terminal.loop import Outcome, Terminal, play_session
from spar_apps.terminal.moves import MoveError, Quit, read_move
from spar_apps.terminal.table import HumanTable

__all__ = ["HumanTable", "MoveError", "Outcome", "Quit", "Terminal", "play_session", "read_move"]
