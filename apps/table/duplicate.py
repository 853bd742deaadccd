"""The duplicate challenge: the person's hands are played again by the bot in the person's
seat, on the same cards, and the two results are shown side by side ("you +3, the bot in
your seat +5"), hand by hand and in total. ``spar play --duplicate SEED`` and the web
table's Duplicate field run it on a :class:`DuplicateTable`.

**What "the same deals" means.** Hand ``k`` of a duplicate session is a *board*: deal ``k``
of its seed exactly as ``spar bench`` draws it (:func:`spar_train.tournament.draw_deals`),
the deck order *and* the dealer, fixed by ``(seed, k)`` alone, whatever happened before.
As in duplicate bridge, each board names its own dealer: the winner of a hand does not deal
the next, as in a plain session (``docs/rules.md``). Were it so, the cards each seat holds
in hand ``k`` would depend on who won hand ``k - 1``, and two friends playing one seed would
hold other cards from the first hand their results parted. With boards, everyone who plays
a seed meets the same cards, the same dealer and the same lead in every hand; only the
scores, and so the session's length, are their own.

**The bot in your seat plays each hand from the state you had at its start**: the same
board, the same session scores and hands played, the same seats dealt in (a stones
tie-break). It does not play a session of its own beside yours: its scores would part from
yours, so would its situations (a bot that reads the score plays for another match) and its
session's length, and a hand-by-hand comparison would measure the session's course as much
as the play. From your state, the difference of a hand is the difference of the play alone.
:attr:`DuplicateTable.pairs` holds, for every hand finished, your payoff and the bot's.

**The other seats are unchanged**: the same bots, and in both plays of hand ``k`` they draw
from one generator seeded with ``(seed, k)`` (the bot in your seat from another). So when the
bot in your seat makes the moves you made, every other seat makes the moves it made at your
table, and the two results are equal.

**Equal to ``spar bench``.** Board ``k`` is deal ``k`` of ``spar bench ... --deals K --seed
SEED``, and the rotation of its seating that puts the bot in your seat and the other bots
where they sit at your table plays it as the bot in your seat does. For bots that draw no
random numbers and do not read the session's score (``heuristic``, ``low``, ``high``), the
bot's payoff in every hand equals the bench's for that deal and rotation; for every
deterministic bot (the shipped ones included) in the first hand, which both play from a
fresh session. (The bench's agents draw from one generator per batch, so a bot that samples
plays other samples there.)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from spar_apps.table.human import GAME, HumanTable
from spar_apps.table.messages import DEFAULT_LANGUAGE, Language, say
from spar_env import core
from spar_env.history import History, step_with_history
from spar_env.limits import MAX_SEED
from spar_env.rules import Ruleset
from spar_env.situation import Situation
from spar_train.tournament.seating import DEAL_BLOCK, draw_deals

SEAT_BOT_STREAM = 20  # generator (seed, 20, k): the bot in the person's seat, hand k
OTHERS_STREAM = 21  # generator (seed, 21, k): every other seat's bot, hand k, in both plays
UNUSED_STREAM = 22  # the deals' generator a HumanTable takes: boards draw nothing from it


class SeedError(ValueError):
    """A duplicate seed that is no seed; :meth:`say` says why in a table's language."""

    def __init__(self, got: str) -> None:
        self.got = got
        super().__init__(self.say(DEFAULT_LANGUAGE))

    def say(self, language: Language) -> str:
        most = f"{MAX_SEED:,}".replace(",", "," if language == "en" else "\u202f")  # 9 223 ...
        return say("duplicate.error.seed", language, most=most, got=self.got)


def read_seed(value: object) -> int:
    """``value`` as a duplicate seed: a whole number from 0 to ``MAX_SEED``, as a number or as
    digits typed (spaces around them are fine).

    Raises:
        SeedError: for anything else (a negative or too large number, a fraction, a word).
    """
    if isinstance(value, str):
        text = value.strip()
        if text.isascii() and text.isdecimal() and len(text) <= len(str(MAX_SEED)):
            value = int(text)
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise SeedError(repr(value)[:40])
    if not 0 <= value <= MAX_SEED:
        raise SeedError(str(value)[:40])
    return int(value)


class Boards:
    """The boards of a seed: deal ``k`` as ``spar bench`` draws it, a block at a time."""

    def __init__(self, rules: Ruleset, seed: int) -> None:
        self.rules = rules
        self.seed = read_seed(seed)
        self._blocks: dict[int, tuple[np.ndarray, np.ndarray]] = {}

    def __getitem__(self, k: int) -> tuple[np.ndarray, int]:
        """Board ``k`` (from 0): its deck order (``int8``, top first) and its dealer."""
        block, at = divmod(int(k), DEAL_BLOCK)
        if block not in self._blocks:
            self._blocks = {
                block: draw_deals(self.rules, self.seed, block * DEAL_BLOCK, DEAL_BLOCK)
            }
        decks, dealers = self._blocks[block]
        return decks[at], int(dealers[at])


@dataclass(frozen=True)
class HandPair:
    """One hand's two results, the person's payoff and the bot's in the person's seat."""

    hand: int  # from 1
    you: int
    bot: int


