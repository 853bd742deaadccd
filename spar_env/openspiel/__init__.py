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
observation                    :func:`spar_env.observation.per_game.encode` of the seat (hides hidden cards)
returns                        the core's payoff of the hand
=============================  ===============================================================

``chance`` defaults to ``"hand"`` when a hand has at most 10,000 possible
combinations and the stock is unused, else ``"card"``.

``load_game(rules, tree=tree)`` (``tree`` from :func:`spar_agents.cfr.build.build_tree`,
handed in so that this layer imports nothing above it) registers the same
game stepped by table look-ups in that pre-enumerated tree, with one chance
node over whole deals: some hundred times cheaper per state than a core
step, which is what lets OpenSpiel's Python solvers walk ``mini`` at all.

This module makes and registers the game; its states are in
:mod:`spar_env.openspiel.states` and its observer in :mod:`spar_env.openspiel.observer`.
"""

from __future__ import annotations

import hashlib
import math
from typing import Any

from spar_env.observation.per_game import max_hand_points
from spar_env.rules import Ruleset

_HAND_LIMIT = 10_000
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
            :class:`spar_agents.cfr.tree.GameTree`, passed in so that this layer
            imports nothing above it). States are then node ids of that tree
            and the chance node deals whole deals: the same game, stepped by
            table look-ups instead of the core, for OpenSpiel's own solvers
            on ``mini``. Registered as ``<name>_tree``.
    """
    pyspiel = _pyspiel()
    from spar_env.openspiel.observer import Observer
    from spar_env.openspiel.states import state_class

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

    state = state_class(rules, chance, deal_steps, tree)

    class Game(pyspiel.Game):
        def __init__(self, params: Any = None) -> None:
            super().__init__(game_type, game_info, params or {})
            self.rules = rules
            self.chance = chance
            self.deal_steps = deal_steps
            self.max_plays = plays

        def new_initial_state(self) -> pyspiel.State:
            return state(self)

        def make_py_observer(self, iig_obs_type=None, params=None) -> Observer:
            perfect = iig_obs_type is not None and iig_obs_type.perfect_recall
            return Observer(self, perfect)

        def max_chance_nodes_in_history(self) -> int:
            return chance_nodes

    pyspiel.register_game(game_type, Game)
    _REGISTERED[name] = Game
    return name
