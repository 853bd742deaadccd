"""The search's belief: the hand so far replayed in sampled worlds, weighed by a policy.

:class:`~spar_agents.search.SearchAgent` (steps 2 and 3 of its docstring) asks this module
for the worlds it values: :func:`replay` replays the hand in every candidate world on the
batch core and gives the log-likelihood of the other seats' plays under the model of the
seats (a :class:`Policy`); :func:`tempered` finds the exponent that keeps enough worlds,
:func:`systematic` resamples them, and :class:`Believed` holds what a decision keeps.
:func:`public_facts` are the public fields of a hand the replay needs (never a card).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from spar_agents.base import Situation
from spar_agents.worlds import SeatView, Worlds
from spar_env import core
from spar_env.core import State, Tables, tables_for, unpack
from spar_env.history import History, step_with_history
from spar_env.rules import Ruleset

FLOOR = 1e-3  # the least likelihood a play may add to a world's weight (see step 2)


class Policy:
    """The model of the seats: what a learned agent reads of a situation (``inputs``), and
    its probabilities of the game's actions from those inputs (``probs``), kept apart so that
    the decisions of many situations are answered in one pass of the network (the replay)."""

    def __init__(
        self,
        inputs: Callable[[Situation], tuple[np.ndarray, np.ndarray]],
        probs: Callable[[np.ndarray, np.ndarray], np.ndarray],
    ) -> None:
        self.inputs = inputs
        self.probs = probs

    def __call__(self, situation: Situation) -> np.ndarray:
        """``float [G, num_actions]``: the probabilities of a situation's decisions."""
        return self.probs(*self.inputs(situation))


@dataclass(frozen=True)
class Believed:
    """A decision's believed worlds (steps 1 to 3): their hands, how many times each was drawn,
    and, where the hand could be replayed, their states and histories now."""

    hands: np.ndarray  # uint64 [W, N] the worlds' hands
    counts: np.ndarray  # int64 [W] draws of each world
    states: State | None
    history: History | None


def tempered(loglik: np.ndarray, belief: float, ess: float) -> float:
    """The largest exponent up to ``belief`` whose weights ``exp(beta * loglik)`` keep an
    effective sample size of at least ``ess`` (0 if even a little weighting would not)."""

    def effective(beta: float) -> float:
        w = np.exp(beta * (loglik - loglik.max()))
        return float(w.sum() ** 2 / (w * w).sum())

    if effective(belief) >= ess:
        return belief
    low, high = 0.0, belief
    for _ in range(30):  # bisection: the effective size falls as beta grows
        mid = (low + high) / 2
        low, high = (mid, high) if effective(mid) >= ess else (low, mid)
    return low


def systematic(weights: np.ndarray, count: int, rng: np.random.Generator) -> np.ndarray:
    """``count`` indices drawn in proportion to ``weights`` by systematic resampling (one
    uniform draw, evenly spaced points: less spread than ``count`` independent draws)."""
    cdf = np.cumsum(weights / weights.sum())
    points = (rng.random() + np.arange(count)) / count
    return np.minimum(np.searchsorted(cdf, points), weights.shape[0] - 1)


def public_facts(state: State, game: int) -> dict[str, np.ndarray]:
    """The public facts of one game's hand that the replay needs (never a card)."""
    fields = ("dealer", "active", "scores", "stones", "pool", "hands_played")
    return {name: getattr(state, name)[game].copy() for name in fields}


def replay(
    rules: Ruleset, view: SeatView, worlds: Worlds, public: dict[str, np.ndarray], policy: Policy
) -> tuple[State | None, History | None, np.ndarray]:
    """The hand so far, replayed in each world: the states and histories now, and the
    log-likelihood of the other seats' plays under ``policy`` (module docstring, step 2).

    Returns ``(None, None, zeros)`` for a hand some seats sit out (uniform belief).
    """
    t = tables_for(rules)
    w = worlds.count
    loglik = np.zeros(w)
    if int(public["active"]) != t.all_active:
        return None, None, loglik
    seats = np.array([s for s, _, _ in view.plays], dtype=np.int64)
    dealt = worlds.hands.copy()
    bits = t.card_bit[np.maximum(worlds.plays, 0)]  # [W, P] (no play is hidden: no card is -1)
    for s in set(seats.tolist()):
        dealt[:, s] |= np.bitwise_or.reduce(bits[:, seats == s], axis=1)
    decks = _decks(t, dealt, int(public["dealer"]))
    state = core.reset(rules, w, np.random.default_rng(0), decks=decks,
                       dealers=np.full(w, public["dealer"]))  # fmt: skip
    for name in ("scores", "stones", "pool", "hands_played"):
        getattr(state, name)[:] = public[name]
    history = History(state)
    everyone = np.arange(w)
    seen: list[tuple[np.ndarray, np.ndarray]] = []  # the inputs of the other seats' plays
    for p, seat in enumerate(seats):
        if seat != view.seat:
            seen.append(policy.inputs(Situation(state, history, everyone)))
        step_with_history(state, worlds.plays[:, p], history)
    if seen:  # every play of the other seats in every world: one pass of the network
        probs = policy.probs(
            np.concatenate([o for o, _ in seen]), np.concatenate([m for _, m in seen])
        )
        cards = worlds.plays[:, seats != view.seat].T.reshape(-1)  # in the order of ``seen``
        chosen = probs[np.arange(cards.size), cards].reshape(len(seen), w)
        loglik = np.log(np.maximum(chosen, FLOOR)).sum(axis=0)
    return state, history, loglik


def _decks(t: Tables, dealt: np.ndarray, dealer: int) -> np.ndarray:
    """``int8 [W, deck_size]``: the deck orders that deal ``dealt`` (by seat) when ``dealer``
    deals (:func:`spar_env.core.deal.deck_for_hands`, for a batch); the stock in id order."""
    n, size = dealt.shape[1], t.deck.shape[0]
    c = t.card_bit.shape[0]
    held = unpack(dealt.reshape(-1), c).reshape(dealt.shape[0], n, c)
    ids = np.argsort(~held, axis=2, kind="stable")[:, :, : t.hand_size]  # each seat's cards
    decks = np.empty((dealt.shape[0], size), dtype=np.int8)
    positions = t.deal_positions[n]
    for k, seat in enumerate(t.order[dealer]):
        decks[:, positions[k]] = ids[:, seat]
    in_deck = unpack(np.full(1, np.bitwise_or.reduce(t.card_bit[t.deck])), c)[0]
    stock = in_deck[None, :] & ~held.any(axis=1)
    decks[:, n * t.hand_size :] = np.argsort(~stock, axis=1, kind="stable")[
        :, : size - n * t.hand_size
    ]
    return decks
