"""What the page is sent: one seat's view of a :class:`~spar_apps.table.HumanTable`, as JSON.

:func:`table_view` is the only place the web table turns game state into a
message, and it reads only what the person's seat may know while the hand
runs: its own hand, every face-up play, its own face-down plays, the
stock's turned-up card, the public counts and the scores. Another seat's
face-down card is ``{"card": null, "down": true}`` (a back); the other
hands, the stock and a hand given up in the exchange are never read.
Once a hand is over, ``summary`` adds what the table shows everyone then:
the winner, the card, the points and why (``why_points``, ``why_payoffs``
by seat, ``session_line``), every hand as dealt (at a table of several people, another
seat's as the cards it played face up), and, while the
match goes on, each seat's chance to win it from there (``match_chances``,
null when the session is open or over).

Cards are codes (``"KD"``, ``"10H"``): the rank, then the suit letter. The
page draws them; every sentence is said here, in the view's ``language``
(:mod:`spar_apps.table.messages`): ``events`` are the table's own lines ("seat 2 wins
trick 3 with K♦"), written from the person's point of view, and ``texts`` holds the
headline, the trick's title and the other lines the page shows as they are.

======================  =====================================================
key                     meaning
======================  =====================================================
``game``, ``turn``      the game id, and the move counter a move must echo
``variant``             the game (and ``players``); ``seat`` is the person's, ``names`` by seat
``hand_number``         hands dealt so far in the session (this one included)
``trick``, ``tricks``   the trick in progress (from 1) and tricks in a hand
``phase``               ``exchange``, ``play`` or ``over``
``goal``                the session's end rule (``direction``: the direction of play)
``hand``                the person's cards: ``card``, ``legal``, ``number``, and on
                        the person's turn ``reason`` (why it may or may not be
                        played) and ``face_down`` (played now, it goes face down)
``choices``             in the exchange, on the person's turn: ``keep`` and
                        ``exchange``, each with ``legal``, ``number`` and ``reason``
``to_move``             the seat to act, -1 once the hand is over; ``my_turn``
``current``             the trick in progress (the last one once the hand is
                        over): ``leader``, ``plays``, ``winning``
``seats``               per seat: ``played`` (in order), ``tricks_won``,
                        ``score``, ``held`` (cards left), ``dealer``,
                        ``exchanged``, ``sits_out``
``revealed``            the stock's turned-up bottom card, or null
``events``              what happened since the person's last move
``summary``             null while the hand runs (see above)
``session_over``        the session has ended; ``session_result`` says how
``records``             finished hands whose records can be downloaded
``hint``                whether a bot's probabilities can be asked for
``review``              whether the hand just over can be reviewed (its review is
                        ``GET /api/games/{id}/review``: :mod:`spar_apps.table.review`)
``finished``            the last trick won this hand: ``trick`` (from 1),
                        ``plays``, ``winning``, and ``text`` who won it; or null
``texts``               the page's sentences: ``headline``, ``trick``,
                        ``happened`` and ``revealed``
``language``            the language of every text
``title``               the variant's texts from its ruleset: its name, what
                        decides a hand (``tagline``), its rules as
                        ``heading``/``text`` sections (``rules``); ``typing``:
                        three ways to type one of its cards, and ``typed``
                        the label that names them
======================  =====================================================
"""

from __future__ import annotations

import functools
from typing import Any

from spar_apps.table import HumanTable, exchange_labels, exchange_words, numbered
from spar_apps.table.messages import DEFAULT_LANGUAGE, Language
from spar_apps.table.texts import (
    chance_note,
    hand_head,
    happened,
    headline,
    session_goal,
    session_result,
)
from spar_apps.table.voice import Voice
from spar_apps.web.rules_view import rules_view
from spar_env.explain import MoveReason, high_ranks
from spar_env.rules import Ruleset


