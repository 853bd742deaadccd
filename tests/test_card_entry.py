"""A typed card is read in the person's language, and never guessed: in French the suit
letters are P pique, C cœur, K carreau, T trèfle (``10c`` is 10 de cœur); every word of a
rank and a suit letter is checked against what it could mean with the French letters, the
English ones, or a mix; a word that could be two cards is refused."""

from __future__ import annotations

import itertools
import string

import pytest

from spar_apps.table.card_entry import ALPHABETS, NotACard, card_code, read_card
from spar_apps.table.voice import Voice
from spar_env.rules import PRESETS, make_rules
from spar_env.rules.cards import RANKS, SUIT_SYMBOLS

FRENCH = {
    "ranks": {"R": "K", "D": "Q", "V": "J"},
    "suits": {"P": "S", "C": "H", "K": "D", "T": "C"},
}
ENGLISH = {"ranks": {"K": "K", "Q": "Q", "J": "J", "T": "10"}, "suits": {c: c for c in "SHDC"}}
SHARED = {r: r for r in RANKS if r not in "KQJ"}  # digits and A, the same in both
RANK_WORDS = sorted(set(SHARED) | set(FRENCH["ranks"]) | set(ENGLISH["ranks"]) | {"1", "11", "Z"})


def meanings(word: str, letters: list[dict]) -> set[str]:
    """The cards ``word`` names when each of its two parts may be read with any of ``letters``."""
    rank, suit = word[:-1], word[-1:]
    ranks = {SHARED[rank]} if rank in SHARED else {a["ranks"][rank] for a in letters if rank in a["ranks"]}  # fmt: skip
    suits = {a["suits"][suit] for a in letters if suit in a["suits"]}
    return {r + s for r, s in itertools.product(ranks, suits)}


def reading(word: str, language: str) -> str | tuple[str, ...]:
    try:
        return "".join(read_card(word, language))
    except NotACard as e:
        return e.cards


def test_no_letter_is_both_a_rank_and_a_suit_in_one_language() -> None:
    for language, letters in ALPHABETS.items():
        assert not set(letters.ranks) & set(letters.suits), language


def test_every_word_in_french_is_its_french_card_or_its_one_card_or_refused() -> None:
    for word in (r + s for r in RANK_WORDS for s in string.ascii_uppercase):
        french, mixed = meanings(word, [FRENCH]), meanings(word, [FRENCH, ENGLISH])
        got = reading(word, "fr")
        if word == "AS":  # "as" is the French word for an ace: any of the four
            assert got == ("AC", "AD", "AH", "AS")
        elif french:  # read with the French letters: that card, whatever English would say
            assert got == next(iter(french)), (word, got)
        elif len(mixed) == 1:
            assert got == next(iter(mixed)), (word, got)
        else:  # no card, or two: refused, with the cards it could be
            assert got == tuple(sorted(mixed)), (word, got)
        english = meanings(word, [ENGLISH])
        assert reading(word, "en") == (next(iter(english)) if english else ()), word


def test_10c_is_ten_of_hearts_in_french_and_qc_or_as_are_refused() -> None:
    assert reading("10c", "fr") == "10H" and reading("10c", "en") == "10C"
    assert reading("dc", "fr") == "QH" and reading("dt", "fr") == "QC"
    assert reading("qc", "fr") == ("QC", "QH")  # an English Q with the C of cœur or clubs
    assert reading("as", "fr") == ("AC", "AD", "AH", "AS")  # "as" is the French ace
    assert reading("as", "en") == "AS"


@pytest.mark.parametrize("variant", sorted(PRESETS))
def test_every_card_reads_back_from_its_code_and_its_symbol_in_both_languages(variant) -> None:
    rules = make_rules(variant)
    for card in rules.deck:
        name = rules.card_name(int(card))
        for language in ("en", "fr"):
            assert reading(card_code(rules, int(card), language), language) == name
            shown = Voice(rules, language).card(int(card))  # R♦ in French, K♦ in English
            assert reading(shown, language) == name
            assert reading(name[:-1] + SUIT_SYMBOLS[name[-1]], language) == name
