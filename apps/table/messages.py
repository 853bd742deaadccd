"""Every text a player reads at a table, in every language the tables speak: one message table.

A message is a key and one template per language, written side by side in :data:`MESSAGES`
so that a translator sees the English beside the French, and a test
(``tests/test_messages.py``) fails when a message lacks a language or when the languages
disagree on the template's fields. Code never writes a player-facing sentence itself: it
calls :func:`say` with the key and the fields::

    say("hand.won_trick", "fr", seat="vous", trick=4)

The web page receives the catalogue of its language as JSON (:func:`catalogue`) and fills
templates the same way (``{name}`` fields, nothing else), so both tables read one table.

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
    # ----- the duplicate challenge (spar_apps.table.duplicate) ---------------------------
    "duplicate.title": {"en": "Duplicate challenge", "fr": "Défi duplicate"},
    "duplicate.bot": {"en": "the bot in your seat: {bot}", "fr": "le bot à votre place : {bot}"},
    "duplicate.hand": {
        "en": "hand {hand}: you {you}, the bot in your seat {bot}",
        "fr": "main {hand} : vous {you}, le bot à votre place {bot}",
    },
    "duplicate.total": {
        "en": "in all: you {you}, the bot in your seat {bot}",
        "fr": "au total : vous {you}, le bot à votre place {bot}",
    },
    "duplicate.ahead": {
        "en": "you are {diff} ahead of the bot",
        "fr": "vous devancez le bot de {diff}",
    },
    "duplicate.behind": {
        "en": "the bot is {diff} ahead of you",
        "fr": "le bot vous devance de {diff}",
    },
    "duplicate.level": {"en": "level with the bot", "fr": "à égalité avec le bot"},
    "duplicate.again": {
        "en": "seed {seed}: the same seed deals these hands to anyone who plays it "
        "(spar play --duplicate {seed}, or the seed field of the web table)",
        "fr": "graine {seed} : la même graine distribue ces mains à qui la joue "
        "(spar play --duplicate {seed}, ou le champ graine de la table web)",
    },
    "duplicate.intro": {
        "en": "You are seat {seat} against {lineup}. Duplicate challenge, seed {seed}: each hand "
        "is dealt from the seed with its own dealer, and the bot in your seat ({bot}) plays it "
        "again from the score you had, against the same bots; after each hand you see both "
        "results. Type a card ({examples}) or its number; r shows the rules; q leaves.",
        "fr": "Vous êtes au siège {seat} contre {lineup}. Défi duplicate, graine {seed} : chaque "
        "main est distribuée d'après la graine, avec son propre donneur, et le bot à votre "
        "place ({bot}) la rejoue depuis le score que vous aviez, contre les mêmes bots ; après "
        "chaque main, vous voyez les deux résultats. Tapez une carte ({examples}) ou son "
        "numéro ; r montre les règles ; q pour partir.",
    },
    "duplicate.column.hand": {"en": "hand", "fr": "main"},
    "duplicate.column.you": {"en": "you", "fr": "vous"},
    "duplicate.column.bot": {"en": "bot in your seat", "fr": "bot à votre place"},
    "duplicate.form.on": {"en": "Duplicate challenge", "fr": "Défi duplicate"},
    "duplicate.form.seed": {"en": "seed", "fr": "graine"},
    "duplicate.form.empty": {"en": "new", "fr": "nouvelle"},
    "duplicate.error.seed": {
        "en": "the duplicate seed must be a whole number from 0 to {most}; got {got}",
        "fr": "la graine du duplicate doit être un nombre entier de 0 à {most} ; reçu {got}",
    },
}


def say(key: str, language: Language = DEFAULT_LANGUAGE, /, **fields: object) -> str:
    """The message ``key`` in ``language``, its ``{fields}`` filled.

    Raises:
        KeyError: for a key the table does not hold (a typo in code, caught by the tests).
    """
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
