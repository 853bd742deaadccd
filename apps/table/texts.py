"""The session's texts, the same in the terminal and on the web page: what ends the session
(:func:`session_goal`), who won it (:func:`session_result`) and the scores (:func:`scores_line`),
seats named as the table names them ("you", "seat 2")."""

from __future__ import annotations

from spar_apps.table.human import HumanTable


def session_goal(table: HumanTable) -> str:
    """``first to 10 points``, ``5 hands, most points wins``, ...: the session's end rule."""
    rules, state = table.rules, table.state
    kind, value = rules.end_kind, rules.end_value
    if kind == "target":
        return f"first to {table.score(value)} points"
    if kind == "hands":
        return f"{value} hands, most points wins"
    if kind == "stones":
        return f"stones: {int(state.pool[0])} of {value} left in the pool"
    if kind == "one_hand":
        return "one hand decides"
    return "an open session: q leaves"


def session_result(table: HumanTable) -> str:
    """``session over: you win the session``, or a tie (for a session that is over)."""
    champion = int(table.state.session_winner[0])
    if champion < 0:
        return "session over: nobody wins (a tie for most points)"
    return f"session over: {table.name(champion)} win{'s' * (champion != table.seat)} the session"


def scores_line(table: HumanTable) -> str:
    """``you 3 · seat 1 5 · ...``: every seat's score (and stones, in a stones session)."""
    state, rules = table.state, table.rules
    items = []
    for seat in range(rules.players):
        text = f"{table.name(seat)} {table.score(state.scores[0, seat])}"
        if rules.end_kind == "stones":
            stones = int(state.stones[0, seat])
            text += f" ({stones} stone{'s' * (stones != 1)})"
        items.append(text)
    return " · ".join(items)
