"""OpenSpiel bridge: any ruleset as a registered pyspiel Python game (one hand).

``pyspiel`` is an optional dependency (``pip install -e ".[openspiel]"``); it
is imported only when a game is made, with a clear error if missing.

    game = load_game(make_rules("micro"))      # registers "spar_micro_2p" once
    state = game.new_initial_state()           # a chance node: the deal

The state wraps a one-game batch of :mod:`spar_env.core` and holds no rules
of its own: its legal actions, next states and returns are the core's.

=============================  ===============================================================
OpenSpiel                      here
=============================  ===============================================================
players                        the ruleset's seats; utility ``stakes`` is zero-sum
distinct actions               ``rules.num_actions``: card ids, then KEEP / EXCHANGE
chance (``chance="hand"``)     the first dealer if drawn, then each seat's hand in deal order
                               as one outcome: the index of the combination among the
                               undealt cards (``itertools.combinations`` order)
chance (``chance="card"``)     one deck position at a time, top first (the whole deck when
                               the ruleset uses the stock: exchange or reveal)
information state              own seat, dealer, own dealt hand, then every play in order,
                               another seat's face-down card as ``??``; the hand taken in an
                               exchange and the revealed stock card where seen
observation                    :func:`spar_env.observe.encode` of the seat (hides hidden cards)
returns                        the core's payoff of the hand
=============================  ===============================================================

``chance`` defaults to ``"hand"`` when a hand has at most 10,000 possible
combinations and the stock is unused, else ``"card"``.

``load_game(rules, tree=tree)`` (``tree`` from :func:`agents.cfr.build.build_tree`,
handed in so that this layer imports nothing above it) registers the same
game stepped by table look-ups in that pre-enumerated tree, with one chance
node over whole deals: some hundred times cheaper per state than a core
step, which is what lets OpenSpiel's Python solvers walk ``mini`` at all.
"""

from __future__ import annotations

import hashlib
import itertools
import math
from dataclasses import fields as dataclass_fields
from typing import Any

import numpy as np

from spar_env.core import State, reset, step, tables_for
from spar_env.core.deal import deck_for_hands
from spar_env.observe import encode, layout_for, max_hand_points
from spar_env.rules import Ruleset

_HAND_LIMIT = 10_000
_STATE_FIELDS = tuple(f.name for f in dataclass_fields(State) if f.name != "tables")
_REGISTERED: dict[str, type] = {}


def _pyspiel():
    try:
        import pyspiel
    except ImportError as err:  # pragma: no cover - depends on the environment
        raise ImportError(
            "the OpenSpiel bridge needs pyspiel: pip install -e '.[openspiel]' "
            "(the open-spiel package)"
        ) from err
    return pyspiel


def _uses_stock(rules: Ruleset) -> bool:
    return rules.weak_hand_exchange or rules.reveal_stock_bottom


def default_chance(rules: Ruleset) -> str:
    small = math.comb(rules.deck_size, rules.hand_size) <= _HAND_LIMIT
    return "hand" if small and not _uses_stock(rules) else "card"


def game_name(rules: Ruleset, chance: str | None = None) -> str:
    """The short name a ruleset is registered under (options hashed in when set)."""
    chance = chance or default_chance(rules)
    opts = rules.options()
    tag = ""
    if opts:
        tag = "_" + hashlib.sha1(repr(sorted(opts.items())).encode()).hexdigest()[:8]
    mode = "" if chance == default_chance(rules) else f"_{chance}"
    return f"spar_{rules.variant}_{rules.players}p{tag}{mode}"


def load_game(rules: Ruleset, chance: str | None = None, tree: Any = None):
    """Register ``rules`` (once) and return the loaded ``pyspiel.Game`` (see :func:`register`)."""
    pyspiel = _pyspiel()
    return pyspiel.load_game(register(rules, chance, tree))


