"""The game loop of ``spar play``: show the table, ask for a move until one is legal, repeat.

The loop talks to the person only through a :class:`Terminal` (``show`` a
renderable, ``ask`` for a line), so tests drive it with scripted lines and
the command line with a rich console. ``q``, Ctrl-C (``KeyboardInterrupt``)
and the end of input (``EOFError``) leave the table cleanly: the final
scores are shown and every finished hand has been handed to ``on_record``.
A line that is not a legal move gets a message saying why and a new prompt;
``r`` (or ``rules``) shows the variant's rules. Everything is said in the session's
language; a trick just won is shown for the ``pace`` (:class:`Pace`): some seconds, or
until Enter. Given a ``review``, the end of every hand (the session's last too) offers
``v``: the hand's review, a trick at a time (:mod:`spar_apps.terminal.review_screen`).
Given a ``report``, the session's end shows the mistakes of all its hands by kind.
A :class:`~spar_apps.table.duplicate.DuplicateTable` shows both results after each hand
(:mod:`spar_apps.terminal.challenge`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
from rich.console import RenderableType
from rich.text import Text

from spar_apps.table import HumanTable
from spar_apps.table.duplicate import DuplicateTable
from spar_apps.table.messages import DEFAULT_LANGUAGE, Language, say
from spar_apps.table.moves import QUIT_WORDS, RULES_WORDS, MoveError, Quit, read_move
from spar_apps.terminal import challenge, review_screen, screen

Hint = Callable[[HumanTable], np.ndarray]  # the bot's probabilities for the person's move
OnRecord = Callable[[dict[str, Any]], None]
# The review of the hand just finished, as review_texts gives it (ValueError: none for it)
Review = Callable[[HumanTable, Language], dict[str, Any]]
# The session report of the hands played, as report_texts gives it (ValueError: none)
Report = Callable[[HumanTable, list[dict[str, Any]], Language], dict[str, Any]]
REVIEW_WORDS = frozenset({"v", "review"})


class Terminal(Protocol):
    def show(self, renderable: RenderableType) -> None: ...

    def ask(self, prompt: str) -> str: ...  # raises EOFError at the end of input


@dataclass(frozen=True)
class Pace:
    """How long a trick just won stays on screen: ``seconds``, or until Enter (``tap``);
    ``Pace()`` does not stop (the next screen's "what happened" line tells the trick)."""

    seconds: float = 0.0
    tap: bool = False

    @classmethod
    def parse(cls, text: str) -> Pace:
        """``tap``, ``none`` or a number of seconds (0-10).

        Raises:
            ValueError: naming the values allowed.
        """
        if text == "tap":
            return cls(tap=True)
        if text == "none":
            return cls()
        try:
            seconds = float(text)
        except ValueError:
            seconds = -1.0
        if not 0 <= seconds <= 10:
            raise ValueError(f"the pace is tap, none or seconds from 0 to 10; got {text!r}")
        return cls(seconds)


@dataclass
class Outcome:
    """How the person's time at the table ended."""

    hands: int  # hands finished
    left: bool  # the person left before the session was over
    scores: list[int]  # session points by seat


def play_session(
    table: HumanTable,
    terminal: Terminal,
    *,
    hint: Hint | None = None,
    on_record: OnRecord | None = None,
    review: Review | None = None,
    report: Report | None = None,
    language: Language = DEFAULT_LANGUAGE,
    pace: Pace = Pace(),
    sleep: Callable[[float], None] = time.sleep,
) -> Outcome:
    """Play the table's session with the person until it ends or they leave (a
    :class:`~spar_apps.table.duplicate.DuplicateTable` shows both results after each hand)."""
    duplicate = table if isinstance(table, DuplicateTable) else None
    left = False
    records: list[dict[str, Any]] = []  # the hands played, for the report
    if pace.tap or pace.seconds > 0:
        table.on_trick = lambda: _pause(table, terminal, language, pace, sleep)
    try:
        while True:
            table.advance()
            if table.hand_over:
                terminal.show(screen.hand_summary(table, language))
                if duplicate is not None:
                    terminal.show(challenge.after_hand(duplicate, language))
                record = table.record()
                if on_record is not None and record is not None:
                    on_record(record)
                if report is not None and record is not None:
                    records.append(record)
                if not _after_hand(table, terminal, review, language):
                    raise Quit
                if table.session_over:
                    break
                table.next_hand()
                continue
            terminal.show(screen.table_view(table, language, None if hint is None else hint(table)))
            table.play(_ask_move(table, terminal, language))
    except Quit:
        left = not table.session_over
    except (KeyboardInterrupt, EOFError):
        left = not table.session_over
        terminal.show(Text(""))  # end the line the prompt was on
    finally:
        table.on_trick = None
    terminal.show(screen.final_scores(table, left, language))
    if duplicate is not None:
        terminal.show(challenge.at_the_end(duplicate, language))
    if report is not None and records:
        _show_report(table, terminal, report, records, language)
    return Outcome(
        hands=int(table.state.hands_played[0]),
        left=left,
        scores=table.state.scores[0].tolist(),
    )


def _show_report(
    table: HumanTable,
    terminal: Terminal,
    report: Report,
    records: list[dict[str, Any]],
    language: Language,
) -> None:
    """The session report of the hands played (each searched: it takes a moment)."""
    terminal.show(Text(say("review.report.working", language), style="dim"))
    try:
        texts = report(table, records, language)
    except ValueError as e:
        terminal.show(Text(str(e), style="bold yellow"))
        return
    terminal.show(review_screen.report_view(texts))


def _pause(
    table: HumanTable,
    terminal: Terminal,
    language: Language,
    pace: Pace,
    sleep: Callable[[float], None],
) -> None:
    """Show the trick just won, for the pace's seconds or until Enter."""
    terminal.show(screen.finished_trick(table, language))
    if pace.tap:
        if terminal.ask(say("prompt.go_on", language)).strip().lower() in QUIT_WORDS:
            raise Quit
    else:
        sleep(pace.seconds)


def _ask_move(table: HumanTable, terminal: Terminal, language: Language) -> int:
    """Ask until the line is a legal move (raises Quit, EOFError or KeyboardInterrupt)."""
    prompt = say("prompt.exchange" if table.exchanging else "prompt.card", language)
    while True:
        line = terminal.ask(prompt)
        if line.strip().lower() in RULES_WORDS:
            terminal.show(screen.rules_screen(table.rules, language))
            continue
        try:
            return read_move(line, table.rules, table.reasons(), language)
        except MoveError as e:
            terminal.show(Text(str(e), style="bold yellow"))


def _after_hand(
    table: HumanTable, terminal: Terminal, review: Review | None, language: Language
) -> bool:
    """Ask what comes after a hand: the next hand (True), or leaving (False); ``v`` shows the
    hand's review first. Without a review, the session's last hand asks nothing."""
    if review is None:
        if table.session_over:
            return True
        answer = terminal.ask(say("prompt.next", language))
        return answer.strip().lower() not in QUIT_WORDS
    prompt = "review.end_prompt" if table.session_over else "review.hand_prompt"
    while True:
        answer = terminal.ask(say(prompt, language)).strip().lower()
        if answer not in REVIEW_WORDS:
            return answer not in QUIT_WORDS
        try:
            texts = review(table, language)
        except ValueError as e:
            terminal.show(Text(str(e), style="bold yellow"))
            continue
        terminal.show(review_screen.review_head(texts))
        for index in range(len(texts["tricks"])):
            terminal.show(review_screen.trick_view(texts, index))
            if index + 1 < len(texts["tricks"]):
                step = terminal.ask(say("review.prompt", language)).strip().lower()
                if step in QUIT_WORDS:
                    break
