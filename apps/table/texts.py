"""The session's texts, the same in the terminal and on the web page, in the reader's language:
what ends the session (:func:`session_goal`), who won it (:func:`session_result`), the
scores (:func:`scores_line`), what happened since the person's last move (:func:`happened`)
and the end of a hand (:func:`hand_head`, :func:`chance_note`), seats named as the table
names them ("you", "seat 2")."""

from __future__ import annotations

from spar_apps.table.human import HumanTable
from spar_apps.table.messages import Language
from spar_apps.table.voice import percent
from spar_env.explain.phrase import Phrase, phrase
from spar_env.rules import Ruleset

# Another seat's face-down card: two cells of a narrow character of the Basic Multilingual
# Plane, as wide as most card names, in every terminal (the playing-card back U+1F0A0 is one
# cell to some terminals and two to others, and shifts the columns after it).
BACK = "░░"  # as the terminal's table and the review draw it


def session_goal(table: HumanTable, language: Language) -> str:
    """``first to 10 points``, ``5 hands, most points wins``, ...: the session's end rule."""
    rules, state, voice = table.rules, table.state, table.voice(language)
    kind, value = rules.end_kind, rules.end_value
    if kind == "target":
        return voice.say("goal.target", target=table.score(value))
    if kind == "hands":
        return voice.say("goal.hands", n=value)
    if kind == "stones":
        return voice.say("goal.stones", left=int(state.pool[0]), n=value)
    if kind == "one_hand":
        return voice.say("goal.one_hand")
    return voice.say("goal.open")


def session_result(table: HumanTable, language: Language) -> str:
    """``session over: you win the session``, or a tie (for a session that is over)."""
    voice = table.voice(language)
    champion = int(table.state.session_winner[0])
    if champion < 0:
        return voice.say("result.tie")
    you = "you" if champion == table.seat else "other"
    return voice.say(f"result.{you}", who=voice.name(champion))


def scores_line(table: HumanTable, language: Language) -> str:
    """``you 3 · seat 1 5 · ...``: every seat's score (and stones, in a stones session)."""
    state, rules, voice = table.state, table.rules, table.voice(language)
    items = []
    for seat in range(rules.players):
        fields = {"who": voice.name(seat), "score": table.score(state.scores[0, seat])}
        if rules.end_kind == "stones":
            items.append(voice.say("scores.item_stones", n=int(state.stones[0, seat]), **fields))
        else:
            items.append(voice.say("scores.item", **fields))
    return " · ".join(items)


def happened(table: HumanTable, language: Language) -> str:
    """``what happened: seat 1 plays K♦; ...``, or "" when nothing has."""
    if not table.events:
        return ""
    voice = table.voice(language)
    return voice.say("happened", events=joined([voice.text(e) for e in table.events], language))


def joined(items: list[str], language: Language) -> str:
    """Sentences one after another, with the language's semicolons (``a; b; c``)."""
    from spar_apps.table.messages import say

    text = items[0] if items else ""
    for item in items[1:]:
        text = say("list.then", language, head=text, last=item)
    return text


def headline(table: HumanTable, language: Language) -> str:
    """``Spar, 4 players · hand 1 · trick 2 of 5 · play goes clockwise · first to 10 points``."""
    from spar_apps.table.rules_text import variant_name

    state, rules, voice = table.state, table.rules, table.voice(language)
    hand = int(state.hands_played[0]) + (0 if table.hand_over else 1)
    trick = min(int(state.trick[0]) + 1, rules.hand_size)
    if table.exchanging:
        stage = voice.say("stage.exchange")
    else:
        stage = voice.say("stage.trick", trick=trick, tricks=rules.hand_size)
    return voice.say(
        "headline", variant=variant_name(rules, language), players=rules.players, hand=hand,
        stage=stage, direction=voice.say(f"direction.{rules.direction}"),
        goal=session_goal(table, language),
    )  # fmt: skip


def hand_head(table: HumanTable, language: Language) -> str:
    """``hand 2 over: seat 1 wins the last trick with 6♠, for 3 points``."""
    state, voice = table.state, table.voice(language)
    winner = int(state.winner[0])
    you = "you" if winner == table.seat else "other"
    return voice.say(
        f"summary.{you}", hand=int(state.hands_played[0]), who=voice.name(winner),
        card=voice.card(state.trick_card[0, table.rules.hand_size - 1]), n=int(state.points[0]),
    )  # fmt: skip


def chance_note(chances: list[float], language: Language) -> str:
    """What the match chances mean, and the chance of a tie where there is one."""
    from spar_apps.table.messages import say

    note = say("chance.note", language)
    tie = 1 - sum(chances)
    return (
        say("chance.tie", language, note=note, tie=percent(tie, language)) if tie >= 0.005 else note
    )


def fallback_note(rules: Ruleset, fallback: str) -> Phrase:
    """What a table says when no shipped bot plays its game: ``no shipped bot plays Spar with
    4 players (end=target:20); your opponents are heuristic``."""
    options = ", ".join(f"{k}={v}" for k, v in rules.options().items())
    return phrase(
        "opponent.fallback", variant=phrase(f"variant.{rules.variant}"), players=rules.players,
        options=f" ({options})" if options else "", fallback=fallback,
    )  # fmt: skip