def table_view(
    table: HumanTable,
    *,
    game: str,
    turn: int,
    records: int,
    hint: bool,
    review: bool = False,
    language: Language = DEFAULT_LANGUAGE,
) -> dict[str, Any]:
    """The message for the person at ``table`` (see the module docstring)."""
    state, rules, voice = table.state, table.rules, table.voice(language)
    over = table.hand_over
    phase = "over" if over else "exchange" if table.exchanging else "play"
    reasons = {r.action: r for r in table.reasons()}
    legal = {a for a, r in reasons.items() if r.legal}
    number = {a: i for i, a in enumerate(numbered(sorted(legal)), 1)}
    current = _current(table) if phase == "play" else _last_trick(table) if over else None
    return {
        "game": game,
        "turn": turn,
        "language": language,
        "variant": rules.variant,
        "players": rules.players,
        "seat": table.seat,
        "names": [voice.name(s) for s in range(rules.players)],
        "hand_number": int(state.hands_played[0]) + (0 if over else 1),
        "trick": min(int(state.trick[0]) + 1, rules.hand_size),
        "tricks": rules.hand_size,
        "phase": phase,
        "goal": session_goal(table, language),
        "direction": rules.direction,
        "hand": [
            {
                "card": _code(table, c),
                "label": voice.card(c),
                "legal": c in legal and phase == "play",
                "number": number.get(c),
                "reason": voice.text(reasons[c].reason) if c in reasons else None,
                "face_down": bool(c in reasons and reasons[c].face_down),
            }
            for c in table.hand()
        ],
        "choices": _choices(table, voice, reasons, number) if phase == "exchange" else [],
        "to_move": table.to_move,
        "my_turn": table.my_turn,
        "current": current,
        "finished": _finished(table, voice) if phase == "play" else None,
        "seats": _seats(table, voice),
        "revealed": _code(table, state.revealed[0]) if int(state.revealed[0]) >= 0 else None,
        "events": [voice.text(e) for e in table.events],
        "summary": _summary(table, voice) if over else None,
        "session_over": table.session_over,
        "session_result": session_result(table, language) if table.session_over else None,
        "records": records,
        "hint": hint,
        "review": review and over,
        "texts": {
            "headline": headline(table, language),
            "trick": _trick_title(table, voice, phase, current),
            "happened": happened(table, language),
            "revealed": voice.say("stock.revealed", card=voice.card(state.revealed[0]))
            if int(state.revealed[0]) >= 0
            else "",
        },
        **rules_texts(rules, language),
    }


def _code(table: HumanTable, card: int) -> str:
    return _codes(table.rules)[int(card)]


@functools.cache
def _codes(rules: Ruleset) -> tuple[str, ...]:
    """Every card's code, by id (a view names dozens of cards)."""
    return tuple(rules.card_name(c) for c in range(rules.num_card_ids))


def _shown(table: HumanTable, seat: int, card: int, down: bool) -> dict[str, Any]:
    """A play as the person sees it: another seat's face-down card is a back (no card)."""
    return {"card": _code(table, card) if table.sees(seat, down) else None, "down": down}


def _choices(
    table: HumanTable, voice: Voice, reasons: dict[int, MoveReason], number: dict[int, int]
) -> list[dict[str, Any]]:
    """Keep and exchange, each open (with its number) or closed, and why."""
    labels = exchange_labels(table.rules, voice.language)
    return [
        {
            "action": word,
            "label": labels[action],
            "number": number.get(action),
            "legal": reasons[action].legal,
            "reason": voice.text(reasons[action].reason),
        }
        for action, word in exchange_words(table.rules).items()
        if action in reasons
    ]


@functools.cache
def rules_texts(rules: Ruleset, language: Language = DEFAULT_LANGUAGE) -> dict[str, Any]:
    """The variant's texts, written from its ruleset: the same for every view of a game."""
    return rules_view(rules, language)


def _current(table: HumanTable) -> dict[str, Any]:
    state = table.state
    leader = int(state.leader[0])
    plays = [
        {"seat": seat, **_shown(table, seat, card, down)}
        for seat, card, down in table.trick_plays()
    ]
    best = int(state.best_seat[0])
    winning = None if best < 0 else {"seat": best, "card": _code(table, state.best_card[0])}
    return {"leader": leader, "plays": plays, "winning": winning}


def _last_trick(table: HumanTable) -> dict[str, Any]:
    """The hand's last trick, once it is over (the core has cleared its trick by then)."""
    finished = table.finished_trick()
    assert finished is not None  # a hand over has had its tricks
    _, plays, winner, card = finished
    return {
        "leader": plays[0][0] if plays else -1,
        "plays": [{"seat": seat, **_shown(table, seat, c, down)} for seat, c, down in plays],
        "winning": {"seat": winner, "card": _code(table, card)},
    }


