"""What ``spar play --duplicate`` shows of the duplicate challenge
(:mod:`spar_apps.table.duplicate`), as rich renderables.

- :func:`after_hand`: under each hand's summary, the hand's two results ("hand 3: you +3,
  the bot in your seat +5") and the running total with who is ahead.
- :func:`at_the_end`: when the session ends or the person leaves, every hand's pair in a
  table, the total, and how to deal the same hands again.

The lines are :func:`~spar_apps.table.duplicate.scoreboard`'s, the web page's own.
"""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from spar_apps.table.duplicate import DuplicateTable, scoreboard, signed
from spar_apps.table.messages import DEFAULT_LANGUAGE, Language

STYLE = "bold magenta"


def after_hand(table: DuplicateTable, language: Language = DEFAULT_LANGUAGE) -> RenderableType:
    """The hand just over, both ways, and the running total."""
    board = scoreboard(table, language)
    total = board["total"]
    parts: list[RenderableType] = []
    if board["hands"]:
        parts.append(Text(board["hands"][-1]["line"], style=STYLE))
    parts.append(Text(f"{total['line']} · {total['verdict']}", style="magenta"))
    return Group(*parts)


def at_the_end(table: DuplicateTable, language: Language = DEFAULT_LANGUAGE) -> RenderableType:
    """Every hand's pair, the total and the seed to play again."""
    board = scoreboard(table, language)
    grid = Table(title=board["title"], title_style=STYLE, box=None, header_style="bold")
    for i, column in enumerate(board["columns"]):
        grid.add_column(column, justify="left" if i == 0 else "right")
    for pair in board["hands"]:
        grid.add_row(str(pair["hand"]), signed(pair["you"]), signed(pair["bot"]))
    total = board["total"]
    return Group(
        grid,
        Text(f"{total['line']} · {total['verdict']}", style=STYLE),
        Text(board["again"], style="dim"),
    )
