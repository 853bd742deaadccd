"""A table's words in one language: cards, seats, scores and phrases, said for one reader.

:class:`Voice` is what a screen holds to write a sentence. It names a card as players of
its language write it (``K♦``; ``R♦`` in French: R, D, V for K, Q, J, the suits keep their
symbols) and as it may be typed (``kd``; ``rk`` in French, see
:mod:`spar_apps.table.card_entry`), a seat from the reader's seat (``you``, ``seat 2``), a score as the ruleset writes
scores, and says a :class:`~spar_env.explain.phrase.Phrase` of the engine's explanations,
or a message of :mod:`spar_apps.table.messages` with its fields named the same way.
"""

from __future__ import annotations

from collections.abc import Mapping

from spar_apps.table.card_entry import ALPHABETS, card_code, rank_letter
from spar_apps.table.messages import Language, say
from spar_env.explain.phrase import Card, Field, Listed, Phrase, Points, Rank, Seat, Suit
from spar_env.rules import Ruleset, c_notation
from spar_env.rules.cards import SUIT_SYMBOLS

# the ranks a language writes otherwise: {"fr": {"K": "R", "Q": "D", "J": "V"}}
RANK_WORDS = {
    language: {own: letter for letter, own in letters.ranks.items() if letter not in (own, "T")}
    for language, letters in ALPHABETS.items()
}


def percent(share: float, language: Language, sign: bool = False) -> str:
    """A share as a whole percentage in the language's style (``20%``; ``20 %`` in French,
    with a narrow no-break space): the one way the tables write a percentage (the web page
    fills the same ``number.percent``)."""
    return say(
        "number.percent", language, n=f"{100 * share:+.0f}" if sign else f"{100 * share:.0f}"
    )


def rank_name(rank: str, language: Language) -> str:
    """A rank as ``language`` writes it (``R`` for ``K`` in French)."""
    return rank_letter(rank, language)


class Named(str):
    """A name that a template may ask in another form: ``{who:a}`` is "au siège 2" in French,
    ``{ranks:none}`` "ni un 6 ni un 7" (a form the language does not have is the name itself)."""

    forms: dict[str, str]

    def __new__(cls, text: str, forms: dict[str, str] | None = None) -> Named:
        named = super().__new__(cls, text)
        named.forms = forms or {}
        return named

    def __format__(self, spec: str) -> str:
        return self.forms.get(spec, str(self))


SEAT_FORMS = ("le", "a", "de")  # the forms of a seat's name a template may ask for


def say_phrase(said: Phrase, language: Language) -> str:
    """A phrase whose fields are plain (numbers, text) in ``language``, with no table to name
    cards or seats (an opponent's label, an error)."""
    return say(said.key, language, **dict(said.fields))


class Voice:
    """Says a table's texts in ``language`` for the person in ``seat`` (``None``: a reader
    who sits nowhere, every seat named by its number).

    Args:
        rules: the ruleset (its cards and how it writes scores).
        language: the language spoken.
        seat: the reader's seat.
        names: the names people chose, by seat (at a table of friends).
    """

    def __init__(
        self,
        rules: Ruleset,
        language: Language,
        seat: int | None = None,
        names: Mapping[int, str] | None = None,
    ) -> None:
        self.rules = rules
        self.language = language
        self.seat = seat
        self.names = dict(names or {})

    def card(self, card: int) -> str:
        """``R♦``: a card as it is shown."""
        rules = self.rules
        return self.rank(rules.card_rank(int(card))) + SUIT_SYMBOLS[rules.card_suit(int(card))]

    def code(self, card: int) -> str:
        """``rk``: a card as it may be typed (R roi, K carreau in French)."""
        return card_code(self.rules, card, self.language)

    def rank(self, rank: str) -> str:
        return rank_name(rank, self.language)

    def name(self, seat: int) -> Named:
        """``you``, ``seat 2`` or the name a person chose (and their forms for templates, see
        :class:`Named`)."""
        if seat != self.seat and seat in self.names:
            name = self.names[seat]
            forms = {form: self.say(f"seat.named.{form}", name=name) for form in SEAT_FORMS}
            if self.language == "fr" and name[:1].lower() in "aeiouyhàâéèêîôû":
                forms["de"] = f"d’{name}"  # d’Ama, not de Ama
            return Named(name, forms)
        key, fields = ("seat.you", {}) if seat == self.seat else ("seat.other", {"seat": seat})
        forms = {form: self.say(f"{key}.{form}", **fields) for form in SEAT_FORMS}
        return Named(self.say(key, **fields), forms)

    def percent(self, share: float) -> str:
        """``20%``; ``20 %`` in French (:func:`percent`)."""
        return percent(share, self.language)

    def score(self, points: int) -> str:
        return c_notation(int(points)) if self.rules.c_notation else str(int(points))

    def suit(self, index: int) -> str:
        return self.say(f"suit.{self.rules.suits[index]}")

    def say(self, key: str, /, **fields: Field) -> str:
        """The message ``key`` with its fields said in this voice."""
        return say(key, self.language, **{k: self.text(v) for k, v in fields.items()})

    def text(self, field: Field) -> str:
        """A phrase, or any field of one, said in this voice."""
        if isinstance(field, Phrase):
            return self.say(field.key, **dict(field.fields))
        if isinstance(field, Card):
            return self.card(field.id)
        if isinstance(field, Seat):
            return self.name(field.seat)
        if isinstance(field, Suit):
            return self.suit(field.index)
        if isinstance(field, Rank):
            return self.rank(field.rank)
        if isinstance(field, Points):
            return self.score(field.points)
        if isinstance(field, Listed):
            items = [self.text(item) for item in field.items]
            if field.sep != "or" or not items:
                return field.sep.join(items)
            head, last = ", ".join(items[:-1]), items[-1]
            none = self.say("ranks.none", n=len(items), rank=last, head=head, last=last)
            either = self.say("list.or", head=head, last=last) if head else last
            return Named(either, {"none": none})
        return field if isinstance(field, str) else str(field)
