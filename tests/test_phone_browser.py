"""The web table on a phone (390x844), in English and in French, in a real browser.

During a game the new-game form folds behind a button, and the hand is in view without
scrolling; opened again, the form's choices are not clipped. A card typed in the box reads
with the page's language (in French, C is cœur: ``10c`` is 10 de cœur), and a word that could
be two cards (``qc``) is refused. The review's table of cards fits the screen with its
headings on three lines at most; the welcome text keeps side margins. An invitation to a
table of friends comes before any form, and at the table the sticky turn bar never covers
what the page scrolls to.

Screenshots are kept in ``runs/browser/phone-*.png`` (ignored by git).
"""

from __future__ import annotations

import pytest
from test_web_browser import SHOTS, WAIT, phase, serve, start, stop, turn

pytestmark = pytest.mark.xdist_group("browser")  # one worker: one server, one browser

PHONE = {"width": 390, "height": 844}
LOCALES = {"en": "en-GB", "fr": "fr-FR"}
# a card's code as the page's language types it: the rank letter, then the suit letter
RANK = {"en": {}, "fr": {"K": "r", "Q": "d", "J": "v"}}
SUIT = {"en": {"S": "s", "H": "h", "D": "d", "C": "c"}, "fr": {"S": "p", "H": "c", "D": "k", "C": "t"}}  # fmt: skip
SYMBOL = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}


@pytest.fixture(scope="module")
def server():
    SHOTS.mkdir(parents=True, exist_ok=True)
    process, url = serve("--set", "end=one_hand")
    yield url
    stop(process)


def phone(browser, url: str, language: str):
    context = browser.new_context(viewport=PHONE, locale=LOCALES[language], bypass_csp=True)
    page = context.new_page()
    page.goto(url)
    page.wait_for_selector("#opponents option", state="attached")
    return context, page


def box(page, selector: str) -> dict[str, float]:
    """Where ``selector`` is on the page (its top and bottom from the page's top)."""
    return page.evaluate(
        """(s) => { const r = document.querySelector(s).getBoundingClientRect();
                    return {top: r.top + scrollY, bottom: r.bottom + scrollY,
                            left: r.left, right: r.right, height: r.height}; }""",
        selector,
    )


def fits(page) -> None:
    width, inner = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert width <= inner, f"the page scrolls sideways: {width} px wide on {inner} px"


def code(card: str, language: str) -> str:
    rank, suit = card[:-1], card[-1]
    return RANK[language].get(rank, rank.lower()) + SUIT[language][suit]


def typed(page, text: str) -> None:
    page.fill("#typed", text)
    page.press("#typed", "Enter")


