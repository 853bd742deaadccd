"""``spar play``: typed moves, the table and its screen, the loop with scripted input, and the
real command driven through a pseudo-terminal (pexpect): whole hands, a whole session,
invalid input, Ctrl-C and the end of input."""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

import numpy as np
import pexpect
import pytest
from helpers.cli import default_sigint
from rich.console import Console

from spar_agents import make_agent
from spar_apps.terminal import HumanTable, MoveError, Quit, play_session, read_move, screen
from spar_apps.terminal.screen import BACK
from spar_env import replay
from spar_env.explain import MoveReason
from spar_env.rules import make_rules

SPAR = Path(sys.executable).parent / "spar"
ENV = {**os.environ, "OMP_NUM_THREADS": "1", "COLUMNS": "120", "LINES": "50"}


def table_for(rules, seat: int = 0, opponents: str = "random", seed: int = 0) -> HumanTable:
    bot = make_agent(opponents, rules)
    bots = {s: bot for s in range(rules.players) if s != seat}
    return HumanTable(
        rules, seat, bots, np.random.default_rng([seed, 0]), np.random.default_rng([seed, 1])
    )


class Script:
    """A terminal that answers prompts from a list (then a function) and keeps what was shown."""

    def __init__(self, lines, then=None) -> None:
        self.lines = list(lines)
        self.then = then
        self.console = Console(record=True, width=120, color_system=None)
        self.shown: list[str] = []
        self.prompts: list[str] = []

    def show(self, renderable) -> None:
        with self.console.capture() as capture:
            self.console.print(renderable)
        self.shown.append(capture.get())

    def ask(self, prompt: str) -> str:
        self.prompts.append(prompt)
        if self.lines:
            line = self.lines.pop(0)
            if isinstance(line, BaseException):
                raise line
            return line
        if self.then is None:
            raise EOFError
        return self.then()


# ----- typed moves -------------------------------------------------------------------
SPAR4 = make_rules("spar")
C = SPAR4.card_id


def open_(*actions: int, closed: dict[int, str] | None = None) -> list[MoveReason]:
    """Reasons as :func:`spar_env.explain.move_reasons` gives them: ``actions`` open,
    ``closed`` shut with their reason (the reader passes the reason on)."""
    return [MoveReason(a, True, "open") for a in actions] + [
        MoveReason(a, False, why) for a, why in (closed or {}).items()
    ]


@pytest.mark.parametrize("text", ["6h", "6H", " 6h ", "6♥", "6♡"])
def test_a_card_is_read_in_any_notation(text: str) -> None:
    assert read_move(text, SPAR4, open_(C("6H"), C("10S"), C("KD"))) == C("6H")


@pytest.mark.parametrize("text", ["10S", "ts", "Ts", "10♠"])
def test_ten_is_10_or_t(text: str) -> None:
    assert read_move(text, SPAR4, open_(C("6H"), C("10S"))) == C("10S")


def test_a_number_chooses_among_the_legal_cards_in_order() -> None:
    legal = sorted([C("KD"), C("6H"), C("10S")])
    reasons = open_(*legal[::-1])
    assert [read_move(str(i), SPAR4, reasons) for i in (1, 2, 3)] == legal
    with pytest.raises(MoveError, match="no choice 4: type a number from 1 to 3"):
        read_move("4", SPAR4, reasons)
    with pytest.raises(MoveError, match="no choice 0"):
        read_move("0", SPAR4, reasons)


