"""``spar play`` in French, for people: the real command in a pseudo-terminal with ``--lang fr``
(and the locale), French card letters typed (``10c`` is 10 de cœur, ``dc`` dame de cœur, a
card that could be two is refused), no English word of the message table on screen; a trick held until Enter (``--pace``); columns that stay aligned with face-down
cards; the last card played for the person.
"""

from __future__ import annotations

import os
import re
import sys
import unicodedata
from pathlib import Path

import numpy as np
import pexpect
import pytest
from helpers.cli import default_sigint
from helpers.words import english_in
from rich.console import Console

from spar_agents import make_agent
from spar_apps.terminal import HumanTable, play_session, screen
from spar_apps.terminal.loop import Pace
from spar_env.rules import make_rules

SPAR = Path(sys.executable).parent / "spar"
ENV = {**os.environ, "OMP_NUM_THREADS": "1", "COLUMNS": "120", "LINES": "50", "LC_ALL": "C.UTF-8"}
HAND_CARD = re.compile(r"(\d+):((?:10|[2-9RDVA])[♣♦♥♠])")
LETTER = {"♣": "t", "♦": "k", "♥": "c", "♠": "p"}  # trèfle, carreau, cœur, pique
CARD_PROMPT = r"votre carte\s:"  # French puts a no-break space before a colon
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def plain(text: str) -> str:
    return ANSI.sub("", text)


def spawn(*args: str, env: dict | None = None) -> pexpect.spawn:
    return pexpect.spawn(
        str(SPAR), ["play", *args], env=env or ENV, encoding="utf-8", timeout=60,
        dimensions=(50, 120), preexec_fn=default_sigint,
    )  # fmt: skip


def test_spar_play_in_french_plays_a_hand_typed_with_french_letters() -> None:
    child = spawn("--lang", "fr", "--opponents", "random", "--seed", "21", "--set", "end=hands:2")
    child.expect("Vous êtes au siège 0")
    child.expect(CARD_PROMPT)
    screens = [plain(child.before)]
    for bad, message in (("zz", "n'est pas une carte"), ("9", "pas de choix 9")):
        child.sendline(bad)
        child.expect(message)
        child.expect(CARD_PROMPT)
    child.sendline("r")
    child.expect("Les plis")
    child.expect(CARD_PROMPT)
    screens.append(plain(child.before))
    french_typed = 0
    while True:
        view = plain(child.before)
        held = HAND_CARD.findall(view.rpartition("votre main")[2])
        named = [card for _, card in held if card[0] in "RDV"]
        # a French letter when there is one (R, D, V for K, Q, J), else the card's number
        child.sendline(named[0][0].lower() + LETTER[named[0][-1]] if named else "1")
        index = child.expect(
            [CARD_PROMPT, "Entrée pour la main suivante", "Entrée pour voir les scores finaux"]
        )
        after = plain(child.before)
        screens.append(after)
        if named and "devez fournir" not in after:
            french_typed += f"vous jouez {named[0]}" in after
        if index == 1:
            assert "pourquoi" in after and "chance de gagner" in after
            child.sendline("")
            child.expect(CARD_PROMPT)
        elif index == 2:  # the session's last hand: v would review it, Enter goes on
            child.sendline("")
            break
    child.expect("scores finaux")
    child.expect(pexpect.EOF)
    shown = " ".join(" ".join(screens).split())
    assert "partie terminée" in shown and shown.count("partie terminée") == 1
    assert "votre dernière carte ne laisse pas le choix" in shown
    assert french_typed > 0, "no R, D or V was typed"
    assert not english_in(shown), sorted(english_in(shown))


def french_deal(want: set[str], lack: set[str]) -> int:
    """The first seed whose first hand of 4-player spar has the person lead holding ``want``
    and none of ``lack`` (cards as the French table writes them)."""
    rules = make_rules("spar")
    bots = {s: make_agent("random", rules) for s in range(1, rules.players)}
    for seed in range(200):
        rng = (np.random.default_rng([seed, 0]), np.random.default_rng([seed, 1]))
        table = HumanTable(rules, 0, bots, *rng)
        held = {table.voice("fr").card(c) for c in table.hand()}
        if table.my_turn and want <= held and not lack & held:
            return seed
    raise AssertionError(f"no deal of 200 holds {want} without {lack}")


def test_french_letters_read_10c_as_ten_of_hearts_and_refuse_a_card_that_could_be_two() -> None:
    seed = french_deal({"10♥", "D♣"}, {"D♥"})
    child = spawn("--lang", "fr", "--opponents", "random", "--seed", str(seed))
    child.expect(r"Tapez une carte\s+\(10c, ak, ")  # the examples in French letters
    child.expect(CARD_PROMPT)
    child.sendline("dc")  # dame de cœur, which the person does not hold (not D♣, which they do)
    child.expect("vous n'avez pas D♥")
    child.expect(CARD_PROMPT)
    child.sendline("qc")  # an English Q with a C of cœur or of clubs: two cards, so refused
    child.expect(r"peut être D♣ ou D♥\s:\stapez dt ou dc")
    child.expect(CARD_PROMPT)
    child.sendline("zz")  # the error names the French suit letters
    child.expect(r"la couleur \(T ♣, K ♦, C ♥, P ♠\)")
    child.expect(CARD_PROMPT)
    child.sendline("10c")
    child.expect(CARD_PROMPT)
    assert "vous jouez 10♥" in " ".join(plain(child.before).split())
    child.sendline("q")
    child.expect("scores finaux")
    child.expect(pexpect.EOF)


