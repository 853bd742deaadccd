"""The duplicate challenge (``spar_apps.table.duplicate``): boards from a seed, the bot in the
person's seat playing each hand again from the person's state, its results equal to
``spar bench``'s on the same deals, and ``spar play --duplicate`` in a terminal."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import numpy as np
import pexpect
import pytest
from helpers.cli import default_sigint

from spar_agents import make_agent
from spar_agents.shipped import default_bot_specs
from spar_apps.table.duplicate import (
    DuplicateTable,
    SeedError,
    read_seed,
    scoreboard,
)
from spar_apps.table.messages import say
from spar_apps.terminal import play_session
from spar_env import core
from spar_env.limits import MAX_SEED
from spar_env.rules import make_rules
from spar_train.tournament import Batch, build_players, draw_deals, play_deals, seating

SPAR = Path(sys.executable).parent / "spar"


def table(rules, seat: int, specs: dict[int, str], seat_spec: str, seed: int) -> DuplicateTable:
    agents = {s: make_agent(spec, rules) for s, spec in specs.items()}
    return DuplicateTable(rules, seat, agents, make_agent(seat_spec, rules), seed, seat_spec)


def play_out(t: DuplicateTable, choose) -> list[list[list[int]]]:
    """Play the session to its end, ``choose(t)`` giving the person's moves; every hand's
    dealt cards by seat, and its dealer, in order."""
    dealt = []
    while True:
        t.advance()
        while not t.hand_over:
            t.play(choose(t))
            t.advance()
        dealt.append([t.dealt(s) for s in range(t.rules.players)] + [[int(t.state.dealer[0])]])
        if t.session_over:
            return dealt
        t.next_hand()


def first(t: DuplicateTable) -> int:
    return t.legal()[0]


def last(t: DuplicateTable) -> int:
    return t.legal()[-1]


def test_each_hand_is_the_seeds_board_whatever_the_person_plays() -> None:
    rules = make_rules("spar", players=4, end="hands:6")
    specs = {0: "heuristic", 1: "random", 3: "low"}
    a = play_out(table(rules, 2, specs, "heuristic", 7), first)
    b = play_out(table(rules, 2, specs, "heuristic", 7), last)
    c = play_out(table(rules, 2, specs, "heuristic", 8), first)
    assert len(a) == len(b) == 6
    assert a == b  # the same cards, by seat, and the same dealer in every hand
    assert a != c  # another seed, other boards
    decks, dealers = draw_deals(rules, 7, 0, 6)  # the bench's deals: deck order and dealer
    for k in range(6):
        state = core.reset(rules, 1, np.random.default_rng(0), decks=decks[k : k + 1],
                           dealers=dealers[k : k + 1])  # fmt: skip
        assert a[k][-1] == [int(dealers[k])]
        for seat in range(4):
            assert a[k][seat] == [c for c in range(rules.num_card_ids)
                                  if int(state.dealt[0, seat]) >> c & 1]  # fmt: skip


@pytest.mark.parametrize("seat", [0, 2])
def test_the_bot_in_your_seat_scores_what_spar_bench_scores_on_the_same_deals(seat: int) -> None:
    """Deal k of ``spar bench`` (the same deal generator), in the rotation that seats the
    table's lineup, pays the bot in the person's seat what the duplicate table says it won in
    hand k, for every hand, whatever the person played (score-blind, deterministic bots)."""
    rules = make_rules("spar", players=4, end="hands:12")
    lineup = ["low", "high", "low", "high"]
    lineup[seat] = "heuristic"  # the bot in the person's seat
    specs = {s: lineup[s] for s in range(4) if s != seat}
    t = table(rules, seat, specs, "heuristic", 3)
    play_out(t, last)
    pairs = t.results()
    assert [p.hand for p in pairs] == list(range(1, 13))
    seats = seating(lineup, 4)
    players = build_players(lineup, seats, rules)
    bench = play_deals(rules, players, seats, 3, Batch(0, 0, 12))
    assert seats.table[0].tolist() == [seats.agents.index(s) for s in lineup]  # rotation 0
    rotation0 = bench.payoffs[:: seats.rotations]  # deal k, the lineup as given
    assert [p.bot for p in pairs] == rotation0[:, seat].astype(int).tolist()
    assert any(p.you != p.bot for p in pairs)  # the person's own play made a difference


def test_the_first_hand_matches_the_bench_with_the_shipped_bot_in_your_seat() -> None:
    """Hand 1 is played from a fresh session, as the bench plays every deal: a bot that
    reads the score (the shipped match bot) scores there what it scores in the bench."""
    rules = make_rules("spar", players=4)
    shipped = next(s for s in default_bot_specs() if s == "onnx:match")
    scores = []
    for seed in range(4):
        t = table(rules, 1, {0: "heuristic", 2: "low", 3: "heuristic"}, shipped, seed)
        t.advance()
        while not t.hand_over:
            t.play(first(t))
            t.advance()
        scores.append(t.results()[0].bot)
    lineup = ["heuristic", shipped, "low", "heuristic"]
    seats = seating(lineup, 4)
    players = build_players(lineup, seats, rules)
    bench = [play_deals(rules, players, seats, seed, Batch(0, 0, 1)).payoffs[0, 1]
             for seed in range(4)]  # fmt: skip
    assert scores == [int(b) for b in bench]


def test_playing_the_bots_moves_gives_the_bots_result_even_against_random_bots() -> None:
    """The other seats draw from one generator per hand in both plays: a person who makes
    the moves the bot in their seat would make meets the same moves and the same result."""
    rules = make_rules("spar", players=3, end="hands:8")
    t = table(rules, 0, {1: "random", 2: "random"}, "heuristic", 11)
    rng = np.random.default_rng(0)  # the heuristic draws nothing from it
    play_out(t, lambda t: int(t.seat_bot.act(t.situation(), rng).actions[0]))
    pairs = t.results()
    assert len(pairs) == 8 and all(p.you == p.bot for p in pairs)
    assert len({p.bot for p in pairs}) > 1  # hands won and lost: the test could fail


def test_the_bot_plays_from_the_persons_score() -> None:
    """Hand 2's bot starts from the scores the person's hand 1 left, not from zero."""
    rules = make_rules("spar", players=2, end="target:30")
    t = table(rules, 0, {1: "heuristic"}, "heuristic", 5)
    t.advance()
    while not t.hand_over:
        t.play(first(t))
        t.advance()
    after_one = t.state.scores[0].tolist()
    t.next_hand()
    assert t._start is not None and t._start.scores[0].tolist() == after_one != [0, 0]
    assert int(t.state.dealer[0]) == t.boards[1][1]  # the board's dealer, not the winner


def test_the_scoreboard_says_both_results_in_both_languages() -> None:
    rules = make_rules("spar", players=4, end="hands:3")
    t = table(rules, 0, {1: "low", 2: "low", 3: "low"}, "heuristic", 5)
    play_out(t, first)
    english, french = scoreboard(t, "en"), scoreboard(t, "fr")
    you, bot = t.totals()
    assert english["total"] == {**english["total"], "you": you, "bot": bot}
    pair = t.results()[-1]
    assert english["hands"][-1]["line"] == say("duplicate.hand", "en", hand=3,
                                               you=f"{pair.you:+d}" if pair.you else "0",
                                               bot=f"{pair.bot:+d}" if pair.bot else "0")  # fmt: skip
    assert french["hands"][-1]["line"].startswith("main 3\u00a0: vous ")
    key = "ahead" if you > bot else "behind" if you < bot else "level"
    assert english["total"]["verdict"] == say(f"duplicate.{key}", "en", diff=abs(you - bot))
    assert "--duplicate 5" in english["again"] and "graine 5" in french["again"]


@pytest.mark.parametrize(
    "bad", [-1, MAX_SEED + 1, "abc", "1.5", "", " ", "-3", True, 2.0, None, "9" * 5000, "٣"]
)
def test_a_bad_seed_is_refused_with_one_clear_line(bad) -> None:
    with pytest.raises(SeedError) as caught:
        read_seed(bad)
    assert str(caught.value).startswith("the duplicate seed must be a whole number from 0 to ")
    assert "\n" not in str(caught.value) and len(str(caught.value)) < 200
    assert caught.value.say("fr").startswith("la graine du duplicate doit être un nombre entier")


def test_good_seeds_are_read() -> None:
    assert read_seed(0) == 0 and read_seed(" 42 ") == 42 and read_seed(str(MAX_SEED)) == MAX_SEED
    assert read_seed(np.int64(9)) == 9


def test_next_hand_deals_the_given_dealer() -> None:
    rules = make_rules("spar", players=4)
    state = core.reset(rules, 2, np.random.default_rng(0))
    while not state.terminated.all():
        actions = np.array([int(np.flatnonzero(row)[0]) for row in state.legal_mask()])
        core.step(state, actions)
    core.next_hand(state, slice(None), np.random.default_rng(1), dealers=np.array([2, 0]))
    assert state.dealer.tolist() == [2, 0]


class Script:
    """A terminal that types scripted lines and keeps what was shown, as plain text."""

    def __init__(self, lines: list[str]) -> None:
        self.lines, self.shown = list(lines), []

    def show(self, renderable) -> None:
        from rich.console import Console

        console = Console(width=120, record=True, file=open("/dev/null", "w"))  # noqa: SIM115
        console.print(renderable)
        self.shown.append(console.export_text())

    def ask(self, prompt: str) -> str:
        if not self.lines:
            raise EOFError
        return self.lines.pop(0)


def test_the_terminal_loop_shows_both_results_after_each_hand_and_at_the_end() -> None:
    rules = make_rules("spar", players=3, end="hands:2")
    t = table(rules, 0, {1: "heuristic", 2: "heuristic"}, "heuristic", 9)
    term = Script(["1"] * 20)
    play_session(t, term, language="fr")
    pairs = t.results()
    text = "\n".join(term.shown)
    for p in pairs:
        assert f"main {p.hand}\u00a0: vous {p.you:+d}".replace("+0", "0") in text
    assert "Défi duplicate" in text and "au total\u00a0: vous" in text


# ----- the real command in a pseudo-terminal -----------------------------------------
def test_spar_play_duplicate_in_a_terminal() -> None:
    """``spar play --duplicate 5``: both results after each hand, a total, then again with
    the same seed the same cards (the hands dealt are shown at each hand's end)."""
    shown = []
    for _ in range(2):
        child = pexpect.spawn(
            str(SPAR),
            ["play", "--duplicate", "5", "--opponents", "heuristic", "--set", "end=hands:2"],
            env={
                "LANG": "C.UTF-8",
                "PATH": "/usr/bin:/bin",
                "OMP_NUM_THREADS": "1",
                "COLUMNS": "120",
            },  # fmt: skip
            encoding="utf-8",
            timeout=60,
            dimensions=(50, 120),
            preexec_fn=default_sigint,
        )
        child.expect("Duplicate challenge, seed 5")
        child.expect(r"bot in your seat \(heuristic\)")
        hands = []
        while True:
            found = child.expect(
                ["your card: ", "Enter for the next hand|Enter to see the final", pexpect.EOF]
            )
            if found == 0:
                child.sendline("1")
            elif found == 1:
                child.sendline("")
            else:
                break
            hands.append(child.before)
        child.close()
        assert child.exitstatus == 0
        out = re.sub(r"\x1b\[[0-9;]*m", "", "".join(hands) + child.before)  # no colours
        lines = re.findall(r"hand (\d): you ([+-]?\d+), the bot in your seat ([+-]?\d+)", out)
        assert [h for h, _, _ in lines[:2]] == ["1", "2"]
        assert "in all: you" in out and "spar play --duplicate 5" in out
        dealt = (
            r"^(?:you|seat \d)\s+((?:(?:10|[6-9JQKA])[♣♦♥♠] ){4}(?:10|[6-9JQKA])[♣♦♥♠])\s+[+-]\d"
        )
        shown.append(re.findall(dealt, out, flags=re.M))  # the summaries' dealt hands
    assert len(shown[0]) == 8 and shown[0] == shown[1]  # 2 hands x 4 seats, the same cards


# ----- the manual's section ----------------------------------------------------------
PAGE = Path(__file__).resolve().parents[1] / "docs" / "guide" / "export-and-play.md"


def test_the_manuals_duplicate_section_runs_as_written() -> None:
    """Every command of "Duplicate challenge" runs (typing 1 at every prompt), the second
    ends as the page shows, and its screenshots are there."""
    import subprocess

    text = PAGE.read_text(encoding="utf-8")
    section = text[text.index("## Duplicate challenge") :]
    section = section[: section.index("\n## ")]
    commands = re.search(r"```bash\n(.*?)```", section, re.S)[1]
    shown = re.search(r"```text\n(.*?)```", section, re.S)[1]
    env = {"LANG": "C.UTF-8", "PATH": "/usr/bin:/bin", "OMP_NUM_THREADS": "1", "COLUMNS": "100"}
    lines = [line.split("  #")[0].strip() for line in commands.splitlines() if line.strip()]
    assert len(lines) == 2
    for line in lines:
        args = line.split()
        assert args[:2] == ["spar", "play"]
        done = subprocess.run([SPAR, *args[1:]], input="1\n" * 80, env=env, capture_output=True,
                              text=True, timeout=300, check=False)  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert "hand 1: you " in done.stdout and "Duplicate challenge" in done.stdout
    last = done.stdout.rstrip().splitlines()[-len(shown.splitlines()) :]
    assert [s.rstrip() for s in last] == shown.rstrip().splitlines()
    assert f"{MAX_SEED:,}" in section
    for image in re.findall(r"\]\(\.\./(duplicate-\w+\.png)\)", section):
        assert (PAGE.parents[1] / image).stat().st_size > 10_000
    assert len(re.findall(r"duplicate-(?:en|fr)\.png", section)) == 2


@pytest.mark.parametrize(
    ("variant", "players", "fields"),
    [
        ("spar", 3, {"end": "stones:6"}),  # tie-break hands deal only the tied seats
        ("spar", 4, {"weak_hand_exchange": True, "reveal_stock_bottom": True}),
        ("sipa", 3, {"end": "hands:4"}),  # counterclockwise, face-down cards
        ("agram", 4, {}),  # one hand decides
        ("mini", 2, {"end": "hands:5"}),  # the ruleset fixes the dealer
        ("essilfy", 5, {"end": "target:6"}),
    ],
)
def test_a_duplicate_session_plays_to_its_end_in_every_kind_of_game(variant, players, fields):
    rules = make_rules(variant, players=players, **fields)
    others = {s: "random" for s in range(1, players)}
    t = table(rules, 0, others, "heuristic", 13)
    rng = np.random.default_rng(1)
    hands = play_out(t, lambda t: int(rng.choice(t.legal())))
    assert t.session_over and len(t.results()) == len(hands) == int(t.state.hands_played[0])
    decks, dealers = draw_deals(rules, 13, 0, len(hands))
    assert [h[-1][0] for h in hands] == dealers.tolist()  # every hand its board's dealer


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["--duplicate", "abc"], "the duplicate seed must be a whole number from 0 to"),
        (["--duplicate", "-5"], "got '-5'"),
        (["--duplicate", "1" * 30], "the duplicate seed must be a whole number"),
        (["--duplicate", "3", "--seed", "4"], "--seed 4 and --duplicate 3 name two seeds"),
    ],
)
def test_spar_play_refuses_a_bad_duplicate_seed_in_one_line(capsys, argv, words) -> None:
    from helpers.cli import cli, one_line

    status, _, err = cli(capsys, "play", *argv)
    one_line(status, err, words)


def test_duplicate_alone_takes_the_seed_of_seed() -> None:
    import argparse

    from spar_apps.cli.play import FRESH, _deal_seed

    assert _deal_seed(argparse.Namespace(seed=5, duplicate=FRESH)) == 5
    assert _deal_seed(argparse.Namespace(seed=None, duplicate=6)) == 6
    assert _deal_seed(argparse.Namespace(seed=7, duplicate=7)) == 7
    fresh = {_deal_seed(argparse.Namespace(seed=None, duplicate=FRESH)) for _ in range(3)}
    assert len(fresh) == 3  # a fresh seed each time