@pytest.mark.parametrize("language", ["en", "fr"])
def test_a_phone_game_shows_the_hand_reads_typed_cards_and_fits_the_review(
    browser, server, language
):
    context, page = phone(browser, server, language)
    try:
        welcome = box(page, "#welcome p")
        assert welcome["left"] >= 12 and welcome["right"] <= PHONE["width"] - 12, welcome
        start(page, "spar", 4, "random")
        assert page.is_hidden("#new-game") and page.is_hidden("#friends")  # folded away
        assert page.evaluate("scrollY") == 0
        hand = box(page, "#hand")
        assert hand["height"] > 0 and hand["bottom"] <= PHONE["height"], hand  # no scrolling
        fits(page)
        page.screenshot(path=str(SHOTS / f"phone-game-{language}.png"))
        page.click("#form-toggle")  # the form comes back, its choices at full width
        assert page.is_visible("#new-game")
        pace = box(page, "#pace")
        assert pace["right"] <= PHONE["width"] and pace["right"] - pace["left"] >= 300, pace
        page.click("#form-toggle")
        assert page.is_hidden("#new-game")

        page.wait_for_selector("#your-turn:not([hidden])", timeout=WAIT)
        ambiguous, refusal = ("qc", "peut être") if language == "fr" else ("zz", "not a card")
        before = turn(page)
        typed(page, ambiguous)  # an English Q with the C of cœur or of clubs: refused
        page.wait_for_selector("#message:not(:empty)", timeout=WAIT)
        assert refusal in page.inner_text("#message") and turn(page) == before
        hearts = 0  # cards of hearts typed with the language's letter and played
        while phase(page) != "over":
            legal = [c.get_attribute("data-card") for c in page.locator("#hand .card.legal").all()]
            mine = page.locator("#your-turn").is_visible()
            heart = [c for c in legal if c.endswith("H")] if mine else []
            before = turn(page)
            if heart:
                card = "10H" if "10H" in heart else heart[0]
                typed(page, code(card, language))  # 10c in French, 10h in English
                page.wait_for_function(f"Number(document.body.dataset.turn) > {before}", timeout=WAIT)  # fmt: skip
                held = [c.get_attribute("data-card") for c in page.locator("#hand .card").all()]
                assert card not in held, (card, held)  # that very card was played
                label = RANK["fr"].get(card[:-1], card[:-1]).upper() if language == "fr" else card[:-1]  # fmt: skip
                assert label + SYMBOL["H"] in page.inner_text("#happened")
                hearts += 1
            elif mine:  # a click plays the card clicked (sent with its symbol: 10C is 10 de cœur)
                clicked = legal[0]
                page.locator("#hand .card.legal").first.click()
                page.wait_for_function(f"Number(document.body.dataset.turn) > {before}", timeout=WAIT)  # fmt: skip
                held = [c.get_attribute("data-card") for c in page.locator("#hand .card").all()]
                assert clicked not in held, (clicked, held)
            else:
                page.wait_for_function(f"Number(document.body.dataset.turn) > {before} || document.body.dataset.phase === 'over'", timeout=WAIT)  # fmt: skip

        page.click("#review-open")
        page.wait_for_selector("#review-trick .verdict", timeout=4 * WAIT)
        while page.locator("table.review-cards").count() == 0:  # a trick with a choice
            if page.locator("#review-next").is_disabled():
                pytest.fail("no trick of the hand had a choice to review")
            page.click("#review-next")
        review, table = box(page, "#review"), box(page, "table.review-cards")
        assert table["right"] <= review["right"], (table, review)
        line = page.evaluate(
            "parseFloat(getComputedStyle(document.querySelector('table.review-cards th')).lineHeight)"
        )
        head = box(page, "table.review-cards thead")
        assert head["height"] <= 3.5 * line, f"the headings take {head['height'] / line:.1f} lines"
        fits(page)
        page.locator("#review").screenshot(path=str(SHOTS / f"phone-review-{language}.png"))
        assert hearts or language == "en", "no card of hearts was typed in French"
    finally:
        context.close()


@pytest.mark.parametrize("language", ["en", "fr"])
def test_an_invitation_on_a_phone_comes_first_and_the_turn_bar_hides_nothing(
    browser, server, language
):
    context, page = phone(browser, server, language)
    guest = None
    try:
        page.click("#form-toggle") if page.is_visible("#form-toggle") else None
        page.click("#friends summary")
        page.select_option("#variant", "spar")
        page.select_option("#players", "4")
        page.select_option("#opponents", "random")
        page.select_option("#people", "2")
        page.fill("#my-name", "Ama")
        page.click("#make-table")
        page.wait_for_selector("#lobby-seats li", timeout=WAIT)
        invitation = page.input_value("#invite-link")

        guest, friend = phone(browser, invitation, language)
        friend.wait_for_selector("#take-seat:not([hidden])", timeout=WAIT)
        assert "Ama" in friend.inner_text("#lobby-head")
        assert friend.is_hidden("#new-game")  # the invitation first, no form above it
        lobby = box(friend, "#lobby")
        assert lobby["top"] < 150, lobby
        assert box(friend, "#take")["bottom"] <= PHONE["height"]  # "Take a seat" in view
        fits(friend)
        friend.screenshot(path=str(SHOTS / f"phone-invitation-{language}.png"))

        page.click("#start-now")  # the maker plays with the bots in the other seats
        page.wait_for_selector("#table:not([hidden])", timeout=WAIT)
        page.wait_for_selector("#friends-bar:not([hidden])", timeout=WAIT)
        assert box(page, "#hand")["bottom"] <= PHONE["height"]
        page.screenshot(path=str(SHOTS / f"phone-friends-{language}.png"))
        for target in ("#mine h2", ".seat[data-seat='0'] .name", "#status"):
            page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
            page.locator(target).first.evaluate("(e) => e.scrollIntoView()")
            bar = page.evaluate("document.querySelector('#friends-bar').getBoundingClientRect().bottom")  # fmt: skip
            seen = page.evaluate("(s) => document.querySelector(s).getBoundingClientRect().top", target)  # fmt: skip
            assert seen >= bar - 1, f"the turn bar (to {bar}) covers {target} (at {seen})"
        fits(page)
    finally:
        if guest is not None:
            guest.close()
        context.close()
