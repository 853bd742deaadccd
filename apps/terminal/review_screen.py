"""A hand's review in the terminal (the ``v`` key of ``spar play``, and ``spar review``), as rich
renderables drawn from :func:`spar_apps.table.review_text.review_texts`, the words the web
page shows too.

- :func:`review_head`: the title, the summary (mistakes and their cost) and the notes that say
  what the numbers are;
- :func:`trick_view`: one trick: its plays and winner, and the seat's decision in it: every
  legal card with the bot's probability, the search's value ± its standard error and, where a
  match is on, the match chance; the card played and the best marked; the verdict (a mistake
  in bold red, with its cost) and the reasons (or the line saying no reason tells the cards
  apart), and where the bot's first choice is not the search's best, the line that says so;
- :func:`report_view`: a session report (:mod:`spar_apps.table.review_report`): the mistakes
  by kind, with their cost, and the total.
"""

from __future__ import annotations

from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from spar_apps.terminal.screen import colour


def review_head(texts: dict[str, Any]) -> RenderableType:
    """The review's title, summary and notes."""
    style = "bold red" if texts["mistakes"] else "bold green"
    parts: list[RenderableType] = [
        Text(texts["title"], style="bold underline"),
        Text(texts["summary"], style=style),
    ]
    parts += [Text(note, style="dim") for note in texts["notes"]]
    return Group(*parts)


def trick_view(texts: dict[str, Any], index: int) -> RenderableType:
    """Trick ``index`` (from 0) of the review, with the seat's decision in it."""
    trick = texts["tricks"][index]
    parts: list[RenderableType] = [colour(trick["line"], "bold")]
    decision = trick["decision"]
    if decision is not None:
        parts.append(colour(decision["played_text"]))
        if not decision["forced"]:
            parts.append(_cards(texts, decision))
        style = "bold red" if decision["mistake"] else "green"
        parts.append(colour(decision["verdict"], style))
        parts += [colour(f"  · {reason}", "italic") for reason in decision["reasons"]]
        if decision.get("unexplained"):
            parts.append(colour(f"  · {decision['unexplained']}", "italic dim"))
        if decision.get("disagree"):
            parts.append(colour(decision["disagree"], "dim"))
    return Group(*parts)


def report_view(report: dict[str, Any]) -> RenderableType:
    """A session report: its title, summary, and one line a kind of mistake."""
    style = "bold red" if report["mistakes"] else "bold green"
    parts: list[RenderableType] = [
        Text(report["title"], style="bold underline"),
        Text(report["summary"], style=style),
    ]
    parts += [colour(f"  · {line['text']}") for line in report["kinds"]]
    return Group(*parts)


def _cards(texts: dict[str, Any], decision: dict[str, Any]) -> Table:
    """The legal cards, best first: the bot's probability, the value, the match chance."""
    labels = texts["labels"]
    grid = Table(box=None, show_header=True, header_style="bold", pad_edge=False)
    grid.add_column(labels["col_card"])
    grid.add_column(labels["col_bot"], justify="right")
    grid.add_column(labels["col_value"], justify="right")
    if texts["match"]:
        grid.add_column(labels["col_chance"], justify="right")
    grid.add_column("")
    for card in decision["cards"]:
        marks = [labels[f"mark_{m}"] for m in ("played", "best") if card[m]]
        row = [colour(card["card"], "bold" if card["best"] else ""), card["bot"],
               card["value_text"]]  # fmt: skip
        if texts["match"]:
            row.append(card["chance_text"])
        row.append(Text(", ".join(marks), style="green" if card["best"] else "yellow"))
        grid.add_row(*row)
    return grid
