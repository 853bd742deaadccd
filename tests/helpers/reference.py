"""A pure-Python reference of one hand, written from docs/rules.md as a readable spec.

The batch core (``spar_env.core``) is checked against this class on many random
hands. It is deliberately independent of the core: it reads the
:class:`~spar_env.rules.Ruleset` fields and its card helpers (``card_rank``,
``card_suit``, ``card_name``, ``keep_action``, ``exchange_action``), and
nothing else. It holds one hand in plain lists and sets, and favours clarity
over speed.

Usage::

    hand = RefHand(rules, deck, dealer)          # deck: card ids, top first
    while not hand.done:
        hand.apply(some_choice(hand.legal_actions()))
    hand.winner, hand.points, hand.payoffs

Each numbered comment below states the rule it implements (see docs/rules.md).
"""

from __future__ import annotations

from spar_env.rules import Ruleset

# "Who: each seat ... whose best card is a 9 or lower (no 10, J, Q, K or A)."
STRONG_RANKS = frozenset({"10", "J", "Q", "K", "A"})

# Points of a last trick won with a given rank, by scoring scheme.
SPAR_POINTS = {"6": 3, "7": 2}
# last_two "sum": both of the last two tricks won by W with a 6 or a 7.
LAST_TWO_SUM = {("6", "6"): 6, ("6", "7"): 5, ("7", "6"): 5, ("7", "7"): 4}

EXCHANGING, PLAYING, OVER = "exchange", "play", "over"


