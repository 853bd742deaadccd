"""A :class:`~spar_apps.table.review.HandReview` in words and numbers, in one language: what the
terminal draws, the web page shows and ``spar review --json`` prints, from one function (strict
JSON: a figure that does not exist, such as the spread of a single draw, is ``null``).

:func:`review_texts` gives plain JSON: the hand trick by trick, every play (another seat's
face-down card as ``null``, as the table showed it), and at each of the seat's decisions
every legal card with its numbers (``prob``, ``value``, ``stderr``, ``chance``) and their
texts, the verdict, the cost of a mistake, the reasons (or, for a mistake no reason
explains, a line that says so) and, where the bot's first choice is not the search's best, a
line that says so. At a table of friends the seats' people are named as the record names
them (``seat 2`` for a bot's seat), and a move the bot made for a person away is shown as a
stand-in move (``stood_in``), never judged. The numbers are named as the table names them: payoffs (what the hand pays
each seat) in a ruleset whose payoff is ``stakes``, points where it is ``points``. Every
sentence comes from the message table (:mod:`spar_apps.table.messages`, keys ``review.*``); numbers are written as the
language writes them (``+2.00`` in English, ``+2,00`` in French; ``62%``, ``62 %``).
"""

from __future__ import annotations

import math
from typing import Any

from spar_apps.table.messages import Language, say
from spar_apps.table.review import (
    MISTAKE_MARGIN,
    MISTAKE_Z,
    DecisionReview,
    HandReview,
    TrickReview,
)
from spar_apps.table.review_reasons import Reason
from spar_apps.table.texts import BACK
from spar_apps.table.voice import Voice, percent
from spar_env.rules import Ruleset
from spar_env.rules.cards import SUIT_SYMBOLS
from spar_env.strict_json import finite

LABELS = ("col_card", "col_bot", "col_chance", "mark_played", "mark_best", "prev", "next",
          "close")  # fmt: skip


def card_text(rules: Ruleset, card: int, language: Language) -> str:
    """A card as the language writes it: ``K♠`` in English, ``R♠`` in French (the tables'
    :class:`~spar_apps.table.voice.Voice`)."""
    return Voice(rules, language).card(card)


def number(value: float, language: Language, sign: bool = False) -> str:
    """``value`` with two decimals (and its sign), in the language's way."""
    text = f"{value:+.2f}" if sign else f"{value:.2f}"
    return text.replace(".", ",") if language == "fr" else text


def whole(value: int, language: Language) -> str:
    """A whole number with its thousands apart: ``1,024``, ``1\u202f024`` (a narrow space)."""
    return f"{value:,}".replace(",", "\u202f") if language == "fr" else f"{value:,}"


def amount(rules: Ruleset, value: float, language: Language) -> str:
    """A value or a cost in the table's unit: ``1.36 of payoff``, or ``1.36 points`` where the
    ruleset's payoff is its points."""
    return say(f"review.amount.{rules.payoff}", language, amount=number(value, language))


def seat_name(review: HandReview, seat: int, language: Language) -> str:
    """``you`` for the reviewed seat; another seat by its person's name in the record, else
    ``seat 2``."""
    if seat == review.seat:
        return say("review.you", language)
    if seat in review.names:
        return review.names[seat]
    return say("review.seat", language, seat=seat)


def review_texts(review: HandReview, language: Language, bot: str) -> dict[str, Any]:
    """The whole review as plain JSON, its texts in ``language`` (``bot``: the policy's name)."""
    rules = review.rules
    decisions = review.decisions
    mistakes = review.mistakes
    if not mistakes:
        summary = say("review.summary.none", language, decisions=len(decisions))
    else:
        key = "review.summary.one" if len(mistakes) == 1 else "review.summary.many"
        summary = say(key, language, mistakes=len(mistakes), decisions=len(decisions),
                      cost=amount(rules, review.cost, language))  # fmt: skip
    notes = [
        say(f"review.note.{rules.payoff}", language, players=rules.players,
            total=rules.players - 1, bot=bot),
        say("review.note.worlds", language, worlds=review.worlds,
            most=whole(review.max_worlds, language),
            margin=amount(rules, MISTAKE_MARGIN, language), z=f"{MISTAKE_Z:g}"),
    ]  # fmt: skip
    if review.chance_before is not None:
        before = percent(review.chance_before, language)
        notes.append(say("review.note.match", language, before=before))
    if review.stood_in:
        notes.append(say("review.note.stood_in", language, n=len(review.stood_in)))
    return finite(
        {
            "variant": rules.variant,
            "players": rules.players,
            "seat": review.seat,
            "names": {str(seat): name for seat, name in sorted(review.names.items())},
            "stood_in": len(review.stood_in),
            "language": language,
            "title": say("review.title", language),
            "summary": summary,
            "notes": notes,
            "mistakes": len(mistakes),
            "cost": review.cost,
            "match": review.chance_before is not None,
            "labels": {
                **{name: say(f"review.{name.replace('_', '.')}", language) for name in LABELS},
                "col_value": say(f"review.col.value.{rules.payoff}", language),
            },
            "result": review.result,
            "tricks": [_trick(review, trick, language) for trick in review.tricks],
        }
    )  # strict JSON: a figure the search has not (the spread of one draw) is null


