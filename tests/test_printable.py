"""Names read from files are printed with their control characters escaped
(:func:`spar_env.printable.printable`): a league's entrants through ``league show`` and
``league play``, an error that quotes one, and rich's markup is never obeyed in them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from spar_env.printable import printable
from tests.helpers.cli import TINY, cli

HOSTILE = "\x1b]0;pwned\x07\x1b[2Jlow"  # retitles the window, then clears the screen
MARKUP = "[/x]low"  # a closing tag rich would choke on


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        (HOSTILE, "\\x1b]0;pwned\\x07\\x1b[2Jlow"),
        ("a\nb\tc\rd", "a\\nb\\tc\\rd"),
        ("\x9b31m", "\\x9b31m"),  # C1: the one-byte CSI
        ("abc\u202eevil", "abc\\u202eevil"),  # a right-to-left override
        ("a\u2028b", "a\\u2028b"),  # a line separator
        ("Åsa's bot 漢字 ♠", "Åsa's bot 漢字 ♠"),  # everything printable is kept
    ],
)
def test_printable_escapes_control_characters_only(text: str, shown: str) -> None:
    assert printable(text) == shown
    assert printable(shown) == shown  # escaping twice changes nothing more


def _league_with(capsys, folder: Path, *names: str) -> None:
    assert cli(capsys, "league", "add", folder, "random", "low")[0] == 0
    data = json.loads((folder / "league.json").read_text())
    data["entrants"] += list(names)
    (folder / "league.json").write_text(json.dumps(data))


def test_league_show_and_play_escape_an_entrants_name(tmp_path: Path, capsys) -> None:
    folder = tmp_path / "lg"
    _league_with(capsys, folder, HOSTILE, MARKUP)
    status, out, err = cli(capsys, "league", "show", folder)
    assert status == 0, err
    assert "\x1b" not in out + err and "\x07" not in out + err
    assert printable(HOSTILE) in out and MARKUP in out
    status, out, err = cli(capsys, "league", "play", folder, "--deals", 4, "--match", 2)
    assert status == 0, err
    assert "\x1b" not in out + err and "\x07" not in out + err
    assert f"skipping {printable(HOSTILE)}: it does not load" in err


def test_an_error_quoting_a_file_is_escaped(tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    config = TINY.read_text().replace(
        "deals = 40\n", f"deals = 40\nopponents = [{json.dumps('onnx:' + HOSTILE)}]\n"
    )
    (tmp_path / "hostile.toml").write_text(config)
    status, _, err = cli(capsys, "train", "hostile.toml")  # the bot file named is missing
    assert status == 2 and "eval.opponents[0]" in err and printable(HOSTILE) in err
    assert "\x1b" not in err and "\x07" not in err