def test_bad_lines_get_a_message_that_says_why() -> None:
    must = "you must follow suit: diamonds were led and you hold K♦, 9♦"
    reasons = open_(C("KD"), C("9D"), closed={C("6H"): must})  # diamonds led
    cases = {
        "": "type a card such as kd, or its number \\(1-2\\)",
        "   ": "type a card",
        "xyz": "'xyz' is not a card: write the rank \\(A, K, Q, J, 10, 9, 8, 7, 6\\)",
        "3h": "'3h' is not in the Spar deck: its ranks are A, K, Q, J, 10, 9, 8, 7, 6",
        "AS": "'AS' is not in the Spar deck",
        "7c": "you do not hold 7♣",
        "6h": must,
        "🂠": "is not a card",
        "²": "'²' is not a card",  # a digit to str.isdigit, not a number to int()
        "①": "'①' is not a card",
    }
    for text, message in cases.items():
        with pytest.raises(MoveError, match=message):
            read_move(text, SPAR4, reasons)
    for word in ("q", "Q", "quit", "exit"):
        with pytest.raises(Quit):
            read_move(word, SPAR4, reasons)


def test_a_typing_hint_names_a_card_of_the_variant() -> None:
    sipa = make_rules("sipa")
    with pytest.raises(
        MoveError, match=r"'3h' is not in the Sipa \(Togo\) deck: its ranks are A, K"
    ) as e:
        read_move("3h", sipa, open_())
    assert "such as 7h" in str(e.value)  # no 6 in Sipa
    with pytest.raises(MoveError, match=r"'zz' is not a card: write the rank \(A, K, Q, J, 10, 9"):
        read_move("zz", sipa, open_())


def test_the_exchange_asks_keep_or_exchange_and_a_strong_hand_may_only_keep() -> None:
    rules = make_rules("spar", weak_hand_exchange=True)
    keep, swap = rules.keep_action, rules.exchange_action
    weak = open_(keep, swap)
    assert read_move("k", rules, weak) == keep
    assert read_move("exchange", rules, weak) == swap
    assert read_move("2", rules, weak) == swap
    strong = open_(keep, closed={swap: "your hand holds K♣: a hand with a 10 is strong"})
    with pytest.raises(MoveError, match="your hand holds K♣: a hand with a 10 is strong: type k"):
        read_move("e", rules, strong)
    with pytest.raises(MoveError, match="neither keep nor exchange"):
        read_move("6h", rules, weak)
    with pytest.raises(MoveError, match="type k to keep your hand or e to exchange"):
        read_move("", rules, weak)


# ----- the table, the screen and the loop --------------------------------------------
def test_a_session_to_its_end_with_records_that_replay() -> None:
    rules = make_rules("spar", end="hands:2")
    table = table_for(rules, seat=2, seed=4)
    term = Script([], then=lambda: "1")
    records: list[dict] = []
    outcome = play_session(table, term, on_record=records.append)
    assert not outcome.left and outcome.hands == 2 and len(records) == 2
    # the last card of each hand leaves no choice: it is played for the person, who is told
    assert term.prompts.count("your card: ") == 2 * (rules.hand_size - 1)
    said = [" ".join(s.split()) for s in term.shown]
    assert sum("your last card leaves no choice: it is played for you" in s for s in said) == 2
    for record in records:
        assert replay(record)["winner"] == record["result"]["winner"]
    assert sum(record["result"]["points"] for record in records) == sum(outcome.scores)
    assert "final scores" in term.shown[-1]
    assert sum("session over" in s for s in term.shown) == 1  # said once, with the last hand
    # the end of each hand: the winner, the card, the points, every seat's hand as dealt
    summaries = [s for s in term.shown if "over:" in s and "dealt" in s]
    assert len(summaries) == 2
    first = records[0]
    assert re.search(
        r"hand 1 over: (you win|seat \d wins) the last trick with \S+, for \d point", summaries[0]
    )
    for seat, hand in enumerate(first["hands"]):
        shown = " ".join(SPAR4.card_name(SPAR4.card_id(c), unicode=True) for c in hand)
        assert shown in summaries[0], (seat, shown)
    # the match chances while the match goes on, and not once it is over
    assert "match chance" in summaries[0] and "match chance" not in summaries[1]
    *chances, tie = [int(x) for x in re.findall(r"(\d+)%", summaries[0])]
    assert "a tie for most points" in summaries[0]  # hands:2: one hand left, a tie may come
    assert len(chances) == rules.players and abs(sum(chances) + tie - 100) <= rules.players


