"""Text rendering of one game of a batch: the table as one seat (or a spectator) sees it.

Suits are Unicode (``6♥``). A card the viewer may not see is drawn as a
card back ``🂠``: the other seats' hands (their sizes are public), and cards
played face down by other seats. The viewer's own face-down cards are shown
in brackets (``[9♥]``). ``view=None`` is a spectator at the table, who sees
only what every seat sees. Scores are written in c-notation where the ruleset
asks for it (``essilfy``).
"""

from __future__ import annotations

import numpy as np

from spar_env.core import EXCHANGE, State
from spar_env.core.tables import nth_after, seats_in
from spar_env.rules import c_notation

BACK = "🂠"


def _cards(state: State, bits: int) -> list[str]:
    rules = state.tables.rules
    return [rules.card_name(c, unicode=True) for c in range(rules.num_card_ids) if bits >> c & 1]


def _score(state: State, points: int) -> str:
    return c_notation(points) if state.tables.rules.c_notation else str(points)


def _play_order(state: State, game: int, first: int) -> list[int]:
    """Seats dealt into the hand, in order of play from ``first``."""
    active = state.active[game : game + 1]
    count = int(seats_in(active)[0])
    seat = np.array([first])
    return [first] + [int(nth_after(state.tables, active, seat, k)[0]) for k in range(count - 1)]


def _seat_line(state: State, game: int, seat: int, view: int | None) -> str:
    rules = state.tables.rules
    hand = int(state.hands[game, seat])
    if view == seat:
        held = " ".join(_cards(state, hand)) or "-"
        down = " ".join(f"[{c}]" for c in _cards(state, int(state.played_down[game, seat])))
    else:
        held = " ".join([BACK] * hand.bit_count()) or "-"
        down = " ".join([BACK] * int(state.down_count[game, seat]))
    played = " ".join(
        x for x in (" ".join(_cards(state, int(state.played_up[game, seat]))), down) if x
    )
    won = int((state.trick_winner[game] == seat).sum())
    marks = ("▶" if state.current_player[game] == seat else " ") + (
        "D" if state.dealer[game] == seat else " "
    )
    who = f"seat {seat}" + (" (you)" if view == seat else "")
    extra = []
    if rules.end_kind == "stones":
        extra.append(f"stones {int(state.stones[game, seat])}")
    if rules.weak_hand_exchange and state.exchanged[game, seat]:
        extra.append("exchanged")
    if not (int(state.active[game]) >> seat & 1):
        extra.append("sits out")
    tail = ("  " + ", ".join(extra)) if extra else ""
    return (
        f"{marks} {who:<12} hand: {held:<22} played: {played or '-':<24} "
        f"tricks {won}  score {_score(state, int(state.scores[game, seat]))}{tail}"
    )


def _trick_line(state: State, game: int, view: int | None) -> str:
    rules = state.tables.rules
    leader = int(state.leader[game])
    cards = state.trick_cards[game]
    down = state.trick_down[game]
    shown = []
    for seat in _play_order(state, game, leader):
        card = int(cards[seat])
        if card < 0:
            continue
        name = rules.card_name(card, unicode=True)
        if down[seat]:
            name = f"[{name}]" if view == seat else BACK
        shown.append(f"seat {seat} {name}")
    led = int(state.led_suit[game])
    suit = rules.card_name(led * rules.num_ranks, unicode=True)[-1] if led >= 0 else "-"
    played = ", ".join(shown) if shown else "nothing yet"
    return f"trick {int(state.trick[game]) + 1}: seat {leader} leads, suit led {suit}; {played}"


def render_table(state: State, game: int = 0, view: int | None = None) -> str:
    """The table of game ``game`` as seat ``view`` sees it (``None``: a spectator)."""
    rules = state.tables.rules
    n, h = rules.players, rules.hand_size
    if view is not None and not 0 <= view < n:
        raise ValueError(f"view must be a seat 0..{n - 1} or None; got {view!r}")
    over = bool(state.terminated[game])
    progress = "hand over" if over else f"trick {int(state.trick[game]) + 1} of {h}"
    lines = [
        f"{rules.variant}, {n} players, hand {int(state.hands_played[game]) + (0 if over else 1)} "
        f"of the session, {progress}; play goes {rules.direction}"
    ]
    lines += [_seat_line(state, game, seat, view) for seat in range(n)]
    if not over and state.phase[game] == EXCHANGE:
        # Every seat is asked, so this line tells nobody whose hand is weak.
        lines.append(
            f"exchange: seat {int(state.current_player[game])} to keep its hand or, "
            "if it holds no 10 or better, exchange it"
        )
    elif not over:
        lines.append(_trick_line(state, game, view))
    if state.revealed[game] >= 0:
        lines.append(
            f"stock: bottom card {rules.card_name(int(state.revealed[game]), True)} turned up"
        )
    if over:
        winner, points = int(state.winner[game]), int(state.points[game])
        card = rules.card_name(int(state.trick_card[game, h - 1]), unicode=True)
        lines.append(
            f"seat {winner} won the last trick with {card} and scores {_score(state, points)}"
        )
        if state.session_over[game]:
            champion = int(state.session_winner[game])
            lines.append("session over: " + (f"seat {champion} wins" if champion >= 0 else "a tie"))
    return "\n".join(lines)