def _trick(review: HandReview, trick: TrickReview, language: Language) -> dict[str, Any]:
    rules = review.rules
    n = rules.players
    plays = [
        {
            "seat": seat,
            "name": seat_name(review, seat, language),
            "stood_in": trick.number * n + k in review.stand_ins,
            # another seat's face-down card stays a back, as the table showed it
            "card": None if down and seat != review.seat else card_text(rules, card, language),
            "code": None if down and seat != review.seat else rules.card_name(card),
            "down": down,
        }
        for k, (seat, card, down) in enumerate(trick.plays)
    ]
    winning = card_text(rules, trick.winning_card, language)
    if trick.winner == review.seat:
        won = say("review.won.you", language, card=winning)
    elif trick.winner in review.names:
        won = say("review.won.name", language, name=review.names[trick.winner], card=winning)
    else:
        won = say("review.won.seat", language, seat=trick.winner, card=winning)
    title = say("review.trick", language, trick=trick.number + 1, tricks=rules.hand_size)
    shown = ", ".join(
        say("review.by_stand_in", language, name=p["name"]) + f" {p['card'] or BACK}"
        if p["stood_in"]
        else f"{p['name']} {p['card'] or BACK}"
        for p in plays
    )
    return {
        "number": trick.number + 1,
        "title": title,
        "line": say("review.trick_line", language, trick=title, plays=shown, won=won),
        "plays": plays,
        "winner": trick.winner,
        "won": won,
        "decision": None if trick.decision is None else _decision(review, trick.decision, language),
    }


def _decision(review: HandReview, d: DecisionReview, language: Language) -> dict[str, Any]:
    rules = review.rules

    def name(card: int) -> str:
        return card_text(rules, card, language)

    cards = []
    for c in d.cards:
        searched = not math.isnan(c.value)
        cards.append({
            "card": name(c.card),
            "code": rules.card_name(c.card),
            "prob": c.prob,
            "value": c.value if searched else None,
            "stderr": c.stderr if searched else None,
            "chance": c.chance,
            "bot": percent(c.prob, language),
            "value_text": (f"{number(c.value, language, sign=True)} ± {number(c.stderr, language)}"
                           if searched else ""),
            "chance_text": "" if c.chance is None else percent(c.chance, language),
            "played": c.card == d.played,
            "best": c.card == d.best and not d.forced and not d.stood_in,
        })  # fmt: skip
    return {
        "played": name(d.played),
        "played_text": say(_played_key(d), language, card=name(d.played)),
        "best": name(d.best),
        "forced": d.forced,
        "stood_in": d.stood_in,
        "mistake": d.mistake,
        "cost": {"points": d.gap, "stderr": d.gap_stderr, "chance": d.chance_gap}
        if d.mistake
        else None,
        "verdict": _verdict(rules, d, name, language),
        "cards": cards,
        "worlds": d.worlds,
        "reasons": [_reason(rules, r, language) for r in d.reasons],
        "kinds": [r.category(d.best) for r in d.reasons],
        "unexplained": say("review.reason.none", language, best=name(d.best), card=name(d.played))
        if d.mistake and not d.reasons
        else None,
        "disagree": _disagree(rules, d, name, language),
    }


def _played_key(d: DecisionReview) -> str:
    return "review.played_for_you" if d.stood_in else "review.played"


def _disagree(rules: Ruleset, d: DecisionReview, name, language: Language) -> str | None:
    """Where the bot's first choice is not the search's best, by more than the margin."""
    if d.forced or d.bot_first == d.best:
        return None
    first = d.value(d.bot_first)
    gap = d.value(d.best).value - first.value
    if not gap > MISTAKE_MARGIN:
        return None
    return say("review.disagree", language, first=name(d.bot_first),
               prob=percent(first.prob, language), best=name(d.best),
               gap=amount(rules, gap, language))  # fmt: skip


def _verdict(rules: Ruleset, d: DecisionReview, name, language: Language) -> str:
    if d.stood_in:
        return say("review.verdict.stood_in", language, card=name(d.played))
    if d.forced:
        return say("review.verdict.forced", language, card=name(d.played))
    if d.best == d.played:
        return say("review.verdict.best", language, card=name(d.played))
    fields = {
        "card": name(d.played),
        "best": name(d.best),
        "stderr": number(d.gap_stderr, language),
    }
    if d.undecided:
        return say("review.verdict.undecided", language, gap=amount(rules, d.gap, language),
                   worlds=d.worlds, **fields)  # fmt: skip
    if not d.mistake:
        return say("review.verdict.close", language, gap=amount(rules, d.gap, language),
                   margin=amount(rules, MISTAKE_MARGIN, language), **fields)  # fmt: skip
    cost = amount(rules, d.gap, language)
    if d.chance_gap is None:
        return say("review.verdict.mistake", language, cost=cost, **fields)
    chance = percent(d.chance_gap, language)
    return say("review.verdict.mistake_match", language, cost=cost, chance=chance, **fields)


def _reason(rules: Ruleset, reason: Reason, language: Language) -> str:
    mine, theirs = reason.counts or (0, 0)
    return say(
        reason.key,
        language,
        card=card_text(rules, reason.card, language),
        other="" if reason.other < 0 else card_text(rules, reason.other, language),
        suit="" if reason.suit < 0 else SUIT_SYMBOLS[rules.suits[reason.suit]],
        trick=reason.trick,
        points=reason.points,
        mine=mine,
        theirs=theirs,
        of=reason.out_of,
        scorers=scorers(rules, language),
    )


def scorers(rules: Ruleset, language: Language) -> str:
    """The scoring ranks, the best scorer first, as the language says them: ``a 6 or a 7``."""
    ranks = sorted(rules.rank_points, key=lambda rank: -rules.rank_points[rank])
    said = [say("review.a_rank", language, rank=rank) for rank in ranks]
    if not said:
        return ""
    out = said[-1]
    for one in reversed(said[:-1]):
        out = say("review.or", language, one=one, other=out)
    return out