@pytest.mark.parametrize("end", ["target:4", "stones:4", "hands:3", "open", "one_hand"])
def test_the_table_knows_each_seats_match_chance_after_a_hand(end: str) -> None:
    from spar_train.match.table_chances import table_chances

    rules = make_rules("spar", players=3, end=end)
    table = table_for(rules, opponents="heuristic", seed=2)
    assert table.match_chances() is None  # the hand is running
    table.advance()
    while not table.hand_over:
        table.play(table.legal()[0])
        table.advance()
    chances = table.match_chances()
    if end in ("open", "one_hand"):
        assert chances is None
        return
    if table.session_over:
        assert chances is None
        return
    assert len(chances) == 3
    if end == "hands:3":  # a tie for most points wins nobody the match
        assert 0.5 < sum(chances) < 1
    else:
        assert sum(chances) == pytest.approx(1.0, abs=0.02)
    winner = int(table.state.winner[0])
    assert chances[winner] == max(chances)  # the hand's winner leads (and deals)
    again = table_chances(rules, table.state.scores[0].tolist(), winner,
                          stones=table.state.stones[0].tolist(), hands_played=1)  # fmt: skip
    assert again.tolist() == chances


def test_a_seed_fixes_the_deals_whatever_the_bots_do() -> None:
    rules = make_rules("spar", end="hands:3")
    dealt = []
    for opponents in ("random", "heuristic"):
        table = table_for(rules, opponents=opponents, seed=9)
        hands = []
        for _ in range(3):
            table.advance()
            while not table.hand_over:
                table.play(table.legal()[0])
                table.advance()
            hands.append((table.state.deck[0].tolist(), table.state.dealt[0].tolist()))
            if not table.session_over:
                table.next_hand()
        dealt.append(hands)
    assert dealt[0][0] == dealt[1][0]  # the first deal and its dealer: the seed's alone
    # later hands: the same shuffled decks, dealt by whoever won the hand before
    assert [deck for deck, _ in dealt[0]] == [deck for deck, _ in dealt[1]]


def test_invalid_lines_are_answered_and_play_goes_on() -> None:
    table = table_for(make_rules("spar", end="one_hand"), seed=1)
    lines = ["", "gibberish", "as", "99", "1"]
    term = Script(lines, then=lambda: "1")
    outcome = play_session(table, term)
    assert outcome.hands == 1 and not outcome.left
    text = "\n".join(term.shown)
    for message in (
        "type a card",
        "'gibberish' is not a card",
        "not in the Spar deck",
        "no choice 99",
    ):
        assert message in text


@pytest.mark.parametrize("leave", ["q", EOFError(), KeyboardInterrupt()])
def test_q_end_of_input_and_ctrl_c_leave_cleanly_keeping_the_finished_hands(leave) -> None:
    table = table_for(make_rules("spar"), seed=2)
    per_hand = [*(["1"] * (SPAR4.hand_size - 1)), ""]  # a whole hand, then Enter for the next
    records: list[dict] = []
    term = Script([*per_hand, "1", "1", leave])
    outcome = play_session(table, term, on_record=records.append)
    assert outcome.left and outcome.hands == 1 and len(records) == 1
    assert "you left the table after 1 finished hand" in term.shown[-1]
    assert "final scores" in term.shown[-1]


