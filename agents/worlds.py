"""Sampling hidden worlds: deals of the unseen cards that agree with everything one seat has seen.

A *world* places each card the deciding seat cannot see (:attr:`Knowledge.unseen`)
in one *location*: another seat's hand (its size is public), one face-down play
of another seat, the hand another seat gave up in the exchange, or the stock
(whatever is left). A world is *consistent* when:

- a seat's hand holds no card of a suit it has shown it lacks: it played
  another suit face up, or, under ``face_down: off_suit``, face down, to a
  trick led in that suit. A void holds from that play on, so it binds the
  seat's later face-down plays as well as its hand;
- under ``off_suit``, a face-down card is not of the suit led to its trick;
- under ``non_winning``, a face-down card is of the led suit and below the
  best card of that suit played before it (the best card is always face up),
  or it is of another suit and then its seat held no card of the led suit
  at that moment (nor later: no later face-down play and no card of its hand
  is of that suit, and it played no card of that suit face up afterwards);
- a seat that exchanged gave up a weak hand (no 10, J, Q, K or A): the only
  hands the exchange lets go. Its present cards came from the stock.

The revealed stock card, one's own cards and every face-up card are seen, so
they are not unseen. A seat that kept its hand gives nothing away: every seat
is asked in turn, strong or weak, so keeping puts no rule on its hand.

**Distribution.** :func:`sample_worlds` draws worlds uniformly among the
consistent ones (every consistent world equally likely, up to floating-point
rounding of the counts), as follows:

1. every rule above but one is a rule on single cards (which cards a
   location may hold), and :class:`~spar_agents.card_placement.PoolSampler` draws
   placements uniformly among those that keep such rules (exactly: a dynamic
   programme counts the completions; see there);
2. the exception is the ``non_winning`` condition on an off-suit face-down
   card (what its seat held *afterwards*). It is enforced by rejection:
   proposals from step 1 are kept only if consistent, and rejection leaves
   the kept ones uniform among the consistent worlds. (The same rejection
   covers the rare case where the counting tables would be too large and
   step 1 merges locations, see :data:`spar_agents.card_placement.MAX_TABLE`.)

Rejection may need many proposals (Sipa with 4 players: a median of about 1
in 6 is kept, 1 in 60 at the 5th percentile; 6 players or long hands keep far
fewer). After :data:`MAX_PROPOSALS` proposals per world asked for, the
sampler returns the consistent worlds it found, even if fewer than asked;
if it found none, it returns worlds from step 1 alone, uniform among those
that keep the rules on single cards, with :attr:`Worlds.exact` False.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from spar_agents.base import Situation
from spar_agents.card_placement import PoolSampler
from spar_agents.knowledge import knowledge, public_plays
from spar_env.core import tables_for
from spar_env.rules import Ruleset

MAX_PROPOSALS = 512  # proposals per world asked for, before settling for fewer worlds

HAND, DOWN, DISCARD = "hand", "down", "discard"


@dataclass
class Location:
    """Where unseen cards may lie: a seat's hand, one of its face-down plays, or its discard."""

    kind: str  # HAND | DOWN | DISCARD
    seat: int
    size: int  # cards it holds
    allowed: int  # bit set of the cards it may hold
    play: int = -1  # index of the play (DOWN only)


@dataclass
class SeatView:
    """What one deciding seat knows, in the form the sampler needs (built by :func:`seat_views`)."""

    rules: Ruleset
    seat: int
    hand: int  # its cards, a bit set
    unseen: int  # cards it cannot place
    active: int  # seats in the hand, a bit set
    leader: int  # seat leading the trick in progress (or trick 1)
    plays: list[tuple[int, int, bool]]  # (seat, card or -1 if hidden, face down) in order
    hand_sizes: list[int]
    exchanged: list[bool]
    exchange_phase: bool
    locations: list[Location] = field(default_factory=list)
    # (index of a DOWN location, suit led): if its card is off-suit, its seat held none of the suit
    # afterwards (non_winning only)
    implications: list[tuple[int, int]] = field(default_factory=list)


