"""What a solved profile of a small variant does in key spots, as readable tables.

:func:`walk` (or :func:`walk_policy`, from a saved policy) replays the whole tree of a solved ruleset (``mini``,
``micro``) through the core, level by level, and keeps every decision with a
choice and every end of a hand, each with its *reach*: its probability under
the profile (the deal's chance times both seats' probabilities on the way).
A table row gathers the spots of one kind and weights each by its reach, so
its figures are what the profile does on average over the hands where the
spot arises:

- :func:`lead_table`: a seat leads a trick before the last, holding one card
  of a scoring rank (the 6): how often it leads it, by trick and by how many
  higher cards of its suit it cannot place (in the others' hands or the
  stock). With none left, the 6 cannot lose when led.
- :func:`keep_table`: a seat is dealt one card of a scoring rank: how often
  it is still its last card, and how often it wins the last trick, by seat
  and by the cards of the same suit dealt beside it.
- :func:`before_last_table`: at trick ``H-1``, with two cards: how often it
  plays to win the trick. Leading (two ranks), that is leading the higher
  card and keeping the lower; following with one card above the best so
  far and one below, it is taking the lead. By role and by the ranks.

Columns: ``per hand`` is how often the spot arises (its reach summed: the
expected number of such spots in one hand), and each share is a probability
given the spot.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from spar_agents.cfr.build import build_tree, enumerate_deals
from spar_agents.cfr.policy import CFRPolicy
from spar_agents.cfr.seqform import SequenceForm, sequence_form
from spar_agents.cfr.tree import TERMINAL
from spar_env.core import reset, step, tables_for, unpack
from spar_env.core.bits import popcount
from spar_env.rules import Ruleset

Profile = tuple[np.ndarray, np.ndarray]


@dataclass(frozen=True)
class Spots:
    """Decisions with a choice (two legal actions or more), one row each."""

    reach: np.ndarray  # float64 [M] probability of the node under the profile
    probs: np.ndarray  # float64 [M, A] the profile's action probabilities there
    seat: np.ndarray  # int64 [M] seat to move
    hand: np.ndarray  # uint64 [M] its cards
    legal: np.ndarray  # uint64 [M] its legal cards
    unseen: np.ndarray  # uint64 [M] cards it cannot place: the others' hands and the stock
    trick: np.ndarray  # int64 [M] 0-based trick in progress
    led_suit: np.ndarray  # int64 [M] suit led, -1 when the seat leads
    best_card: np.ndarray  # int64 [M] card winning the trick so far, -1 when the seat leads


@dataclass(frozen=True)
class Ends:
    """Finished hands, one row per terminal node."""

    reach: np.ndarray  # float64 [T]
    dealt: np.ndarray  # uint64 [T, N] hands as dealt
    last: np.ndarray  # int64 [T, N] card each seat played to the last trick
    payoffs: np.ndarray  # float64 [T, N] each seat's payoff
    winner: np.ndarray  # int64 [T] seat that won the hand


@dataclass(frozen=True)
class Walk:
    """A solved profile's decisions and finished hands (:func:`walk`)."""

    rules: Ruleset
    spots: Spots
    ends: Ends


@dataclass(frozen=True)
class Row:
    """One kind of spot: what it is, how often it arises per hand, and the shares asked for."""

    spot: str
    per_hand: float
    shares: tuple[float, ...]


@dataclass(frozen=True)
class ChoiceTable:
    """Rows under a title, with the names of the share columns."""

    title: str
    columns: tuple[str, ...]
    rows: tuple[Row, ...]

    def __rich__(self):
        """A rich table: Jupyter and a terminal show it as one."""
        from rich.table import Table

        table = Table(title=self.title)
        table.add_column("spot")
        table.add_column("per hand", justify="right")
        for name in self.columns:
            table.add_column(name, justify="right")
        for r in self.rows:
            table.add_row(r.spot, f"{r.per_hand:.3f}", *(f"{100 * s:.1f}%" for s in r.shares))
        return table


