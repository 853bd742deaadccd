"""A sentence as data: a message key and its fields, said later in the reader's language.

The explanations of :mod:`spar_env.explain` know which rule applies and what it names
(a card, a seat, a suit, a number); they do not know who reads them or in which language.
So they give a :class:`Phrase`: the key of a message of the tables' message table
(``spar_apps.table.messages``, one template per language) and its fields. A field is a
number, a plain string, another phrase, or one of the small types below, which the reader's
side names in its own language: a :class:`Card` (``K♦``, ``R♦`` in French), a :class:`Seat`
(``you`` or ``seat 2``), a :class:`Suit`, a :class:`Rank`, :class:`Points` (in c-notation
where the ruleset writes scores so), or a :class:`Listed` run of fields joined by a
separator or by the language's own "or".

Nothing here holds a word of any language: the engine's layer stays below the tables.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True)
class Card:
    """A card id of the ruleset, named in the reader's language."""

    id: int


@dataclass(frozen=True)
class Seat:
    """A seat, named from the reader's seat ("you", "seat 2")."""

    seat: int


@dataclass(frozen=True)
class Suit:
    """A suit, by its index in the ruleset's suits ("hearts")."""

    index: int


@dataclass(frozen=True)
class Rank:
    """A rank as the ruleset writes it (``K``), named in the reader's language (``R``)."""

    rank: str


@dataclass(frozen=True)
class Points:
    """A score, written as the ruleset writes scores (c-notation or plain)."""

    points: int


@dataclass(frozen=True)
class Listed:
    """Fields said one after another: joined by ``sep`` (``", "``, ``" + "``), or, with
    ``sep="or"``, by commas and the language's "or" before the last."""

    items: tuple[Field, ...]
    sep: Literal[", ", " + ", " ", "or"] = ", "


@dataclass(frozen=True)
class Phrase:
    """A message key and its fields (``fields`` as sorted ``(name, value)`` pairs, so that
    a phrase is hashable and two equal sentences are equal phrases)."""

    key: str
    fields: tuple[tuple[str, Field], ...] = ()

    def get(self, name: str) -> Field:
        return dict(self.fields)[name]


Field = int | str | Card | Seat | Suit | Rank | Points | Listed | Phrase


def phrase(key: str, /, **fields: Field) -> Phrase:
    """``phrase("hand.wins", who=Seat(2), card=Card(7))``."""
    return Phrase(key, tuple(sorted(fields.items())))


def cards(ids: list[int] | tuple[int, ...]) -> Listed:
    """Cards listed with commas: ``K♦, Q♦``."""
    return Listed(tuple(Card(int(c)) for c in ids))