def test_the_locale_chooses_french_and_a_pace_holds_a_trick_until_enter() -> None:
    child = spawn(
        "--opponents", "random", "--seed", "22", "--pace", "tap",
        env={**ENV, "LC_ALL": "", "LANG": "fr_FR.UTF-8"},
    )  # fmt: skip
    child.expect("Vous êtes au siège 0")
    for _ in range(5):
        child.expect([CARD_PROMPT, "Entrée pour continuer"])
        if "Entrée pour continuer" in child.after:
            assert re.search(r"gagnez le pli 1|gagne le pli 1", plain(child.before))
            break
        child.sendline("1")
    else:
        pytest.fail("no trick was held")
    child.sendline("")
    child.expect(CARD_PROMPT)
    child.sendline("q")
    child.expect("scores finaux")
    child.expect(pexpect.EOF)


def test_a_bad_language_or_pace_is_one_line() -> None:
    for option, words in ((["--lang", "de"], "the tables speak en, fr"),
                          (["--pace", "fast"], "the pace is tap, none or seconds")):  # fmt: skip
        child = spawn(*option)
        child.expect(pexpect.EOF)
        child.close()
        assert child.exitstatus != 0 and words in child.before and "Traceback" not in child.before


class Script:
    def __init__(self, answers: list[str]) -> None:
        self.answers, self.shown, self.prompts = list(answers), [], []
        self.console = Console(width=100, record=True, color_system=None)

    def show(self, renderable) -> None:
        with self.console.capture() as capture:
            self.console.print(renderable)
        self.shown.append(capture.get())

    def ask(self, prompt: str) -> str:
        self.prompts.append(prompt)
        if not self.answers:
            raise EOFError
        return self.answers.pop(0)


def test_face_down_cards_keep_the_terminals_columns_and_say_why_once_a_line() -> None:
    """The back is drawn with narrow characters of the Basic Multilingual Plane (the playing
    card U+1F0A0 is two cells to some terminals, one to others); why a card went face down
    is said once in a "what happened" line, however many went down."""
    rules = make_rules("sipa", players=5, end="one_hand")
    bots = {s: make_agent("random", rules) for s in range(1, 5)}
    table = HumanTable(rules, 0, bots, np.random.default_rng(5), np.random.default_rng(6))
    term = Script(["1"] * 4)
    play_session(table, term, sleep=lambda _: None)
    assert all(unicodedata.east_asian_width(c) in "NaH" and ord(c) < 0x10000 for c in screen.BACK)
    seats = [s for s in term.shown if screen.BACK in s]
    assert seats, "no card went face down"
    for text in term.shown:
        happened = " ".join(text.split()).partition("what happened: ")[2]
        for why in re.findall(r"\(([^()]+played face down)\)", happened):
            assert happened.count(why) == 1, happened  # said once a line
    for text in seats:  # every row of the seats' table starts its columns at the same places
        lines = text.splitlines()
        top = next(
            i for i, line in enumerate(lines) if line.startswith("seat ") and "played" in line
        )
        head, rows = lines[top], lines[top + 1 : top + 1 + rules.players]
        starts = [m.start() for m in re.finditer(r"(?<=\s)\S", head)]
        for row in rows:
            for start in starts:
                assert row[start - 1] == " " and row[start] != " ", (head, row)


def test_a_pace_of_seconds_waits_that_long_after_each_trick() -> None:
    rules = make_rules("spar", players=3, end="one_hand")
    bots = {s: make_agent("random", rules) for s in range(1, 3)}
    table = HumanTable(rules, 0, bots, np.random.default_rng(1), np.random.default_rng(2))
    waits: list[float] = []
    play_session(table, Script(["1"] * 4), pace=Pace.parse("1.5"), sleep=waits.append)
    assert waits == [1.5] * rules.hand_size  # one pause for each trick won


@pytest.mark.parametrize(("language", "loading", "intro"), [
    ("en", "Loading the bots and the game engine", "You are seat 0"),
    ("fr", "Chargement des bots et du moteur de jeu", "Vous êtes au siège 0"),
])  # fmt: skip
def test_spar_play_says_what_it_loads_before_the_wait(
    language: str, loading: str, intro: str
) -> None:
    """The first run after an install compiles the engine for seconds: a line says so first."""
    child = spawn("--lang", language, "--seed", "3")  # the built-in bot, as a new player meets it
    child.expect([loading, intro])
    assert child.after == loading, "the table came before any word of loading"
    child.expect(intro)
    child.expect([CARD_PROMPT, "your card: "])
    child.sendline("q")
    child.expect(pexpect.EOF)
