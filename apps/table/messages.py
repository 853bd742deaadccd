"""Every text a player reads at a table, in every language the tables speak: one message table.

A message is a key and one template per language, written side by side in :data:`MESSAGES`
so that a translator sees the English beside the French, and a test
(``tests/test_messages.py``) fails when a message lacks a language or when the languages
disagree on the template's fields. Code never writes a player-facing sentence itself: it
calls :func:`say` with the key and the fields::

    say("hand.won_trick", "fr", seat="vous", trick=4)

The web page receives the catalogue of its language as JSON (:func:`catalogue`) and fills
templates the same way (``{name}`` fields, nothing else), so both tables read one table.

A message that depends on a count has two keys, ``KEY.one`` and ``KEY.other``, and is
said as ``KEY`` with the count in the field ``n``: English says ``.one`` for 1, French for
0 and 1 (:func:`plural`). A field may carry a format spec that only one language uses
(``{who:a}``: French contracts "à le siège 2" to "au siège 2"); :mod:`spar_apps.table.voice`
fills such fields.

The table's texts live by subject in :mod:`spar_apps.table.phrases` and are gathered here.

Why a table and not gettext: the texts are few (hundreds, not thousands), the project's
two languages are known, and a table is data that the web page, the terminal and the
tests read without a compile step.
"""

from __future__ import annotations

import locale
import os
import string
from collections.abc import Mapping
from typing import Literal, get_args

Language = Literal["en", "fr"]
LANGUAGES: tuple[Language, ...] = get_args(Language)
DEFAULT_LANGUAGE: Language = "en"

# key -> {language: template}. Templates use str.format fields ("{seat}"), nothing else.
MESSAGES: dict[str, dict[Language, str]] = {
    "language.name": {"en": "English", "fr": "Français"},
    "language.switch": {"en": "Language", "fr": "Langue"},
}


def _gather() -> None:
    """Add the texts of :mod:`spar_apps.table.phrases` to :data:`MESSAGES` (a key twice is a
    mistake, refused on import)."""
    from spar_apps.table import phrases

    for part in phrases.PARTS:
        twice = set(part) & set(MESSAGES)
        if twice:
            raise KeyError(f"messages given twice: {', '.join(sorted(twice))}")
        MESSAGES.update(part)  # type: ignore[arg-type]
    for templates in MESSAGES.values():
        templates["fr"] = french_spaces(templates["fr"])


_FRENCH_SPACES = {" :": "\u00a0:", " ;": "\u00a0;", " ?": "\u00a0?", " !": "\u00a0!",
                  "« ": "«\u00a0", " »": "\u00a0»"}  # fmt: skip


def french_spaces(text: str) -> str:
    """French typography: the space before ``: ; ? !`` and inside ``« »`` does not break
    (a line never starts with a colon), so templates are written with plain spaces."""
    for plain, kept in _FRENCH_SPACES.items():
        text = text.replace(plain, kept)
    return text


_gather()
PLURAL = ("one", "other")  # the suffixes of a counted message's two keys


def plural(language: Language, n: int) -> str:
    """``one`` or ``other``: the form of a counted message for ``n`` in ``language``."""
    return "one" if n == 1 or (language == "fr" and n == 0) else "other"


def say(key: str, language: Language = DEFAULT_LANGUAGE, /, **fields: object) -> str:
    """The message ``key`` in ``language``, its ``{fields}`` filled.

    Raises:
        KeyError: for a key the table does not hold (a typo in code, caught by the tests).
    """
    if key not in MESSAGES and f"{key}.one" in MESSAGES:
        key = f"{key}.{plural(language, int(fields['n']))}"  # type: ignore[call-overload]
    try:
        templates = MESSAGES[key]
    except KeyError:
        raise KeyError(f"no message {key!r} in spar_apps.table.messages") from None
    return templates[language].format(**fields)


def fields_of(template: str) -> set[str]:
    """The names of a template's ``{fields}``."""
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def catalogue(language: Language) -> dict[str, str]:
    """Every message's template in ``language``: what the web page fills in the browser."""
    return {key: templates[language] for key, templates in MESSAGES.items()}


def language(name: str | None) -> Language:
    """``name`` as a language the tables speak ("fr", "fr_FR.UTF-8" and "fr-BE" read as French).

    Raises:
        ValueError: naming the languages there are, for one the tables do not speak.
    """
    code = (name or DEFAULT_LANGUAGE).split(".")[0].replace("-", "_").split("_")[0].lower()
    if code in LANGUAGES:
        return code  # type: ignore[return-value]
    raise ValueError(f"the tables speak {', '.join(LANGUAGES)}, not {name!r}")


def language_of_locale(environ: Mapping[str, str] | None = None) -> Language:
    """The language of the user's locale (``LC_ALL``, ``LC_MESSAGES``, ``LANG``), English if the
    tables do not speak it."""
    environ = os.environ if environ is None else environ
    for variable in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = environ.get(variable)
        if value:
            try:
                return language(value)
            except ValueError:
                return DEFAULT_LANGUAGE
    default = locale.getlocale()[0]
    try:
        return language(default) if default else DEFAULT_LANGUAGE
    except ValueError:
        return DEFAULT_LANGUAGE


def language_of_header(accept_language: str | None) -> Language:
    """The first language of a browser's ``Accept-Language`` header that the tables speak,
    by the header's own weights; English if none."""
    choices = []
    for part in (accept_language or "").split(",")[:32]:
        name, _, weight = part.strip().partition(";q=")
        try:
            quality = float(weight) if weight else 1.0
        except ValueError:
            continue
        choices.append((-quality, len(choices), name.strip()))
    for _, _, name in sorted(choices):
        try:
            return language(name)
        except ValueError:
            continue
    return DEFAULT_LANGUAGE
