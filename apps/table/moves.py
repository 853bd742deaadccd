"""What a person types, read as a move: a card (``6h``, ``10S``, ``ts``, ``6♥``), its number, keep or exchange.

:func:`read_move` turns one line into an action id, or raises
:class:`MoveError` with a message that says what was wrong and what to type
instead: an empty line, gibberish, a card not in the deck, a card the person
does not hold, a number out of range; a card or an exchange the rules close
gets the rule's own reason (:func:`spar_env.explain.move_reasons`).
:data:`QUIT_WORDS` leave the table. A number chooses among the legal actions
as :func:`numbered` orders them, from 1.
"""

from __future__ import annotations

from collections.abc import Sequence

from spar_env.explain import MoveReason, high_ranks
from spar_env.rules import Ruleset

QUIT_WORDS = frozenset({"q", "quit", "exit"})
RULES_WORDS = frozenset({"r", "rules", "?"})  # the table shows the variant's rules
KEEP_WORDS = frozenset({"k", "keep"})
EXCHANGE_WORDS = frozenset({"e", "x", "exchange"})
_SUIT_SYMBOLS = str.maketrans({"♣": "C", "♧": "C", "♦": "D", "♢": "D", "♥": "H", "♡": "H", "♠": "S", "♤": "S"})  # fmt: skip


class MoveError(ValueError):
    """A line that is not a move the person may make now; the message says why."""


class Quit(Exception):
    """The person asked to leave the table."""


def exchange_words(rules: Ruleset) -> dict[int, str]:
    """The words for the two actions of the exchange, by action id: ``keep``, ``exchange``."""
    return {rules.keep_action: "keep", rules.exchange_action: "exchange"}


def numbered(legal: list[int]) -> list[int]:
    """The actions a number chooses, in the order shown: by id (cards by suit, then rank)."""
    return sorted(legal)


def read_move(text: str, rules: Ruleset, reasons: Sequence[MoveReason]) -> int:
    """The action a line asks for.

    Args:
        text: the line typed.
        rules: the ruleset.
        reasons: the seat's actions with the rule that opens or closes each
            (:func:`spar_env.explain.move_reasons`): its cards, and keep and
            exchange during the exchange.

    Raises:
        Quit: for ``q``, ``quit`` or ``exit``.
        MoveError: for anything that is not a legal move (the message says why).
    """
    word = text.strip()
    legal = [r.action for r in reasons if r.legal]
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
    why = {r.action: r for r in reasons}
    if exchanging:
        return _exchange_choice(word, rules, why, choices)
    try:
        card = rules.card_id(word.translate(_SUIT_SYMBOLS))
    except ValueError as e:
        raise MoveError(f"{e}; {_what_to_type(rules, choices, exchanging)}") from None
    if card not in why:
        name = rules.card_name(card, unicode=True)
        raise MoveError(f"you do not hold {name}; {_what_to_type(rules, choices, exchanging)}")
    if not why[card].legal:
        raise MoveError(why[card].reason)
    return card


def _exchange_choice(
    word: str, rules: Ruleset, why: dict[int, MoveReason], choices: list[int]
) -> int:
    lower = word.lower()
    if lower in KEEP_WORDS:
        return rules.keep_action
    if lower in EXCHANGE_WORDS:
        exchange = why.get(rules.exchange_action)
        if exchange is None or not exchange.legal:
            raise MoveError(
                (exchange.reason if exchange else "you may not exchange now") + ": type k"
            )
        return rules.exchange_action
    raise MoveError(f"{word!r} is neither keep nor exchange; {_what_to_type(rules, choices, True)}")


def _what_to_type(rules: Ruleset, choices: list[int], exchanging: bool) -> str:
    if exchanging:
        if rules.exchange_action in choices:
            return "type k to keep your hand or e to exchange it (or 1 or 2); r rules; q leaves"
        return f"type k to keep your hand (it holds a {high_ranks(rules)}); r rules; q leaves"
    example = (rules.card_name(choices[0]) if choices else rules.example_card()).lower()
    numbers = "1" if len(choices) == 1 else f"1-{len(choices)}"
    return f"type a card such as {example}, or its number ({numbers}); r rules; q leaves"
