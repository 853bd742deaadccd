"""The duplicate challenge in a real browser (Debian's headless Chromium, as
``tests/test_web_browser.py`` drives it): a hand played on a phone's screen (390x844) with the
seed typed in the new-game form, both results shown at its end and nothing scrolling sideways;
a friend with the same seed dealt the same cards; a bad seed refused on the page; the
challenge's panel and the hand's review in French, with no English word of ours.

The screenshots of the manual's "Duplicate challenge" section (``docs/duplicate-en.png``,
``docs/duplicate-fr.png``) are the ones this test keeps in ``runs/browser/``;
``SPAR_DOCS_SHOTS=1`` also writes them into ``docs/``.
"""

from __future__ import annotations

import os
import re

import pytest
from helpers.words import english_in
from test_web_browser import DOCS, SHOTS, WAIT, console_error, serve, stop
from test_web_people import visible_text

pytestmark = pytest.mark.xdist_group("browser")  # one worker: one server, one browser

PHONE = {"width": 390, "height": 844}
SEED = "42"
SPEC = r"\b[a-z]+:[\w.,=/-]+"  # an agent spec such as onnx:match, a name and not a word


def keep_shot(page, name: str) -> None:
    """The phone's screen scrolled to the duplicate panel, kept in runs/browser (and, with
    ``SPAR_DOCS_SHOTS=1``, as the manual's docs/NAME)."""
    page.locator("#duplicate-board").scroll_into_view_if_needed()
    page.evaluate("window.scrollBy(0, 120)")
    page.screenshot(path=str(SHOTS / name))
    if os.environ.get("SPAR_DOCS_SHOTS") == "1":
        page.screenshot(path=str(DOCS / name))


@pytest.fixture(scope="module")
def server():
    process, url = serve("--set", "end=hands:3")
    yield url
    stop(process)


def open_page(browser, server, locale: str = "en-US"):
    context = browser.new_context(viewport=PHONE, locale=locale, bypass_csp=True)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if console_error(m) else None)
    page.goto(server)
    page.wait_for_selector("#opponents option", state="attached")
    return context, page, errors


def fits(page) -> None:
    """Nothing on the page is wider than the phone's screen."""
    width, inner = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert width <= inner, f"the page scrolls sideways: {width} px wide on a {inner} px screen"


def start_duplicate(page, seed: str) -> None:
    page.select_option("#opponents", "heuristic")
    page.fill("#duplicate-seed", seed)
    assert page.is_checked("#duplicate")  # typing a seed turns the challenge on
    page.click("#start")
    page.wait_for_selector("#table:not([hidden])", timeout=WAIT)
    page.wait_for_function("document.body.dataset.turn === '0'", timeout=WAIT)


def play_hand(page) -> None:
    """Click the first legal card (keep in an exchange) until the hand is over."""
    while page.evaluate("document.body.dataset.phase") != "over":
        before = int(page.evaluate("document.body.dataset.turn"))
        choice = page.locator("#choices button")
        (choice.first if choice.count() else page.locator("#hand .card.legal").first).click()
        page.wait_for_function(f"Number(document.body.dataset.turn) > {before}", timeout=WAIT)
        fits(page)


def dealt(page) -> list[str]:
    return page.locator("#dealt td.cards").all_inner_texts()


def test_a_duplicate_hand_on_a_phone_then_a_friend_with_the_same_seed(browser, server):
    SHOTS.mkdir(parents=True, exist_ok=True)
    context, page, errors = open_page(browser, server)
    assert page.inner_text("label:has(#duplicate)").strip() == "Duplicate challenge"
    fits(page)
    start_duplicate(page, SEED)
    board = page.locator("#duplicate-board")
    assert board.is_visible() and page.inner_text("#duplicate-title") == "Duplicate challenge"
    assert "the bot in your seat: heuristic" in page.inner_text("#duplicate-bot")
    assert "seed 42" in page.inner_text("#duplicate-again")
    fits(page)
    play_hand(page)
    last = page.inner_text("#duplicate-last")
    assert last.startswith("hand 1: you ") and ", the bot in your seat " in last
    row = page.locator("#duplicate-hands tbody tr")
    assert row.count() == 1
    you = page.locator("#dealt tbody tr").first.locator("td").nth(2).inner_text()
    assert int(row.first.get_attribute("data-you")) == int(you)  # the summary's payoff
    bot = int(row.first.get_attribute("data-bot"))
    assert last.endswith(f"the bot in your seat {bot:+d}".replace("+0", "0"))
    assert page.inner_text("#duplicate-total").startswith("in all: you ")
    fits(page)
    keep_shot(page, "duplicate-en.png")
    mine = dealt(page)
    assert len(mine) == 4
    context.close()
    assert not errors, errors

    context, friend, errors = open_page(browser, server)  # another tab, another game
    start_duplicate(friend, SEED)
    while True:  # the friend plays the last legal card: other plays, the same cards
        if friend.evaluate("document.body.dataset.phase") == "over":
            break
        before = int(friend.evaluate("document.body.dataset.turn"))
        choice = friend.locator("#choices button")
        (choice.last if choice.count() else friend.locator("#hand .card.legal").last).click()
        friend.wait_for_function(f"Number(document.body.dataset.turn) > {before}", timeout=WAIT)
    assert dealt(friend) == mine
    assert friend.locator("#duplicate-hands tbody tr").count() == 1
    fits(friend)
    context.close()
    assert not errors, errors


def test_a_bad_seed_is_refused_and_the_panel_speaks_french(browser, server):
    SHOTS.mkdir(parents=True, exist_ok=True)
    context, page, _ = open_page(browser, server)
    page.fill("#duplicate-seed", "4x2")
    page.click("#start")
    page.wait_for_selector("#form-message:has-text('the duplicate seed must be a whole number')",
                           timeout=WAIT)  # fmt: skip
    assert page.locator("#table").is_hidden()  # no game was made
    context.close()

    context, page, errors = open_page(browser, server, locale="fr-FR")
    assert page.inner_text("label:has(#duplicate)").strip() == "Défi duplicate"
    assert page.get_attribute("#duplicate-seed", "placeholder") == "nouvelle"
    start_duplicate(page, SEED)
    play_hand(page)
    assert page.inner_text("#duplicate-title") == "Défi duplicate"
    assert page.inner_text("#duplicate-last").startswith("main 1\u00a0: vous ")
    assert page.inner_text("#duplicate-total").startswith("au total\u00a0: vous ")
    assert "graine 42" in page.inner_text("#duplicate-again")
    keep_shot(page, "duplicate-fr.png")  # the whole page in French, the panel included
    assert not english_in(visible_text(page)), sorted(english_in(visible_text(page)))
    page.click("#review-open")  # the hand's review, in French too
    page.wait_for_selector("#review-trick .verdict", timeout=4 * WAIT)
    assert page.inner_text("#review-title") == "Revue de la main"
    said = re.sub(SPEC, "", visible_text(page))  # the review names its bot: onnx:match
    assert not english_in(said), sorted(english_in(said))
    context.close()
    assert not errors, errors
