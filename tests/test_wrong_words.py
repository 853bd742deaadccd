"""Wrong words once printed, each held fixed: the session's result said once, no terminal key
on the web, the games of a universal bot, the scores of every seat, a tutorial's figure from
the benchmark, and plain lines for a pipe. (The face-down card's column and reason, and the
last card played for the person: tests/test_play_french.py and tests/test_play.py.)"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from helpers.cli import SPAR

from spar_agents import make_agent
from spar_apps.terminal import HumanTable, play_session
from spar_apps.web.app import create_app
from spar_apps.web.lobby import Lobby
from spar_env.rules import make_rules

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
from figures import Figures  # noqa: E402  (benchmarks/ is no package)


class Script:
    def __init__(self) -> None:
        self.shown: list[str] = []

    def show(self, renderable) -> None:
        from rich.console import Console

        console = Console(width=200, color_system=None)
        with console.capture() as capture:
            console.print(renderable)
        self.shown.append(capture.get())

    def ask(self, prompt: str) -> str:
        return "1"


@pytest.mark.parametrize("variant", ["agram", "agram_mali", "mini"])
def test_a_one_hand_game_says_who_won_the_session_once(variant: str) -> None:
    rules = make_rules(variant)  # one hand decides
    bots = {s: make_agent("random", rules) for s in range(1, rules.players)}
    table = HumanTable(rules, 0, bots, np.random.default_rng(3), np.random.default_rng(4))
    term = Script()
    play_session(table, term)
    said = "\n".join(term.shown)
    assert said.count("session over:") == 1, said
    assert "final scores" in term.shown[-1]


def test_an_open_sessions_web_headline_names_no_terminal_key() -> None:
    from starlette.testclient import TestClient

    app = create_app(Lobby(["random"], ["random"]), seed=0)
    client = TestClient(app, base_url="http://127.0.0.1")
    for lang in ("en", "fr"):
        form = {"variant": "spar_classic", "players": 3, "opponents": "random"}
        view = client.post(f"/api/games?lang={lang}", json=form).json()
        refused = client.post(f"/api/games/{view['game']}/move?lang={lang}",
                              json={"move": "", "turn": view["turn"]}).json()  # fmt: skip
        for text in (view["goal"], view["texts"]["headline"], refused["error"]):
            assert not re.search(r"\bq\b|\br rules\b", text), text  # keys of the terminal only
    assert (
        "as many hands as you like"
        in client.get(f"/api/games/{view['game']}?lang=en").json()["goal"]
    )


def test_bench_says_a_universal_bot_was_made_for_many_games() -> None:
    from spar_agents.registry.spec import game_count
    from spar_apps.cli.game_choice import rules_from_lineup

    args = argparse.Namespace(variant=None, players=None, overrides=[])
    games = game_count("onnx:universal")
    assert games > 1
    rules, note = rules_from_lineup(args, ["onnx:universal", "random"])
    assert f"the default of the {games} games onnx:universal was made for" in note
    assert "as onnx:universal was made for" not in note
    _, note = rules_from_lineup(args, ["onnx:spar4", "random"])  # a bot of one game
    assert "as onnx:spar4 was made for" in note


def test_equity_at_four_players_starts_from_every_seats_zero() -> None:
    for players in (4, 3):
        done = subprocess.run(
            [SPAR, "equity", "random", "--deals", "30", "--players", str(players),
             "--set", "end=target:3"], capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        zeros = "-".join(["0"] * players)
        assert f"from {zeros}: seat 0" in done.stdout, done.stdout
        assert re.search(r"from 0-0:", done.stdout) is None


def test_the_own_agent_tutorial_cites_the_benchmarks_kept_share(tmp_path: Path) -> None:
    """The tutorial's KeepLow, benched as its command says: the share the tutorial shows is
    the benchmark's entry, and the entry is what the command prints."""
    page = (ROOT / "docs" / "guide" / "tutorial-own-agent.md").read_text(encoding="utf-8")
    (tmp_path / "mybots.py").write_text(re.findall(r"```python\n(.*?)```", page, re.S)[0])
    figures = Figures()
    kept, expert = (figures.entry(f"bench.keeplow.{k}") for k in ("kept_4p", "expert_kept_4p"))
    for entry in (kept, expert):
        assert f"{{figure-ref}}`{entry.name}`" in page  # the page shows the entry's figure
    assert kept.command in page  # the command the page gives is the one measured
    assert "four hands of five" not in page and "one in three" not in page
    done = subprocess.run(
        [SPAR, *kept.command.split()[1:], "--json"], capture_output=True, text=True,
        timeout=300, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    agents = {a["spec"]: a for a in json.loads(done.stdout)["agents"]}
    assert round(100 * agents["py:mybots:KeepLow"]["low_card_kept"]) == round(kept.value)
    assert round(100 * agents["heuristic"]["low_card_kept"]) == round(expert.value)


def test_piped_bench_prints_plain_lines() -> None:
    done = subprocess.run(
        [SPAR, "bench", "heuristic", "random", "--deals", "20", "--seed", "0"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "spar bench: spar, 4 players, 20 deals × 2 rotations, seed 0"
    for line in lines:
        assert line == line.strip(" ") and "  " not in line, repr(line)  # no padding
        assert not set(line) & set("─━│"), line  # no rules drawn for a screen
    header = lines[1].split("\t")
    assert header[:3] == ["agent", "seats", "mean payoff"]
    rows = [line.split("\t") for line in lines[2:4]]
    assert [row[0] for row in rows] == ["heuristic", "random"]
    assert all(len(row) == len(header) for row in rows)
    caption = lines[4]  # one phrase, one line: never folded in its middle
    assert caption.startswith("mean stakes per hand") and caption.endswith("at trick 1.")
    assert "head to head" in lines


# Words a reader misread, by language: each held out of every template of the tables.
MISREAD = {
    "fr": (
        "livré",  # "le bot livré" reads as delivered
        "politique",  # the bot's policy: jargon
        "paie les {points}",  # "paie les 1 de la main"
        "n'est pas un {ranks}",  # "ni un 6 ni un 7"
    ),
    "en": ("shipped bot", "policy", "the hand's {points}"),
}


@pytest.mark.parametrize("language", sorted(MISREAD))
def test_no_template_holds_a_wording_once_misread(language: str) -> None:
    from spar_apps.table.messages import catalogue

    templates = catalogue(language)
    assert templates["column.dealt"] not in ("donne", "dealt")  # "donne" reads as "gives"
    for key, template in templates.items():
        for words in MISREAD[language]:
            assert words not in template, (key, template)


def test_the_hands_points_and_payoffs_read_as_sentences_in_both_languages() -> None:
    from spar_apps.table.voice import Voice
    from spar_env.explain.phrase import Card, Listed, Rank, Seat, phrase

    rules = make_rules("spar")
    six_or_seven = Listed((Rank("6"), Rank("7")), "or")
    said = {
        language: [
            Voice(rules, language).text(phrase("score.one", trick=5, card=Card(0), ranks=ranks))
            for ranks in (six_or_seven, Listed((Rank("6"),), "or"))
        ]
        + [Voice(rules, language).text(phrase("payoff.pays", who=Seat(2), points=1))]
        for language in ("en", "fr")
    }
    assert said["fr"][0].endswith("qui n'est ni un 6 ni un 7")
    assert said["fr"][1].endswith("qui n'est pas un 6")
    assert said["fr"][2] == "paie les points de la main (1) au siège 2"
    assert said["en"][0].endswith(", neither a 6 nor a 7")
    assert said["en"][2] == "pays seat 2 the hand's points (1)"


def test_a_percentage_is_written_one_way_per_language_everywhere() -> None:
    """20% in English, 20 % (a narrow no-break space) in French: the terminal's hint and
    chances, the web page's catalogue and the review all write it with one helper."""
    from spar_apps.table.messages import catalogue
    from spar_apps.table.voice import percent

    assert percent(0.2, "en") == "20%" and percent(0.2, "fr") == "20\u202f%"
    assert percent(0.05, "fr", sign=True) == "+5\u202f%"
    assert catalogue("fr")["number.percent"].format(n=20) == percent(0.2, "fr")
    for language in ("en", "fr"):  # no template writes a percentage of its own
        for key, template in catalogue(language).items():
            if key != "number.percent":
                assert not re.search(r"[\d}]\s?%", template), (key, template)
    rules = make_rules("spar")
    bots = {s: make_agent("heuristic", rules) for s in range(1, rules.players)}
    for language, wrong in (("en", r"\d[\s\u202f]%"), ("fr", r"\d%|\d[ \u00a0]%")):
        table = HumanTable(rules, 0, bots, np.random.default_rng(3), np.random.default_rng(4))
        term = Script()
        play_session(table, term, language=language)
        shown = "\n".join(term.shown)
        assert re.search(r"\d[\u202f]?%", shown), "no percentage was shown"
        assert not re.search(wrong, shown), re.search(wrong, shown)