def register(rules: Ruleset, chance: str | None = None, tree: Any = None) -> str:
    """Register ``rules`` as a pyspiel Python game; returns its short name.

    Args:
        rules: the ruleset; one hand is one OpenSpiel episode.
        chance: ``"hand"`` or ``"card"`` (see the module table).
        tree: optional game tree of ``rules`` enumerated beforehand (an
            :class:`agents.cfr.tree.GameTree`, passed in so that this layer
            imports nothing above it). States are then node ids of that tree
            and the chance node deals whole deals: the same game, stepped by
            table look-ups instead of the core, for OpenSpiel's own solvers
            on ``mini``. Registered as ``<name>_tree``.
    """
    pyspiel = _pyspiel()
    if tree is not None:
        if tree.rules != rules:
            raise ValueError("the tree was built from another ruleset")
        chance = "tree"
    chance = chance or default_chance(rules)
    if chance not in ("hand", "card", "tree"):
        raise ValueError(f"chance must be 'hand' or 'card'; got {chance!r}")
    if chance == "hand" and _uses_stock(rules):
        raise ValueError("chance='hand' leaves the stock unordered; this ruleset uses the stock")
    name = game_name(rules, chance)
    if name in _REGISTERED:
        return name
    n = rules.players
    top = max_hand_points(rules)
    stakes = rules.payoff == "stakes"
    deal_steps = rules.deck_size if chance == "card" and _uses_stock(rules) else n * rules.hand_size
    chance_nodes = (deal_steps if chance == "card" else n) + (rules.first_dealer is None)
    plays = n * rules.hand_size + (n if rules.weak_hand_exchange else 0)
    # Card outcomes are card ids, which run over the whole grid (a left-out A♠ keeps its id).
    outcomes = (
        rules.num_card_ids if chance == "card" else math.comb(rules.deck_size, rules.hand_size)
    )
    if tree is not None:
        chance_nodes, outcomes = 1, int(tree.num_children[0])
    game_type = pyspiel.GameType(
        short_name=name,
        long_name=f"Spar {rules.variant} ({n} players)",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=(
            pyspiel.GameType.Utility.ZERO_SUM if stakes else pyspiel.GameType.Utility.GENERAL_SUM
        ),
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=n,
        min_num_players=n,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification={},
    )
    game_info = pyspiel.GameInfo(
        num_distinct_actions=rules.num_actions,
        max_chance_outcomes=max(outcomes, n),
        num_players=n,
        min_utility=float(-top if stakes else 0),
        max_utility=float(top * (n - 1) if stakes else top),
        utility_sum=0.0 if stakes else None,
        max_game_length=chance_nodes + plays,
    )

    class Game(pyspiel.Game):
        def __init__(self, params: Any = None) -> None:
            super().__init__(game_type, game_info, params or {})
            self.rules = rules
            self.chance = chance
            self.deal_steps = deal_steps
            self.max_plays = plays

        def new_initial_state(self) -> pyspiel.State:
            return _State(self) if tree is None else _TreeState(self)

        def make_py_observer(self, iig_obs_type=None, params=None) -> _Observer:
            perfect = iig_obs_type is not None and iig_obs_type.perfect_recall
            return _Observer(self, perfect)

        def max_chance_nodes_in_history(self) -> int:
            return chance_nodes

    class _State(pyspiel.State):
        """One hand: the deal so far, then a one-game core batch."""

        def __init__(self, game: Game) -> None:
            super().__init__(game)
            self.dealer = rules.first_dealer  # None until drawn
            # bytes, not lists: clones deep-copy every attribute, and bytes copy for free.
            self.dealt = b""  # card ids dealt so far (chance="hand": whole hands, H bytes each)
            self.core: _Core | None = None
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
            return [c for c in rules.deck if c not in used]

        def chance_outcomes(self) -> list[tuple[int, float]]:
            if self.dealer is None:
                return [(s, 1.0 / n) for s in range(n)]
            if chance == "card":
                left = self._remaining()
                return [(c, 1.0 / len(left)) for c in left]
            count = math.comb(len(self._remaining()), rules.hand_size)
            return [(i, 1.0 / count) for i in range(count)]

        def _legal_actions(self, player: int) -> list[int]:
            bits = int(self.core.state.legal[0])
            return [a for a in range(rules.num_actions) if bits >> a & 1]

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
            elif chance == "card":
                self.dealt += bytes([int(action)])
            else:
                combo = next(
                    itertools.islice(
                        itertools.combinations(self._remaining(), rules.hand_size), action, None
                    )
                )
                self.dealt += bytes(combo)
            if self.dealer is not None and len(self.dealt) == deal_steps:
                self.core = _Core.deal(rules, self.dealer, self.dealt, chance)

        def _action_to_string(self, player: int, action: int) -> str:
            if player == int(pyspiel.PlayerId.CHANCE):
                if self.dealer is None:
                    return f"dealer {action}"
                if chance == "card":
                    return f"deal {rules.card_name(action)}"
                return f"deal #{action}"
            if rules.weak_hand_exchange and action == rules.keep_action:
                return "KEEP"
            if rules.weak_hand_exchange and action == rules.exchange_action:
                return "EXCHANGE"
            return rules.card_name(action)

        def is_terminal(self) -> bool:
            return self.core is not None and bool(self.core.state.terminated[0])

        def returns(self) -> list[float]:
            if not self.is_terminal():
                return [0.0] * n
            return [float(r) for r in self.core.state.rewards[0]]  # paid by the last step

        def __str__(self) -> str:
            deal = "dealer " + ("?" if self.dealer is None else str(self.dealer))
            cards = " ".join(
                rules.card_name(a)
                if a < rules.num_card_ids
                else ("KEEP", "EXCHANGE")[a - rules.keep_action]
                for _, a, _ in _triples(self.plays)
            )
            return f"{deal}; dealt {list(self.dealt)}; plays {cards}"

    class _TreeState(pyspiel.State):
        """One hand as a node id of a pre-enumerated tree (built by the core)."""

        def __init__(self, game: Game) -> None:
            super().__init__(game)
            self.node = 0
            self.deal = -1
            self.plays = b""  # as in _State

        @property
        def dealer(self) -> int | None:
            return None if self.deal < 0 else int(tree.deal_dealer[self.deal])

        def _view(self, player: int) -> tuple:
            if self.deal < 0:
                return None, None, 0, -1
            return self.dealer, int(tree.deal_hands[self.deal, player]), 0, -1

        def _observed_core(self) -> State | None:
            if self.deal < 0:
                return None
            hands = [
                [c for c in range(rules.num_card_ids) if int(h) >> c & 1]
                for h in tree.deal_hands[self.deal]
            ]
            deck = deck_for_hands(tables_for(rules), hands, self.dealer)
            st = reset(
                rules,
                1,
                np.random.default_rng(0),
                decks=deck[None],
                dealers=np.array([self.dealer]),
            )
            for _, action, _ in _triples(self.plays):
                step(st, np.array([action]))
            return st

        def current_player(self) -> int:
            p = int(tree.player[self.node])
            if p >= 0:
                return p
            return int(pyspiel.PlayerId.CHANCE if p == -1 else pyspiel.PlayerId.TERMINAL)

        def chance_outcomes(self) -> list[tuple[int, float]]:
            lo, k = int(tree.first_child[self.node]), int(tree.num_children[self.node])
            return list(enumerate(tree.chance_prob[lo : lo + k].tolist()))

        def _legal_actions(self, player: int) -> list[int]:
            bits = int(tree.legal[self.node])
            return [a for a in range(rules.num_actions) if bits >> a & 1]

        def _apply_action(self, action: int) -> None:
            node = self.node
            if tree.player[node] == -1:
                self.deal = int(action)
                self.node = int(tree.first_child[node]) + int(action)
                return
            bits = int(tree.legal[node])
            if not bits >> action & 1:
                raise ValueError(f"{rules.card_name(action)} is not legal here")
            self.plays += bytes((int(tree.player[node]), int(action), 0))
            self.node = int(tree.first_child[node]) + (bits & ((1 << action) - 1)).bit_count()

        def _action_to_string(self, player: int, action: int) -> str:
            return f"deal #{action}" if player < 0 else rules.card_name(action)

        def is_terminal(self) -> bool:
            return int(tree.player[self.node]) == -2

        def returns(self) -> list[float]:
            return tree.returns[self.node].tolist()

        def __str__(self) -> str:
            return f"deal {self.deal}; plays {' '.join(rules.card_name(a) for _, a, _ in _triples(self.plays))}"

    pyspiel.register_game(game_type, Game)
    _REGISTERED[name] = Game
    return name


