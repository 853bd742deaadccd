"""Card notation: parse and format cards such as ``6H``, ``10S``, ``QD``.

Ranks are written ``3``-``10``, ``J``, ``Q``, ``K``, ``A`` and suits ``C D H S``.
On input ``T`` is accepted for ``10`` and lower case is allowed; output always
writes ``10``. Card ids are ruleset-specific (see :class:`Ruleset.card_id`);
this module only deals with the text.
"""

from __future__ import annotations

SUITS: tuple[str, ...] = ("C", "D", "H", "S")
RANKS: tuple[str, ...] = ("3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
SUIT_SYMBOLS: dict[str, str] = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}


def parse_card(text: str) -> tuple[str, str]:
    """Split a card's text into ``(rank, suit)`` in canonical form.

    Raises:
        ValueError: if the text is not a card, naming the text.
    """
    if not isinstance(text, str):
        raise ValueError(f"a card must be a string such as '6H', got {text!r}")
    t = text.strip().upper()
    rank, suit = t[:-1], t[-1:]
    if rank == "T":
        rank = "10"
    if rank not in RANKS or suit not in SUITS:
        raise ValueError(
            f"{text!r} is not a card: write the rank ({', '.join(RANKS)}) then the suit "
            f"({' '.join(SUITS)}), for example '6H' or '10S'"
        )
    return rank, suit


def format_card(rank: str, suit: str, unicode: bool = False) -> str:
    """Write a card as ``rank + suit``, with a Unicode suit symbol if asked."""
    return rank + (SUIT_SYMBOLS[suit] if unicode else suit)


def c_notation(points: int) -> str:
    """Write a score in Essilfy's c-notation: ``9 -> 'c9'``, ``14 -> 'c12 2'``, ``2 -> '2'``."""
    if points < 3:
        return str(points)
    threes, rest = divmod(points, 3)
    return f"c{threes * 3}" + (f" {rest}" if rest else "")
