"""The message table: every message in every language, with the same fields."""

from __future__ import annotations

import pytest

from spar_apps.table import messages
from spar_apps.table.messages import LANGUAGES, MESSAGES, fields_of, say


@pytest.mark.parametrize("key", sorted(MESSAGES))
def test_every_message_has_every_language_with_the_same_fields(key: str) -> None:
    templates = MESSAGES[key]
    assert set(templates) == set(LANGUAGES), f"{key} lacks {set(LANGUAGES) - set(templates)}"
    english = fields_of(templates["en"])
    for lang in LANGUAGES:
        assert templates[lang].strip(), f"{key} is empty in {lang}"
        assert fields_of(templates[lang]) == english, f"{key}: {lang} fields differ"


def test_say_fills_fields_and_names_an_unknown_key() -> None:
    assert say("language.name", "fr") == "Français"
    with pytest.raises(KeyError, match="no message 'no.such'"):
        say("no.such")


@pytest.mark.parametrize(
    ("name", "expected"),
    [("fr", "fr"), ("fr_FR.UTF-8", "fr"), ("fr-BE", "fr"), ("en_GB", "en"), (None, "en")],
)
def test_language_names(name: str | None, expected: str) -> None:
    assert messages.language(name) == expected


def test_an_unspoken_language_is_refused_naming_the_spoken_ones() -> None:
    with pytest.raises(ValueError, match="en, fr"):
        messages.language("de")


def test_the_locale_and_the_browser_header_choose_the_language() -> None:
    assert messages.language_of_locale({"LANG": "fr_FR.UTF-8"}) == "fr"
    assert messages.language_of_locale({"LC_ALL": "de_DE.UTF-8", "LANG": "fr_FR"}) == "en"
    assert messages.language_of_header("de-DE,fr;q=0.8,en;q=0.5") == "fr"
    assert messages.language_of_header("en;q=0.4,fr;q=0.9") == "fr"
    assert messages.language_of_header("de,x;q=bad") == "en"
    assert messages.language_of_header(None) == "en"


def test_every_key_the_page_names_is_in_the_table() -> None:
    """The page's files name messages as ``data-msg="KEY"`` and ``t("KEY"...)``: each is in
    the table (a counted one as ``KEY.one`` and ``KEY.other``), so no key shows as itself."""
    import re
    from importlib import resources

    static = resources.files("spar_apps.web") / "static"
    named: set[str] = set()
    for name in ("index.html", "table.js", "friends.js"):
        text = (static / name).read_text(encoding="utf-8")
        named |= set(re.findall(r'data-msg="([\w.]+)"', text))
        named |= set(re.findall(r'\bt\("([\w.]+)"[,)]', text))
    assert {"friends.copy", "friends.clock.you", "page.start"} <= named  # it finds them
    missing = {k for k in named if k not in MESSAGES and f"{k}.one" not in MESSAGES}
    assert not missing, sorted(missing)
