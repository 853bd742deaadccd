"""What the person at a :class:`~spar_apps.table.HumanTable` sees in the terminal, as rich renderables.

- :func:`table_view`: before each of the person's moves. The hand, with the
  legal cards numbered; the trick in progress and who leads it; the cards
  each seat has played, in order, another seat's face-down cards as backs
  ``░░`` (the person's own in brackets); the trick number and the scores
  (c-notation where the ruleset asks for it); what just happened (a card
  played face down says why); why any card of the hand may not be played;
  and the bot's probabilities, with each move's reason, when a hint is
  asked for.
- :func:`hand_summary`: when a hand ends. Who won, with which card and for
  how many points and why, each payoff and why, the score, and every seat's
  hand as it was dealt.
- :func:`finished_trick`: a trick just won, shown for a moment (``--pace``).
- :func:`rules_screen`: the variant's rules (the ``r`` key, ``spar rules``).
- :func:`final_scores`: when the person leaves or the session ends.

Every text is said in the person's language (:mod:`spar_apps.table.messages`).
Hearts and diamonds are red. Everything shown is what the person's seat may
know while the hand runs; the dealt hands are shown once it is over.
"""

from __future__ import annotations

import re

import numpy as np
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from spar_apps.table import HumanTable, exchange_labels, numbered, scores_line, session_result
from spar_apps.table.messages import Language, say
from spar_apps.table.rules_text import rules_sections, tagline, variant_name
from spar_apps.table.texts import BACK, chance_note, hand_head, happened, headline
from spar_apps.table.voice import Voice
from spar_env.explain import high_ranks
from spar_env.rules import Ruleset

RED = "bold red"
_RED_CARD = re.compile(r"(?:10|[2-9JQKARDV])[♥♦]")


def colour(text: str, style: str = "") -> Text:
    """``text`` with its hearts and diamonds in red."""
    out = Text(text, style=style)
    out.highlight_regex(_RED_CARD, RED)
    return out


def table_view(
    table: HumanTable, language: Language, hint: np.ndarray | None = None
) -> RenderableType:
    """The table before one of the person's moves (see the module docstring)."""
    state, voice = table.state, table.voice(language)
    parts: list[RenderableType] = [
        Text(headline(table, language), style="bold"),
        _seats(table, voice),
    ]
    if table.exchanging:
        parts.append(Text(voice.say("exchange.explain", ranks=high_ranks(table.rules))))
    else:
        parts.append(colour(_trick_line(table, voice)))
    if int(state.revealed[0]) >= 0:
        parts.append(colour(voice.say("stock.revealed", card=voice.card(state.revealed[0]))))
    if table.events:
        parts.append(colour(happened(table, language), "italic"))
    parts.append(_hand_line(table, voice))
    if hint is not None:
        parts.append(_hint_line(table, voice, hint))
    return Group(*parts)


def finished_trick(table: HumanTable, language: Language) -> RenderableType:
    """The trick just finished, its plays in order and its winner (shown for a moment)."""
    voice = table.voice(language)
    trick, plays, winner, card = table.finished_trick()  # type: ignore[misc]
    shown = ", ".join(
        f"{voice.name(seat)} {_played(table, voice, seat, c, down)}" for seat, c, down in plays
    )
    you = "you" if winner == table.seat else "other"
    won = voice.say(
        f"event.trick.{you}", who=voice.name(winner), trick=trick, card=voice.card(card)
    )
    return colour(f"{shown} · {won}", "bold")


def hand_summary(table: HumanTable, language: Language) -> RenderableType:
    """The end of a hand: the winner, the card, the points, the payoffs and the hands dealt."""
    state, rules, voice = table.state, table.rules, table.voice(language)
    parts: list[RenderableType] = []
    if table.events:
        parts.append(colour(happened(table, language), "italic"))
    parts.append(colour(hand_head(table, language), "bold"))
    score = table.hand_score()
    parts.append(colour(voice.text(score.why_points())))
    hands = Table(box=None, show_header=True, header_style="bold", pad_edge=False)
    chances = table.match_chances()
    columns = ("seat", "dealt", "payoff", "why", "score") + (("chance",) if chances else ())
    for column in columns:
        hands.add_column(
            voice.say(f"column.{column}"), justify="right" if column == "chance" else "left"
        )
    for seat in range(rules.players):
        dealt = " ".join(voice.card(c) for c in table.dealt(seat))
        if rules.weak_hand_exchange and state.exchanged[0, seat]:
            dealt += "  " + voice.say("summary.exchanged")
        cells = [
            voice.name(seat),
            colour(dealt or voice.say("summary.sat_out")),
            f"{int(table.payoffs[seat]):+d}",
            colour(voice.text(score.why_payoff(seat)), "dim"),
            table.score(state.scores[0, seat]),
        ]
        hands.add_row(*cells, *([voice.percent(chances[seat])] if chances else []))
    parts.append(hands)
    if chances:
        parts.append(colour(chance_note(chances, language), "dim"))
    parts.append(Text(voice.text(score.session)))
    if table.session_over:
        parts.append(Text(session_result(table, language), style="bold"))
    return Group(*parts)


def rules_screen(rules: Ruleset, language: Language) -> RenderableType:
    """The variant's rules, written from its ruleset (:func:`spar_apps.table.rules_text.rules_sections`)."""
    head = say(
        "rules.head", language, variant=variant_name(rules, language), players=rules.players,
        tagline=tagline(rules, language),
    )  # fmt: skip
    grid = Table.grid(padding=(0, 2))
    grid.add_column(style="bold", no_wrap=True)
    grid.add_column()
    for heading, sentences in rules_sections(rules, language):
        grid.add_row(heading, colour(" ".join(sentences)))
    foot = Text(say("rules.manual", language), style="dim")
    return Group(Text(head, style="bold underline"), grid, foot)


