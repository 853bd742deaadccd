"""What a person types, read as a move: a card (``6h``, ``10S``, ``ts``, ``6♥``), its number, keep or exchange.

:func:`read_move` turns one line into an action id, or raises
:class:`MoveError` with a message that says what was wrong and what to type
instead: an empty line, gibberish, a card not in the deck, a card the person
does not hold, a card that does not follow suit, a number out of range, an
exchange of a strong hand. :data:`QUIT_WORDS` leave the table. A number
chooses among the legal actions as :func:`numbered` orders them, from 1.
"""

from __future__ import annotations

from spar_env.rules import Ruleset

QUIT_WORDS = frozenset({"q", "quit", "exit"})
KEEP_WORDS = frozenset({"k", "keep"})
EXCHANGE_WORDS = frozenset({"e", "x", "exchange"})
_SUIT_SYMBOLS = str.maketrans({"♣": "C", "♧": "C", "♦": "D", "♢": "D", "♥": "H", "♡": "H", "♠": "S", "♤": "S"})  # fmt: skip
_SUIT_NAMES = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}


class MoveError(ValueError):
    """A line that is not a move the person may make now; the message says why."""


class Quit(Exception):
    """The person asked to leave the table."""


def numbered(legal: list[int]) -> list[int]:
    """The actions a number chooses, in the order shown: by id (cards by suit, then rank)."""
    return sorted(legal)


def read_move(text: str, rules: Ruleset, legal: list[int], hand: list[int], led: int) -> int:
    """The action a line asks for.

    Args:
        text: the line typed.
        rules: the ruleset.
        legal: the legal actions now (cards, or KEEP/EXCHANGE in the exchange).
        hand: the cards the person holds.
        led: the suit index led to this trick, -1 before the lead.

    Raises:
        Quit: for ``q``, ``quit`` or ``exit``.
        MoveError: for anything that is not a legal move (the message says why).
    """
    word = text.strip()
    choices = numbered(legal)
    exchanging = rules.weak_hand_exchange and rules.keep_action in legal
    if word.lower() in QUIT_WORDS:
        raise Quit
    if not word:
        raise MoveError(_what_to_type(rules, choices, exchanging))
    if word.isdecimal():  # not isdigit: "²" is a digit that int() refuses
        index = int(word)
        if not 1 <= index <= len(choices):
            raise MoveError(f"there is no choice {index}: type a number from 1 to {len(choices)}")
        return choices[index - 1]
    if exchanging:
        return _exchange_choice(word, rules, legal, choices)
    try:
        card = rules.card_id(word.translate(_SUIT_SYMBOLS))
    except ValueError as e:
        raise MoveError(f"{e}; {_what_to_type(rules, choices, exchanging)}") from None
    name = rules.card_name(card, unicode=True)
    if card not in hand:
        raise MoveError(f"you do not hold {name}; {_what_to_type(rules, choices, exchanging)}")
    if card not in legal:
        follow = ", ".join(rules.card_name(c, unicode=True) for c in choices)
        suit = _SUIT_NAMES[rules.suits[led]] if led >= 0 else "the suit led"
        raise MoveError(f"you must follow suit: {suit} were led and you hold {follow}")
    return card


def _exchange_choice(word: str, rules: Ruleset, legal: list[int], choices: list[int]) -> int:
    lower = word.lower()
    if lower in KEEP_WORDS:
        return rules.keep_action
    if lower in EXCHANGE_WORDS:
        if rules.exchange_action not in legal:
            raise MoveError("your hand holds a 10 or better, so it may only keep: type k")
        return rules.exchange_action
    raise MoveError(f"{word!r} is neither keep nor exchange; {_what_to_type(rules, choices, True)}")


def _what_to_type(rules: Ruleset, choices: list[int], exchanging: bool) -> str:
    if exchanging:
        if rules.exchange_action in choices:
            return "type k to keep your hand or e to exchange it (or 1 or 2); q leaves"
        return "type k to keep your hand (your hand holds a 10 or better); q leaves"
    example = rules.card_name(choices[0]).lower() if choices else "6h"
    numbers = "1" if len(choices) == 1 else f"1-{len(choices)}"
    return f"type a card such as {example}, or its number ({numbers}); q leaves"
