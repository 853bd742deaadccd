"""What a person types, read as a move: a card (``6h``, ``10S``, ``ts``, ``6♥``; in French
``rc``, ``dk``, ``vp``, ``10c`` with the French letters, see :mod:`spar_apps.table.card_entry`),
its number, keep or exchange.

:func:`read_move` turns one line into an action id, or raises
:class:`MoveError` with a message that says what was wrong and what to type
instead: an empty line, gibberish, a word that could be more than one card, a card not in the deck, a card the person
does not hold, a number out of range; a card or an exchange the rules close
gets the rule's own reason (:func:`spar_env.explain.move_reasons`). The message is
in the person's language; the terminal's keys (``r`` rules, ``q`` leaves) are named only
where there are such keys.
:data:`QUIT_WORDS` leave the table. A number chooses among the legal actions
as :func:`numbered` orders them, from 1.
"""

from __future__ import annotations

from collections.abc import Sequence

from spar_apps.table.card_entry import NotACard, code, read_card, suit_letters
from spar_apps.table.messages import DEFAULT_LANGUAGE, Language, say
from spar_apps.table.rules_text import variant_name
from spar_apps.table.voice import Voice
from spar_env.explain import MoveReason, high_ranks
from spar_env.rules import Ruleset
from spar_env.rules.cards import SUIT_SYMBOLS

QUIT_WORDS = frozenset({"q", "quit", "exit", "quitter"})
RULES_WORDS = frozenset({"r", "rules", "?", "règles", "regles"})  # the variant's rules
KEEP_WORDS = frozenset({"k", "keep", "g", "garder"})
EXCHANGE_WORDS = frozenset({"e", "x", "exchange", "échanger", "echanger"})


class MoveError(ValueError):
    """A line that is not a move the person may make now; the message says why."""


class Quit(Exception):
    """The person asked to leave the table."""


def exchange_words(rules: Ruleset) -> dict[int, str]:
    """The names of the two actions of the exchange, by action id: ``keep``, ``exchange`` (what
    the web page sends; :func:`exchange_labels` are the words shown)."""
    return {rules.keep_action: "keep", rules.exchange_action: "exchange"}


def exchange_labels(rules: Ruleset, language: Language) -> dict[int, str]:
    """The words shown for keep and exchange in ``language``, by action id."""
    return {a: say(f"move.{word}", language) for a, word in exchange_words(rules).items()}


def numbered(legal: list[int]) -> list[int]:
    """The actions a number chooses, in the order shown: by id (cards by suit, then rank)."""
    return sorted(legal)


def read_move(
    text: str,
    rules: Ruleset,
    reasons: Sequence[MoveReason],
    language: Language = DEFAULT_LANGUAGE,
    keys: bool = True,
) -> int:
    """The action a line asks for.

    Args:
        text: the line typed.
        rules: the ruleset.
        reasons: the seat's actions with the rule that opens or closes each
            (:func:`spar_env.explain.move_reasons`): its cards, and keep and
            exchange during the exchange.
        language: the language of the messages (and of the card names it reads besides
            the rules' own: R, D, V in French).
        keys: the messages name the terminal's keys (``r`` rules, ``q`` leaves).

    Raises:
        Quit: for ``q``, ``quit`` or ``exit``.
        MoveError: for anything that is not a legal move (the message says why).
    """
    word = text.strip()
    voice = Voice(rules, language)
    legal = [r.action for r in reasons if r.legal]
    choices = numbered(legal)
    exchanging = rules.weak_hand_exchange and rules.keep_action in legal

    def what(error: str | None = None) -> str:
        text = _what_to_type(voice, choices, exchanging)
        text = voice.say("typed.keys", what=text) if keys else text
        return text if error is None else voice.say("typed.then", error=error, what=text)

    if word.lower() in QUIT_WORDS:
        raise Quit
    if not word:
        raise MoveError(what())
    if word.isdecimal():  # not isdigit: "²" is a digit that int() refuses
        index = int(word)
        if not 1 <= index <= len(choices):
            raise MoveError(voice.say("typed.no_choice", index=index, n=len(choices)))
        return choices[index - 1]
    why = {r.action: r for r in reasons}
    if exchanging:
        lower = word.lower()
        if lower in KEEP_WORDS:
            return rules.keep_action
        if lower in EXCHANGE_WORDS:
            exchange = why.get(rules.exchange_action)
            if exchange is None or not exchange.legal:
                reason = voice.text(exchange.reason) if exchange else voice.say("typed.no_exchange")
                raise MoveError(voice.say("typed.keep_only", reason=reason))
            return rules.exchange_action
        raise MoveError(what(voice.say("typed.neither", word=word)))
    card = _card(word, voice)
    if isinstance(card, str):
        raise MoveError(what(card))
    if card not in why:
        raise MoveError(what(voice.say("typed.not_held", card=voice.card(card))))
    if not why[card].legal:
        raise MoveError(voice.text(why[card].reason))
    return card


def _card(word: str, voice: Voice) -> int | str:
    """The card id a word names (the suit as a letter of the person's language or a symbol,
    the rank as the language writes it), or why the word is no card, or could be several."""
    rules, language = voice.rules, voice.language
    ranks = ", ".join(voice.rank(r) for r in rules.ranks)
    suits = ", ".join(f"{letter} {SUIT_SYMBOLS[suit]}" for letter, suit in suit_letters(rules, language))  # fmt: skip
    try:
        rank, suit = read_card(word, language)
    except NotACard as e:
        if len(e.cards) < 2:
            return voice.say("typed.not_a_card", text=word, ranks=ranks, suits=suits)
        shown = [voice.rank(c[:-1]) + SUIT_SYMBOLS[c[-1]] for c in e.cards]
        typed = [code(c, language) for c in e.cards]
        return voice.say("typed.ambiguous", text=word, cards=_or(voice, shown), codes=_or(voice, typed))  # fmt: skip
    try:
        return rules.card_id(rank + suit)
    except ValueError:
        variant = variant_name(rules, voice.language)
        return voice.say("typed.not_in_deck", text=word, variant=variant, ranks=ranks, suits=suits)


def _or(voice: Voice, items: list[str]) -> str:
    """``a, b or c`` in the voice's language."""
    return voice.say("list.or", head=", ".join(items[:-1]), last=items[-1])


def _what_to_type(voice: Voice, choices: list[int], exchanging: bool) -> str:
    rules = voice.rules
    if exchanging:
        if rules.exchange_action in choices:
            return voice.say("typed.exchange_both")
        return voice.say("typed.exchange_keep", ranks=high_ranks(rules))
    card = choices[0] if choices else rules.card_id(rules.example_card())
    numbers = "1" if len(choices) == 1 else f"1-{len(choices)}"
    return voice.say("typed.card", example=voice.code(card), numbers=numbers)
