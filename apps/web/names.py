"""The name a person takes at a table of friends: a name, never a word of the page.

Every page of the table shows the seats by their people's names, and names the seats it
knows no name for with its own words: "you" for the page's own seat, "seat 3" for another,
"a bot", the bots' names. So a name (:func:`read_name`) is:

- required: a seat is shown by it;
- letters (any script, with their accents), digits, spaces and the punctuation of names
  (``. , ' ’ - _ & ! ?``), at most :data:`NAME_CHARS` characters: no control, format or
  bidirectional character, which could hide text or reverse it on another page;
- not a number alone, which reads as a seat;
- none of the page's words for a seat or a bot, in either language, whatever its case,
  accents, spacing or punctuation ("You", "vous", "Seat 3", "le siège 2", "a bot",
  "random"): another page would show two seats called so.

Each refusal has its own message, in the request's language.
"""

from __future__ import annotations

import unicodedata

from spar_agents.registry import agent_names
from spar_apps.table.messages import LANGUAGES, say
from spar_apps.web.lobby import FormError

NAME_CHARS = 24
MAX_TYPED = 200  # characters looked at; past them the name is too long, whatever they are
PUNCTUATION = ".,'’-_&!?"
SEAT_WORDS = ("seat.you", "seat.you.le", "seat.you.a", "seat.you.de", "seat.other",
              "seat.other.le", "seat.other.a", "seat.other.de", "friends.seat.bot",
              "friends.seat.friend", "friends.seat.free", "opponent.shipped")  # fmt: skip
BOT_WORDS = ("bot", "the bot", "le bot")


def reads_as(name: str) -> str:
    """What a name reads as: its letters and digits, without accents, in lower case
    ("Amá!" reads as "ama")."""
    return "".join(c for c in unicodedata.normalize("NFKD", name.casefold()) if c.isalnum())


def skeleton(name: str) -> str:
    """What a name reads as, each number as ``#``: the shape of a word of the page ("Le
    Siège 12!" and "le siege 3" read alike)."""
    kept = "".join("#" if c.isdigit() else c for c in reads_as(name))
    while "##" in kept:
        kept = kept.replace("##", "#")
    return kept


def _page_words() -> frozenset[str]:
    """The skeletons of every word the page uses for a seat or a bot, in every language."""
    said = [say(key, lang, seat=7) for key in SEAT_WORDS for lang in LANGUAGES]
    return frozenset(map(skeleton, [*said, *BOT_WORDS, *agent_names()]))


PAGE_WORDS = _page_words()


def _refused(log: str, key: str, **fields: object) -> FormError:
    return FormError(f"name: {log}", lambda lang: say(key, lang, **fields))


def read_name(value: object) -> str:
    """A person's name as typed, trimmed and with its spaces made single (module docstring).

    Raises:
        FormError: for no name, or one the page could not show as a name; the message says
            which.
    """
    if not isinstance(value, str):
        if value is None:
            raise _refused("a name is required", "friends.name_missing")
        raise _refused(f"a name is text; got {value!r:.40}", "friends.name_missing")
    if len(value) > MAX_TYPED:
        raise _refused(f"at most {NAME_CHARS} characters", "friends.name_long", n=NAME_CHARS)
    typed = unicodedata.normalize("NFC", value.strip())
    if not typed:
        raise _refused("a name is required", "friends.name_missing")
    for c in typed:
        kind = unicodedata.category(c)
        if not (kind[0] in "LM" or kind == "Nd" or kind == "Zs" or c in PUNCTUATION):
            raise _refused(f"{ascii(c)} is not a letter, digit, space or {PUNCTUATION}",
                           "friends.name_chars", signs=" ".join(PUNCTUATION))  # fmt: skip
    name = " ".join(typed.split())
    if len(name) > NAME_CHARS:
        raise _refused(f"at most {NAME_CHARS} characters", "friends.name_long", n=NAME_CHARS)
    if not any(unicodedata.category(c)[0] == "L" for c in name):
        raise _refused("a name holds a letter (a number alone reads as a seat)",
                       "friends.name_letters")  # fmt: skip
    if skeleton(name) in PAGE_WORDS:
        raise _refused(f"{name!r} is a word the page uses for a seat or a bot",
                       "friends.name_reserved", name=name)  # fmt: skip
    return name


def same_name(one: str, other: str) -> bool:
    """Whether two names would read alike on a page ("Ama" and "AMÁ!"; not "P1" and "P2")."""
    return reads_as(one) == reads_as(other)