def final_scores(table: HumanTable, left: bool, language: Language) -> RenderableType:
    """The scores when the person leaves (``left``) or the session ends; the result of a
    session that is over was said with its last hand, and is not said again."""
    voice = table.voice(language)
    played = int(table.state.hands_played[0])
    scores = Text(voice.say("final.scores", scores=scores_line(table, language)))
    if table.session_over:
        return scores
    head = voice.say("final.left" if left else "final.played", n=played)
    return Group(Text(head, style="bold"), scores)


# ----- pieces ------------------------------------------------------------------------
def _seats(table: HumanTable, voice: Voice) -> Table:
    """One row per seat: the cards it played, in order, another's face-down ones as backs."""
    state, rules = table.state, table.rules
    grid = Table(box=None, show_header=True, header_style="bold", pad_edge=False)
    for column in ("seat", "played", "tricks", "score"):
        grid.add_column(voice.say(f"column.{column}"))
    plays, won = table.plays_by_seat(), table.tricks_won()
    for seat in range(rules.players):
        shown = [_played(table, voice, seat, card, down) for card, down in plays[seat]]
        flags = {
            "dealer": state.dealer[0] == seat,
            "exchanged": rules.weak_hand_exchange and state.exchanged[0, seat],
            "sits_out": not int(state.active[0]) >> seat & 1,
        }
        marks = [voice.say(f"flag.{mark}") for mark, on in flags.items() if on]
        who = voice.name(seat) + (f" ({', '.join(marks)})" if marks else "")
        grid.add_row(
            Text(who, style="bold" if seat == table.seat else ""),
            colour(" ".join(shown) or "-"),
            str(won[seat]),
            table.score(state.scores[0, seat]),
        )
    return grid


def _played(table: HumanTable, voice: Voice, seat: int, card: int, down: bool) -> str:
    """A played card as the person sees it: another seat's face-down card is a back, the
    person's own in brackets."""
    if not table.sees(seat, down):
        return BACK
    return f"[{voice.card(card)}]" if down else voice.card(card)


def _trick_line(table: HumanTable, voice: Voice) -> str:
    state = table.state
    played = [
        f"{voice.name(seat)} {_played(table, voice, seat, card, down)}"
        for seat, card, down in table.trick_plays()
    ]
    line = voice.say(
        "trick.led", trick=int(state.trick[0]) + 1, who=voice.name(int(state.leader[0]))
    )
    if not played:
        nothing = voice.say("trick.nothing")
        nothing += f" ({voice.say('trick.your_lead')})" if table.my_turn else ""
        return voice.say("list.colon", head=line, last=nothing)
    line = voice.say("list.colon", head=line, last=", ".join(played))
    best = int(state.best_seat[0])
    if best >= 0:
        you = "you" if best == table.seat else "other"
        winning = voice.say(
            f"trick.winning.{you}", who=voice.name(best), card=voice.card(state.best_card[0])
        )
        line = voice.say("list.then", head=line, last=winning)
    return line


def _hand_line(table: HumanTable, voice: Voice) -> Text:
    rules = table.rules
    legal = set(table.legal()) if table.my_turn else set()
    out = Text(voice.say("hand.yours"), style="bold")
    if table.exchanging and table.my_turn:
        choices = numbered(sorted(legal))
        out.append_text(colour(" ".join(voice.card(c) for c in table.hand())))
        words = exchange_labels(rules, voice.language)
        out.append(
            "   "
            + voice.say("hand.choose")
            + "  ".join(f"{i} {words[a]}" for i, a in enumerate(choices, 1))
        )
        return out
    number = {a: i for i, a in enumerate(numbered(sorted(legal)), 1)}
    for c in table.hand():
        if c in number:
            out.append(f"{number[c]}:", style="bold cyan")
            out.append_text(colour(voice.card(c), "bold"))
        else:
            out.append_text(colour(voice.card(c), "dim"))
        out.append("  ")
    closed: dict[str, list[str]] = {}  # one line per rule, naming its cards
    for r in table.reasons():
        if not r.legal and r.action < rules.num_card_ids:
            closed.setdefault(voice.text(r.reason), []).append(voice.card(r.action))
    for reason, cards in closed.items():
        out.append("\n")
        out.append_text(
            colour(voice.say("hand.closed", cards=", ".join(cards), reason=reason), "dim")
        )
    return out


def _hint_line(table: HumanTable, voice: Voice, probs: np.ndarray) -> RenderableType:
    """The bot's probabilities, most likely first, each with the rule's word on the move
    (said once when every move has the same)."""
    order = [int(a) for a in np.argsort(-probs, kind="stable") if probs[a] > 0]
    words = exchange_labels(table.rules, voice.language)
    why = {r.action: voice.text(r.reason) for r in table.reasons()}
    reasons = {why.get(a, "") for a in order}
    shared = reasons.pop() if len(reasons) == 1 else ""
    head = voice.say("hint.head_why", why=shared) if shared else voice.say("hint.head")
    grid = Table.grid(padding=(0, 1))
    for _ in range(3):
        grid.add_column()
    for a in order:
        move = words.get(a) or voice.card(a)
        grid.add_row(
            colour(f"  {move}", "green"),
            Text(voice.percent(probs[a]), style="green", justify="right"),
            colour("" if shared else why.get(a, ""), "dim"),
        )
    return Group(colour(head, "green"), grid)
