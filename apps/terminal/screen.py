"""What the person at a :class:`~spar_apps.table.HumanTable` sees in the terminal, as rich renderables.

- :func:`table_view`: before each of the person's moves. The hand, with the
  legal cards numbered; the trick in progress and who leads it; the cards
  each seat has played, in order, another seat's face-down cards as backs
  ``🂠`` (the person's own in brackets); the trick number and the scores
  (c-notation where the ruleset asks for it); what just happened (a card
  played face down says why); why any card of the hand may not be played;
  and the bot's probabilities, with each move's reason, when a hint is
  asked for.
- :func:`hand_summary`: when a hand ends. Who won, with which card and for
  how many points and why, each payoff and why, the score, and every seat's
  hand as it was dealt.
- :func:`rules_screen`: the variant's rules (the ``r`` key, ``spar rules``).
- :func:`final_scores`: when the person leaves or the session ends.

Hearts and diamonds are red. Everything shown is what the person's seat may
know while the hand runs; the dealt hands are shown once it is over.
"""

from __future__ import annotations

import re

import numpy as np
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from spar_apps.table import (
    HumanTable,
    exchange_words,
    numbered,
    scores_line,
    session_goal,
    session_result,
)
from spar_env.envs.render import BACK
from spar_env.explain import rules_sections, tagline
from spar_env.rules import Ruleset

RED = "bold red"
_RED_CARD = re.compile(r"(?:10|[2-9JQKA])[♥♦]")


def colour(text: str, style: str = "") -> Text:
    """``text`` with its hearts and diamonds in red."""
    out = Text(text, style=style)
    out.highlight_regex(_RED_CARD, RED)
    return out


def table_view(table: HumanTable, hint: np.ndarray | None = None) -> RenderableType:
    """The table before one of the person's moves (see the module docstring)."""
    state = table.state
    parts: list[RenderableType] = [Text(_headline(table), style="bold"), _seats(table)]
    if table.exchanging:
        parts.append(
            Text("Before trick 1 every seat in turn keeps its hand or, if it holds no 10 "
                 "or better, exchanges it for the top of the stock.")
        )  # fmt: skip
    else:
        parts.append(colour(_trick_line(table)))
    if int(state.revealed[0]) >= 0:
        parts.append(colour(f"stock: bottom card {table.card(state.revealed[0])} turned up"))
    if table.events:
        parts.append(colour("what happened: " + "; ".join(table.events), "italic"))
    parts.append(_hand_line(table))
    if hint is not None:
        parts.append(_hint_line(table, hint))
    return Group(*parts)


def hand_summary(table: HumanTable) -> RenderableType:
    """The end of a hand: the winner, the card, the points, the payoffs and the hands dealt."""
    state, rules = table.state, table.rules
    h = rules.hand_size
    winner, points = int(state.winner[0]), int(state.points[0])
    card = table.card(state.trick_card[0, h - 1])
    wins = "win" if winner == table.seat else "wins"
    head = (
        f"hand {int(state.hands_played[0])} over: {table.name(winner)} {wins} the last trick "
        f"with {card}, for {points} point{'s' * (points != 1)}"
    )
    parts: list[RenderableType] = []
    if table.events:
        parts.append(colour("what happened: " + "; ".join(table.events), "italic"))
    parts.append(colour(head, "bold"))
    score = table.hand_score()
    parts.append(colour(score.why_points()))
    hands = Table(box=None, show_header=True, header_style="bold", pad_edge=False)
    chances = table.match_chances()
    columns = ("seat", "dealt", "payoff", "why", "score") + (("match chance",) if chances else ())
    for column in columns:
        hands.add_column(column, justify="right" if column == "match chance" else "left")
    for seat in range(rules.players):
        dealt = " ".join(table.card(c) for c in table.dealt(seat))
        if rules.weak_hand_exchange and state.exchanged[0, seat]:
            dealt += "  (exchanged)"
        cells = [
            table.name(seat),
            colour(dealt or "sat out"),
            f"{int(table.payoffs[seat]):+d}",
            colour(score.why_payoff(seat), "dim"),
            table.score(state.scores[0, seat]),
        ]
        hands.add_row(*cells, *([f"{chances[seat]:.0%}"] if chances else []))
    parts.append(hands)
    if chances:
        tie = 1 - sum(chances)
        note = MATCH_CHANCE_NOTE + (f"; a tie for most points: {tie:.0%}" if tie >= 0.005 else "")
        parts.append(colour(note, "dim"))
    parts.append(Text(score.session))
    if table.session_over:
        parts.append(Text(session_result(table), style="bold"))
    return Group(*parts)


def rules_screen(rules: Ruleset) -> RenderableType:
    """The variant's rules, written from its ruleset (:func:`spar_env.explain.rules_sections`)."""
    head = f"{rules.variant}, {rules.players} players: {tagline(rules)}"
    grid = Table.grid(padding=(0, 2))
    grid.add_column(style="bold", no_wrap=True)
    grid.add_column()
    for heading, sentences in rules_sections(rules):
        grid.add_row(heading, colour(" ".join(sentences)))
    foot = Text("The whole manual: docs/rules.md of spar-rl.", style="dim")
    return Group(Text(head, style="bold underline"), grid, foot)


