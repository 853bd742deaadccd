"""The ruleset as data: one frozen, validated dataclass holds every rule of a hand.

Everything below this layer (the batch core, the reference, the environments)
reads its deck, rank order, hand size, scoring and options from a
:class:`Ruleset`; nothing hard-codes "35 cards" or "5 tricks". Presets live in
:mod:`spar_env.rules.presets`; build rulesets with :func:`spar_env.make_rules`.

Card ids: a ruleset lays its cards on a grid of ``len(suits) x len(ranks)``;
card ``suit_index * len(ranks) + rank_index`` is ``ranks[rank_index]`` of
``suits[suit_index]``, with ``ranks`` listed high to low. Cards left out of the
deck (A♠ in most presets) keep their id and are simply never dealt, so the
action space does not change with the ``ace_of_spades`` option.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, fields
from functools import cached_property
from typing import Any

from spar_env.limits import MAX_SESSION_END, LimitError
from spar_env.rules.cards import RANKS, SUITS, format_card, parse_card
from spar_env.rules.preset_table import PRESETS

DIRECTIONS = ("clockwise", "counterclockwise")
SCORINGS = ("spar", "seven", "sipa", "fapfap", "one")
LAST_TWO = ("off", "sum", "bonus")
FACE_DOWN = ("none", "off_suit", "non_winning")
PAYOFFS = ("stakes", "points")
END_KINDS = ("open", "one_hand", "hands", "target", "stones")

# Scoring schemes as data: (points of a trick won with each scoring rank,
# how many final tricks can chain). A hand scores 1 unless W won the last trick
# with a scoring rank; then it scores the sum over the run of final tricks that
# W won with scoring ranks, up to the chain length (see docs/rules.md, "Scoring").
SCHEMES: dict[str, tuple[dict[str, int], int]] = {
    "spar": ({"6": 3, "7": 2}, 1),
    "seven": ({"7": 2}, 1),
    "sipa": ({"7": 2}, 3),
    "fapfap": ({"3": 2}, 2),
    "one": ({}, 1),
}
# Ranks whose presence makes a hand strong for the weak-hand exchange:
# "a seat whose best card is a 9 or lower (no 10, J, Q, K or A)".
HIGH_RANKS = ("10", "J", "Q", "K", "A")


@dataclass(frozen=True)
class Ruleset:
    """Every rule of one hand (and of the session around it).

    Build one with :func:`spar_env.make_rules` rather than directly: that fills
    in a preset and checks the result. Direct construction is validated too.
    """

    variant: str = "spar"  # the preset this ruleset was built from
    suits: tuple[str, ...] = SUITS
    ranks: tuple[str, ...] = ("A", "K", "Q", "J", "10", "9", "8", "7", "6")  # high -> low
    ace_of_spades: bool = False  # whether A♠ is in the deck (when A and S are on the grid)
    players: int = 4
    hand_size: int = 5
    deal_pattern: tuple[int, ...] = (3, 2)
    direction: str = "clockwise"
    scoring: str = "spar"
    last_two: str = "off"
    face_down: str = "none"
    weak_hand_exchange: bool = False
    reveal_stock_bottom: bool = False
    payoff: str = "stakes"
    end: str = "target:10"  # open | one_hand | hands:K | target:T | stones:K
    c_notation: bool = False  # write session scores in Essilfy's c-notation
    first_dealer: int | None = None  # None: drawn from the seed

    def __post_init__(self) -> None:
        # Normalise sequences so that lists given by users hash and compare.
        object.__setattr__(self, "suits", _sequence("suits", self.suits, "('C', 'D', 'H', 'S')"))
        ranks = _sequence("ranks", self.ranks, "('A', 'K', 'Q')")
        object.__setattr__(self, "ranks", tuple(str(r).upper() for r in ranks))
        object.__setattr__(
            self, "deal_pattern", _sequence("deal_pattern", self.deal_pattern, "(3, 2)")
        )
        _validate(self)

    # ----- deck -----------------------------------------------------------------
    @property
    def num_ranks(self) -> int:
        return len(self.ranks)

    @property
    def num_suits(self) -> int:
        return len(self.suits)

    @property
    def num_card_ids(self) -> int:
        """Size of the card-id grid (deck plus any left-out cards)."""
        return self.num_suits * self.num_ranks

    @cached_property
    def deck(self) -> tuple[int, ...]:
        """Ids of the cards in the deck, ascending."""
        out = []
        for cid in range(self.num_card_ids):
            if self.card_rank(cid) == "A" and self.card_suit(cid) == "S" and not self.ace_of_spades:
                continue
            out.append(cid)
        return tuple(out)

    @property
    def deck_size(self) -> int:
        return len(self.deck)

    @property
    def stock_size(self) -> int:
        """Cards left undealt."""
        return self.deck_size - self.players * self.hand_size

    @property
    def max_players(self) -> int:
        return self.deck_size // self.hand_size

    def card_rank(self, cid: int) -> str:
        return self.ranks[cid % self.num_ranks]

    def card_suit(self, cid: int) -> str:
        return self.suits[cid // self.num_ranks]

    def card_suit_index(self, cid: int) -> int:
        return cid // self.num_ranks

    def card_strength(self, cid: int) -> int:
        """Higher beats lower within a suit: 0 is the lowest rank."""
        return self.num_ranks - 1 - cid % self.num_ranks

    def card_name(self, cid: int, unicode: bool = False) -> str:
        return format_card(self.card_rank(cid), self.card_suit(cid), unicode)

    def card_id(self, text: str) -> int:
        """The id of a card written as text (``'6H'``, ``'th'``).

        Raises:
            ValueError: if the text is no card, or the card is not in this deck.
        """
        try:
            rank, suit = parse_card(text)
        except ValueError:
            raise ValueError(
                f"{text!r} is not a card: write the rank ({', '.join(self.ranks)}) then the "
                f"suit ({' '.join(self.suits)}), for example {self.example_card()!r}"
            ) from None
        if rank not in self.ranks or suit not in self.suits:
            raise ValueError(
                f"{text!r} is not in the {self.variant} deck: its ranks are "
                f"{', '.join(self.ranks)} and its suits {' '.join(self.suits)}"
            )
        cid = self.suits.index(suit) * self.num_ranks + self.ranks.index(rank)
        if cid not in self.deck:
            raise ValueError(f"{text!r} is not in the {self.variant} deck")
        return cid

    def example_card(self, unicode: bool = False) -> str:
        """A card of this deck for a hint: a heart of the lowest-valued scoring rank (a 6 in
        Spar, a 7 in Sipa) or, where no rank scores, of the lowest rank."""
        scoring = sorted(self.rank_points, key=self.rank_points.__getitem__)
        rank = scoring[-1] if scoring else self.ranks[-1]
        return self.card_name(self.card_of(rank, ("H", "D", "C", "S")), unicode)

    def card_of(self, rank: str, suits: Iterable[str]) -> int:
        """The first card of ``rank`` in ``suits`` (in that order) that this deck holds."""
        for suit in suits:
            if suit in self.suits:
                card = self.suits.index(suit) * self.num_ranks + self.ranks.index(rank)
                if card in self.deck:
                    return card
        raise ValueError(f"the {self.variant} deck holds no {rank} of {', '.join(suits)}")

    # ----- actions --------------------------------------------------------------
    @property
    def num_actions(self) -> int:
        """Card ids, then KEEP and EXCHANGE when the weak-hand exchange is on."""
        return self.num_card_ids + (2 if self.weak_hand_exchange else 0)

    @property
    def keep_action(self) -> int:
        return self.num_card_ids

    @property
    def exchange_action(self) -> int:
        return self.num_card_ids + 1

    # ----- scoring --------------------------------------------------------------
    @property
    def rank_points(self) -> dict[str, int]:
        """Points of a final trick won with each scoring rank (others score 1 alone)."""
        return SCHEMES[self.scoring][0]

    @property
    def chain(self) -> int:
        """How many final tricks can add up (1: only the last trick counts)."""
        return 2 if self.last_two != "off" else SCHEMES[self.scoring][1]

    def is_high_rank(self, rank: str) -> bool:
        return rank in HIGH_RANKS

    # ----- session --------------------------------------------------------------
    @property
    def end_kind(self) -> str:
        return self.end.split(":")[0]

    @property
    def end_value(self) -> int | None:
        kind, _, value = self.end.partition(":")
        return int(value) if value else None

    @property
    def sign(self) -> int:
        """+1 for clockwise play (seat i+1 is next), -1 for counter-clockwise."""
        return 1 if self.direction == "clockwise" else -1

    def options(self) -> dict[str, Any]:
        """Fields that differ from this ruleset's preset (the record's ``options``)."""
        base = Ruleset(variant=self.variant, **PRESETS[self.variant])
        out: dict[str, Any] = {}
        for f in fields(self):
            if f.name in ("variant", "players"):
                continue
            value = getattr(self, f.name)
            if value != getattr(base, f.name):
                out[f.name] = list(value) if isinstance(value, tuple) else value
        return out


def _whole(value: object) -> bool:
    """An int that is not a bool (``True`` is an int to Python, not a count to us)."""
    return isinstance(value, int) and not isinstance(value, bool)


def _got(value: object) -> str:
    """``got 3``, or ``got '3' (a str)`` when the type is the problem."""
    return f"got {value!r}" if _whole(value) else f"got {value!r} (a {type(value).__name__})"


def _sequence(name: str, value: object, example: str) -> tuple:
    """A field given as a list, tuple or other iterable, as a tuple."""
    if not isinstance(value, Iterable):
        raise ValueError(f"{name} must be a sequence such as {example}; got {value!r}")
    return tuple(value)


def _choice(name: str, value: object, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise ValueError(f"{name} must be one of {', '.join(allowed)}; got {value!r}")


def _validate(r: Ruleset) -> None:
    """Raise ValueError naming the field, the value and the limit of any impossible rule."""
    if (
        len(r.suits) == 0
        or len(set(r.suits)) != len(r.suits)
        or any(s not in SUITS for s in r.suits)
    ):
        raise ValueError(f"suits must be distinct letters among {' '.join(SUITS)}; got {r.suits!r}")
    if (
        len(r.ranks) < 2
        or len(set(r.ranks)) != len(r.ranks)
        or any(x not in RANKS for x in r.ranks)
    ):
        raise ValueError(
            f"ranks must be at least two distinct ranks among {', '.join(RANKS)}; got {r.ranks!r}"
        )
    for name in ("ace_of_spades", "weak_hand_exchange", "reveal_stock_bottom", "c_notation"):
        if not isinstance(getattr(r, name), bool):
            raise ValueError(f"{name} must be true or false; got {getattr(r, name)!r}")
    if r.ace_of_spades and ("A" not in r.ranks or "S" not in r.suits):
        raise ValueError("ace_of_spades=True needs aces and spades on the card grid")
    _choice("direction", r.direction, DIRECTIONS)
    _choice("scoring", r.scoring, SCORINGS)
    _choice("last_two", r.last_two, LAST_TWO)
    _choice("face_down", r.face_down, FACE_DOWN)
    _choice("payoff", r.payoff, PAYOFFS)
    if r.last_two != "off" and r.scoring != "spar":
        raise ValueError(
            f"last_two={r.last_two!r} applies to scoring 'spar' only; got {r.scoring!r}"
        )
    if not _whole(r.hand_size) or r.hand_size < 1:
        raise ValueError(f"hand_size must be a positive whole number; {_got(r.hand_size)}")
    if (
        not r.deal_pattern
        or any(not _whole(b) or b < 1 for b in r.deal_pattern)
        or sum(r.deal_pattern) != r.hand_size
    ):
        raise ValueError(
            f"deal_pattern {list(r.deal_pattern)} must be positive batches that sum to "
            f"hand_size {r.hand_size}"
        )
    if not _whole(r.players) or r.players < 2:
        raise ValueError(f"players must be a whole number of at least 2; {_got(r.players)}")
    if r.hand_size > r.deck_size:
        raise ValueError(
            f"hand_size {r.hand_size} is more than the {r.deck_size}-card {r.variant} deck holds"
        )
    if r.players > r.max_players:
        raise ValueError(
            f"{r.variant} allows at most {r.max_players} players for {r.hand_size}-card hands "
            f"from {r.deck_size} cards, got {r.players}"
        )
    if r.reveal_stock_bottom and r.hand_size < 2:
        raise ValueError("reveal_stock_bottom needs hand_size >= 2 (it happens at trick H-1)")
    if r.reveal_stock_bottom and r.stock_size < 1:
        raise ValueError(
            f"reveal_stock_bottom needs a stock, but {r.players} players x {r.hand_size} cards "
            f"deal all {r.deck_size} cards"
        )
    if r.first_dealer is not None and not (
        _whole(r.first_dealer) and 0 <= r.first_dealer < r.players
    ):
        raise ValueError(
            f"first_dealer must be a seat 0..{r.players - 1} or None; {_got(r.first_dealer)}"
        )
    _validate_end(r.end)


def _validate_end(end: object) -> None:
    if not isinstance(end, str):
        raise ValueError(f"end must be a string such as 'target:10'; got {end!r}")
    kind, colon, value = end.partition(":")
    if kind not in END_KINDS:
        raise ValueError(f"end must be open, one_hand, hands:K, target:T or stones:K; got {end!r}")
    if kind in ("open", "one_hand"):
        if colon:
            raise ValueError(f"end {kind!r} takes no value; got {end!r}")
        return
    shown = end if len(end) <= 40 else f"{end[:30]}... ({len(value)} digits)"
    digits = value.lstrip("0")  # the length is checked before int() meets 4,300 digits
    if not value.isdecimal() or len(digits) <= 20 and int(value) < 1:
        raise ValueError(
            f"end {kind!r} needs a positive whole number, as in '{kind}:10'; got {shown!r}"
        )
    if len(digits) > 20 or int(value) > MAX_SESSION_END:
        raise LimitError(
            f"end {shown}: a session end's value is at most {MAX_SESSION_END:,} "
            "(a limit of spar-rl)"
        )
