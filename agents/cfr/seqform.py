"""The sequence form of a two-player zero-sum :class:`~spar_agents.cfr.tree.GameTree`.

A player's *sequence* is an information set and one of its actions; sequence
0 is the empty sequence. A behavioural strategy is stored per sequence
(``sigma[s]`` = probability of the sequence's action at its information set;
``sigma[0] = 1``), and its *realization plan* ``x[s]`` is the product of the
player's own probabilities on the way to ``s``. With the payoff matrix
``A[s0, s1]`` (the sum over leaves ending with sequences ``s0`` and ``s1`` of
chance probability times seat 0's payoff), seat 0's expected payoff is
``x0 @ A @ x1``.

Information sets with a single legal action are no choices and get no
sequence. The others are numbered by their depth in the player's own tree
(how many choices of his lie above them), and each depth's information sets
and sequences are contiguous ranges (:attr:`PlayerSequences.levels`), so the
top-down (realization) and bottom-up (values) passes are one slice per depth.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from spar_agents.cfr.tree import CHANCE, TERMINAL, GameTree


@dataclass(frozen=True, eq=False)
class PlayerSequences:
    """One player's information sets and sequences."""

    num_sequences: int  # including the empty sequence 0
    first_seq: np.ndarray  # int64 [I] first sequence of each information set
    num_actions: np.ndarray  # int64 [I]
    parent_seq: np.ndarray  # int64 [I] the player's last sequence before the information set
    seq_infoset: np.ndarray  # int64 [S] information set of each sequence (-1 for sequence 0)
    seq_parent: np.ndarray  # int64 [S] parent sequence of each sequence (0 for sequence 0)
    seq_action: np.ndarray  # int64 [S] action of each sequence (-1 for sequence 0)
    levels: tuple[tuple[int, int, int, int], ...]  # (infoset lo, hi, sequence lo, hi) by depth
    tree_infoset: np.ndarray  # int64 [I] the tree's id of each information set

    @property
    def num_infosets(self) -> int:
        return int(self.first_seq.shape[0])