class _Core:
    """A one-game core batch; copied with ``State.take`` (the tables stay shared)."""

    def __init__(self, state: State, rules: Ruleset) -> None:
        self.state = state
        self.rules = rules

    @staticmethod
    def deal(rules: Ruleset, dealer: int, dealt: bytes, chance: str) -> _Core:
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
        return _Core(state, rules)

    def __deepcopy__(self, memo: dict) -> _Core:
        # A plain copy of each field: cheaper than State.take's fancy indexing.
        fields = {name: getattr(self.state, name).copy() for name in _STATE_FIELDS}
        return _Core(State(tables=self.state.tables, **fields), self.rules)

    def __reduce__(self):
        fields = {name: getattr(self.state, name) for name in _STATE_FIELDS}
        return (_Core._restore, (self.rules, fields))

    @staticmethod
    def _restore(rules: Ruleset, fields: dict) -> _Core:
        return _Core(State(tables=tables_for(rules), **fields), rules)


class _Observer:
    """Information states (perfect recall) and observations, as strings and tensors."""

    def __init__(self, game, perfect_recall: bool) -> None:
        rules = game.rules
        self.rules = rules
        self.perfect = perfect_recall
        n, c, a = rules.players, rules.num_card_ids, rules.num_actions
        if perfect_recall:
            shapes = [
                ("seat", (n,)),
                ("dealer", (n,)),
                ("dealt", (c,)),
                ("held", (c,)),
                ("revealed", (c,)),
                ("plays", (game.max_plays, n + a + 1)),  # who played, then the action or ??
            ]
        else:
            shapes = [("observation", (layout_for(rules).size,))]
        size = sum(int(np.prod(s)) for _, s in shapes)
        self.tensor = np.zeros(size, np.float32)
        self.dict = {}
        at = 0
        for name, shape in shapes:
            width = int(np.prod(shape))
            self.dict[name] = self.tensor[at : at + width].reshape(shape)
            at += width

    def _seen_plays(self, state, player: int) -> list[tuple[int, int]]:
        """(seat, action) per play, the action -1 where the card lay face down for another."""
        return [(s, -1 if down and s != player else a) for s, a, down in _triples(state.plays)]

    def set_from(self, state, player: int) -> None:
        self.tensor.fill(0)
        rules = self.rules
        if not self.perfect:
            core = state._observed_core()
            if core is not None:
                self.dict["observation"][:] = encode(core, player)[0]
            return
        self.dict["seat"][player] = 1
        dealer, bits, held, revealed = state._view(player)
        if dealer is not None:
            self.dict["dealer"][dealer] = 1
        if bits is None:
            return
        for card in range(rules.num_card_ids):
            self.dict["dealt"][card] = bits >> card & 1
            self.dict["held"][card] = held >> card & 1
        if revealed >= 0:
            self.dict["revealed"][revealed] = 1
        for k, (seat, action) in enumerate(self._seen_plays(state, player)):
            self.dict["plays"][k, seat] = 1
            self.dict["plays"][
                k, rules.players + (action if action >= 0 else rules.num_actions)
            ] = 1

    def string_from(self, state, player: int) -> str:
        rules = self.rules
        if not self.perfect:
            core = state._observed_core()
            if core is None:
                return f"seat {player}: dealing"
            obs = encode(core, player)[0]
            parts = [f"seat {player}"]
            for b in layout_for(rules).blocks:
                nz = np.flatnonzero(obs[b.offset : b.offset + b.width])
                if nz.size:
                    vals = obs[b.offset + nz]
                    parts.append(
                        f"{b.name}:"
                        + ",".join(
                            str(i) if v == 1 else f"{i}={v}" for i, v in zip(nz, vals, strict=True)
                        )
                    )
            return " ".join(parts)
        dealer, bits, held, revealed = state._view(player)
        out = [f"seat {player}", f"dealer {'?' if dealer is None else dealer}"]
        if bits is None:
            return " ".join(out + ["dealing"])
        out.append(f"hand {_names(rules, bits)}")
        if held:
            out.append(f"took {_names(rules, held)}")
        if revealed >= 0:
            out.append(f"stock bottom {rules.card_name(revealed)}")
        plays = []
        for seat, action in self._seen_plays(state, player):
            if action < 0:
                plays.append(f"{seat}:??")
            elif action >= rules.num_card_ids:
                plays.append(f"{seat}:{('KEEP', 'EXCHANGE')[action - rules.keep_action]}")
            else:
                plays.append(f"{seat}:{rules.card_name(action)}")
        return " ".join(out) + " | " + " ".join(plays)


def _triples(plays: bytes) -> list[tuple[int, int, int]]:
    return [(plays[i], plays[i + 1], plays[i + 2]) for i in range(0, len(plays), 3)]


def _names(rules: Ruleset, bits: int) -> str:
    return ",".join(rules.card_name(c) for c in range(rules.num_card_ids) if bits >> c & 1)
