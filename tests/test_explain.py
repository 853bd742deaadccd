"""The rules' reasons (spar_env.explain) against the engine, over every preset.

Random hands of every preset (with the exchange, the stock reveal, both
payoffs, both ``last_two`` sums and stones tie-breaks) are played through the
core. At every decision the reasons' legality must be the engine's, every
closed card must name its rule, and a card said to go face down must go face
down; at every hand's end the explained points and payoffs must add up to
the engine's own figures. Worked examples of docs/rules.md check the words.
Every text written from a ruleset is checked to name only ranks and cards of
its deck.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from helpers.engine import with_stock_options

from spar_apps.table.rules_text import rules_sections, tagline, typing_examples
from spar_apps.table.voice import Voice
from spar_env.core import next_hand, random_member, reset, step, tables_for
from spar_env.core.deal import deck_for_hands
from spar_env.explain import explain_hand, move_reasons
from spar_env.rules import PRESETS, Ruleset, make_rules
from spar_env.rules.cards import RANKS

CASES = [(v, "preset") for v in sorted(PRESETS)] + [
    (v, "exchange+reveal+points") for v in sorted(PRESETS)
] + [("spar", "last_two=sum"), ("spar", "last_two=bonus"), ("spar", "stones")]  # fmt: skip


def rules_of(variant: str, options: str) -> Ruleset:
    if options == "preset":
        return make_rules(variant)
    if options == "stones":  # tie-break hands, where some seats sit out
        return make_rules(variant, players=3, end="stones:4")
    if options.startswith("last_two="):
        return make_rules(variant, last_two=options.partition("=")[2])
    return with_stock_options(variant, payoff="points")


def play_checking_reasons(rules: Ruleset, games: int, seed: int) -> tuple[int, int]:
    """Random hands (two per game, the second dealt by the first's winner), every decision's
    reasons and every end's explanation checked. Returns (decisions, face-down plays) seen."""
    rng = np.random.default_rng(seed)
    state = reset(rules, games, rng)
    decisions = downs = 0
    for _hand in range(2):
        rewards = np.zeros((games, rules.players))
        while not state.terminated.all():
            predicted = {}
            for g in np.flatnonzero(~state.terminated):
                reasons = move_reasons(state, int(g))
                legal = {a for a in range(rules.num_actions) if int(state.legal[g]) >> a & 1}
                assert {r.action for r in reasons if r.legal} == legal
                seat = int(state.current_player[g])
                held = {c for c in range(rules.num_card_ids) if int(state.hands[g, seat]) >> c & 1}
                assert {r.action for r in reasons if r.action < rules.num_card_ids} == held
                for r in reasons:
                    said = [Voice(rules, lang, seat).text(r.reason) for lang in ("en", "fr")]
                    assert all(said) and not any("\n" in text for text in said)
                    if not r.legal:
                        assert ("follow suit" in said[0]) or ("exchange" in said[0]), said
                predicted[int(g)] = {r.action: r.face_down for r in reasons}
                decisions += 1
            actions = random_member(state.legal, rng)
            before = state.played_down.copy()
            movers = state.current_player.copy()
            live = ~state.terminated
            paid = step(state, actions).copy()
            rewards[live] = paid[live]
            for g, said in predicted.items():
                action, seat = int(actions[g]), int(movers[g])
                if action < rules.num_card_ids:
                    went_down = bool(
                        (int(state.played_down[g, seat]) ^ int(before[g, seat])) >> action & 1
                    )
                    assert said[action] == went_down, (g, rules.card_name(action))
                    downs += went_down
        for g in range(games):
            explained = explain_hand(state, g)
            assert explained.total == int(state.points[g])
            for seat in range(rules.players):
                assert explained.payoff(seat) == rewards[g, seat], (g, seat, explained.lines())
                for lang in ("en", "fr"):  # every phrase is said, in both languages
                    voice = Voice(rules, lang, 0)
                    assert voice.text(explained.why_payoff(seat)), (g, seat)
                    assert all(voice.text(line) for line in explained.lines())
        next_hand(state, np.flatnonzero(~state.session_over), rng)
        if state.session_over.all():
            break
    return decisions, downs


@pytest.mark.parametrize(("variant", "options"), CASES, ids=[f"{v}-{o}" for v, o in CASES])
def test_reasons_and_explanations_agree_with_the_engine(variant: str, options: str) -> None:
    rules = rules_of(variant, options)
    decisions, downs = play_checking_reasons(rules, games=48, seed=len(variant) + len(options))
    assert decisions > 48 * rules.hand_size  # the checks ran
    if rules.face_down != "none":
        assert downs > 0  # and the face-down prediction was put to the test


# ----- the words, on worked examples of docs/rules.md ------------------------------------
def dealt(rules: Ruleset, hands: list[str], dealer: int):
    cards = [[rules.card_id(c) for c in h.split()] for h in hands]
    deck = deck_for_hands(tables_for(rules), cards, dealer)
    return reset(rules, 1, np.random.default_rng(0), decks=deck[None], dealers=np.array([dealer]))


def play(state, rules: Ruleset, cards: str) -> None:
    for card in cards.split():
        step(state, np.array([rules.card_id(card)]))


def test_a_six_led_to_the_last_trick_is_explained_as_three_paid_by_each_loser() -> None:
    rules = make_rules("spar", players=3)
    state = dealt(rules, ["AC AD AH KS 6S", "KC QC KD QD KH", "JC 10C JD 10D QH"], dealer=2)
    play(state, rules, "AC KC JC  AD KD JD  AH KH QH")
    say = Voice(rules, "en", seat=0).text
    reasons = {rules.card_name(r.action): say(r.reason) for r in move_reasons(state)}
    assert "you lead this trick" in reasons["KS"]
    play(state, rules, "KS")
    follow = {rules.card_name(r.action): say(r.reason) for r in move_reasons(state)}
    assert "you hold no spades" in follow["QC"] and "cannot win" in follow["QC"]  # seat 1
    play(state, rules, "QC 10C 6S QD 10D")
    explained = explain_hand(state, 0)
    assert say(explained.why_points()) == "why 3 points: trick 5 won with 6♠ scores 3"
    assert say(explained.why_payoff(0)) == "3 from seat 1 + 3 from seat 2"
    assert say(explained.why_payoff(1)) == "pays you the hand's points (3)"
    assert "you: score 0 + 3 = 3; 10 points win the match" in map(say, explained.lines())
    french = Voice(rules, "fr", seat=0).text  # the same hand, as a French player reads it
    assert (
        french(explained.why_points()) == "pourquoi 3 points\u00a0: le pli 5 gagné avec 6♠ vaut 3"
    )
    assert french(explained.why_payoff(0)) == "3 du siège 1 + 3 du siège 2"
    assert french(explained.why_payoff(1)) == "paie les points de la main (3) à vous"


def test_a_card_that_must_follow_suit_names_the_suit_and_the_cards_held() -> None:
    rules = make_rules("spar", players=3)
    state = dealt(rules, ["AC AD AH KS 6S", "KC QC KD QD KH", "JC 10C JD 10D QH"], dealer=2)
    play(state, rules, "AD")
    reasons = {rules.card_name(r.action): r for r in move_reasons(state)}
    say, french = Voice(rules, "en", 1).text, Voice(rules, "fr", 1).text
    assert not reasons["KC"].legal
    assert (
        say(reasons["KC"].reason) == "you must follow suit: diamonds were led and you hold K♦, Q♦"
    )
    assert french(reasons["KC"].reason) == (
        "vous devez fournir\u00a0: la couleur demandée est carreau et vous avez R♦, D♦"
    )
    assert reasons["QD"].legal and "does not beat A♦" in say(reasons["QD"].reason)


@pytest.mark.parametrize(("last_two", "points", "why"), [
    ("sum", 5, "why 5 points: trick 4 won with 7♠ scores 2 + trick 5 won with 6♠ scores 3"),
    ("bonus", 8, "+ a bonus for the last two tricks: 6♠'s 3 again"),
    ("off", 3, "why 3 points: trick 5 won with 6♠ scores 3"),
])  # fmt: skip
def test_two_low_cards_at_the_end_add_up_as_last_two_says(last_two, points, why) -> None:
    rules = make_rules("essilfy", players=2, last_two=last_two)
    state = dealt(rules, ["AC AD AH 7S 6S", "KC QC KD QD KH"], dealer=1)
    play(state, rules, "AC KC AD KD AH KH 7S QC 6S QD")
    explained = explain_hand(state)
    assert explained.total == points == int(state.points[0])
    assert why in Voice(rules, "en").text(explained.why_points())


def test_a_face_down_card_says_why_before_it_is_played() -> None:
    rules = make_rules("sipa", players=2)
    state = dealt(rules, ["AC KD 8C 9H 10S", "QC 9C JD 7H 8S"], dealer=1)
    play(state, rules, "AC")
    reasons = {rules.card_name(r.action): r for r in move_reasons(state)}
    said = Voice(rules, "en", 1).text(reasons["QC"].reason)
    assert reasons["QC"].face_down and "does not beat A♣" in said
    assert "played face down" in said


def test_the_exchange_says_why_a_strong_hand_may_only_keep() -> None:
    rules = make_rules("spar", players=3, weak_hand_exchange=True)
    state = dealt(rules, ["9C 8C 7C 6C 9D", "KC QC KD QD KH", "JC 10C JD 10D QH"], dealer=2)
    say = Voice(rules, "en").text
    weak = {r.action: r for r in move_reasons(state)}
    assert weak[rules.exchange_action].legal and "weak" in say(weak[rules.exchange_action].reason)
    assert not weak[rules.card_id("9C")].legal
    step(state, np.array([rules.keep_action]))
    strong = {r.action: r for r in move_reasons(state)}
    closed = strong[rules.exchange_action]
    assert not closed.legal and say(closed.reason).startswith("your hand holds K♣, Q♣, K♦, Q♦, K♥")


# ----- texts written from the ruleset ---------------------------------------------------
_RANK = "|".join(sorted(RANKS, key=len, reverse=True))
_NAMED = [  # the ways a text names a rank: as a card, after an article, in the rank order
    re.compile(rf"(?<![\w+-])({_RANK})(?:[♣♦♥♠]|[CDHScdhs]\b)"),
    re.compile(rf"\b(?:a|an|no|or)\s+({_RANK})\b"),
]
_ORDER = re.compile(rf"high to low:?((?:\s+(?:{_RANK})\b)+)")


def ranks_named(text: str) -> set[str]:
    """The ranks a text names: as cards (``6♥``, ``10h``), as ``a 6`` or ``no 10, J or A``,
    and in a rank order (``high to low A K Q``); counts such as ``3 then 3`` are no ranks."""
    found = {m.group(1) for pattern in _NAMED for m in pattern.finditer(text)}
    for order in _ORDER.finditer(text):
        found |= set(order.group(1).split())
    return {r.upper() for r in found}


@pytest.mark.parametrize("variant", sorted(PRESETS))
def test_every_text_of_a_variant_names_only_its_own_ranks(variant: str) -> None:
    for rules in (make_rules(variant), with_stock_options(variant)):
        texts = [" ".join(lines) for _, lines in rules_sections(rules)]
        texts += [tagline(rules), rules.example_card(unicode=True), *typing_examples(rules)]
        for text in texts:
            assert ranks_named(text) <= set(rules.ranks), (variant, text)
        for card in typing_examples(rules):
            rules.card_id(card.replace("♥", "H").replace("♦", "D"))  # each is in the deck
        french = [" ".join(lines) for _, lines in rules_sections(rules, "fr")]
        french += [tagline(rules, "fr"), *typing_examples(rules, "fr")]
        english_ranks = {"R": "K", "D": "Q", "V": "J"}  # how French writes K, Q, J
        for text in french:
            named = {english_ranks.get(r, r) for r in ranks_named_fr(text)}
            assert named <= set(rules.ranks), (variant, text)


_RANK_FR = "|".join(sorted(["10", *"3456789ARDV"], key=len, reverse=True))
_NAMED_FR = [
    re.compile(rf"(?<![\w+-])({_RANK_FR})(?:[♣♦♥♠]|[cdhs]\b)"),
    re.compile(rf"\b(?:un|aucun|ou)\s+({_RANK_FR})\b"),
]
_ORDER_FR = re.compile(rf"plus faible(?:\s|:)*((?:\s*(?:{_RANK_FR})\b)+)")


def ranks_named_fr(text: str) -> set[str]:
    """The ranks a French text names: as cards (``R♥``, ``10h``), as ``un 6`` or ``aucun 10,
    V ou A``, and in a rank order (``de la plus forte à la plus faible A R D``)."""
    text = text.replace("\u00a0", " ")
    found = {m.group(1) for pattern in _NAMED_FR for m in pattern.finditer(text)}
    for order in _ORDER_FR.finditer(text):
        found |= set(order.group(1).split())
    return {r.upper() for r in found}


def test_the_rank_check_finds_a_rank_the_deck_lacks() -> None:
    """The check above can fail: a 6 in a Sipa text is caught."""
    assert "6" in ranks_named("keep a 6 for the last trick")
    assert "6" in ranks_named("type 6♥")
    assert "3" in ranks_named("ranked high to low 10 9 8 7 6 5 4 3 A")
    assert not ranks_named("trick 4 of 5, 3 players get 6 cards each, 3 then 3 at a time")
    assert {"R", "6"} <= ranks_named_fr("gardez un R et un 6♥")
    assert "6" in ranks_named_fr("de la plus forte à la plus faible 10 9 8 7 6")


def test_the_manuals_spar_rules_commands_run_and_print_what_it_shows() -> None:
    """docs/guide/export-and-play.md: every ``spar rules`` line runs; the first prints the page's
    text block, line by line (at 100 columns, as the page says)."""
    import os
    import shlex
    import subprocess
    import sys
    from pathlib import Path

    page = (Path(__file__).parents[1] / "docs" / "guide" / "export-and-play.md").read_text()
    section = page[page.index("## `spar rules`") :]
    section = section[: section.index("\n## ")]
    commands = re.findall(r"```bash\n(.*?)```", section, flags=re.S)[0].splitlines()
    (shown,) = re.findall(r"```text\n(.*?)```", section, flags=re.S)
    spar = Path(sys.executable).parent / "spar"
    outputs = []
    for line in commands:
        words = shlex.split(line.split("#", 1)[0])
        assert words[0] == "spar" and words[1] == "rules", line
        done = subprocess.run(
            [spar, *words[1:]], capture_output=True, text=True, timeout=60,
            env={**os.environ, "COLUMNS": "100", "LC_ALL": "C.UTF-8"},
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        outputs.append(done.stdout)
    assert [x.rstrip() for x in outputs[0].splitlines()] == shown.rstrip("\n").splitlines()
    assert "bonus" not in outputs[1] and "stones" in outputs[2] and "pair" in outputs[2]
