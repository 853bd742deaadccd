"""``spar serve`` for people, in a real browser (Debian's Chromium, as in test_web_browser):
a French game with no English word of ours, a phone's screen with no sideways scroll, the
focus where the last action was, a finished trick that stays until a tap, and a landing page
that names the variants and shows their rules before a game.

A screenshot of the French table on a phone is kept in ``runs/browser/`` (the manual's is
``docs/play-fr.png``, taken the same way, with the pace "tap" holding a trick).
"""

from __future__ import annotations

import pytest
from helpers.words import english_in, only_english
from test_web_browser import SHOTS, WAIT, console_error, phase, serve, stop, turn

pytestmark = pytest.mark.xdist_group("browser")  # one worker: one server, one browser
PHONE = {"width": 390, "height": 844}


@pytest.fixture(scope="module")
def server():
    process, url = serve()
    yield url
    stop(process)


def open_page(browser, url: str, locale: str = "en-US", viewport=PHONE, pace: str | None = None):
    """A page of the server in a browser of ``locale`` (its Accept-Language and
    navigator.language), its offer loaded; ``pace`` set as the player would have chosen it."""
    context = browser.new_context(viewport=viewport, locale=locale, bypass_csp=True)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if console_error(m) else None)
    page.goto(url)
    if pace is not None:
        page.evaluate(f"localStorage.setItem('spar-pace', '{pace}')")
        page.reload()
    page.wait_for_selector("#opponents option", state="attached")
    page.errors = errors
    return page


def start(page, variant: str = "spar", players: int = 4) -> None:
    page.select_option("#variant", variant)
    page.select_option("#players", str(players))
    page.select_option("#opponents", "random")
    page.click("#start")
    page.wait_for_selector("#table:not([hidden])", timeout=WAIT)


def click_card(page) -> None:
    before = turn(page)
    choice = page.locator("#choices button:not(.closed)")
    (choice if choice.count() else page.locator("#hand .card.legal")).first.click()
    page.wait_for_function(f"Number(document.body.dataset.turn) > {before}", timeout=WAIT)


def visible_text(page) -> str:
    """What the page shows: its text, the labels of the chosen options and the tooltips."""
    return page.evaluate(
        """() => [document.body.innerText,
                  ...[...document.querySelectorAll('[title], [aria-label]')].map(
                      (n) => (n.title || '') + ' ' + (n.getAttribute('aria-label') || ''))
                 ].join('\\n')"""
    )


def sideways(page) -> int:
    """How many pixels the page is wider than the screen (0: no sideways scroll)."""
    return page.evaluate("document.documentElement.scrollWidth - window.innerWidth")


def test_a_french_game_shows_no_english_word_of_ours(browser, server) -> None:
    english = only_english()
    assert {"trick", "follow", "hand", "deal"} <= english  # the check can find what it seeks
    page = open_page(browser, server, locale="fr-FR")
    assert page.evaluate("document.documentElement.lang") == "fr"
    assert page.input_value("#lang") == "fr"  # the switch shows the language it follows
    seen = [visible_text(page)]
    page.click("#read-rules")
    page.wait_for_selector("#rules-body dt", timeout=WAIT)
    seen.append(visible_text(page))
    start(page)
    page.check("#hint-toggle")
    page.wait_for_selector("#hint:has-text('%')", timeout=WAIT)
    hands = 0
    while hands < 2:
        while phase(page) != "over":
            seen.append(visible_text(page))
            click_card(page)
        seen.append(visible_text(page))
        hands += 1
        if hands < 2:
            before = turn(page)
            page.click("#next")
            page.wait_for_function(f"Number(document.body.dataset.turn) > {before}", timeout=WAIT)
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "french-phone-end.png"), full_page=True)
    text = "\n".join(seen)
    assert "pourquoi" in text and "siège" in text and "pli" in text  # it is French
    assert "Tapez une carte (" in text  # the typing label, with the deck's own examples
    assert not english_in(text), sorted(english_in(text))
    assert not page.errors, page.errors
    # the same table in English shows English words: the switch turns it, game and all (on a
    # phone it folds away with the form during a game; the form's button brings it back)
    page.click("#form-toggle")
    page.select_option("#lang", "en")
    page.wait_for_function("document.documentElement.lang === 'en'", timeout=WAIT)
    page.wait_for_selector("#summary-head:has-text('over:')", timeout=WAIT)
    assert english_in(visible_text(page))


