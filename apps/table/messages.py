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
    # ----- Review: a finished hand, valued by search (spar_apps.table.review) -----------------
    "card.rank.K": {"en": "K", "fr": "R"},
    "card.rank.Q": {"en": "Q", "fr": "D"},
    "card.rank.J": {"en": "J", "fr": "V"},
    "review.button": {"en": "Review this hand", "fr": "Revoir cette donne"},
    "review.working": {
        "en": "The search is reviewing the hand…",
        "fr": "La recherche revoit la donne…",
    },
    "review.title": {"en": "Review of the hand", "fr": "Revue de la donne"},
    "review.you": {"en": "you", "fr": "vous"},
    "review.seat": {"en": "seat {seat}", "fr": "siège {seat}"},
    "review.trick": {"en": "trick {trick} of {tricks}", "fr": "pli {trick} sur {tricks}"},
    "review.trick_line": {"en": "{trick}: {plays}; {won}", "fr": "{trick} : {plays} ; {won}"},
    "review.won.you": {"en": "you won it with {card}", "fr": "vous l'avez remporté avec {card}"},
    "review.won.seat": {
        "en": "seat {seat} won it with {card}",
        "fr": "le siège {seat} l'a remporté avec {card}",
    },
    "review.played": {"en": "you played {card}", "fr": "vous avez joué {card}"},
    "review.col.card": {"en": "card", "fr": "carte"},
    "review.col.bot": {"en": "bot", "fr": "robot"},
    "review.col.value": {"en": "value (points)", "fr": "valeur (points)"},
    "review.col.chance": {"en": "match chance", "fr": "chance de gagner la partie"},
    "review.mark.played": {"en": "played", "fr": "jouée"},
    "review.mark.best": {"en": "best", "fr": "meilleure"},
    "review.verdict.best": {
        "en": "{card} was the search's best card",
        "fr": "{card} était la meilleure carte selon la recherche",
    },
    "review.verdict.close": {
        "en": "not a mistake: {best} was worth {gap} points more (± {stderr}), too little to "
        "tell apart",
        "fr": "pas une erreur : {best} valait {gap} points de plus (± {stderr}), trop peu pour "
        "trancher",
    },
    "review.verdict.mistake": {
        "en": "mistake: {card} cost {cost} points against {best} (± {stderr})",
        "fr": "erreur : {card} a coûté {cost} points face à {best} (± {stderr})",
    },
    "review.verdict.mistake_match": {
        "en": "mistake: {card} cost {cost} points against {best} (± {stderr}), and {chance} "
        "of match chance",
        "fr": "erreur : {card} a coûté {cost} points face à {best} (± {stderr}), et {chance} "
        "de chance de gagner la partie",
    },
    "review.verdict.forced": {
        "en": "{card} was the only legal card",
        "fr": "{card} était la seule carte jouable",
    },
    "review.reason.wins_lead": {
        "en": "{card} wins trick {trick}, so you lead the last",
        "fr": "{card} remporte le pli {trick} : vous entamez donc le dernier",
    },
    "review.reason.loses_lead": {
        "en": "{card} cannot win trick {trick}, so you do not lead the last",
        "fr": "{card} ne peut pas remporter le pli {trick} : vous n'entamerez donc pas le dernier",
    },
    "review.reason.keeps": {
        "en": "{card} keeps {other} for the last trick",
        "fr": "{card} garde {other} pour le dernier pli",
    },
    "review.reason.keeps_void": {
        "en": "{card} keeps {other} for the last trick: no one else holds {suit}",
        "fr": "{card} garde {other} pour le dernier pli : personne d'autre n'a de {suit}",
    },
    "review.reason.keeps_void_seen": {
        "en": "{card} keeps {other} for the last trick: every other seat has shown it has no "
        "{suit}",
        "fr": "{card} garde {other} pour le dernier pli : chaque autre siège a montré qu'il "
        "n'a plus de {suit}",
    },
    "review.reason.scorer": {
        "en": "{card} scores {points} only by winning the last trick",
        "fr": "{card} ne marque {points} qu'en remportant le dernier pli",
    },
    "review.summary.none": {
        "en": "no mistake in {decisions} decisions",
        "fr": "aucune erreur en {decisions} décisions",
    },
    "review.summary.one": {
        "en": "1 mistake in {decisions} decisions, costing {cost} points",
        "fr": "1 erreur en {decisions} décisions, pour {cost} points",
    },
    "review.summary.many": {
        "en": "{mistakes} mistakes in {decisions} decisions, costing {cost} points",
        "fr": "{mistakes} erreurs en {decisions} décisions, pour {cost} points",
    },
    "review.note": {
        "en": "A card's value is the search's mean payoff over {worlds} worlds drawn from what "
        "you saw, the bot {bot} playing every seat; ± is its standard error. A mistake is a "
        "card worth less than the best by more than {margin} points and {z} standard errors.",
        "fr": "La valeur d'une carte est le gain moyen de la recherche sur {worlds} mondes tirés "
        "de ce que vous aviez vu, le robot {bot} jouant à chaque siège ; ± est son erreur type. "
        "Une erreur est une carte qui vaut moins que la meilleure de plus de {margin} points et "
        "de {z} erreurs types.",
    },
    "review.note.match": {
        "en": "Match chance: your chance to win the match after the hand, were all seats equal "
        "players ({before} when the hand was dealt).",
        "fr": "Chance de gagner la partie : votre chance après la donne, si tous les sièges "
        "jouaient aussi bien ({before} à la distribution).",
    },
    "review.prev": {"en": "Previous trick", "fr": "Pli précédent"},
    "review.next": {"en": "Next trick", "fr": "Pli suivant"},
    "review.close": {"en": "Back to the table", "fr": "Retour à la table"},
    "review.prompt": {
        "en": "Enter: next trick, q: back to the table ",
        "fr": "Entrée : pli suivant, q : retour à la table ",
    },
    "review.hand_prompt": {
        "en": "Enter for the next hand, v to review it, q to leave: ",
        "fr": "Entrée pour la donne suivante, v pour la revoir, q pour partir : ",
    },
    "review.end_prompt": {
        "en": "v to review the hand, Enter to see the final scores: ",
        "fr": "v pour revoir la donne, Entrée pour voir les scores finaux : ",
    },
    "review.exchange": {
        "en": "the review's search does not play hands with the weak-hand exchange",
        "fr": "la recherche de la revue ne joue pas les donnes avec l'échange des mains faibles",
    },
    "review.unavailable": {
        "en": "no bot with probabilities plays this game, and the review needs one",
        "fr": "aucun robot à probabilités ne joue ce jeu, et la revue en demande un",
    },
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
