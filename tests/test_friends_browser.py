"""A table of friends in a real browser (Debian's headless Chromium, as
``tests/test_web_browser.py`` drives it): two people, each in a browser context of their own,
at one 4-player table with two bots, every move a click on the page.

The maker makes the table from the page's "Play with friends" and copies the invitation; the
friend opens it on a phone, in French, sees who invites them and to what, and takes a seat;
the maker starts the match early (the free seat is a bot's). They play a whole hand: the
friend closes its page mid-hand and comes back through its seat link on another "device"
(its hand as it was, its turn still its turn); the maker waits past the turn timer and both
pages say that the bot played for them. Neither page ever shows the other's cards in its
hand, the hints, the reviews and the records are not offered, and the hand's record says who
sat where. At the match's end, "Play another match" deals a new one. And a page whose server
stops says so, tries again with a growing wait, and carries on once the server, started again
on its --state folder, takes the table up.

The pages run under the server's own Content-Security-Policy (no ``bypass_csp``), so the
WebSocket is checked against it too. ``SPAR_DOCS_SHOTS=1`` also writes the manual's screenshots
(``docs/friends-lobby.png``, ``docs/friends-fr.png``); both are kept in ``runs/browser/``.
"""

from __future__ import annotations

import json
import os
import re
import socket
import time

import pytest
from helpers.words import english_in
from test_web_browser import DOCS, SHOTS, WAIT, console_error, serve, stop
from test_web_people import visible_text

pytestmark = pytest.mark.xdist_group("browser")  # one worker: one server, one browser

DESK = {"width": 1100, "height": 860}
PHONE = {"width": 390, "height": 844}
TIMER = 5  # seconds: the shortest turn timer the server allows (Limits.shortest_timer)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    state = tmp_path_factory.mktemp("state")
    process, url = serve("--state", str(state), "--set", "end=one_hand")
    yield url, state
    stop(process)


class Person:
    """One person's browser: a context of its own (its own localStorage), its page, and the
    errors its pages logged."""

    def __init__(self, browser, url: str, viewport: dict[str, int], locale: str) -> None:
        self.browser, self.viewport, self.locale = browser, viewport, locale
        self.errors: list[str] = []
        self.context = self.page = None
        self.open(url)

    def open(self, url: str) -> None:
        """A new context (another device) at ``url``, its offer loaded."""
        self.context = self.browser.new_context(viewport=self.viewport, locale=self.locale)
        self.page = page = self.context.new_page()
        page.on("pageerror", lambda e: self.errors.append(str(e)))
        page.on("console", lambda m: self.errors.append(m.text) if console_error(m) else None)
        page.goto(url)
        page.wait_for_selector("#opponents option", state="attached")

    def close(self) -> None:
        self.context.close()

    def turn(self) -> int:
        return int(self.page.get_attribute("body", "data-turn") or -1)

    def hand(self) -> list[str]:
        return [c.get_attribute("data-card") for c in self.page.locator("#hand .card").all()]

    def my_turn(self) -> bool:
        return self.page.locator("#your-turn").is_visible()

    def phase(self) -> str:
        return self.page.get_attribute("body", "data-phase") or ""

    def fits(self) -> None:
        width, inner = self.page.evaluate(
            "[document.documentElement.scrollWidth, window.innerWidth]"
        )
        assert width <= inner, f"the page scrolls sideways: {width} px wide on {inner} px"


def until(check, what: str, seconds: float = WAIT / 1000) -> None:
    """Wait for ``check()`` (the pages show the server's messages as they come)."""
    end = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < end, f"waited {seconds:g} s for {what}"
        time.sleep(0.05)


def settled(people: dict[int, Person]) -> None:
    """Every page shows the table at the same move."""
    until(lambda: len({p.turn() for p in people.values()}) == 1 and people[0].turn() >= 0,
          "every page to show the same move")  # fmt: skip


def click_card(person: Person) -> None:
    before = person.turn()
    person.page.locator("#hand .card.legal").first.click()
    until(lambda: person.turn() > before, "the move to come back")


