"""A game's rules as the web page shows them, before a game (``GET /api/rules``) and in every
view of one: the variant's name, tagline, typing examples and rules, in the page's language."""

from __future__ import annotations

from typing import Any

from spar_apps.table.messages import Language, say
from spar_apps.table.rules_text import rules_sections, tagline, typing_examples, variant_name
from spar_env.rules import Ruleset

MAX_DIGITS = 9  # the longest count a query names: far above any table, far below int()'s 4,300


def form_of_query(form: object) -> dict[str, Any]:
    """A form of query parameters (all text) as the JSON form it stands for.

    Raises:
        ValueError: for a count of more digits than ``MAX_DIGITS`` (before ``int()`` meets
            Python's limit on digits; the lobby answers it as a refused form).
    """
    if not isinstance(form, dict):
        return form  # type: ignore[return-value]
    out: dict[str, Any] = {}
    for key, value in form.items():
        if key == "players" and isinstance(value, str) and value.isdecimal():
            digits = value.lstrip("0") or "0"
            if len(digits) > MAX_DIGITS:
                raise ValueError(f"players must be a small whole number; got {len(value):,} digits")
            out[key] = int(digits)
        elif key == "ace_of_spades" and value in ("true", "false"):
            out[key] = value == "true"
        elif key != "opponents":
            out[key] = value or None
    return out


def rules_view(rules: Ruleset, language: Language) -> dict[str, Any]:
    """A ruleset's texts for the page: its name, tagline, typing examples and rules."""
    typing = typing_examples(rules, language)
    return {
        "title": say(
            "rules.title",
            language,
            variant=variant_name(rules, language),
            tagline=tagline(rules, language),
        ),
        "tagline": tagline(rules, language),
        "typing": typing,
        "typed": say("page.typed", language, examples=", ".join(typing)),
        "rules": [
            {"heading": h, "text": " ".join(lines)} for h, lines in rules_sections(rules, language)
        ],
    }