def final_scores(table: HumanTable, left: bool) -> RenderableType:
    """The scores when the session ends, or when the person leaves it (``left``)."""
    state = table.state
    played = int(state.hands_played[0])
    if table.session_over:
        head = session_result(table)
    elif left:
        head = f"you left the table after {played} finished hand{'s' * (played != 1)}"
    else:
        head = f"{played} hand{'s' * (played != 1)} played"
    return Group(Text(head, style="bold"), Text("final scores: " + scores_line(table)))


MATCH_CHANCE_NOTE = (
    "match chance: each seat's chance to win the match from here, were all seats equal players"
)


# ----- pieces ------------------------------------------------------------------------
def _headline(table: HumanTable) -> str:
    state, rules = table.state, table.rules
    hand = int(state.hands_played[0]) + (0 if table.hand_over else 1)
    trick = (
        "exchange" if table.exchanging else f"trick {int(state.trick[0]) + 1} of {rules.hand_size}"
    )
    return (
        f"{rules.variant}, {rules.players} players · hand {hand} · {trick} · "
        f"play goes {rules.direction} · {session_goal(table)}"
    )


def _seats(table: HumanTable) -> Table:
    """One row per seat: the cards it played, in order, another's face-down ones as backs."""
    state, rules = table.state, table.rules
    grid = Table(box=None, show_header=True, header_style="bold", pad_edge=False)
    for column in ("seat", "played", "tricks", "score"):
        grid.add_column(column)
    plays, won = table.plays_by_seat(), table.tricks_won()
    for seat in range(rules.players):
        shown = [_played(table, seat, card, down) for card, down in plays[seat]]
        flags = {
            "dealer": state.dealer[0] == seat,
            "exchanged": rules.weak_hand_exchange and state.exchanged[0, seat],
            "sits out": not int(state.active[0]) >> seat & 1,
        }
        marks = [mark for mark, on in flags.items() if on]
        who = table.name(seat) + (f" ({', '.join(marks)})" if marks else "")
        grid.add_row(
            Text(who, style="bold" if seat == table.seat else ""),
            colour(" ".join(shown) or "-"),
            str(won[seat]),
            table.score(state.scores[0, seat]),
        )
    return grid


def _played(table: HumanTable, seat: int, card: int, down: bool) -> str:
    """A played card as the person sees it: another seat's face-down card is a back, the
    person's own in brackets."""
    if not table.sees(seat, down):
        return BACK
    return f"[{table.card(card)}]" if down else table.card(card)


def _trick_line(table: HumanTable) -> str:
    state = table.state
    leader = int(state.leader[0])
    played = [
        f"{table.name(seat)} {_played(table, seat, card, down)}"
        for seat, card, down in table.trick_plays()
    ]
    line = f"trick {int(state.trick[0]) + 1}, led by {table.name(leader)}: "
    if not played:
        return line + "nothing played yet" + (" (your lead)" if table.my_turn else "")
    best = int(state.best_seat[0])
    line += ", ".join(played)
    if best >= 0:
        line += f"; {table.name(best)} {'are' if best == table.seat else 'is'} winning it with "
        line += table.card(state.best_card[0])
    return line


def _hand_line(table: HumanTable) -> Text:
    rules = table.rules
    legal = set(table.legal()) if table.my_turn else set()
    out = Text("your hand: ", style="bold")
    if table.exchanging and table.my_turn:
        choices = numbered(sorted(legal))
        out.append_text(colour(" ".join(table.card(c) for c in table.hand())))
        words = exchange_words(rules)
        out.append("   choose: " + "  ".join(f"{i} {words[a]}" for i, a in enumerate(choices, 1)))
        return out
    number = {a: i for i, a in enumerate(numbered(sorted(legal)), 1)}
    for c in table.hand():
        if c in number:
            out.append(f"{number[c]}:", style="bold cyan")
            out.append_text(colour(table.card(c), "bold"))
        else:
            out.append_text(colour(table.card(c), "dim"))
        out.append("  ")
    closed: dict[str, list[str]] = {}  # one line per rule, naming its cards
    for r in table.reasons():
        if not r.legal and r.action < rules.num_card_ids:
            closed.setdefault(r.reason, []).append(table.card(r.action))
    for reason, cards in closed.items():
        out.append("\n")
        out.append_text(colour(f"not {', '.join(cards)}: {reason}", "dim"))
    return out


def _hint_line(table: HumanTable, probs: np.ndarray) -> RenderableType:
    """The bot's probabilities, most likely first, each with the rule's word on the move
    (said once when every move has the same)."""
    rules = table.rules
    order = [int(a) for a in np.argsort(-probs, kind="stable") if probs[a] > 0]
    words = exchange_words(rules)
    why = {r.action: r.reason for r in table.reasons()}
    reasons = {why.get(a, "") for a in order}
    shared = reasons.pop() if len(reasons) == 1 else ""
    head = "hint, the bot's policy" + (f" ({shared})" if shared else "") + ":"
    grid = Table.grid(padding=(0, 1))
    for _ in range(3):
        grid.add_column()
    for a in order:
        move = words.get(a) or table.card(a)
        grid.add_row(
            colour(f"  {move}", "green"),
            Text(f"{probs[a]:.0%}", style="green", justify="right"),
            colour("" if shared else why.get(a, ""), "dim"),
        )
    return Group(colour(head, "green"), grid)
