"""``spar serve`` in a real browser: Debian's headless Chromium driven by Playwright.

The real command serves on a free port of 127.0.0.1. The page starts a game
against the shipped bot, plays a whole hand by clicking legal cards (and once
by typing a card's number), finds that a dimmed card and a card typed that
does not follow suit are not played, shows the hint, downloads the records
and hands them to ``spar replay``; then one whole hand in every preset at two
player counts (one for a preset with a single count) in the same browser,
and one with the weak-hand exchange (its keep/exchange buttons).

Screenshots of the table at the start, the middle and the end of the first
hand, and at the end of each preset's hand, are kept in ``runs/browser/``
(ignored by git). Playwright's own browser builds are never downloaded: the
test launches Debian's ``chromium`` from the PATH (``.ci/browser`` installs it). Without it the test is skipped, except in CI (``CI=true``),
where it fails.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.cli import default_sigint

pytestmark = pytest.mark.xdist_group("browser")  # one worker: one server, one browser

SPAR = Path(sys.executable).parent / "spar"
SHOTS = Path(__file__).resolve().parents[1] / "runs" / "browser"
WAIT = 30_000  # ms: the longest a move may take on a busy machine
# A game's deal depends on how many games the module's server made before it (the test order):
# hands are played until one has a card that may not be played (most hands have one).
HANDS_FOR_A_CLOSED_CARD = 20


def serve(*extra: str):
    """``spar serve`` on a free port: the process and the address it prints."""
    process = subprocess.Popen(
        [SPAR, "serve", "--port", "0", "--opponents", "random", "--seed", "0", *extra],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "OMP_NUM_THREADS": "1"},
        preexec_fn=default_sigint,  # it is stopped with SIGINT
    )
    line = process.stdout.readline()
    if "taken up from" in line:  # a server started again on its --state folder says so first
        line = process.stdout.readline()
    assert "the table is at" in line, (line, process.stderr.read() if process.poll() else "")
    return process, line.split()[6]


def stop(process) -> None:
    process.send_signal(signal.SIGINT)
    process.communicate(timeout=30)


@pytest.fixture(scope="module")
def server():
    process, url = serve()
    yield url
    stop(process)


@pytest.fixture
def page(browser, server):
    # bypass_csp: the page forbids eval, which wait_for_function needs; the page never evals
    context = browser.new_context(
        viewport={"width": 1100, "height": 860}, accept_downloads=True, bypass_csp=True
    )
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if console_error(m) else None)
    page.goto(server)
    page.wait_for_selector("#opponents option", state="attached")
    yield page
    context.close()
    assert not errors, errors  # no script error, no console error (a missing icon is one)


@contextlib.contextmanager
def own_server(browser, *options: str):
    """A page of a ``spar serve`` of its own, started with ``options``, its offer loaded."""
    process, url = serve(*options)
    context = browser.new_context(viewport={"width": 1100, "height": 860}, bypass_csp=True)
    try:
        page = context.new_page()
        page.goto(url)
        page.wait_for_selector("#opponents option", state="attached")
        yield page
    finally:
        context.close()
        stop(process)


def console_error(message) -> bool:
    """An error in the console, but for the 400 of a refused move (the tests make some)."""
    return message.type == "error" and "status of 400" not in message.text


def turn(page) -> int:
    return int(page.evaluate("document.body.dataset.turn"))


def moved(page, before: int) -> None:
    page.wait_for_function(f"Number(document.body.dataset.turn) > {before}", timeout=WAIT)


def start(page, variant: str, players: int, opponents: str) -> None:
    page.select_option("#variant", variant)
    page.select_option("#players", str(players))
    page.select_option("#opponents", opponents)
    page.click("#start")
    page.wait_for_selector("#table:not([hidden])", timeout=WAIT)
    page.wait_for_function("document.body.dataset.turn === '0'", timeout=WAIT)


def play_first_legal(page) -> None:
    """Click the first legal card, or keep in the exchange; wait for the table to move."""
    before = turn(page)
    choice = page.locator("#choices button")
    if choice.count():
        choice.first.click()
    else:
        page.locator("#hand .card.legal").first.click()
    moved(page, before)


def next_hand(page) -> None:
    before = turn(page)
    page.click("#next")
    moved(page, before)


def phase(page) -> str:
    return page.evaluate("document.body.dataset.phase")


def test_a_whole_hand_against_the_shipped_bot_with_hint_and_records(page, tmp_path):
    SHOTS.mkdir(parents=True, exist_ok=True)
    start(page, "spar", 4, "shipped")
    assert page.locator("#hand .card").count() == 5
    assert page.locator(".seat").count() == 4
    page.check("#hint-toggle")
    page.wait_for_selector("#hint:has-text('%')", timeout=WAIT)
    assert page.locator("#hand .card .prob").count() == page.locator("#hand .card.legal").count()
    page.screenshot(path=str(SHOTS / "spar4-start.png"))

    illegal_tried = typed = False
    for hands in range(1, HANDS_FOR_A_CLOSED_CARD + 1):  # noqa: B007 (read after the loop)
        while phase(page) != "over":
            dim = page.locator("#hand .card.dim")
            if (
                dim.count() and not illegal_tried
            ):  # a dimmed card does nothing; typed, it is refused
                before = turn(page)
                dim.first.click(force=True)
                page.wait_for_timeout(300)
                assert turn(page) == before
                name = dim.first.get_attribute("data-card")
                page.fill("#typed", name)
                page.press("#typed", "Enter")
                page.wait_for_selector("#message:has-text('must follow suit')", timeout=WAIT)
                assert turn(page) == before
                illegal_tried = True
            if page.evaluate(
                "document.body.dataset.phase"
            ) == "play" and "trick 3" in page.inner_text("#headline"):
                page.screenshot(path=str(SHOTS / "spar4-middle.png"))
            if not typed:  # the keyboard: a legal card's number, then Enter
                before = turn(page)
                page.fill("#typed", "1")
                page.press("#typed", "Enter")
                moved(page, before)
                typed = True
                continue
            play_first_legal(page)
        if illegal_tried:
            break
        next_hand(page)
    assert illegal_tried, "no trick of these hands had a card that could not be played"
    summary = page.locator("#summary")
    assert summary.is_visible()
    assert "over:" in page.inner_text("#summary-head")
    assert page.locator("#dealt tbody tr").count() == 4
    assert page.locator("#chance-head").is_visible()  # spar to 10: the match goes on
    chances = page.locator("#dealt td.chance").all_inner_texts()
    assert len(chances) == 4 and abs(sum(int(c.rstrip("%")) for c in chances) - 100) <= 4
    assert "were all seats equal players" in page.inner_text("#chance-note")
    page.screenshot(path=str(SHOTS / "spar4-end.png"))

    with page.expect_download() as download:
        page.click("#records")
    records = tmp_path / "records.jsonl"
    download.value.save_as(records)
    lines = records.read_text().splitlines()
    assert len(lines) == hands
    replayed = subprocess.run([SPAR, "replay", str(records)], capture_output=True, text=True)
    assert replayed.returncode == 0, replayed.stderr
    assert '"winner"' in replayed.stdout

    before = turn(page)
    page.keyboard.press("Enter")  # the next hand, from the keyboard
    moved(page, before)
    assert phase(page) != "over" and not summary.is_visible()


def test_the_table_says_whose_turn_it_is_why_a_card_is_closed_and_how_a_hand_scored(page):
    SHOTS.mkdir(parents=True, exist_ok=True)
    start(page, "spar", 4, "random")
    assert page.inner_text("#tagline") == "only the last trick counts"
    explained = False
    for _ in range(HANDS_FOR_A_CLOSED_CARD):  # the deal depends on the games made before
        while phase(page) != "over":
            assert page.locator("#your-turn").is_visible()  # the page waits for the person only
            mine = page.locator(".seat.me .badge.turn")
            assert mine.inner_text() == "your turn" and page.locator(".badge.turn").count() == 1
            dim = page.locator("#hand .card.dim")
            if dim.count() and not explained:
                card = dim.first
                reason = card.get_attribute("title")
                assert reason.startswith("you must follow suit: ")
                assert reason in card.get_attribute("aria-label")  # for screen readers too
                card.focus()  # from the keyboard: the reason is written under the hand
                page.wait_for_selector("#why:has-text('you must follow suit')", timeout=WAIT)
                page.screenshot(path=str(SHOTS / "spar4-why.png"))
                explained = True
            play_first_legal(page)
        if explained:
            break
        next_hand(page)
    assert explained, "no trick of these hands had a card that could not be played"
    why = page.inner_text("#why-points")
    assert why.startswith("why ") and "point" in why
    payoffs = page.locator("#dealt td.why").all_inner_texts()
    assert len(payoffs) == 4 and sum("pays " in p for p in payoffs) == 3
    assert "score" in page.inner_text("#session-line")
    page.screenshot(path=str(SHOTS / "spar4-scored.png"))
    page.click("#rules-head")
    rules = page.inner_text("#rules-body")
    assert "3 with a 6, 2 with a 7" in rules and "must follow the suit led" in rules
    page.select_option("#variant", "sipa")  # the subtitle follows the variant
    assert page.inner_text("#tagline") == "the last three tricks count"
    start(page, "sipa", 3, "random")
    typing = page.inner_text("#typed-label")
    assert typing.startswith("Type a card (") and "7♥" in typing  # a card of Sipa's deck
    assert "6" not in typing  # Sipa has no 6
    assert "2 with a 7" in page.inner_text("#rules-body")


def test_a_whole_hand_in_every_preset_at_two_player_counts(page):
    SHOTS.mkdir(parents=True, exist_ok=True)
    offer = page.evaluate("fetch('/api/offer').then(r => r.json())")
    played = []
    for variant in offer["variants"]:
        counts = variant["players"]
        default = variant["default_players"]
        two = {counts[0], default if default != counts[0] else counts[-1]}  # one if only one
        for players in sorted(two):
            start(page, variant["name"], players, "random")
            assert page.locator(".seat").count() == players
            while phase(page) != "over":
                play_first_legal(page)
            assert page.locator("#summary").is_visible()
            assert page.locator("#dealt tbody tr").count() == players
            page.screenshot(path=str(SHOTS / f"{variant['name']}-{players}-end.png"))
            played.append((variant["name"], players))
    assert len({v for v, _ in played}) == len(offer["variants"])
    assert len(played) == sum(min(2, len(v["players"])) for v in offer["variants"])
    assert sum(len(v["players"]) > 1 for v in offer["variants"]) >= 9


def test_a_whole_hand_with_the_weak_hand_exchange(browser):
    """The keep/exchange buttons, on a server whose games all have the exchange."""
    with own_server(browser, "--set", "weak_hand_exchange=true") as page:
        start(page, "spar", 3, "random")
        decided = False
        while phase(page) != "over":
            if phase(page) == "exchange" and page.locator("#choices button").count():
                assert page.locator("#hand .card.legal").count() == 0  # no card in the exchange
                assert page.locator("#choices button[data-action=keep]").count() == 1
                decided = True
            play_first_legal(page)
        assert decided
        assert page.locator("#dealt tbody tr").count() == 3
        page.screenshot(path=str(SHOTS / "spar-3-exchange-end.png"))


def test_a_whole_hand_against_search_the_strongest_bot(browser):
    """The lobby offers search, thinking at most --think seconds a move; a hand against it."""
    with own_server(browser, "--think", "0.2") as page:
        label = page.inner_text("#opponents option[value=search]")
        assert label == "search: the strongest bot (up to 0.2 s a move)"
        start(page, "spar", 3, "search")
        while phase(page) != "over":
            before = turn(page)
            page.locator("#hand .card.legal").first.click()
            # the first decisions may load search's compiled kernels: a longer wait
            page.wait_for_function(f"Number(document.body.dataset.turn) > {before}",
                                   timeout=6 * WAIT)  # fmt: skip
        assert "search" in page.inner_text("#lineup")
        assert page.locator("#dealt tbody tr").count() == 3


DOCS = Path(__file__).resolve().parents[1] / "docs"


def test_the_review_after_a_hand_steps_through_its_tricks_and_fits_a_phone(browser, server):
    """The review button after a hand: every trick in turn, the search's values and verdicts;
    on a phone (390x844) with no sideways scroll, and in French for a French browser.
    ``SPAR_DOCS_SHOTS=1`` also saves the manual's screenshots (docs/review*.png)."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    for locale, size, shot in (("en-GB", (1100, 860), "review.png"),
                               ("fr-FR", (390, 844), "review-fr.png")):  # fmt: skip
        context = browser.new_context(viewport={"width": size[0], "height": size[1]},
                                      locale=locale, bypass_csp=True)  # fmt: skip
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))  # noqa: B023 (used in the loop)
        page.goto(server)
        page.wait_for_selector("#opponents option", state="attached")
        start(page, "spar", 2, "random")
        while phase(page) != "over":
            play_first_legal(page)
        button = page.locator("#review-open")
        assert button.is_visible()
        assert button.inner_text() == ("Review this hand" if locale == "en-GB"
                                       else "Revoir cette main")  # fmt: skip
        button.click()
        page.wait_for_selector("#review-trick .verdict", timeout=4 * WAIT)
        assert not page.locator("#summary").is_visible()  # the review takes the table's place
        seen, mistakes = [], []
        while True:
            seen.append(page.inner_text("#review-where"))
            verdict = page.locator("#review-trick .verdict")
            if "mistake" in (verdict.get_attribute("class") or ""):
                mistakes.append(len(seen) - 1)
            rows = page.locator("#review-trick tr.played")
            assert rows.count() == 1 or page.locator(".review-cards").count() == 0  # forced
            if page.locator("#review-next").is_disabled():
                break
            page.click("#review-next")
        word = "trick" if locale == "en-GB" else "pli"
        assert seen == [f"{word} {k} {'of' if word == 'trick' else 'sur'} 5" for k in range(1, 6)]
        summary = page.inner_text("#review-summary")
        assert (
            (str(len(mistakes)) in summary)
            if mistakes
            else ("no mistake" in summary or "aucune erreur" in summary)
        )
        wide = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
        assert wide[0] <= wide[1], wide  # no sideways scroll, on a phone too
        page.keyboard.press("ArrowLeft")  # the keyboard steps back through the tricks
        assert page.inner_text("#review-where") == seen[-2]
        at, target = len(seen) - 2, mistakes[0] if mistakes else 0  # the first mistake, if any
        for _ in range(abs(target - at)):
            page.keyboard.press("ArrowLeft" if target < at else "ArrowRight")
        assert page.inner_text("#review-where") == seen[target]
        page.click("#report-open")  # the session report: the hands played so far, by kind
        reviewed = "1 hand reviewed: " if locale == "en-GB" else "1 main revue\u00a0: "
        page.wait_for_function(f"document.querySelector('#report-summary').textContent"
                               f".startsWith({reviewed!r})", timeout=4 * WAIT)  # fmt: skip
        wide = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
        assert wide[0] <= wide[1], wide
        page.locator("#review").screenshot(path=str(SHOTS / shot))
        if os.environ.get("SPAR_DOCS_SHOTS") == "1":
            page.locator("#review").screenshot(path=str(DOCS / shot))
        page.keyboard.press("Escape")
        assert page.locator("#summary").is_visible() and not page.locator("#review").is_visible()
        context.close()
        assert not errors, errors
