"""The words of the tables' message table that only English uses: a French screen that shows
one of them shows a text that was not translated.

A word is a run of letters (apostrophes inside it kept) of two or more; the fields of a
template (``{seat}``) are no words. Words French also writes (``Spar``, ``bot``, ``score``)
are not English-only, and nor are the names of agents and files a table shows as they are.
The language switch names each language in its own words ("English" on a French page), so
those names are no English text of ours.
"""

from __future__ import annotations

import re

from spar_apps.table.messages import MESSAGES

WORD = re.compile(r"[^\W\d_]+")  # "l'as" is "l" and "as": the ace, in French
FIELD = re.compile(r"\{[^}]*\}")


def words(text: str) -> set[str]:
    """The words of a text, lower case."""
    return {w.lower() for w in WORD.findall(FIELD.sub(" ", text)) if len(w) > 1}


def only_english() -> set[str]:
    """The words that some English template writes and no French one does."""
    english = set().union(*(words(t["en"]) for t in MESSAGES.values()))
    french = set().union(*(words(t["fr"]) for t in MESSAGES.values()))
    return english - french - words(MESSAGES["language.name"]["en"])


def english_in(text: str) -> set[str]:
    """The English-only words of the tables that ``text`` shows."""
    return words(text) & only_english()
