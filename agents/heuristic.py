"""``heuristic``: a rule-based player that plans its last card and the trick before it.

Only the last trick scores, so the agent keeps a plan of two cards: a
*keeper* ``y`` for the last trick and a *winner* ``w`` to take trick ``H-1``
and so lead trick ``H`` (the seeds' advice: "keep a small card, win the
fourth trick, strip the suits"). It plays the legal card whose loss hurts the
best plan of the cards left the least. Everything is a probability estimated
from what the seat may know (:func:`spar_agents.knowledge.knowledge`): the unseen
cards, and which of them each opponent may still hold (none of a suit it has
shown it lacks). An opponent's hand is taken as a uniform draw from the cards
it may hold.

- ``safe(y)``: no opponent ends the hand with a card of ``y``'s suit above
  ``y``. An opponent's last card is one of the cards it may hold, each as
  likely: the factor per opponent is ``1 - higher / possible``.
- Value of keeping ``y``: ``points(y) * safe(y)`` when leading the last trick
  (``points``: the scoring rank's points, else 1); when another seat leads,
  ``y`` must also beat the card led, so that value is scaled by the share of
  the leader's possible cards that are lower cards of ``y``'s suit (0 for a
  6 in Spar: a 6 wins only when led).
- ``take_now(x)``: ``x`` wins the trick in progress: it beats the card
  winning so far (or is led), and no seat still to play holds a higher card
  of the suit (a hypergeometric draw of its hand from its possible cards).
- ``reach(w)``: the chance of taking trick ``H-1`` with ``w``: led, no
  opponent holding a higher card among its last two; when another seat leads,
  it must lead ``w``'s suit. Whether this seat will lead trick ``H-1`` is
  ``take_now`` of the card played at trick ``H-2``, and ``1/seats`` before.
  Every card kept besides the keeper may turn out to be the winner, so the
  plan counts ``1 - prod(1 - reach(w))`` over them: spare high cards count.
- Stripping: leading a card of the keeper's suit makes each opponent still
  holding that suit play one, which lowers its chance of holding a higher one
  at the end; the keeper's ``safe`` is raised by that expected loss.
- The plan's value is ``reach * lead value + (1 - reach) * follow value``, for
  the best keeper among the cards left. At trick ``H-1`` the
  winner is the card played now. Ties go to the higher card (shed high cards).

Asked whether to exchange a weak hand (no 10 or better), it exchanges: with
no high card a weak hand seldom takes trick ``H-1``. Measured in 4-player
``spar`` with the exchange on, head to head over 20,000 deals, always
exchanging beat keeping a hand that holds a scoring card by 0.011 ± 0.003
stakes per hand, and beat keeping on two or three scoring cards, or on a 9
and a scoring card, too. ``heuristic:exchange=false`` always keeps instead.
It reads no session scores: every hand is played for itself.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from spar_agents.base import Decision, Situation
from spar_agents.knowledge import Knowledge, TrickView, knowledge, trick_view
from spar_env.core import tables_for
from spar_env.core.bits import count_of, lowest_of, popcount
from spar_env.rules import Ruleset

SHED_HIGH = 1e-6  # tie-break per rank of strength: prefer to play the higher card


class HeuristicAgent:
    """The rule-based expert described in the module docstring; deterministic.

    Each decision is compiled scalar code (:func:`_decide`), so one decision
    costs about as much as one call, and a batch is one pass over its games.
    """

    def __init__(self, rules: Ruleset, exchange: bool = True) -> None:
        if not isinstance(exchange, bool):
            raise ValueError(f"heuristic: exchange must be true or false; got {exchange!r}")
        t = tables_for(rules)
        self.rules = rules
        self.exchange = exchange
        suit, strength = t.card_suit, t.card_strength
        bits = t.card_bit[: t.num_cards]
        same = suit[:, None] == suit[None, :]
        higher = same & (strength[None, :] > strength[:, None])
        lower = same & (strength[None, :] < strength[:, None])
        scoring = t.card_points[:-1]
        self._cards = (
            suit,
            strength,
            t.suit_bits[:-1].copy(),
            np.bitwise_or.reduce(np.where(higher, bits[None, :], np.uint64(0)), axis=1),
            np.bitwise_or.reduce(np.where(lower, bits[None, :], np.uint64(0)), axis=1),
            np.where(scoring > 0, scoring, 1).astype(np.float64),
        )
        swap = rules.exchange_action if rules.weak_hand_exchange else -1
        self._choices = np.array(
            [rules.keep_action if rules.weak_hand_exchange else -1, swap if exchange else -1]
        )

    def act(self, situation: Situation, rng: np.random.Generator) -> Decision:
        k, trick = knowledge(situation), trick_view(situation)
        actions = np.empty(situation.size, dtype=np.int64)
        _decide(situation.legal, _known(k), _now(trick), self._cards, self._choices, actions)
        return Decision(actions)

    def plan_values(
        self, situation: Situation, k: Knowledge | None = None, trick: TrickView | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """Each hand's cards (``int64 [G, K]``, id order) and, for the legal ones, the value of
        the best plan left after playing it (``float64 [G, K]``, ``-inf`` where not legal).

        ``K`` is the largest hand; shorter hands are padded with card 0 at ``-inf``.
        Other agents use it as features (:mod:`spar_agents.cfr.abstraction`); they may pass the
        situation's :func:`knowledge` and :func:`trick_view` when they have them already.
        """
        k = knowledge(situation) if k is None else k
        trick = trick_view(situation) if trick is None else trick
        size = max(int(popcount(k.hand).max(initial=0)), 1)
        held = np.zeros((situation.size, size), dtype=np.int64)
        value = np.full((situation.size, size), -np.inf)
        _plans(situation.legal, _known(k), _now(trick), self._cards, held, value)
        return held, value


def _known(k: Knowledge) -> tuple[np.ndarray, ...]:
    """The parts of a :class:`Knowledge` that the compiled plan reads."""
    return k.seats, k.hand, k.unseen, k.hand_sizes, k.voids, k.in_hand


def _now(trick: TrickView) -> tuple[np.ndarray, ...]:
    return trick.led_suit, trick.best_card, trick.to_play


@njit(cache=True)
def _decide(legal, known, trick, cards, choices, actions):
    """``actions[i]``: the decision ``i`` of the module docstring."""
    keep, swap = choices[0], choices[1]
    strength = cards[1]
    for i in range(legal.shape[0]):
        if keep >= 0 and _has(legal[i], keep):  # KEEP or EXCHANGE
            actions[i] = swap if swap >= 0 and _has(legal[i], swap) else keep
        elif count_of(legal[i]) <= 1:  # a forced move: the only legal card
            actions[i] = lowest_of(legal[i])
        else:  # the best plan; ties go to the higher card
            held = _cards_of(known[1][i], np.empty(count_of(known[1][i]), dtype=np.int64))
            value = np.empty(held.shape[0])
            _plan(i, legal[i], known, trick, cards, held, value)
            best = -np.inf
            for x in range(held.shape[0]):
                score = value[x] + SHED_HIGH * strength[held[x]]
                if score > best:
                    best, actions[i] = score, held[x]


@njit(cache=True)
def _plans(legal, known, trick, cards, held, value):
    """Rows of :meth:`HeuristicAgent.plan_values` (``held`` zeros, ``value`` -inf on entry)."""
    for i in range(legal.shape[0]):
        k = count_of(known[1][i])
        _plan(i, legal[i], known, trick, cards, _cards_of(known[1][i], held[i, :k]), value[i, :k])


@njit(cache=True)
def _cards_of(bits, out):
    """The cards of ``bits`` in id order, written to ``out`` (as long as the set); returns it."""
    for x in range(out.shape[0]):
        out[x] = lowest_of(bits)
        bits &= bits - np.uint64(1)
    return out


@njit(cache=True)
def _plan(i, legal, known, trick, cards, held, value):
    """``value[x]``: the best plan's value after playing ``held[x]`` (-inf if not legal).

    The chances of the module docstring for each card, then the plans: keep ``y``
    for the last trick, and win trick H-1 with any other card ``w``.
    """
    seats, hand, unseen, hand_sizes, voids, in_hand = known
    led_suit, best_card, to_play = trick
    suit, strength, suit_bits, above, below, points = cards
    n, me, led = in_hand.shape[1], seats[i], led_suit[i]
    leading = led < 0

    # What each opponent may hold: the unseen cards outside the suits it lacks.
    possible = np.empty(n, dtype=np.uint64)
    pool = np.empty(n)
    opponents = 0
    for q in range(n):
        lacks = np.uint64(0)
        for t in range(suit_bits.shape[0]):
            if (voids[i, q] >> t) & 1:
                lacks |= suit_bits[t]
        possible[q] = unseen[i] & ~lacks
        pool[q] = max(count_of(possible[q]), 1)
        opponents += in_hand[i, q] and q != me
    opponents = max(opponents, 1)
    best_strength = strength[max(best_card[i], 0)]

    k = held.shape[0]
    safe, stripped, follow = np.empty(k), np.empty(k), np.empty(k)
    take_now, take_led, share = np.empty(k), np.empty(k), np.empty(k)
    for x in range(k):
        c = held[x]
        p_safe, p_stripped, p_take, p_led, lower_sum, suit_sum = 1.0, 1.0, 1.0, 1.0, 0.0, 0.0
        for q in range(n):
            higher = count_of(possible[q] & above[c])
            drawn = hand_sizes[i, q]
            if in_hand[i, q] and q != me:
                of_suit = count_of(possible[q] & suit_bits[suit[c]])
                holds_suit = 1 - _none_held(of_suit, pool[q], drawn)
                thinned = higher * (1 - holds_suit / max(of_suit, 1))
                p_safe *= 1 - higher / pool[q]
                p_stripped *= 1 - thinned / pool[q]
                p_led *= _none_held(higher, pool[q], min(drawn, 2))
                lower_sum += count_of(possible[q] & below[c]) / pool[q]
                suit_sum += of_suit / pool[q]
            later = (in_hand[i, q] and q != me) if leading else to_play[i, q]  # still to play
            if later:
                p_take *= _none_held(higher, pool[q], drawn)
        beats = leading or (suit[c] == led and strength[c] > best_strength)
        safe[x], stripped[x], take_led[x] = p_safe, p_stripped, p_led
        follow[x] = points[c] * p_safe * lower_sum / opponents
        take_now[x] = p_take if beats else 0.0
        share[x] = suit_sum / opponents

    seats_in = max(in_hand[i].sum(), 1)
    for x in range(k):
        value[x] = -np.inf
        if not _has(legal, held[x]):
            continue
        lead_later = take_now[x] if k == 3 else 1.0 / seats_in  # to lead trick H-1
        for y in range(k):  # the keeper
            if y == x:
                continue
            miss = 1.0
            for w in range(k):
                if w != x and w != y:
                    reach = take_led[w] * (lead_later + (1 - lead_later) * share[w])
                    miss *= 1 - reach
            reach_y = take_now[x] if k == 2 else 1 - miss
            strips = leading and suit[held[x]] == suit[held[y]]  # x led in y's suit
            lead_value = points[held[y]] * (stripped[y] if strips else safe[y])
            v = reach_y * lead_value + (1 - reach_y) * follow[y]
            value[x] = max(value[x], v)


@njit(cache=True)
def _none_held(marked, pool, drawn):
    """Chance that ``drawn`` cards dealt from ``pool`` miss all ``marked`` of them."""
    p = 1.0
    for i in range(drawn):
        p *= max(pool - marked - i, 0) / max(pool - i, 1)
    return p


@njit(cache=True)
def _has(bits, i):
    return (bits >> np.uint64(i)) & np.uint64(1) != 0
