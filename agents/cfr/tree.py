"""The whole game tree of a small ruleset as flat arrays: the solvers' one view of the game.

:func:`spar_agents.cfr.build.build_tree` enumerates it from the batch core. Node
ids are breadth-first: the root chance node is 0, its children are the
deals, and each later level holds the nodes after one more card play.

=====================  ==================  ==================================================
field                  shape / dtype       meaning
=====================  ==================  ==================================================
``player``             int8 [M]            seat to act, :data:`CHANCE` or :data:`TERMINAL`
``parent``             int32 [M]           parent node, -1 for the root
``action``             int16 [M]           action leading here (chance: the outcome index)
``chance_prob``        float64 [M]         probability of that edge if the parent is chance, else 1
``first_child``        int32 [M]           id of the first child (children are contiguous)
``num_children``       int16 [M]           number of children (legal actions or outcomes)
``legal``              uint64 [M]          legal actions as a bit set (0 unless a decision node)
``infoset``            int32 [M]           information set of a decision node, else -1
``returns``            float64 [M, N]      payoffs at terminal nodes, 0 elsewhere
``level_start``        int64 [L + 1]       nodes of level l are ``level_start[l]:level_start[l+1]``
``infoset_player``     int8 [I]            seat owning each information set
``infoset_legal``      uint64 [I]          its legal actions (the same at each of its nodes)
=====================  ==================  ==================================================

:func:`make_tree` builds the same arrays by hand (matching pennies, a
two-card game) for tests whose answer is known.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from spar_env.rules import Ruleset

CHANCE = -1  # player of a chance node
TERMINAL = -2  # player of a terminal node


@dataclass(frozen=True, eq=False)
class GameTree:
    """A finite extensive-form game as breadth-first node arrays (see the module table)."""

    num_players: int
    num_actions: int  # distinct actions (ids 0..num_actions-1)
    player: np.ndarray
    parent: np.ndarray
    action: np.ndarray
    chance_prob: np.ndarray
    first_child: np.ndarray
    num_children: np.ndarray
    legal: np.ndarray
    infoset: np.ndarray
    returns: np.ndarray
    level_start: np.ndarray
    infoset_player: np.ndarray
    infoset_legal: np.ndarray
    rules: Ruleset | None = None  # None for a hand-made tree
    deal_hands: np.ndarray | None = None  # uint64 [D, N] hands of each chance outcome
    deal_dealer: np.ndarray | None = None  # int64 [D] dealer of each chance outcome
    infoset_keys: np.ndarray | None = None  # bytes [I] sorted keys (see infoset_keys())

    @property
    def num_nodes(self) -> int:
        return int(self.player.shape[0])

    @property
    def num_infosets(self) -> int:
        return int(self.infoset_player.shape[0])

    @property
    def num_levels(self) -> int:
        return int(self.level_start.shape[0] - 1)

    def is_terminal(self, nodes: np.ndarray) -> np.ndarray:
        return self.player[nodes] == TERMINAL

    def legal_actions(self, node: int) -> np.ndarray:
        """Legal actions of one decision node, ascending (chance: outcome indices)."""
        if self.player[node] == CHANCE:
            return np.arange(int(self.num_children[node]))
        bits = int(self.legal[node])
        return np.array([a for a in range(self.num_actions) if bits >> a & 1], dtype=np.int64)

    def chance_outcomes(self, node: int) -> tuple[np.ndarray, np.ndarray]:
        """``(outcome indices, probabilities)`` of a chance node."""
        lo = int(self.first_child[node])
        hi = lo + int(self.num_children[node])
        return np.arange(hi - lo), self.chance_prob[lo:hi]

    def child(self, nodes: np.ndarray, actions: np.ndarray) -> np.ndarray:
        """Children of a batch of nodes after one action each (chance: the outcome index).

        Children of a node are stored in ascending action order, so a legal
        action's child is ``first_child + (legal actions below it)``.
        """
        nodes = np.asarray(nodes, dtype=np.int64)
        actions = np.asarray(actions, dtype=np.int64)
        bit = np.clip(actions, 0, 63).astype(np.uint64)  # chance outcomes may pass 63
        below = self.legal[nodes] & ((np.uint64(1) << bit) - np.uint64(1))
        chance = self.player[nodes] == CHANCE
        rank = np.where(chance, actions, np.bitwise_count(below))
        ok = (rank >= 0) & (rank < self.num_children[nodes])
        ok &= chance | ((actions < 64) & ((self.legal[nodes] >> bit) & np.uint64(1) == 1))
        if not ok.all():
            bad = int(np.flatnonzero(~ok)[0])
            raise ValueError(f"node {int(nodes[bad])}: action {int(actions[bad])} is not legal")
        return self.first_child[nodes].astype(np.int64) + rank

    def deal_index(self, hands: np.ndarray, dealers: np.ndarray) -> np.ndarray:
        """The chance outcome (deal index) of hands ``uint64 [G, N]`` dealt by ``dealers``."""
        if self.deal_hands is None or self.deal_dealer is None:
            raise ValueError("this tree was not built from a ruleset")
        keys = deal_keys(self.deal_hands, self.deal_dealer)
        order = np.argsort(keys)
        probe = deal_keys(np.asarray(hands, dtype=np.uint64), np.asarray(dealers))
        pos = np.searchsorted(keys[order], probe)
        pos = np.minimum(pos, len(keys) - 1)
        found = order[pos]
        if (keys[found] != probe).any():
            raise ValueError("some hands are not a deal of this tree")
        return found


def deal_keys(hands: np.ndarray, dealers: np.ndarray) -> np.ndarray:
    """One sortable byte key per deal (dealer, then each seat's hand)."""
    rows = np.concatenate([np.asarray(dealers, dtype=">u8")[:, None], hands.astype(">u8")], axis=1)
    return np.ascontiguousarray(rows).view(f"S{rows.shape[1] * 8}").ravel()


def assemble(
    *,
    num_players: int,
    num_actions: int,
    player: np.ndarray,
    parent: np.ndarray,
    action: np.ndarray,
    chance_prob: np.ndarray,
    legal: np.ndarray,
    infoset: np.ndarray,
    returns: np.ndarray,
    level_start: np.ndarray,
    num_infosets: int,
    rules: Ruleset | None = None,
    deal_hands: np.ndarray | None = None,
    deal_dealer: np.ndarray | None = None,
    infoset_keys: np.ndarray | None = None,
) -> GameTree:
    """Derive the child ranges and the infoset tables, and check the tree's shape."""
    m = player.shape[0]
    kids = parent[1:].astype(np.int64)
    if (np.diff(kids) < 0).any() or (kids >= np.arange(1, m)).any():
        raise ValueError(
            "nodes must be breadth-first: parents first, each node's children together"
        )
    num_children = np.bincount(kids, minlength=m).astype(np.int16)
    first_child = np.zeros(m, dtype=np.int32)
    first = np.searchsorted(kids, np.arange(m)) + 1
    first_child[:] = np.where(num_children > 0, first, 0)
    decision = player >= 0
    if (num_children[player == TERMINAL] != 0).any() or (
        num_children[player != TERMINAL] == 0
    ).any():
        raise ValueError("terminal nodes must have no children and the others at least one")
    if (np.bitwise_count(legal[decision]) != num_children[decision]).any():
        raise ValueError("a decision node's legal bit set must match its children")
    if ((infoset >= 0) != decision).any():
        raise ValueError("every decision node, and only those, needs an information set")
    infoset_player = np.full(num_infosets, -1, dtype=np.int8)
    infoset_legal = np.zeros(num_infosets, dtype=np.uint64)
    infoset_player[infoset[decision]] = player[decision]
    infoset_legal[infoset[decision]] = legal[decision]
    if (infoset_player[infoset[decision]] != player[decision]).any() or (
        infoset_legal[infoset[decision]] != legal[decision]
    ).any():
        raise ValueError("nodes of one information set must share the player and legal actions")
    return GameTree(
        num_players=num_players,
        num_actions=num_actions,
        player=player,
        parent=parent,
        action=action,
        chance_prob=chance_prob,
        first_child=first_child,
        num_children=num_children,
        legal=legal,
        infoset=infoset,
        returns=returns,
        level_start=level_start,
        infoset_player=infoset_player,
        infoset_legal=infoset_legal,
        rules=rules,
        deal_hands=deal_hands,
        deal_dealer=deal_dealer,
        infoset_keys=infoset_keys,
    )


def make_tree(
    parent: list[int],
    player: list[int],
    action: list[int],
    infoset: list[int],
    returns: list[list[float]],
    *,
    chance_prob: list[float] | None = None,
    num_actions: int | None = None,
) -> GameTree:
    """A hand-made tree in the same arrays, for games whose answer is known by hand.

    Nodes are listed breadth-first (each node's children together, by
    ascending action); the legal actions of a decision node are the actions
    of its children. ``infoset`` is -1 for chance and terminal nodes.

    Example (matching pennies: seat 1 does not see seat 0's coin)::

        make_tree(parent=[-1, 0, 0, 1, 1, 2, 2], player=[0, 1, 1, -2, -2, -2, -2],
                  action=[0, 0, 1, 0, 1, 0, 1], infoset=[0, 1, 1, -1, -1, -1, -1],
                  returns=[[0, 0]] * 3 + [[1, -1], [-1, 1], [-1, 1], [1, -1]])
    """
    par = np.asarray(parent, dtype=np.int32)
    act = np.asarray(action, dtype=np.int16)
    pl = np.asarray(player, dtype=np.int8)
    m = par.shape[0]
    legal = np.zeros(m, dtype=np.uint64)
    np.bitwise_or.at(legal, par[1:], np.uint64(1) << act[1:].astype(np.uint64))
    legal[pl < 0] = 0
    depth = np.zeros(m, dtype=np.int64)
    for i in range(1, m):  # once, on a hand-sized tree
        depth[i] = depth[par[i]] + 1
    if (np.diff(depth) < 0).any():
        raise ValueError("nodes must be listed breadth-first")
    level_start = np.searchsorted(depth, np.arange(depth.max() + 2))
    prob = np.ones(m) if chance_prob is None else np.asarray(chance_prob, dtype=np.float64)
    info = np.asarray(infoset, dtype=np.int32)
    rets = np.asarray(returns, dtype=np.float64)
    return assemble(
        num_players=rets.shape[1],
        num_actions=int(act.max()) + 1 if num_actions is None else num_actions,
        player=pl,
        parent=par,
        action=act,
        chance_prob=prob,
        legal=legal,
        infoset=info,
        returns=rets,
        level_start=level_start.astype(np.int64),
        num_infosets=int(info.max()) + 1,
    )