@dataclass(frozen=True)
class Worlds:
    """Worlds sampled for one decision (``W`` of them)."""

    hands: np.ndarray  # uint64 [W, N] every seat's hand (the deciding seat's own as it is)
    plays: np.ndarray  # int64 [W, P] card of each play so far (others' face-down ones sampled)
    discards: np.ndarray  # uint64 [W, N] hands given up in the exchange (0 for seats that kept)
    stock: np.ndarray  # uint64 [W] unseen cards in the stock (the revealed card is seen: not here)
    exact: bool = True  # False: no consistent world was found; these keep the per-card rules only

    @property
    def count(self) -> int:
        return int(self.hands.shape[0])


def seat_views(situation: Situation) -> list[SeatView]:
    """One :class:`SeatView` per decision of ``situation``."""
    rules = situation.rules
    know = knowledge(situation)
    public = public_plays(situation)
    views = []
    for i in range(situation.size):
        count = int(public.count[i])
        view = SeatView(
            rules=rules,
            seat=int(know.seats[i]),
            hand=int(know.hand[i]),
            unseen=int(know.unseen[i]),
            active=int(sum(1 << s for s in np.flatnonzero(know.in_hand[i]))),
            leader=int(public.leader[i]),
            plays=[
                (int(s), int(c), bool(d))
                for s, c, d in zip(
                    public.seats[i, :count],
                    public.cards[i, :count],
                    public.down[i, :count],
                    strict=True,
                )
            ],
            hand_sizes=[int(x) for x in know.hand_sizes[i]],
            exchanged=[bool(x) for x in public.exchanged[i]],
            exchange_phase=bool(public.exchange_phase[i]),
        )
        _add_locations(view)
        views.append(view)
    return views


def _add_locations(view: SeatView) -> None:
    """Fill ``view.locations`` and ``view.implications`` from the public plays."""
    rules = view.rules
    t = tables_for(rules)
    suit_bits = [int(b) for b in t.suit_bits[:-1]]
    every = int(t.suit_bits[-1])
    m = bin(view.active).count("1")
    mode = rules.face_down
    voids = [0] * rules.players  # suits each seat has shown it lacks, so far
    later_suits = _suits_played_face_up_after(view)
    led = best = -1
    for p, (seat, card, down) in enumerate(view.plays):
        if p % m == 0:
            led, best = rules.card_suit_index(card), card
            continue
        if not down:
            if rules.card_suit_index(card) != led:
                voids[seat] |= 1 << led
            elif card < best:  # a lower id is a higher card
                best = card
            continue
        if seat == view.seat:
            continue
        if mode == "off_suit":
            voids[seat] |= 1 << led
            allowed = every & ~_cards_of(voids[seat], suit_bits)
        else:  # non_winning: a lower card of the led suit, or any card of another suit
            below = suit_bits[led] & ~((1 << (best + 1)) - 1)
            allowed = (below | (every & ~suit_bits[led])) & ~_cards_of(voids[seat], suit_bits)
            if later_suits[p] >> led & 1:  # it held the led suit later, so it followed
                allowed &= below
            else:
                view.implications.append((len(view.locations), led))
        view.locations.append(Location(DOWN, seat, 1, allowed & view.unseen, play=p))
    high = int(t.high_bits)
    for seat in range(rules.players):
        if seat == view.seat or not view.active >> seat & 1:
            continue
        allowed = every & ~_cards_of(voids[seat], suit_bits)
        view.locations.append(Location(HAND, seat, view.hand_sizes[seat], allowed & view.unseen))
        if view.exchanged[seat]:
            weak = every & ~high
            view.locations.append(Location(DISCARD, seat, rules.hand_size, weak & view.unseen))


def _suits_played_face_up_after(view: SeatView) -> list[int]:
    """For each play, the suits its seat played face up at later plays (a bit set)."""
    out = [0] * len(view.plays)
    seen = [0] * view.rules.players
    for p in range(len(view.plays) - 1, -1, -1):
        seat, card, down = view.plays[p]
        out[p] = seen[seat]
        if card >= 0 and not down:
            seen[seat] |= 1 << view.rules.card_suit_index(card)
    return out


def _cards_of(suits: int, suit_bits: list[int]) -> int:
    out = 0
    for s, bits in enumerate(suit_bits):
        if suits >> s & 1:
            out |= bits
    return out