class DuplicateTable(HumanTable):
    """A session of boards (module docstring), each hand played again by ``seat_bot``.

    Args:
        rules: the ruleset.
        seat: the person's seat.
        bots: an agent for every other seat, by seat.
        seat_bot: the agent that plays each hand again in the person's seat.
        seed: the boards' seed (0 to ``MAX_SEED``).
        seat_bot_name: how the page and the terminal name it (its spec).

    Raises:
        ValueError: for a bad seed or seat, or a seat without a bot.
    """

    def __init__(
        self,
        rules: Ruleset,
        seat: int,
        bots: Mapping[int, Any],
        seat_bot: Any,
        seed: int,
        seat_bot_name: str = "",
    ) -> None:
        self.seed = read_seed(seed)
        self.boards = Boards(rules, self.seed)
        self.seat_bot = seat_bot
        self.seat_bot_name = seat_bot_name
        self.pairs: list[HandPair] = []
        self._start: core.State | None = None  # the state at the start of the hand in play
        super().__init__(
            rules, seat, bots, np.random.default_rng([self.seed, UNUSED_STREAM]), self._others(0)
        )

    def next_dealer(self) -> int:
        """The dealer of the next board (not the winner: a board names its dealer)."""
        return self.boards[int(self.state.hands_played[0])][1]

    def results(self) -> list[HandPair]:
        """Every finished hand's pair of results, the hand just over included."""
        self._settle_bot()
        return list(self.pairs)

    def totals(self) -> tuple[int, int]:
        """The person's and the bot's payoffs summed over the finished hands."""
        pairs = self.results()
        return sum(p.you for p in pairs), sum(p.bot for p in pairs)

    # ----- the deals: boards, each with the generator of its hand ---------------------------
    def _first_deal(self) -> core.State:
        deck, dealer = self.boards[0]
        state = core.reset(self.rules, 1, self.deals, decks=deck[None], dealers=np.array([dealer]))
        self._start = state.take(GAME)
        return state

    def _deal_next(self) -> None:
        self._settle_bot()  # before the state moves on: the hand just over is played again
        k = int(self.state.hands_played[0])
        deck, dealer = self.boards[k]
        core.next_hand(self.state, GAME, self.deals, decks=deck[None], dealers=np.array([dealer]))
        self.choices = self._others(k)
        self._start = self.state.take(GAME)

    def _others(self, k: int) -> np.random.Generator:
        return np.random.default_rng([self.seed, OTHERS_STREAM, k])

    def _settle_bot(self) -> None:
        """Play the hand just over again with the bot in the person's seat, once."""
        finished = int(self.state.hands_played[0])
        if not self.hand_over or len(self.pairs) >= finished or self._start is None:
            return
        k = finished - 1
        bots = {**self.bots, self.seat: self.seat_bot}
        others = self._others(k)
        mine = np.random.default_rng([self.seed, SEAT_BOT_STREAM, k])
        payoffs = play_hand(self._start, bots, {s: mine if s == self.seat else others
                                                for s in bots})  # fmt: skip
        self.pairs.append(HandPair(finished, int(self.payoffs[self.seat]), int(payoffs[self.seat])))


def play_hand(
    start: core.State, bots: Mapping[int, Any], rngs: Mapping[int, np.random.Generator]
) -> np.ndarray:
    """``int64 [N]``: each seat's payoff when ``bots`` (by seat, each drawing from its
    generator in ``rngs``) play the hand of ``start`` (a batch of one, at a hand's start,
    left unchanged) to its end."""
    state = start.take(GAME)
    history = History(state)
    payoffs = np.zeros(state.num_players, dtype=np.int64)
    most = state.num_players * (state.tables.hand_size + 1)  # every card, and every exchange
    for _ in range(most):
        if bool(state.terminated[0]):
            return payoffs
        seat = int(state.current_player[0])
        decision = bots[seat].act(Situation(state, history, GAME), rngs[seat])
        step_with_history(state, np.array([int(np.asarray(decision.actions)[0])]), history)
        payoffs += np.rint(state.rewards[0]).astype(np.int64)
    if not bool(state.terminated[0]):
        raise RuntimeError(f"a hand still running after {most} moves")
    return payoffs


# ----- what the tables show ----------------------------------------------------------------
def signed(value: int) -> str:
    """``+3``, ``-1``, ``0``: a payoff as the tables write it."""
    return f"{value:+d}" if value else "0"


def scoreboard(table: DuplicateTable, language: Language = DEFAULT_LANGUAGE) -> dict[str, Any]:
    """The challenge as plain data, its lines in ``language``: what the web view sends and
    the terminal prints.

    ``seed``; ``bot`` (a line naming the bot in your seat); ``hands``: per finished hand
    ``hand``, ``you``, ``bot``, ``line``; ``total``: ``you``, ``bot``, ``line`` and ``verdict``;
    ``again``: how to deal the same hands again.
    """
    pairs = table.results()
    you, bot = table.totals()
    diff = you - bot
    if diff > 0:
        verdict = say("duplicate.ahead", language, diff=diff)
    elif diff < 0:
        verdict = say("duplicate.behind", language, diff=-diff)
    else:
        verdict = say("duplicate.level", language)
    return {
        "seed": table.seed,
        "title": say("duplicate.title", language),
        "bot": say("duplicate.bot", language, bot=table.seat_bot_name),
        "hands": [
            {
                "hand": p.hand,
                "you": p.you,
                "bot": p.bot,
                "line": say(
                    "duplicate.hand", language, hand=p.hand, you=signed(p.you), bot=signed(p.bot)
                ),  # fmt: skip
            }
            for p in pairs
        ],
        "total": {
            "you": you,
            "bot": bot,
            "line": say("duplicate.total", language, you=signed(you), bot=signed(bot)),
            "verdict": verdict,
        },
        "again": say("duplicate.again", language, seed=table.seed),
        "columns": [say(f"duplicate.column.{c}", language) for c in ("hand", "you", "bot")],
    }