@dataclass(frozen=True, eq=False)
class SequenceForm:
    """Both players' sequences and the sparse payoff matrix of seat 0."""

    tree: GameTree
    players: tuple[PlayerSequences, PlayerSequences]
    payoff: sp.csr_matrix  # [S0, S1] chance-weighted payoff of seat 0
    payoff_t: sp.csr_matrix  # its transpose, as CSR for fast products
    local_infoset: np.ndarray  # int64 [tree infosets] index in its player's list, -1 if no choice

    def uniform(self) -> tuple[np.ndarray, np.ndarray]:
        """The uniform behavioural strategy of each player."""
        return tuple(_uniform(p) for p in self.players)  # type: ignore[return-value]

    def realization(self, player: int, sigma: np.ndarray) -> np.ndarray:
        """Realization plan of a behavioural strategy (top-down, one slice per depth)."""
        ps = self.players[player]
        x = sigma.astype(np.float64, copy=True)
        x[0] = 1.0
        for _, _, lo, hi in ps.levels:
            x[lo:hi] *= x[ps.seq_parent[lo:hi]]
        return x

    def behavioural(self, player: int, plan: np.ndarray) -> np.ndarray:
        """Behavioural strategy from an (unnormalised) realization-plan-like weight per sequence.

        Each information set's weights are normalised; one with zero weight
        (never reached) plays uniformly.
        """
        ps = self.players[player]
        sums = np.add.reduceat(plan[1:], ps.first_seq - 1) if ps.num_infosets else np.zeros(0)
        own = sums[ps.seq_infoset[1:]]
        sigma = np.ones(ps.num_sequences)
        uniform = 1.0 / ps.num_actions[ps.seq_infoset[1:]]
        sigma[1:] = np.where(own > 0, plan[1:] / np.where(own > 0, own, 1.0), uniform)
        return sigma

    def utility_vector(self, player: int, opponent_plan: np.ndarray) -> np.ndarray:
        """Per sequence of ``player``: the chance- and opponent-weighted payoff of its leaves."""
        if player == 0:
            return self.payoff @ opponent_plan
        return -(self.payoff_t @ opponent_plan)

    def tree_policy(self, sigma: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
        """The behavioural strategies as ``float64 [tree infosets, num_actions]``.

        Forced information sets (one legal action) get probability 1 on it.
        """
        tree = self.tree
        out = np.zeros((tree.num_infosets, tree.num_actions))
        legal = (
            (tree.infoset_legal[:, None] >> np.arange(tree.num_actions, dtype=np.uint64))
            & np.uint64(1)
        ).astype(bool)
        out[legal] = 1.0  # forced sets; the others are overwritten below
        for p, ps in enumerate(self.players):
            s = np.arange(1, ps.num_sequences)
            out[ps.tree_infoset[ps.seq_infoset[s]], ps.seq_action[s]] = 0.0
            out[ps.tree_infoset[ps.seq_infoset[s]], ps.seq_action[s]] = sigma[p][s]
        return out

    def from_tree_policy(self, table: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Inverse of :meth:`tree_policy`: per-sequence behavioural strategies."""
        out = []
        for ps in self.players:
            sigma = np.ones(ps.num_sequences)
            s = np.arange(1, ps.num_sequences)
            sigma[s] = table[ps.tree_infoset[ps.seq_infoset[s]], ps.seq_action[s]]
            out.append(sigma)
        return out[0], out[1]


def _uniform(ps: PlayerSequences) -> np.ndarray:
    sigma = np.ones(ps.num_sequences)
    sigma[1:] = 1.0 / ps.num_actions[ps.seq_infoset[1:]]
    return sigma


def sequence_form(tree: GameTree) -> SequenceForm:
    """Build the sequence form of a two-player zero-sum tree.

    Raises:
        ValueError: if the tree is not two-player zero-sum, or an information
            set is reached by different sequences of its own player (imperfect
            recall).
    """
    if tree.num_players != 2:
        raise ValueError(f"the sequence form needs two players; got {tree.num_players}")
    terminal = np.flatnonzero(tree.player == TERMINAL)
    if np.abs(tree.returns[terminal].sum(axis=1)).max(initial=0.0) > 1e-12:
        raise ValueError("the game is not zero-sum (use payoff='stakes')")
    choice = np.bitwise_count(tree.infoset_legal) > 1
    # Provisional numbering: choice sets in tree order; renumbered by depth below.
    local = np.full(tree.num_infosets, -1, dtype=np.int64)
    prov_first = []
    for p in range(2):
        mine = np.flatnonzero(choice & (tree.infoset_player == p))
        local[mine] = np.arange(mine.shape[0])
        nact = np.bitwise_count(tree.infoset_legal[mine]).astype(np.int64)
        prov_first.append(1 + np.concatenate([[0], np.cumsum(nact)[:-1]]).astype(np.int64))
    seq = np.zeros((2, tree.num_nodes), dtype=np.int64)  # each player's last sequence at each node
    reach = np.ones(tree.num_nodes)  # chance reach
    for lvl in range(1, tree.num_levels):
        nodes = np.arange(tree.level_start[lvl], tree.level_start[lvl + 1])
        par = tree.parent[nodes].astype(np.int64)
        reach[nodes] = reach[par] * np.where(
            tree.player[par] == CHANCE, tree.chance_prob[nodes], 1.0
        )
        rank = nodes - tree.first_child[par]
        info = tree.infoset[par].astype(np.int64)
        for p in range(2):
            own = (tree.player[par] == p) & (info >= 0)
            own &= choice[np.where(own, info, 0)]
            s = seq[p, par]  # a copy (fancy indexing)
            s[own] = prov_first[p][local[info[own]]] + rank[own]
            seq[p, nodes] = s
    players = []
    perms = []
    for p in range(2):
        ps, perm = _player_sequences(tree, p, choice, local, prov_first[p], seq[p])
        players.append(ps)
        perms.append(perm)
    s0, s1 = perms[0][seq[0, terminal]], perms[1][seq[1, terminal]]
    shape = (players[0].num_sequences, players[1].num_sequences)
    payoff = sp.coo_matrix(
        (reach[terminal] * tree.returns[terminal, 0], (s0, s1)), shape=shape
    ).tocsr()
    payoff.sum_duplicates()
    local = np.full(tree.num_infosets, -1, dtype=np.int64)
    for ps in players:
        local[ps.tree_infoset] = np.arange(ps.num_infosets)
    return SequenceForm(
        tree=tree,
        players=(players[0], players[1]),
        payoff=payoff,
        payoff_t=payoff.T.tocsr(),
        local_infoset=local,
    )


def _player_sequences(
    tree: GameTree,
    p: int,
    choice: np.ndarray,
    local: np.ndarray,
    prov_first: np.ndarray,
    node_seq: np.ndarray,
) -> tuple[PlayerSequences, np.ndarray]:
    """One player's sequences numbered by depth; also the provisional-to-final sequence map."""
    mine = np.flatnonzero(choice & (tree.infoset_player == p))  # tree ids, provisional order
    k = mine.shape[0]
    nact = np.bitwise_count(tree.infoset_legal[mine]).astype(np.int64)
    nodes = np.flatnonzero((tree.infoset >= 0) & (tree.player == p))
    nodes = nodes[choice[tree.infoset[nodes]]]
    loc = local[tree.infoset[nodes]]
    parent_seq = np.zeros(k, dtype=np.int64)
    parent_seq[loc] = node_seq[nodes]
    if (parent_seq[loc] != node_seq[nodes]).any():
        raise ValueError(f"player {p} forgets his own moves (imperfect recall)")
    prov_total = 1 + int(nact.sum())
    prov_owner = np.full(prov_total, -1, dtype=np.int64)
    prov_owner[1:] = np.repeat(np.arange(k), nact)
    depth = np.zeros(k, dtype=np.int64)
    for _ in range(k + 1):  # a few rounds: the depth of the player's own tree
        owner = prov_owner[parent_seq]
        new = np.where(owner >= 0, depth[np.maximum(owner, 0)] + 1, 0)
        if (new == depth).all():
            break
        depth = new
    order = np.lexsort((np.arange(k), depth))  # new infoset order: by depth, then tree order
    nact_new = nact[order]
    first_new = 1 + np.concatenate([[0], np.cumsum(nact_new)[:-1]]).astype(np.int64)
    perm = np.zeros(prov_total, dtype=np.int64)  # provisional sequence -> final
    for_infoset = np.empty(k, dtype=np.int64)
    for_infoset[order] = first_new
    offs = np.arange(prov_total - 1) - np.repeat(prov_first - 1, nact)
    perm[1:] = np.repeat(for_infoset, nact) + offs
    parent_new = perm[parent_seq[order]]
    seq_infoset = np.full(prov_total, -1, dtype=np.int64)
    seq_infoset[1:] = np.repeat(np.arange(k), nact_new)
    seq_parent = np.zeros(prov_total, dtype=np.int64)
    seq_parent[1:] = parent_new[seq_infoset[1:]]
    legal = tree.infoset_legal[mine[order]]
    acts = np.arange(tree.num_actions, dtype=np.uint64)
    bits = ((legal[:, None] >> acts) & np.uint64(1)).astype(bool)
    seq_action = np.full(prov_total, -1, dtype=np.int64)
    seq_action[1:] = np.nonzero(bits)[1]
    dsorted = depth[order]
    levels = []
    for d in range(int(dsorted.max()) + 1 if k else 0):
        ilo, ihi = np.searchsorted(dsorted, [d, d + 1])
        slo = int(first_new[ilo])
        shi = int(first_new[ihi - 1] + nact_new[ihi - 1])
        levels.append((int(ilo), int(ihi), slo, shi))
    ps = PlayerSequences(
        num_sequences=prov_total,
        first_seq=first_new,
        num_actions=nact_new,
        parent_seq=parent_new,
        seq_infoset=seq_infoset,
        seq_parent=seq_parent,
        seq_action=seq_action,
        levels=tuple(levels),
        tree_infoset=mine[order],
    )
    return ps, perm