def walk(sf: SequenceForm, profile: Profile) -> Walk:
    """Every choice and every end of ``sf``'s tree under ``profile``, with their reach.

    Raises:
        ValueError: for a tree not built from a ruleset by :func:`spar_agents.cfr.build.build_tree`.
    """
    tree = sf.tree
    rules = tree.rules
    if rules is None or tree.deal_hands is None:
        raise ValueError("only trees built from a ruleset can be walked")
    table = sf.tree_policy(profile)
    t = tables_for(rules)
    deck_bits = np.bitwise_or.reduce(t.card_bit[t.deck.astype(np.int64)])
    decks, dealers = enumerate_deals(rules)  # the deals in the tree's order (build_tree)
    start = int(tree.level_start[1])
    nodes = np.arange(start, int(tree.level_start[2]))
    state = reset(rules, nodes.shape[0], np.random.default_rng(0), decks=decks, dealers=dealers)
    if not np.array_equal(state.dealt, tree.deal_hands):
        raise ValueError("the tree's deals are not the ruleset's: was it built from these rules?")
    reach = tree.chance_prob[nodes]
    last = np.full((nodes.shape[0], rules.players), -1, dtype=np.int64)
    spots: list[dict[str, np.ndarray]] = []
    ends: list[dict[str, np.ndarray]] = []
    for level in range(2, tree.num_levels + 1):
        choice = (tree.player[nodes] >= 0) & (popcount(state.legal) > 1)
        rows = np.flatnonzero(choice)
        if rows.size:
            seat = state.current_player[rows]
            hand = state.hands[rows, seat]
            played = np.bitwise_or.reduce(state.played_up[rows], axis=1)
            spots.append(
                {
                    "reach": reach[rows],
                    "probs": table[tree.infoset[nodes[rows]]],
                    "seat": seat,
                    "hand": hand,
                    "legal": state.legal[rows],
                    "unseen": deck_bits & ~hand & ~played,
                    "trick": state.trick[rows],
                    "led_suit": state.led_suit[rows],
                    "best_card": state.best_card[rows],
                }
            )
        done = tree.player[nodes] == TERMINAL
        if done.any():
            ends.append(
                {
                    "reach": reach[done],
                    "dealt": state.dealt[done],
                    "last": last[done],
                    "winner": state.winner[done],
                    "payoffs": state.rewards[done].astype(np.float64),
                }
            )
        if level == tree.num_levels:
            break
        children = np.arange(int(tree.level_start[level]), int(tree.level_start[level + 1]))
        parent = tree.parent[children].astype(np.int64) - int(tree.level_start[level - 1])
        acts = tree.action[children].astype(np.int64)
        mover = state.current_player[parent]
        reach = reach[parent] * table[tree.infoset[nodes[parent]], acts]
        state = state.take(parent)
        step(state, acts, check=False)
        last = last[parent]
        last[np.arange(children.shape[0]), mover] = acts
        nodes = children
    return Walk(rules, Spots(**_joined(spots)), Ends(**_joined(ends)))


def walk_policy(policy: CFRPolicy, sf: SequenceForm | None = None) -> Walk:
    """:func:`walk` of a solved policy (for example ``SolveResult.policy``, or a loaded
    ``policy.npz``); builds its ruleset's tree unless ``sf`` is given."""
    if sf is None:
        sf = sequence_form(build_tree(policy.rules))
    tree = sf.tree
    rows = policy.lookup(tree.infoset_keys)
    legal = unpack(tree.infoset_legal, tree.num_actions).astype(np.float64)
    table = np.where(rows[:, None] >= 0, policy.probs[np.maximum(rows, 0)], legal)
    return walk(sf, sf.from_tree_policy(table))