def _finished(table: HumanTable, voice: Voice) -> dict[str, Any] | None:
    """The last trick won this hand, while the next is played (the page shows it a moment)."""
    finished = table.finished_trick()
    if finished is None:
        return None
    trick, plays, winner, card = finished
    you = "you" if winner == table.seat else "other"
    return {
        "trick": trick,
        "plays": [{"seat": seat, **_shown(table, seat, c, down)} for seat, c, down in plays],
        "winning": {"seat": winner, "card": _code(table, card)},
        "text": voice.say(
            f"event.trick.{you}", who=voice.name(winner), trick=trick, card=voice.card(card)
        ),  # fmt: skip
    }


def _trick_title(
    table: HumanTable, voice: Voice, phase: str, current: dict[str, Any] | None
) -> str:
    """``trick 2, led by seat 1: your lead · seat 3 winning with K♦``."""
    if current is None:
        if phase == "exchange":
            return voice.say("exchange.explain", ranks=high_ranks(table.rules))
        return voice.say("trick.over")
    leader = voice.name(current["leader"])
    if phase == "over":
        title = voice.say("trick.last_led", who=leader)
    else:
        title = voice.say("trick.led", trick=int(table.state.trick[0]) + 1, who=leader)
    if not current["plays"] and table.my_turn:
        title = voice.say("list.colon", head=title, last=voice.say("trick.your_lead"))
    winning = current["winning"]
    if winning:
        seat = winning["seat"]
        you = "you" if seat == table.seat else "other"
        key = f"trick.won.{you}" if phase == "over" else f"trick.winning.{you}"
        card = voice.card(table.rules.card_id(winning["card"]))
        title += " · " + voice.say(key, who=voice.name(seat), card=card)
    return title


def _seats(table: HumanTable, voice: Voice) -> list[dict[str, Any]]:
    """Each seat's panel: its plays in order (one pass over the history), counts and flags."""
    state, rules = table.state, table.rules
    plays, won = table.plays_by_seat(), table.tricks_won()
    hands, scores = state.hands[0].tolist(), state.scores[0].tolist()
    dealer, active = int(state.dealer[0]), int(state.active[0])
    out = []
    for seat in range(rules.players):
        held = int(hands[seat]).bit_count()
        facts = voice.say(
            "seat.facts", tricks=voice.say("count.tricks_won", n=won[seat]),
            held=voice.say("count.cards", n=held),
        )  # fmt: skip
        out.append(
            {
                "seat": seat,
                "name": voice.name(seat),
                "played": [_shown(table, seat, card, down) for card, down in plays[seat]],
                "held": held,
                "facts": facts,
                "tricks_won": won[seat],
                "score": table.score(scores[seat]),
                "dealer": dealer == seat,
                "exchanged": bool(rules.weak_hand_exchange and state.exchanged[0, seat]),
                "sits_out": not active >> seat & 1,
            }
        )
    return out


def _hands_shown(table: HumanTable) -> list[list[str]]:
    """Every hand once the hand is over: as dealt, against bots; at a table of several people,
    another seat's is the cards it played face up, as a hand given up in the exchange and a
    card played face down stay its own (``docs/rules.md``: no one else ever sees them)."""
    rules = table.rules
    if len(table.people) == 1:
        return [[_code(table, c) for c in table.dealt(s)] for s in range(rules.players)]
    plays = table.plays_by_seat()
    return [
        [_code(table, c) for c in table.dealt(s)]
        if s == table.seat
        else [_code(table, c) for c, down in plays[s] if not down]
        for s in range(rules.players)
    ]


def _summary(table: HumanTable, voice: Voice) -> dict[str, Any]:
    """The end of a hand, as the terminal's summary shows it: the result and the hands dealt."""
    state, rules, language = table.state, table.rules, voice.language
    score = table.hand_score()
    chances = table.match_chances()
    return {
        "hand": int(state.hands_played[0]),
        "head": hand_head(table, language),
        "winner": int(state.winner[0]),
        "why_points": voice.text(score.why_points()),
        "why_payoffs": [voice.text(score.why_payoff(s)) for s in range(rules.players)],
        "session_line": voice.text(score.session),
        "card": _code(table, state.trick_card[0, rules.hand_size - 1]),
        "points": int(state.points[0]),
        "payoffs": [int(p) for p in table.payoffs],
        "dealt": _hands_shown(table),
        "exchanged": [
            bool(rules.weak_hand_exchange and state.exchanged[0, s]) for s in range(rules.players)
        ],
        "match_chances": chances,
        "chance_note": chance_note(chances, language) if chances else None,
    }