def test_a_french_card_is_typed_with_its_french_letter(browser, server) -> None:
    page = open_page(browser, server, locale="fr-FR")
    start(page)
    for _ in range(40):  # hands until a legal R, D or V is in the hand
        if phase(page) == "over":
            before = turn(page)
            page.click("#next")
            page.wait_for_function(f"Number(document.body.dataset.turn) > {before}", timeout=WAIT)
            continue
        cards = page.locator("#hand .card.legal").evaluate_all(
            "(nodes) => nodes.map((n) => n.querySelector('.corner').textContent)"
        )
        french = [c for c in cards if c[0] in "RDV"]
        if french and page.locator("#hand .card").count() >= 3:  # the hand goes on after it
            typed = french[0][0].lower() + {"♣": "c", "♦": "d", "♥": "h", "♠": "s"}[french[0][-1]]
            before = turn(page)
            page.fill("#typed", typed)
            page.press("#typed", "Enter")
            page.wait_for_function(f"Number(document.body.dataset.turn) > {before}", timeout=WAIT)
            assert f"vous jouez {french[0]}" in page.inner_text("#happened")
            assert page.evaluate("document.activeElement.id") == "typed"  # typing goes on there
            return
        click_card(page)
    pytest.fail("no legal R, D or V in 40 moves")


def test_the_phone_layout_has_no_sideways_scroll(browser, server) -> None:
    page = open_page(browser, server, locale="fr-FR")  # French: the longer words
    assert sideways(page) <= 0
    page.click("#read-rules")
    page.wait_for_selector("#rules-body dt", timeout=WAIT)
    assert sideways(page) <= 0
    start(page, "essilfy", 7)  # the most seats, scores in c-notation
    while phase(page) != "over":
        assert sideways(page) <= 0
        click_card(page)
    summary = page.locator("#summary")
    assert page.locator("#dealt td.chance").count() == 7  # the match chances are shown
    assert sideways(page) <= 0
    table, panel = page.locator("#dealt").bounding_box(), summary.bounding_box()
    assert table["x"] + table["width"] <= panel["x"] + panel["width"]  # inside its panel
    assert not page.errors, page.errors


def test_focus_stays_where_the_last_action_was(browser, server) -> None:
    page = open_page(browser, server)
    start(page)
    assert page.evaluate("document.activeElement.id") != "typed"  # no keyboard raised at start
    click_card(page)  # a tap on a card: the text box (a phone's keyboard) stays shut
    assert page.evaluate("document.activeElement.id") != "typed"
    assert page.evaluate("document.activeElement.closest('#hand') !== null")
    before = turn(page)
    page.fill("#typed", "1")
    page.press("#typed", "Enter")
    page.wait_for_function(f"Number(document.body.dataset.turn) > {before}", timeout=WAIT)
    assert page.evaluate("document.activeElement.id") == "typed"


def test_a_finished_trick_stays_until_a_tap(browser, server) -> None:
    page = open_page(browser, server, pace="tap")
    assert page.input_value("#pace") == "tap"
    start(page)
    while not page.locator("#go-on").is_visible():  # the first trick won
        assert phase(page) == "play"
        click_card(page)
    title = page.inner_text("#trick-title")
    assert "wins trick" in title or "win trick" in title
    page.wait_for_timeout(2500)  # a tap, not a clock, ends the pause
    assert page.inner_text("#trick-title") == title
    page.click("#go-on")
    page.wait_for_selector("#go-on", state="hidden")
    assert "led by" in page.inner_text("#trick-title")


def test_the_landing_page_names_each_variant_and_shows_its_rules(browser, server) -> None:
    page = open_page(browser, server)
    names = page.locator("#variant option").all_inner_texts()
    assert "Agram (Mali)" in names and not any("_" in n for n in names)
    assert page.inner_text("#about")  # one line about the variant chosen
    page.select_option("#variant", "sipa")
    assert "three tricks" in page.inner_text("#about")
    for help_text in ("when the session ends", "the last two tricks"):
        assert help_text in page.inner_text("#new-game")  # Session and Last two, in plain words
    page.click("#read-rules")
    page.wait_for_selector("#rules-body dt", timeout=WAIT)
    assert "Sipa (Togo)" in page.inner_text("#rules-head")
    assert "face down" in page.inner_text("#rules-body")
    assert page.locator("#table").is_hidden()  # before any game
