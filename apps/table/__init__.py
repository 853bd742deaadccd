"""One person at a table of bots, whatever shows it: the terminal (``spar play``) and the web
(``spar serve``) both run this table and read its moves and texts here.

- :mod:`~spar_apps.table.human`: the session on the core, the bots' moves, a line for
  each move, and what the person's seat may see (:class:`HumanTable`).
- :mod:`~spar_apps.table.moves`: a typed line as a move, or a message saying why it is
  not one (:func:`read_move`).
- :mod:`~spar_apps.table.texts`: the session's texts: its goal, its result, the scores.
- :mod:`~spar_apps.table.rules_text`: a variant's rules, name and tagline.
- :mod:`~spar_apps.table.messages`, :mod:`~spar_apps.table.voice`: every text in English
  and French, and the words of one language at one seat (cards, seats, phrases).
- :mod:`~spar_apps.table.duplicate`: the duplicate challenge, a session of boards whose
  hands the bot in the person's seat plays again (:class:`~spar_apps.table.duplicate.DuplicateTable`).

Nothing here draws: the terminal's screen (:mod:`spar_apps.terminal.screen`) and the web's
view (:mod:`spar_apps.web.view`) turn the same table into rich renderables and JSON.
"""

from spar_apps.table.human import HumanTable
from spar_apps.table.moves import (
    MoveError,
    Quit,
    exchange_labels,
    exchange_words,
    numbered,
    read_move,
)
from spar_apps.table.texts import scores_line, session_goal, session_result

__all__ = [
    "HumanTable",
    "MoveError",
    "Quit",
    "exchange_labels",
    "exchange_words",
    "numbered",
    "read_move",
    "scores_line",
    "session_goal",
    "session_result",
]