def test_the_screen_shows_the_table_and_never_another_seats_hidden_cards() -> None:
    # Sipa lays non-winning cards face down: most plays of a hand are hidden.
    rules = make_rules("sipa", players=3, end="hands:3")
    table = table_for(rules, seat=1, seed=3)
    voice = table.voice("en")
    checked = 0

    def look() -> str:
        nonlocal checked
        if not table.my_turn:  # the end of a hand: the dealt hands are shown, as they should be
            return ""
        view = term.shown[-1]
        history, state = table.history, table.state
        for i in range(int(history.count[0])):
            seat = int(history.seats[0, i])
            name = voice.card(history.cards[0, i])
            if history.down[0, i] and seat != table.seat:
                assert name not in view, f"seat {seat}'s face-down {name} is shown"
                assert BACK in view
                checked += 1
        for seat in range(rules.players):
            if seat != table.seat:
                for card in table.hand(seat):
                    assert voice.card(card) not in view, (
                        f"seat {seat}'s {voice.card(card)} is shown"
                    )
        assert f"trick {int(state.trick[0]) + 1} of 5" in view
        assert f"led by {voice.name(int(state.leader[0]))}" in view
        assert "your hand: " in view and "1:" in view
        return "1"

    term = Script([], then=look)
    play_session(table, term)
    assert checked > 10


def test_the_screen_writes_scores_in_c_notation_and_colours_red_suits() -> None:
    rules = make_rules("essilfy", end="hands:3")
    table = table_for(rules, seed=5)
    table.state.scores[0] = [14, 9, 2, 0]
    term = Script([])
    term.show(screen.table_view(table, "en"))
    assert "c12 2" in term.shown[0] and "c9" in term.shown[0]
    text = screen.colour("seat 2 wins with K♦ over 9♣")
    styles = {text.plain[s.start : s.end]: str(s.style) for s in text.spans}
    assert styles == {"K♦": screen.RED}


def test_the_hint_shows_the_bots_probabilities() -> None:
    from spar_agents.export.bot import SHIPPED_BOT

    rules = make_rules("spar", c_notation=True)  # the shipped bot's game, scores written as c3
    table = table_for(rules, seed=6)
    bot = make_agent(f"onnx:{SHIPPED_BOT}", rules)
    term = Script(["1"] * (rules.hand_size - 1))  # one hand (its last card is played for
    play_session(  # the person), then the end of input
        table, term, hint=lambda t: bot.act(t.situation(), np.random.default_rng(0)).probs[0]
    )
    views = [s for s in term.shown if "your hand:" in s]
    assert len(views) == rules.hand_size - 1
    assert (
        all("hint, how often the bot would play each move" in v for v in views) and "%" in views[0]
    )


# ----- the real command in a pseudo-terminal -----------------------------------------
def spawn(*args: str, env: dict[str, str] | None = None) -> pexpect.spawn:
    child = pexpect.spawn(
        str(SPAR),
        ["play", *args],
        env={**ENV, **(env or {})},
        encoding="utf-8",
        timeout=60,
        dimensions=(50, 120),
        preexec_fn=default_sigint,  # its Ctrl-C test must not inherit an ignored SIGINT
    )
    return child


def finish(child: pexpect.spawn) -> int:
    child.expect(pexpect.EOF)
    child.close()
    return child.exitstatus