def keep_shot(page, name: str) -> None:
    """The screen as it is, kept in runs/browser (and with SPAR_DOCS_SHOTS=1 in docs/)."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / name))
    if os.environ.get("SPAR_DOCS_SHOTS") == "1":
        page.screenshot(path=str(DOCS / name))


def seat_texts(page) -> list[str]:
    return [" ".join(li.inner_text().split()) for li in page.locator("#lobby-seats li").all()]


def test_two_people_and_two_bots_play_a_hand_through_their_pages(browser, server):
    url, state = server
    maker = Person(browser, url, DESK, "en-GB")
    maker.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page = maker.page
    page.click("#friends summary")
    page.select_option("#variant", "spar")
    page.select_option("#players", "4")
    page.select_option("#opponents", "random")
    assert page.locator("#people option").all_inner_texts() == ["2", "3", "4"]
    assert page.input_value("#timer") == "60"  # the default
    page.select_option("#people", "3")
    page.select_option("#timer", str(TIMER))
    page.fill("#my-name", "Ama")
    page.click("#make-table")
    page.wait_for_selector("#lobby-seats li", timeout=WAIT)
    assert seat_texts(page) == ["seat 0 Ama (you)", "seat 1 free", "seat 2 free", "seat 3 a bot"]
    invitation = page.input_value("#invite-link")
    table = re.fullmatch(re.escape(url) + r"#table=([\w-]+)", invitation)[1]
    assert page.url == invitation  # the address bar holds no key: it can be shared
    assert "reaches this machine only" in page.inner_text("#invite-note")  # at 127.0.0.1
    seat_link = page.input_value("#seat-link")
    assert seat_link.startswith(invitation + "&key=")
    assert page.locator("#seat-link-box").is_visible() and page.is_visible("#start-now")
    page.click("#invite-row button.copy")
    page.wait_for_selector("#invite-row button.copy:has-text('Copied')", timeout=WAIT)
    assert page.evaluate("navigator.clipboard.readText()") == invitation

    friend = Person(browser, invitation, PHONE, "fr-FR")
    fpage = friend.page
    fpage.wait_for_selector("#take-seat:not([hidden])", timeout=WAIT)
    assert fpage.inner_text("#lobby-head") == "Ama vous invite à cette table"
    assert fpage.inner_text("#lobby-game") == "Une table d'amis\u00a0: Spar, 4 joueurs"
    assert f"; {TIMER} s par coup" in fpage.inner_text("#lobby-about")
    friend.fits()
    fpage.fill("#friend-name", "Kofi")
    fpage.click("#take")
    fpage.wait_for_selector("#lobby-seats li.me", timeout=WAIT)
    assert seat_texts(fpage)[1] == "siège 1 Kofi (vous)"
    friend_link = fpage.input_value("#seat-link")
    assert friend_link.startswith(invitation + "&key=") and friend_link != seat_link
    friend.fits()
    assert fpage.is_hidden("#start-now")  # only the maker starts early
    page.wait_for_selector("#lobby-seats li[data-seat='1']:has-text('Kofi')", timeout=WAIT)
    assert seat_texts(page)[2] == "seat 2 free"
    page.locator("#invite-link").evaluate(
        "(link) => { link.setSelectionRange(0, 0); link.blur(); }"
    )
    keep_shot(page, "friends-lobby.png")
    page.click("#start-now")

    people = {0: maker, 1: friend}
    for person in people.values():
        person.page.wait_for_selector("#table:not([hidden])", timeout=WAIT)
        assert person.page.is_hidden("#hint-switch") and person.page.is_hidden("#records")
    assert "Kofi" in page.inner_text(".seat[data-seat='1'] .name")
    assert "Ama" in fpage.inner_text(".seat[data-seat='0'] .name")
    assert page.inner_text("#lineup") == "a table of friends; the bots: random"

    shown: dict[int, list[set[str]]] = {0: [], 1: []}  # each hand each page showed
    came_back = waited = refused = False
    while True:
        settled(people)
        hands = {seat: person.hand() for seat, person in people.items()}
        assert not set(hands[0]) & set(hands[1]), hands  # never the other's cards
        for seat, cards in hands.items():
            shown[seat].append(set(cards))
        if maker.phase() == "over":
            break
        to_move = [seat for seat, person in people.items() if person.my_turn()]
        assert len(to_move) == 1, to_move  # the bots move on the server: a person is to move
        mover, other = people[to_move[0]], people[1 - to_move[0]]
        if not refused:  # a move out of turn: the server's error, in the message line
            before = other.turn()
            other.page.fill("#typed", "1")
            other.page.press("#typed", "Enter")
            other.page.wait_for_selector("#message:not(:empty)", timeout=WAIT)
            assert other.turn() == before
            assert other.page.inner_text("#message") in (
                "it is not your turn: wait for the others",
                "ce n'est pas votre tour\u00a0: attendez les autres",
            )
            refused = True
        if mover is friend and not came_back and len(hands[1]) == 4:
            # mid-hand, on its turn: the page is closed; its seat link opens it on another device
            friend.close()
            friend.open(friend_link)
            fpage = friend.page
            fpage.wait_for_selector("#table:not([hidden])", timeout=WAIT)
            assert friend.hand() == hands[1] and friend.my_turn()  # as it was, still its turn
            assert fpage.url == invitation  # the key left the address bar
            fpage.locator("#mine").evaluate("(mine) => mine.scrollIntoView({block: 'end'})")
            clock = fpage.locator("#friends-clock").bounding_box()
            assert 0 <= clock["y"] < PHONE["height"] / 4  # the timer in sight, at the top
            keep_shot(fpage, "friends-fr.png")
            friend.fits()
            assert not english_in(visible_text(fpage)), english_in(visible_text(fpage))
            came_back = True
            continue
        if mover is maker and not waited and len(hands[0]) == 3:
            # away past the timer: the bot plays for the maker, and both pages say so
            clock = page.inner_text("#friends-clock")
            assert re.fullmatch(rf"your turn: [0-{TIMER}] s left", clock), clock
            clock = friend.page.inner_text("#friends-clock")
            assert re.fullmatch(rf"à jouer\u00a0: Ama, encore [0-{TIMER}] s", clock), clock
            before = maker.turn()
            until(lambda: maker.turn() > before, "the turn timer", 3 * TIMER)  # noqa: B023
            page.wait_for_selector("#happened:has-text('you were away: the bot played for you')",
                                   timeout=WAIT)  # fmt: skip
            friend.page.wait_for_selector("#happened:has-text('Ama était absent')", timeout=WAIT)
            assert "le bot a joué à sa place" in friend.page.inner_text("#happened")
            waited = True
            continue
        click_card(mover)
    assert came_back and waited

    for person in people.values():  # the hand's end, and the match's: one hand decides
        p = person.page
        assert p.locator("#summary").is_visible() and p.locator("#dealt tbody tr").count() == 4
        assert p.is_visible("#again") and p.is_hidden("#next") and p.is_hidden("#review-open")
        assert p.is_hidden("#records") and p.is_hidden("#hint-switch")
    lines = (state / "records" / f"{table}-0.jsonl").read_text().splitlines()
    (record,) = [json.loads(line) for line in lines]
    seats = record["seats"]
    assert seats[0]["person"] == "Ama" and len(seats[0]["stood_in"]) == 1
    assert seats[1:] == [{"person": "Kofi"}, {"bot": "random"}, {"bot": "random"}]
    for seat, hands_shown in shown.items():
        dealt = set(record["hands"][seat])
        assert hands_shown[0] == dealt and all(cards <= dealt for cards in hands_shown)

    friend.page.click("#again")  # another match, asked from either page
    for person in people.values():
        person.page.wait_for_selector("#again", state="hidden", timeout=WAIT)
        assert person.phase() in ("play", "exchange") and person.page.is_hidden("#summary")
    settled(people)
    assert not set(maker.hand()) & set(friend.hand())
    for person in people.values():
        person.close()
        assert not person.errors, person.errors


def test_a_page_whose_server_restarts_connects_again_and_carries_on(browser, tmp_path):
    """The connection drops (the server stops); the page says so and tries again, waiting
    longer each time, until the server, started again on its --state folder, sends the table
    as it was."""
    with socket.socket() as probe:  # a free port, for the server and its restart
        probe.bind(("127.0.0.1", 0))
        port = str(probe.getsockname()[1])
    options = ("--state", str(tmp_path), "--port", port, "--set", "end=one_hand")
    process, url = serve(*options)
    try:
        maker = Person(browser, url, DESK, "en-GB")
        page = maker.page
        page.click("#friends summary")
        page.select_option("#players", "3")
        page.select_option("#opponents", "random")
        page.fill("#my-name", "Ama")
        page.click("#make-table")
        page.wait_for_selector("#start-now:not([hidden])", timeout=WAIT)
        page.click("#start-now")
        page.wait_for_selector("#table:not([hidden])", timeout=WAIT)
        if maker.my_turn():
            click_card(maker)
        before, hand = maker.turn(), maker.hand()
    finally:
        stop(process)
    lost = "#message:has-text('the connection to the table was lost: trying again in {} s')"
    page.wait_for_selector(lost.format(1), timeout=WAIT)
    page.wait_for_selector(lost.format(2), timeout=WAIT)  # a longer wait after each try
    process, _ = serve(*options)
    try:
        page.wait_for_selector("#message:empty", timeout=3 * WAIT)  # the view came again
        assert maker.turn() == before and maker.hand() == hand
        until(maker.my_turn, "the maker's turn")  # the bot moved; the maker plays on
        click_card(maker)
        maker.close()
        refused = [e for e in maker.errors if "ERR_CONNECTION_REFUSED" in e]  # the tries
        assert refused and len(refused) == len(maker.errors), maker.errors
    finally:
        stop(process)