class RefHand:
    """One hand of any ruleset, played one action at a time.

    Args:
        rules: the ruleset.
        deck: every card id of the deck in order, top first.
        dealer: the seat that deals.
        seats_in: the seats dealt into this hand (all seats by default; fewer in
            the tie-break hands of a ``stones`` session).

    Public attributes:
        hands: cards held, by seat (sitting-out seats hold nothing).
        dealt: the hands as dealt.
        stock: undealt cards, top first.
        set_aside: per seat, the hand given up in the exchange, or ``None``.
        plays: ``(seat, card)`` in the order played.
        face_down: per play, whether it was played face down.
        trick_winners, trick_winning_cards: per finished trick.
        revealed: the stock-bottom card turned up at trick H-1, or ``None``.
        current_player: the seat to act, ``-1`` once the hand is over.
        winner, points, payoffs: the result once ``done``.
    """

    def __init__(
        self,
        rules: Ruleset,
        deck: list[int],
        dealer: int,
        seats_in: list[int] | None = None,
    ) -> None:
        self.rules = rules
        self.num_seats = rules.players
        self.seats_in = sorted(range(self.num_seats) if seats_in is None else seats_in)
        if len(self.seats_in) < 2:
            raise ValueError(f"a hand needs at least two seats; got {self.seats_in}")
        if sorted(deck) != sorted(rules.deck):
            raise ValueError("the deck must hold every card of the ruleset's deck once")
        self.dealer = dealer
        self.hand_size = rules.hand_size

        # 1. Deal: "H cards go to each seat, starting with the seat after the
        #    dealer, in batches given by the deal pattern."
        self.hands: list[list[int]] = [[] for _ in range(self.num_seats)]
        order = self.seats_from(self.next_seat(dealer))
        top = 0
        for batch in rules.deal_pattern:
            for seat in order:
                self.hands[seat].extend(deck[top : top + batch])
                top += batch
        self.dealt = [list(hand) for hand in self.hands]
        # "The cards not dealt form the stock."
        self.stock: list[int] = list(deck[top:])

        self.set_aside: list[list[int] | None] = [None] * self.num_seats
        self.plays: list[tuple[int, int]] = []
        self.face_down: list[bool] = []
        self.trick: list[tuple[int, int, bool]] = []  # (seat, card, face down) this trick
        self.trick_winners: list[int] = []
        self.trick_winning_cards: list[int] = []
        self.revealed: int | None = None
        self.winner: int | None = None
        self.points: int | None = None
        self.payoffs: list[int] | None = None

        # 2. "The seat after the dealer leads any card."
        self.leader = order[0]
        self.current_player = self.leader
        if rules.weak_hand_exchange:
            self.phase = EXCHANGING
            self.exchange_queue = self.seats_from(self.leader)
            self._ask_next_seat()
        else:
            self._start_play()

    # ----- seats ---------------------------------------------------------------
    def next_seat(self, seat: int) -> int:
        """The next seat in the hand after ``seat``, in the direction of play."""
        step = 1 if self.rules.direction == "clockwise" else -1
        candidate = seat
        for _ in range(self.num_seats):
            candidate = (candidate + step) % self.num_seats
            if candidate in self.seats_in:
                return candidate
        raise AssertionError("unreachable: the hand has seats")

    def seats_from(self, first: int) -> list[int]:
        """Every seat in the hand once, starting at ``first``, in the direction of play."""
        order = [first]
        while len(order) < len(self.seats_in):
            order.append(self.next_seat(order[-1]))
        return order

    # ----- cards ---------------------------------------------------------------
    def suit(self, card: int) -> str:
        return self.rules.card_suit(card)

    def rank(self, card: int) -> str:
        return self.rules.card_rank(card)

    def beats(self, card: int, other: int) -> bool:
        """Same suit and higher in the variant's rank order (ranks are listed high to low)."""
        return self.suit(card) == self.suit(other) and (
            self.rules.ranks.index(self.rank(card)) < self.rules.ranks.index(self.rank(other))
        )

    def action_name(self, action: int) -> str:
        if self.rules.weak_hand_exchange and action == self.rules.keep_action:
            return "KEEP"
        if self.rules.weak_hand_exchange and action == self.rules.exchange_action:
            return "EXCHANGE"
        if action in self.rules.deck:
            return self.rules.card_name(action)
        return f"action {action}"

    # ----- the state of play -----------------------------------------------------
    @property
    def done(self) -> bool:
        return self.phase == OVER

    @property
    def exchanged(self) -> list[bool]:
        return [hand is not None for hand in self.set_aside]

    @property
    def tricks_played(self) -> int:
        return len(self.trick_winners)

    def legal_actions(self) -> list[int]:
        """The actions the current player may take, ascending."""
        if self.phase == OVER:
            return []
        if self.phase == EXCHANGING:
            # Every seat is asked; only a weak hand may exchange it.
            if self._is_weak(self.current_player):
                return sorted([self.rules.keep_action, self.rules.exchange_action])
            return [self.rules.keep_action]
        hand = self.hands[self.current_player]
        # 3. "Each seat in turn must play a card of the led suit if it holds one.
        #    If it holds none, it may play any card."
        if self.trick:
            led = self.suit(self.trick[0][1])
            following = [card for card in hand if self.suit(card) == led]
            if following:
                return sorted(following)
        return sorted(hand)

    def apply(self, action: int) -> None:
        """The current player takes ``action``.

        Raises:
            ValueError: if the hand is over or the action is not legal, naming it.
        """
        action = int(action)
        if self.phase == OVER:
            raise ValueError(f"the hand is over; {self.action_name(action)} cannot be played")
        if action not in self.legal_actions():
            legal = ", ".join(self.action_name(a) for a in self.legal_actions())
            raise ValueError(
                f"seat {self.current_player} cannot play {self.action_name(action)}; legal: {legal}"
            )
        if self.phase == EXCHANGING:
            self._decide_exchange(action)
        else:
            self._play_card(action)

    # ----- the weak-hand exchange ------------------------------------------------
    def _is_weak(self, seat: int) -> bool:
        return not any(self.rank(card) in STRONG_RANKS for card in self.hands[seat])

    def _ask_next_seat(self) -> None:
        """Ask the next seat (in turn from the leader), strong or weak, while H cards remain."""
        if self.exchange_queue and len(self.stock) >= self.hand_size:
            self.current_player = self.exchange_queue.pop(0)
            return
        self._start_play()

    def _decide_exchange(self, action: int) -> None:
        seat = self.current_player
        if action == self.rules.exchange_action:
            # "exchange all of it for H cards from the top of the stock";
            # "The hand given up is set aside face down."
            self.set_aside[seat] = self.hands[seat]
            self.hands[seat] = self.stock[: self.hand_size]
            self.stock = self.stock[self.hand_size :]
        self._ask_next_seat()

    # ----- tricks ----------------------------------------------------------------
    def _start_play(self) -> None:
        self.phase = PLAYING
        self.current_player = self.leader
        self._start_trick()

    def _start_trick(self) -> None:
        # reveal_stock_bottom: "at the start of trick H-1 the bottom card of the
        # stock is turned face up for every seat" (tricks counted from 1).
        if (
            self.rules.reveal_stock_bottom
            and self.tricks_played + 1 == self.hand_size - 1
            and self.stock
        ):
            self.revealed = self.stock[-1]

    def _best_so_far(self) -> int | None:
        """The highest face-up card of the led suit in the trick so far."""
        if not self.trick:
            return None
        led = self.suit(self.trick[0][1])
        best = None
        for _, card, down in self.trick:
            if down or self.suit(card) != led:
                continue
            if best is None or self.beats(card, best):
                best = card
        return best

    def _is_face_down(self, card: int) -> bool:
        if not self.trick:  # the lead is always face up
            return False
        mode = self.rules.face_down
        if mode == "off_suit":  # "a card played by a seat that cannot follow suit"
            return self.suit(card) != self.suit(self.trick[0][1])
        if mode == "non_winning":  # "a card that does not beat the best card so far"
            return not self.beats(card, self._best_so_far())
        return False

    def _play_card(self, card: int) -> None:
        seat = self.current_player
        down = self._is_face_down(card)
        self.hands[seat].remove(card)
        self.trick.append((seat, card, down))
        self.plays.append((seat, card))
        self.face_down.append(down)
        if len(self.trick) < len(self.seats_in):
            self.current_player = self.next_seat(seat)
            return
        # 4. "The highest card of the led suit ... wins the trick. Its winner
        #    leads the next trick." A face-down card counts for nothing.
        best = self._best_so_far()
        winner = next(s for s, c, _ in self.trick if c == best)
        self.trick_winners.append(winner)
        self.trick_winning_cards.append(best)
        self.trick = []
        if self.tricks_played == self.hand_size:
            self._end_hand()
        else:
            self.current_player = winner
            self._start_trick()

    # ----- scoring ---------------------------------------------------------------
    def _won_last_with(self, count: int, ranks: set[str]) -> bool:
        """W won each of the last ``count`` tricks, each with a card of ``ranks``."""
        if count > self.tricks_played:
            return False
        w = self.trick_winners[-1]
        return all(
            self.trick_winners[-k] == w and self.rank(self.trick_winning_cards[-k]) in ranks
            for k in range(1, count + 1)
        )

    def score(self) -> int:
        """Points W scores for the hand ("Scoring" in docs/rules.md)."""
        scheme = self.rules.scoring
        last = self.rank(self.trick_winning_cards[-1])
        if scheme == "spar":
            own = SPAR_POINTS.get(last, 1)
            if self.rules.last_two != "off" and self._won_last_with(2, {"6", "7"}):
                before = self.rank(self.trick_winning_cards[-2])
                both = LAST_TWO_SUM[(before, last)]
                return both if self.rules.last_two == "sum" else both + own
            return own
        if scheme == "seven":
            return 2 if last == "7" else 1
        if scheme == "sipa":
            for count, points in ((3, 6), (2, 4), (1, 2)):
                if self._won_last_with(count, {"7"}):
                    return points
            return 1
        if scheme == "fapfap":
            for count, points in ((2, 4), (1, 2)):
                if self._won_last_with(count, {"3"}):
                    return points
            return 1
        if scheme == "one":
            return 1
        raise ValueError(f"unknown scoring scheme {scheme!r}")

    def _end_hand(self) -> None:
        self.phase = OVER
        self.current_player = -1
        self.winner = self.trick_winners[-1]
        self.points = self.score()
        payoffs = [0] * self.num_seats
        if self.rules.payoff == "stakes":
            # "every other seat pays W the points"
            for seat in self.seats_in:
                payoffs[seat] = -self.points
            payoffs[self.winner] = self.points * (len(self.seats_in) - 1)
        else:  # "points": W gains points and the others 0
            payoffs[self.winner] = self.points
        self.payoffs = payoffs

    # ----- views -----------------------------------------------------------------
    def cards_played(self, seat: int, face_down: bool) -> set[int]:
        """Cards ``seat`` played face down (or face up)."""
        return {
            card
            for (s, card), down in zip(self.plays, self.face_down, strict=True)
            if s == seat and down == face_down
        }
