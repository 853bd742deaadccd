"""How a person writes a card in their language, and how a typed card is read.

A card is typed as its rank then its suit: ``10h``, ``qs``, ``6♥``. The suit symbols
(♠ ♥ ♦ ♣, and their white forms) are read in every language. The letters are the
language's own:

=========  =========================  ===========================================
language   ranks                      suits
=========  =========================  ===========================================
English    A K Q J 10 (or T) … 2      S spades, H hearts, D diamonds, C clubs
French     A R D V 10 … 2             P pique, C cœur, K carreau, T trèfle
=========  =========================  ===========================================

The French letters are the initials of the French names, with K for carreau (C is cœur)
and without T for ten (T is trèfle): in each language no letter is both a rank and a
suit. French also reads the English letters of the rules (K, Q, J; S, H, D, C), which the
records, the docs and ``spar replay`` print, as long as that cannot change the card: a word
read with the French letters is that card (``10c`` is 10 de cœur); a word that needs an
English letter is read only if every way of reading it gives one card. ``qc`` (Q of the
English queen, C of cœur or of clubs) and ``as`` (an ace, the French word) could each mean
more than one card, so they are refused with the cards they could be, never guessed.

:func:`read_card` gives the card, or :class:`NotACard` with why; :func:`card_code` writes a
card as it may be typed in a language (:func:`code` one in the rules' letters);
:func:`suit_letters` lists a language's suit letters.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from spar_apps.table.messages import Language
from spar_env.rules import Ruleset
from spar_env.rules.cards import RANKS

SYMBOLS = {"♣": "C", "♧": "C", "♦": "D", "♢": "D", "♥": "H", "♡": "H", "♠": "S", "♤": "S"}


@dataclass(frozen=True)
class Alphabet:
    """The letters a language writes cards with: typed letter -> the rules' letter (ranks
    that are digits, and A, are the same in every language and not listed)."""

    ranks: dict[str, str]
    suits: dict[str, str]
    rank_words: frozenset[str] = frozenset()  # a rank's name, typed alone: no suit, no card


ENGLISH = Alphabet(
    ranks={"K": "K", "Q": "Q", "J": "J", "T": "10"},
    suits={"S": "S", "H": "H", "D": "D", "C": "C"},
)
ALPHABETS: dict[str, Alphabet] = {
    "en": ENGLISH,
    "fr": Alphabet(
        ranks={"R": "K", "D": "Q", "V": "J"},
        suits={"P": "S", "C": "H", "K": "D", "T": "C"},
        rank_words=frozenset({"AS"}),  # "as" is the French ace, not A♠
    ),
}


class NotACard(ValueError):
    """A typed word that names no card, or more than one (:attr:`cards`, the ids it could be,
    in the deck or not: the rules' codes)."""

    def __init__(self, word: str, cards: tuple[str, ...] = ()) -> None:
        super().__init__(word)
        self.word = word
        self.cards = cards


def alphabet(language: Language) -> Alphabet:
    """The letters ``language`` writes cards with."""
    return ALPHABETS.get(language, ENGLISH)


def suit_letters(rules: Ruleset, language: Language) -> list[tuple[str, str]]:
    """``[("P", "S"), ("C", "H"), ...]``: each suit of ``rules`` as ``language`` types it,
    beside the rules' letter."""
    typed = {suit: letter for letter, suit in alphabet(language).suits.items()}
    return [(typed[suit], suit) for suit in rules.suits]


def rank_letter(rank: str, language: Language) -> str:
    """A rank as ``language`` writes it (``R`` for ``K`` in French)."""
    for letter, own in alphabet(language).ranks.items():
        if own == rank and letter != "T":
            return letter
    return rank


def card_code(rules: Ruleset, card: int, language: Language) -> str:
    """``dc``: a card of ``rules`` as it may be typed in ``language`` (lower case)."""
    return code(rules.card_rank(int(card)) + rules.card_suit(int(card)), language)


def code(card: str, language: Language) -> str:
    """``dc`` for ``QH`` in French: a card written in the rules' letters, as it may be typed
    in ``language`` (lower case)."""
    rank, suit = card[:-1], card[-1:]
    typed = {own: letter for letter, own in alphabet(language).suits.items()}
    return (rank_letter(rank, language) + typed[suit]).lower()


def read_card(word: str, language: Language) -> tuple[str, str]:
    """The ``(rank, suit)`` a typed word names, in the rules' letters.

    Raises:
        NotACard: for a word that names no card, or could name several (its ``cards``).
    """
    text = word.strip().upper()
    own = alphabet(language)
    if text in own.rank_words:
        rank = _ranks(text[:1], own)
        return _one(word, {(r, s) for r in rank for s in ENGLISH.suits.values()})
    rank_text, suit_text = text[:-1], text[-1:]
    found = {(r, s) for r in _ranks(rank_text, own) for s in _suits(suit_text, own)}
    if found or own is ENGLISH:
        return _one(word, found)
    both = (own, ENGLISH)
    ranks = set(itertools.chain.from_iterable(_ranks(rank_text, a) for a in both))
    suits = set(itertools.chain.from_iterable(_suits(suit_text, a) for a in both))
    return _one(word, set(itertools.product(ranks, suits)))


def _ranks(text: str, letters: Alphabet) -> set[str]:
    if text in letters.ranks:
        return {letters.ranks[text]}
    return {text} if text in RANKS and text not in ENGLISH.ranks else set()


def _suits(text: str, letters: Alphabet) -> set[str]:
    if text in SYMBOLS:
        return {SYMBOLS[text]}
    return {letters.suits[text]} if text in letters.suits else set()


def _one(word: str, cards: set[tuple[str, str]]) -> tuple[str, str]:
    if len(cards) == 1:
        return next(iter(cards))
    raise NotACard(word, tuple(rank + suit for rank, suit in sorted(cards)))