def sample_worlds(view: SeatView, count: int, rng: np.random.Generator) -> Worlds:
    """``count`` worlds drawn uniformly among those consistent with ``view`` (see module docstring).

    Raises:
        ValueError: if ``count`` < 1, or the view allows no world at all.
    """
    if count < 1:
        raise ValueError(f"count must be at least 1; got {count}")
    locs = view.locations
    cards = [c for c in range(64) if view.unseen >> c & 1]
    sampler = PoolSampler(cards, [loc.size for loc in locs], [loc.allowed for loc in locs])
    starts = sampler.starts()
    if sampler.exact and not view.implications:
        return _assemble(view, sampler.draw(count, rng), starts)
    kept: list[Worlds] = []
    tried, have, batch = 0, 0, count
    while have < count and tried < MAX_PROPOSALS * count:
        worlds = _assemble(view, sampler.draw(batch, rng), starts)
        ok = consistent(view, worlds)
        kept.append(_rows(worlds, ok))
        have += int(ok.sum())
        tried += batch
        batch = min(4 * batch, 4096)
    if have == 0:  # settle for the per-card rules (see the module docstring)
        relaxed = _assemble(view, sampler.draw(count, rng), starts)
        return _rows(relaxed, slice(None), exact=False)
    joined = Worlds(*(np.concatenate([getattr(w, f) for w in kept]) for f in _FIELDS))
    return _rows(joined, slice(0, count))


_FIELDS = ("hands", "plays", "discards", "stock")


def _rows(worlds: Worlds, rows: np.ndarray | slice, exact: bool = True) -> Worlds:
    return Worlds(*(getattr(worlds, f)[rows] for f in _FIELDS), exact=exact)


def consistent(view: SeatView, worlds: Worlds) -> np.ndarray:
    """``bool [W]``: worlds that agree with everything ``view`` saw (module docstring)."""
    t = tables_for(view.rules)
    ok = np.ones(worlds.count, dtype=bool)
    placed = worlds.stock.copy()
    for loc in view.locations:
        if loc.kind == DOWN:
            card = worlds.plays[:, loc.play]
            bits = t.card_bit[np.maximum(card, 0)] * (card >= 0)
        else:
            bits = (worlds.hands if loc.kind == HAND else worlds.discards)[:, loc.seat]
        ok &= (bits & ~np.uint64(loc.allowed)) == 0
        ok &= np.bitwise_count(bits) == loc.size
        ok &= (placed & bits) == 0  # no card in two places
        placed |= bits
    ok &= placed == np.uint64(view.unseen)
    for index, led in view.implications:
        loc = view.locations[index]
        card = worlds.plays[:, loc.play]
        off_suit = t.card_suit[np.maximum(card, 0)] != led
        held = (worlds.hands[:, loc.seat] & t.suit_bits[led]) != 0
        for later in view.locations:
            if later.kind == DOWN and later.seat == loc.seat and later.play > loc.play:
                held |= t.card_suit[np.maximum(worlds.plays[:, later.play], 0)] == led
        ok &= ~(off_suit & held)
    return ok


def _assemble(view: SeatView, cards: np.ndarray, starts: list[int]) -> Worlds:
    """Turn draws of a :class:`PoolSampler` over ``view.locations`` into :class:`Worlds`."""
    w, n = cards.shape[0], view.rules.players
    bit = np.left_shift(np.uint64(1), cards.astype(np.uint64))
    hands = np.zeros((w, n), dtype=np.uint64)
    hands[:, view.seat] = view.hand
    discards = np.zeros((w, n), dtype=np.uint64)
    plays = np.empty((w, len(view.plays)), dtype=np.int64)
    plays[:] = [c for _, c, _ in view.plays]
    for loc, start in zip(view.locations, starts, strict=True):
        if loc.kind == DOWN:
            plays[:, loc.play] = cards[:, start]
            continue
        chunk = np.bitwise_or.reduce(bit[:, start : start + loc.size], axis=1)
        (hands if loc.kind == HAND else discards)[:, loc.seat] = chunk
    placed = sum(loc.size for loc in view.locations)
    stock = np.bitwise_or.reduce(bit[:, placed:], axis=1)
    return Worlds(hands=hands, plays=plays, discards=discards, stock=stock)