def test_spar_play_in_a_terminal_plays_a_whole_session(tmp_path: Path) -> None:
    games = tmp_path / "games.jsonl"
    child = spawn(
        "--opponents", "random", "--set", "end=hands:2", "--seed", "11", "--record", str(games)
    )  # fmt: skip
    child.expect("Seed 11")
    child.expect("your card: ")
    for bad, message in (("", "type a card"), ("zz", "'zz' is not a card"), ("7", "no choice 7")):
        child.sendline(bad)
        child.expect(message)
        child.expect("your card: ")
    child.sendline("r")  # the variant's rules, then the prompt again
    child.expect("The tricks")
    child.expect("your card: ")
    hands, refused = 0, False
    closed = re.compile(r"not ((?:10|[6-9JQKA])[♣♦♥♠])[^:]*: you must follow suit")
    view = child.before
    while True:
        shut = closed.search(view)
        if shut and not refused:  # a card the table says is closed is refused with the reason
            child.sendline(shut.group(1))
            child.expect(r"you must follow suit: \w+ were led and you hold")
            child.expect("your card: ")
            refused = True
        child.sendline("1")
        index = child.expect(["your card: ", "Enter for the next hand", "final scores"])
        view = child.before
        if index == 1:
            hands += 1
            assert "match chance" in view  # the first hand's summary: the match goes on
            assert "were all seats equal players" in view
            assert re.search(r"why \d+ points?: trick 5 won with", view)  # the score, explained
            assert "pays " in view and " from " in view  # each payoff, explained
            child.sendline("")
        elif index == 2:  # the session's last hand: v would review it, Enter goes on
            hands += 1
            child.sendline("")
            break
    assert hands == 2 and refused
    assert finish(child) == 0
    records = [json.loads(line) for line in games.read_text().splitlines()]
    assert len(records) == 2 and all(replay(r)["points"] >= 1 for r in records)


def test_spar_play_reviews_the_hand_just_played_with_the_v_key() -> None:
    """v at the end of a hand: the review, a trick at a time (Enter: the next trick, q: back to
    the table); then the next hand. The review speaks the locale's language."""
    child = spawn("--opponents", "random", "--players", "2", "--set", "end=hands:2",
                  "--seed", "21", env={"LANG": "en_GB.UTF-8", "LC_ALL": ""})  # fmt: skip
    for _ in range(SPAR4.hand_size - 1):  # the last card plays itself
        child.expect("your card: ")
        child.sendline("1")
    child.expect("Enter for the next hand, v to review it, q to leave: ")
    child.sendline("v")
    child.expect("Review of the hand")
    child.expect(
        r"(\d+ mistakes? in 5 decisions, costing [\d.]+ of payoff|no mistake in 5 decisions)"
    )
    child.expect("the bot onnx:exit2 playing every")  # the shipped bot models the seats
    verdicts = ["was the search's best card", "not a mistake: ", "mistake: ", "only legal card"]
    for trick in range(1, SPAR4.hand_size + 1):
        child.expect(f"trick {trick} of 5: ")
        child.expect("you played ")
        child.expect(verdicts)
        if trick < SPAR4.hand_size:
            child.expect("Enter: next trick, q: back to the table")
            child.sendline("")
    child.expect("Enter for the next hand, v to review it")  # back at the end of the hand
    child.sendline("v")
    child.expect("trick 1 of 5")
    child.expect("Enter: next trick")
    child.sendline("q")  # leaves the review, not the table
    child.expect("Enter for the next hand, v to review it")
    child.sendline("")
    child.expect("your card: ")  # the next hand
    child.sendline("q")
    child.expect("final scores")
    assert finish(child) == 0
    french = spawn("--opponents", "random", "--players", "2", "--set", "end=one_hand",
                   "--seed", "21", env={"LANG": "fr_FR.UTF-8", "LC_ALL": ""})  # fmt: skip
    for _ in range(SPAR4.hand_size - 1):  # the last card plays itself
        french.expect("votre carte\u00a0: ")
        french.sendline("1")
    french.expect("v pour revoir la main, Entrée pour voir les scores finaux")
    french.sendline("v")
    french.expect("Revue de la main")
    french.expect("pli 1 sur 5\u00a0: ")
    french.expect("vous avez joué ")
    french.expect("Entrée\u00a0: pli suivant")
    french.sendline("q")
    french.expect("v pour revoir la main")
    french.sendline("")
    french.expect("scores finaux")
    assert finish(french) == 0