def _joined(parts: Sequence[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    return {key: np.concatenate([p[key] for p in parts]) for key in parts[0]}


def _of_rank(rules: Ruleset, rank: str) -> np.ndarray:
    """``uint64 [num_suits]``: the card of ``rank`` in each suit, as a bit."""
    if rank not in rules.rank_points:
        raise ValueError(f"{rank!r} is not a scoring rank of {rules.variant}")
    r = rules.ranks.index(rank)
    return np.array([1 << (s * rules.num_ranks + r) for s in range(rules.num_suits)], np.uint64)


def _higher(rules: Ruleset, cards: np.ndarray) -> np.ndarray:
    """``uint64 [len(cards)]``: the cards of each card's suit above it."""
    t = tables_for(rules)
    ids = np.arange(rules.num_card_ids)
    above = (t.card_suit[ids][None, :] == t.card_suit[cards][:, None]) & (
        t.card_strength[ids][None, :] > t.card_strength[cards][:, None]
    )
    return np.bitwise_or.reduce(np.where(above, t.card_bit[ids][None, :], np.uint64(0)), axis=1)


def _single(hands: np.ndarray, bits: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Hands holding exactly one of ``bits``' cards, and that card's id."""
    held = hands[:, None] & bits[None, :]  # [M, suits]
    one = (held != 0).sum(axis=1) == 1
    return one, _lowest(np.bitwise_or.reduce(held, axis=1))


def _rows(keys: list[tuple], weight: np.ndarray, values: Sequence[np.ndarray]) -> tuple[Row, ...]:
    """Reach-weighted shares per distinct key (in key order); ``keys[i]`` is ``(sort, label)``."""
    out = []
    for key in sorted(set(keys)):
        mine = np.array([k == key for k in keys])
        w = float(weight[mine].sum())
        if w <= 0:
            continue
        shares = tuple(float((weight[mine] * v[mine]).sum()) / w for v in values)
        out.append(Row(key[1], w, shares))
    return tuple(out)


def lead_table(w: Walk, rank: str = "6") -> ChoiceTable:
    """Leading a trick before the last with one ``rank`` card: how often it is led."""
    rules, s = w.rules, w.spots
    one, card = _single(s.hand, _of_rank(rules, rank))
    pick = np.flatnonzero(one & (s.led_suit < 0) & (s.trick < rules.hand_size - 1))
    card = card[pick]
    unseen_above = popcount(_higher(rules, card) & s.unseen[pick])
    led = s.probs[pick, card]
    keys = [
        ((int(tr), int(u)), f"trick {tr + 1}, {u} higher of its suit unseen")
        for tr, u in zip(s.trick[pick], unseen_above, strict=True)
    ]
    return ChoiceTable(
        f"When it leads the {rank}", (f"leads the {rank}",), _rows(keys, s.reach[pick], [led])
    )


def keep_table(w: Walk, rank: str = "6") -> ChoiceTable:
    """Dealt one ``rank`` card: how often it is the seat's last card, and wins the last trick."""
    rules, e = w.rules, w.ends
    t = tables_for(rules)
    bits = _of_rank(rules, rank)
    keys: list[tuple] = []
    weights, kept, won = [], [], []
    for seat in range(rules.players):
        one, card = _single(e.dealt[:, seat], bits)
        rows = np.flatnonzero(one)
        suit_mates = popcount(e.dealt[rows, seat] & t.suit_bits[t.card_suit[card[rows]]]) - 1
        role = "leads trick 1" if seat == _first_leader(rules) else "follows"
        keys += [
            ((seat, int(m)), f"seat {seat} ({role}), {m} more of its suit") for m in suit_mates
        ]
        keeps = e.last[rows, seat] == card[rows]
        weights.append(e.reach[rows])
        kept.append(keeps)
        won.append(keeps & (e.winner[rows] == seat))
    columns = ("kept to the end", "won the last trick with it")
    values = [np.concatenate(kept).astype(float), np.concatenate(won).astype(float)]
    return ChoiceTable(
        f"When it keeps the {rank}", columns, _rows(keys, np.concatenate(weights), values)
    )


def before_last_table(w: Walk) -> ChoiceTable:
    """At trick H-1, with two cards and a choice: how often it plays to win the trick.

    Leading with two cards of different ranks, that is leading the higher
    (whatever the suits) and keeping the lower; following with one card above the best
    so far and one below, it is taking the lead. Rows: the role and the ranks.
    """
    rules, s = w.rules, w.spots
    t = tables_for(rules)
    at = s.trick == rules.hand_size - 2
    lead = np.flatnonzero(at & (s.led_suit < 0))
    high, low = _two_cards(rules, s.hand[lead])
    unequal = t.card_strength[high] > t.card_strength[low]  # a higher card to choose
    lead, high, low = lead[unequal], high[unequal], low[unequal]
    keys: list[tuple] = [
        ((0, -int(t.card_strength[h]), -int(t.card_strength[k])),
         f"leads, holding {rules.card_rank(int(h))} and {rules.card_rank(int(k))}")
        for h, k in zip(high, low, strict=True)
    ]  # fmt: skip
    plays_high = [s.probs[lead, high]]
    follow = np.flatnonzero(at & (s.led_suit >= 0))
    above = _higher(rules, np.maximum(s.best_card[follow], 0)) & s.legal[follow]
    below = s.legal[follow] & ~above
    can = (above != 0) & (below != 0)
    follow, above, below = follow[can], above[can], below[can]
    kept = _lowest(below)
    keys += [
        ((1, -int(t.card_strength[k]), 0), f"follows, may take the lead and keep a "
         f"{rules.card_rank(int(k))}")
        for k in kept
    ]  # fmt: skip
    plays_high.append(s.probs[follow, _lowest(above)])
    pick = np.concatenate([lead, follow])
    return ChoiceTable(
        "When it plays to win the trick before the last",
        ("plays to win it",),
        _rows(keys, s.reach[pick], [np.concatenate(plays_high)]),
    )


def _lowest(bits: np.ndarray) -> np.ndarray:
    """The lowest card id of each non-empty bit set."""
    return np.bitwise_count((bits & (~bits + np.uint64(1))) - np.uint64(1)).astype(np.int64)


def _two_cards(rules: Ruleset, hands: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Of two-card hands: ``(higher, lower)`` card by rank (ties: the first by id is higher)."""
    strength = tables_for(rules).card_strength
    first = _lowest(hands)
    second = _lowest(hands & ~(np.uint64(1) << first.astype(np.uint64)))
    swap = strength[second] > strength[first]
    return np.where(swap, second, first), np.where(swap, first, second)


def _first_leader(rules: Ruleset) -> int:
    """The seat that leads trick 1 when the ruleset fixes the dealer (0 otherwise)."""
    if rules.first_dealer is None:
        return 0
    return int(tables_for(rules).order[rules.first_dealer][0])
