"""The states of the OpenSpiel bridge (:mod:`spar_env.openspiel`): a hand on a one-game core
batch (:class:`CoreState`), or stepped through a pre-enumerated tree (:class:`TreeState`).

Imported only when a game is registered (``pyspiel`` is optional). Each registered game
gets its own subclass, whose class attributes hold its ruleset and chance mode: class
attributes, because OpenSpiel clones a state by deep-copying its instance attributes.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import fields as dataclass_fields
from typing import Any

import numpy as np
import pyspiel

from spar_env.core import State, reset, step, tables_for
from spar_env.core.deal import deck_for_hands
from spar_env.openspiel.observer import play_triples
from spar_env.rules import Ruleset

_STATE_FIELDS = tuple(f.name for f in dataclass_fields(State) if f.name != "tables")


def state_class(rules: Ruleset, chance: str, deal_steps: int, tree: Any = None) -> type:
    """The state class of one registered game (module docstring)."""
    if tree is not None:
        return type("TreeState", (TreeState,), {"rules": rules, "n": rules.players, "tree": tree})
    attrs = {"rules": rules, "n": rules.players, "chance": chance, "deal_steps": deal_steps}
    return type("CoreState", (CoreState,), attrs)


class CoreState(pyspiel.State):
    """One hand: the deal so far, then a one-game core batch.

    A game's own subclass (:func:`state_class`) sets its ``rules``, ``n`` (players),
    ``chance`` and ``deal_steps``.
    """

    rules: Ruleset
    n: int
    chance: str
    deal_steps: int

    def __init__(self, game: pyspiel.Game) -> None:
        super().__init__(game)
        self.dealer = self.rules.first_dealer  # None until drawn
        # bytes, not lists: clones deep-copy every attribute, and bytes copy for free.
        self.dealt = b""  # card ids dealt so far (chance="hand": whole hands, H bytes each)
        self.core: Core | None = None
        self.plays = b""  # (seat, action, face_down) per decision, 3 bytes each

    def _view(self, player: int) -> tuple:
        """(dealer, own dealt hand or None, hand taken in an exchange or 0, revealed card)."""
        if self.core is None:
            return self.dealer, None, 0, -1
        st = self.core.state
        held = int(st.held[0, player]) if st.exchanged[0, player] else 0
        return self.dealer, int(st.dealt[0, player]), held, int(st.revealed[0])

    def _observed_core(self) -> State | None:
        return None if self.core is None else self.core.state

    def current_player(self) -> int:
        if self.core is None:
            return int(pyspiel.PlayerId.CHANCE)
        if self.core.state.terminated[0]:
            return int(pyspiel.PlayerId.TERMINAL)
        return int(self.core.state.current_player[0])

    def _remaining(self) -> list[int]:
        used = set(self.dealt)
        return [c for c in self.rules.deck if c not in used]

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if self.dealer is None:
            return [(s, 1.0 / self.n) for s in range(self.n)]
        if self.chance == "card":
            left = self._remaining()
            return [(c, 1.0 / len(left)) for c in left]
        count = math.comb(len(self._remaining()), self.rules.hand_size)
        return [(i, 1.0 / count) for i in range(count)]

    def _legal_actions(self, player: int) -> list[int]:
        bits = int(self.core.state.legal[0])
        return [a for a in range(self.rules.num_actions) if bits >> a & 1]

    def _apply_action(self, action: int) -> None:
        if self.core is not None:
            seat = int(self.core.state.current_player[0])
            down = int(self.core.state.down_count[0, seat])
            step(self.core.state, np.array([action]))
            self.plays += bytes(
                (seat, int(action), int(self.core.state.down_count[0, seat]) > down)
            )
            return
        if self.dealer is None:
            self.dealer = int(action)
        elif self.chance == "card":
            self.dealt += bytes([int(action)])
        else:
            combo = next(
                itertools.islice(
                    itertools.combinations(self._remaining(), self.rules.hand_size), action, None
                )
            )
            self.dealt += bytes(combo)
        if self.dealer is not None and len(self.dealt) == self.deal_steps:
            self.core = Core.deal(self.rules, self.dealer, self.dealt, self.chance)

    def _action_to_string(self, player: int, action: int) -> str:
        if player == int(pyspiel.PlayerId.CHANCE):
            if self.dealer is None:
                return f"dealer {action}"
            if self.chance == "card":
                return f"deal {self.rules.card_name(action)}"
            return f"deal #{action}"
        if self.rules.weak_hand_exchange and action == self.rules.keep_action:
            return "KEEP"
        if self.rules.weak_hand_exchange and action == self.rules.exchange_action:
            return "EXCHANGE"
        return self.rules.card_name(action)

    def is_terminal(self) -> bool:
        return self.core is not None and bool(self.core.state.terminated[0])

    def returns(self) -> list[float]:
        if not self.is_terminal():
            return [0.0] * self.n
        return [float(r) for r in self.core.state.rewards[0]]  # paid by the last step

    def __str__(self) -> str:
        deal = "dealer " + ("?" if self.dealer is None else str(self.dealer))
        cards = " ".join(
            self.rules.card_name(a)
            if a < self.rules.num_card_ids
            else ("KEEP", "EXCHANGE")[a - self.rules.keep_action]
            for _, a, _ in play_triples(self.plays)
        )
        return f"{deal}; dealt {list(self.dealt)}; plays {cards}"


class TreeState(pyspiel.State):
    """One hand as a node id of a pre-enumerated tree (built by the core).

    A game's own subclass (:func:`state_class`) sets its ``rules``, ``n`` and ``tree``.
    """

    rules: Ruleset
    n: int
    tree: Any

    def __init__(self, game: pyspiel.Game) -> None:
        super().__init__(game)
        self.node = 0
        self.deal = -1
        self.plays = b""  # as in _State

    @property
    def dealer(self) -> int | None:
        return None if self.deal < 0 else int(self.tree.deal_dealer[self.deal])

    def _view(self, player: int) -> tuple:
        if self.deal < 0:
            return None, None, 0, -1
        return self.dealer, int(self.tree.deal_hands[self.deal, player]), 0, -1

    def _observed_core(self) -> State | None:
        if self.deal < 0:
            return None
        hands = [
            [c for c in range(self.rules.num_card_ids) if int(h) >> c & 1]
            for h in self.tree.deal_hands[self.deal]
        ]
        deck = deck_for_hands(tables_for(self.rules), hands, self.dealer)
        st = reset(
            self.rules,
            1,
            np.random.default_rng(0),
            decks=deck[None],
            dealers=np.array([self.dealer]),
        )
        for _, action, _ in play_triples(self.plays):
            step(st, np.array([action]))
        return st

    def current_player(self) -> int:
        p = int(self.tree.player[self.node])
        if p >= 0:
            return p
        return int(pyspiel.PlayerId.CHANCE if p == -1 else pyspiel.PlayerId.TERMINAL)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        lo, k = int(self.tree.first_child[self.node]), int(self.tree.num_children[self.node])
        return list(enumerate(self.tree.chance_prob[lo : lo + k].tolist()))

    def _legal_actions(self, player: int) -> list[int]:
        bits = int(self.tree.legal[self.node])
        return [a for a in range(self.rules.num_actions) if bits >> a & 1]

    def _apply_action(self, action: int) -> None:
        node = self.node
        if self.tree.player[node] == -1:
            self.deal = int(action)
            self.node = int(self.tree.first_child[node]) + int(action)
            return
        bits = int(self.tree.legal[node])
        if not bits >> action & 1:
            raise ValueError(f"{self.rules.card_name(action)} is not legal here")
        self.plays += bytes((int(self.tree.player[node]), int(action), 0))
        self.node = int(self.tree.first_child[node]) + (bits & ((1 << action) - 1)).bit_count()

    def _action_to_string(self, player: int, action: int) -> str:
        return f"deal #{action}" if player < 0 else self.rules.card_name(action)

    def is_terminal(self) -> bool:
        return int(self.tree.player[self.node]) == -2

    def returns(self) -> list[float]:
        return self.tree.returns[self.node].tolist()

    def __str__(self) -> str:
        return f"deal {self.deal}; plays {' '.join(self.rules.card_name(a) for _, a, _ in play_triples(self.plays))}"


class Core:
    """A one-game core batch; copied with ``State.take`` (the tables stay shared)."""

    def __init__(self, state: State, rules: Ruleset) -> None:
        self.state = state
        self.rules = rules

    @staticmethod
    def deal(rules: Ruleset, dealer: int, dealt: bytes, chance: str) -> Core:
        t = tables_for(rules)
        if chance == "card":
            rest = [c for c in rules.deck if c not in set(dealt)]
            deck = np.array(list(dealt) + rest, dtype=np.int8)
        else:
            hands = [[] for _ in range(rules.players)]
            h = rules.hand_size
            for k in range(rules.players):
                hands[int(t.order[dealer][k])] = list(dealt[k * h : (k + 1) * h])
            deck = deck_for_hands(t, hands, dealer)
        state = reset(
            rules, 1, np.random.default_rng(0), decks=deck[None], dealers=np.array([dealer])
        )
        return Core(state, rules)

    def __deepcopy__(self, memo: dict) -> Core:
        # A plain copy of each field: cheaper than State.take's fancy indexing.
        fields = {name: getattr(self.state, name).copy() for name in _STATE_FIELDS}
        return Core(State(tables=self.state.tables, **fields), self.rules)

    def __reduce__(self):
        fields = {name: getattr(self.state, name) for name in _STATE_FIELDS}
        return (Core._restore, (self.rules, fields))

    @staticmethod
    def _restore(rules: Ruleset, fields: dict) -> Core:
        return Core(State(tables=tables_for(rules), **fields), rules)