def test_spar_play_in_a_terminal_leaves_on_ctrl_c_and_keeps_the_finished_hands(
    tmp_path: Path,
) -> None:
    games = tmp_path / "games.jsonl"
    child = spawn("--opponents", "random", "--seed", "12", "--hint", "--record", str(games))
    for _ in range(SPAR4.hand_size - 1):  # the last card is played for the person
        child.expect(
            "hint, how often the bot would play each move"
        )  # the shipped bot's probabilities
        child.expect("your card: ")
        child.sendline("1")
    child.expect("Enter for the next hand")
    child.sendline("")
    child.expect("your card: ")
    child.sendintr()
    child.expect("you left the table after 1 finished hand")
    child.expect("final scores")
    assert finish(child) == 0
    assert len(games.read_text().splitlines()) == 1


def test_spar_play_in_a_terminal_leaves_at_the_end_of_input_and_on_q() -> None:
    child = spawn("--opponents", "random", "--seed", "13")
    child.expect("your card: ")
    child.sendeof()
    child.expect("you left the table after 0 finished hands")
    assert finish(child) == 0
    child = spawn("--opponents", "random", "--seed", "13", "--variant", "sipa", "--players", "3")
    child.expect("your card: ")
    child.sendline("q")
    child.expect("final scores")
    assert finish(child) == 0


def test_spar_play_against_the_shipped_bot_or_heuristic_where_it_does_not_fit() -> None:
    child = spawn("--seed", "14")
    child.expect(r"against seats 1, 2, 3: the built-in bot \(onnx:exit4\)")
    child.expect("your card: ")
    child.sendline("q")
    assert finish(child) == 0
    child = spawn("--target", "20", "--seed", "14")  # a covered game, to another end
    child.expect(r"against seats 1, 2, 3: the built-in bot \(onnx:exit4\)")
    child.expect("your card: ")
    child.sendline("q")
    assert finish(child) == 0
    child = spawn("--set", "last_two=bonus", "--seed", "14")
    child.expect(r"no\s+built-in\s+bot\s+plays\s+Spar\s+with\s+4\s+players\s+\(last_two=bonus\)")
    child.expect(r"your\s+opponents\s+are\s+heuristic")
    child.expect("your card: ")
    child.sendeof()
    assert finish(child) == 0


def test_spar_play_refuses_bad_options_in_one_line(capsys) -> None:
    from spar_apps.cli import main

    assert main(["play", "--seat", "4"]) == 2
    assert "--seat must be a seat 0..3" in capsys.readouterr().err
    assert main(["play", "--opponents", "random", "random"]) == 2
    assert "one spec for every other seat or 3 specs" in capsys.readouterr().err
    assert main(["play", "--hint", "heuristic"]) == 2
    assert "a hint needs an onnx or ppo bot" in capsys.readouterr().err
    assert (
        main(
            [
                "play",
                "--opponents",
                "heuristic",
                "--players",
                "3",
                "--set",
                "last_two=bonus",
                "--hint",
            ]
        )  # fmt: skip
        == 2
    )
    assert "--hint: no shipped bot plays this game; name one" in capsys.readouterr().err
    assert main(["play", "--end", "hands:2", "--target", "5"]) == 2
    assert "give --end or --target, not both" in capsys.readouterr().err


def test_the_hint_comes_from_the_shipped_bot_that_plays_the_game() -> None:
    from spar_apps.cli.play import _hint

    rules = make_rules("sipa", players=3)  # heuristic opponents: the hint is the universal bot's
    term = Script(["1"] * rules.hand_size)
    play_session(table_for(rules, seed=6), term, hint=_hint("", {1: "heuristic"}, rules))
    views = [s for s in term.shown if "your hand:" in s]
    assert views and all("hint, how often the bot would play each move" in v for v in views)


@pytest.mark.parametrize("players", [2, 4])
def test_play_help_names_the_bot_it_seats(capsys, players: int) -> None:
    from spar_apps.cli import main
    from spar_apps.cli.play import _default_spec

    assert main(["play", "--help"]) == 0
    shown = " ".join(capsys.readouterr().out.split())
    seated, _ = _default_spec(make_rules("spar", players=players))
    assert f"{seated} in {players}-player spar" in shown
