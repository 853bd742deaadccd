"""Enumerate the whole game tree of a small ruleset with the batch core itself.

Every deal is given to :func:`spar_env.core.reset` as a deck; then each
level's nodes, one batch, are copied once per legal action
(:meth:`~spar_env.core.State.take`) and stepped (:func:`spar_env.core.step`):
no second copy of the rules.

Information sets. In rulesets without the weak-hand exchange, stock reveal
or face-down plays (``micro``, ``mini`` and any custom ruleset like them) a
seat sees exactly its own dealt hand, the dealer and every card played, in
order. So a decision node's information set is the key (seat, dealer, own
dealt hand, the sequence of plays so far), deduplicated with ``np.unique``
over byte rows. Keying on the ordered plays (not on the set of cards seen)
keeps perfect recall, which the sequence form needs.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable

import numpy as np

from spar_agents.cfr.tree import CHANCE, TERMINAL, GameTree, assemble, deal_keys
from spar_env.core import State, reset, step
from spar_env.core.tables import tables_for
from spar_env.rules import Ruleset

MAX_DEALS = 2_000_000  # the whole tree is enumerated: refuse rulesets with more deals


def check_supported(rules: Ruleset) -> None:
    """A ``ValueError`` unless every play of ``rules`` is seen and the stock unused."""
    hidden = []
    if rules.weak_hand_exchange:
        hidden.append("weak_hand_exchange")
    if rules.reveal_stock_bottom:
        hidden.append("reveal_stock_bottom")
    if rules.face_down != "none":
        hidden.append(f"face_down={rules.face_down!r}")
    if hidden:
        raise ValueError(
            f"the exact tree supports rulesets where every play is seen and the stock is unused; "
            f"{rules.variant} has {', '.join(hidden)}"
        )


def num_deals(rules: Ruleset) -> int:
    """Distinct deals (one hand per seat, the stock unordered) times possible dealers."""
    count, left = 1, rules.deck_size
    for _ in range(rules.players):
        count *= math.comb(left, rules.hand_size)
        left -= rules.hand_size
    return count * (rules.players if rules.first_dealer is None else 1)


def enumerate_deals(rules: Ruleset) -> tuple[np.ndarray, np.ndarray]:
    """Every deal: ``(decks int8 [D, deck_size], dealers int64 [D])``.

    Each deal (one unordered hand per seat) appears once, with the stock in
    id order; every dealer appears when the ruleset draws the first dealer.
    """
    n, h = rules.players, rules.hand_size
    t = tables_for(rules)
    deck = list(rules.deck)
    hands: list[tuple[tuple[int, ...], ...]] = [()]
    for _ in range(n):  # extend each partial deal by one more seat's hand
        hands = [
            prefix + (combo,)
            for prefix in hands
            for combo in itertools.combinations(
                [c for c in deck if all(c not in hnd for hnd in prefix)], h
            )
        ]
    by_seat = np.array(hands, dtype=np.int64)  # [D, N, H] cards of each seat, ascending
    dealers = [rules.first_dealer] if rules.first_dealer is not None else list(range(n))
    out_decks, out_dealers = [], []
    positions = t.deal_positions[n]  # [N, H] deck positions of the k-th seat after the dealer
    for dealer in dealers:
        decks = np.full((by_seat.shape[0], rules.deck_size), -1, dtype=np.int64)
        for k, seat in enumerate(t.order[dealer]):
            decks[:, positions[k]] = by_seat[:, seat]
        dealt = np.zeros((by_seat.shape[0], rules.num_card_ids), dtype=bool)
        np.put_along_axis(dealt, by_seat.reshape(by_seat.shape[0], -1), True, axis=1)
        stock = np.flatnonzero(np.isin(np.arange(rules.num_card_ids), deck))
        rest = np.broadcast_to(stock, dealt.shape[:1] + stock.shape)
        rest = rest[~dealt[:, stock]].reshape(by_seat.shape[0], -1)
        decks[:, n * h :] = rest
        out_decks.append(decks)
        out_dealers.append(np.full(by_seat.shape[0], dealer, dtype=np.int64))
    return np.concatenate(out_decks).astype(np.int8), np.concatenate(out_dealers)


def build_tree(
    rules: Ruleset,
    *,
    max_deals: int = MAX_DEALS,
    visit: Callable[[State, np.ndarray], None] | None = None,
) -> GameTree:
    """Enumerate the whole game tree of one hand of ``rules`` with the batch core.

    ``visit(frontier, keys)``, if given, sees each level's decision nodes as they are
    reached: their states (one game each) and their information-set keys (the order of
    :attr:`GameTree.infoset_keys`), for what reads a policy at every node
    (:mod:`spar_agents.cfr.readback`).

    Raises:
        ValueError: for rulesets with hidden plays or a used stock, or with
            more than ``max_deals`` deals (the tree would not fit).
    """
    check_supported(rules)
    if num_deals(rules) > max_deals:
        raise ValueError(
            f"{rules.variant} with {rules.players} players has {num_deals(rules):,} deals; "
            f"the exact tree enumerates at most {max_deals:,}"
        )
    n, plays = rules.players, rules.players * rules.hand_size
    decks, dealers = enumerate_deals(rules)
    d = decks.shape[0]
    # The rng is never drawn from: every deck and dealer is given.
    frontier = reset(rules, d, np.random.default_rng(0), decks=decks, dealers=dealers)
    deal_hands = frontier.dealt.copy()
    if np.unique(deal_keys(deal_hands, dealers)).shape[0] != d:
        raise RuntimeError("enumerate_deals produced a repeated deal")

    # Root (chance) then the deals; each level after that is one more card play.
    cols: dict[str, list[np.ndarray]] = {k: [] for k in ("player", "parent", "action", "prob")}
    cols["player"].append(np.array([CHANCE]))
    cols["parent"].append(np.array([-1]))
    cols["action"].append(np.array([0]))
    cols["prob"].append(np.array([1.0]))
    cols["player"].append(frontier.current_player.copy())
    cols["parent"].append(np.zeros(d, dtype=np.int64))
    cols["action"].append(np.arange(d))
    cols["prob"].append(np.full(d, 1.0 / d))
    legal_parts = [np.zeros(1, dtype=np.uint64), frontier.legal.copy()]
    returns_parts = [np.zeros((1 + d, n))]
    level_start = [0, 1, 1 + d]
    ids = np.arange(1, 1 + d)  # node id of each game of the frontier
    history = np.full((d, plays), -1, dtype=np.int8)  # the plays so far, in order
    dealer = dealers
    key_parts, key_nodes = [], []
    for depth in range(plays):
        if frontier.batch_size == 0:
            break
        seat = frontier.current_player
        key_parts.append(infoset_keys(seat, dealer, frontier.dealt, history))
        key_nodes.append(ids)
        if visit is not None:
            visit(frontier, key_parts[-1])
        mask = frontier.legal_mask()
        rows, acts = np.nonzero(mask)  # row-major: each node's children contiguous, ascending
        child = frontier.take(rows)
        step(child, acts, check=False)
        base = level_start[-1]
        child_ids = base + np.arange(rows.shape[0])
        done = child.terminated
        cols["player"].append(np.where(done, TERMINAL, child.current_player))
        cols["parent"].append(ids[rows])
        cols["action"].append(acts)
        cols["prob"].append(np.ones(rows.shape[0]))
        legal_parts.append(np.where(done, np.uint64(0), child.legal))
        returns_parts.append(child.rewards.astype(np.float64))
        level_start.append(base + rows.shape[0])
        history = history[rows]
        history[:, depth] = acts
        live = np.flatnonzero(~done)
        frontier = child.take(live)
        ids, history, dealer = child_ids[live], history[live], dealer[rows][live]

    player = np.concatenate(cols["player"]).astype(np.int8)
    infoset = np.full(player.shape[0], -1, dtype=np.int32)
    keys = np.concatenate(key_parts)
    uniq, inverse = np.unique(keys, return_inverse=True)
    infoset[np.concatenate(key_nodes)] = inverse
    legal = np.concatenate(legal_parts)
    return assemble(
        num_players=n,
        num_actions=rules.num_actions,
        player=player,
        parent=np.concatenate(cols["parent"]).astype(np.int32),
        action=np.concatenate(cols["action"]).astype(np.int16),
        chance_prob=np.concatenate(cols["prob"]),
        legal=legal,
        infoset=infoset,
        returns=np.concatenate(returns_parts),
        level_start=np.array(level_start, dtype=np.int64),
        num_infosets=int(uniq.shape[0]),
        rules=rules,
        deal_hands=deal_hands,
        deal_dealer=dealers,
        infoset_keys=uniq,
    )


def infoset_keys(
    seat: np.ndarray, dealer: np.ndarray, dealt: np.ndarray, history: np.ndarray
) -> np.ndarray:
    """Byte keys of (seat, dealer, the seat's dealt hand, the plays so far) per game.

    Args:
        seat, dealer: ``int [G]``.
        dealt: ``uint64 [G, N]`` hands as dealt (only the seat's own is read).
        history: ``int8 [G, N * H]`` cards played in order, -1 past the last.
    """
    own = dealt[np.arange(seat.shape[0]), seat].astype(">u8")[:, None].view(np.uint8)
    rows = np.concatenate(
        [
            seat.astype(np.uint8)[:, None],
            dealer.astype(np.uint8)[:, None],
            own,
            history.view(np.uint8),
        ],
        axis=1,
    )
    return np.ascontiguousarray(rows).view(f"S{rows.shape[1]}").ravel()
