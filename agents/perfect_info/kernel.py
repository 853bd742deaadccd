"""The compiled (Numba) search behind :mod:`spar_agents.perfect_info.solver`: max-n over bit-set positions.

This module holds only the hot loop; :mod:`spar_agents.perfect_info.solver` documents what it
computes and builds its tables. Everything here works on NumPy arrays and
``uint64`` bit sets (bit ``c`` for card id ``c``) so that Numba compiles it to
machine code; the search is an explicit-stack depth-first search (no
recursion: Numba caches it on disk and calls stay cheap).

Outcomes are ints ``winner * P + points``. A seat prefers the outcome with the
higher ``rank[seat, outcome]`` (a total order, built by the solver for one
*viewer*). Positions at the start of a trick are memoised in an open-addressing
table keyed on every seat's hand plus a tag (leader, viewer, scoring run).

Speed-ups, each exact:

- equivalent cards: two cards of one hand, of one suit and scoring value, with
  no card still in play ranked between them, lead to the same outcomes; only
  the first is searched;
- immediate pruning: a seat stops at an outcome that it ranks as high as
  winning the hand with the most points it could still score;
- shallow pruning: a seat stops when every outcome it could still move to is
  one its predecessor in the trick would not take over what it already has;
- the last trick is played out directly (every seat has one card).
"""

from __future__ import annotations

import numpy as np
from numba import njit

# prm: the ruleset's numbers, int64
N_SEATS, M_IN, HAND, PBASE, WINDOW, BONUS, CHAIN1, MAXP, VIEWER = range(9)
# fi columns: per-frame ints
F_I, F_LEAD, F_PREV, F_BU, F_BV, F_TP, F_LED, F_BEST, F_BS, F_RUN, F_PAR, F_PRANK = range(12)
FI_WIDTH = 12
# fu columns: per-frame bit sets
U_HAND, U_LEFT, U_ALIVE = range(3)
FU_WIDTH = 3

_DEBRUIJN = 0x03F79D71B4CB0A89
_TZ = np.zeros(64, dtype=np.int64)
for _i in range(64):
    _TZ[((_DEBRUIJN << _i) & (2**64 - 1)) >> 58] = _i
_ONE = np.uint64(1)


@njit(cache=True, inline="always")
def _low(x):
    """Index of the lowest set bit of a non-zero uint64."""
    low = x & (~x + np.uint64(1))
    return _TZ[(low * np.uint64(_DEBRUIJN)) >> np.uint64(58)]


@njit(cache=True, inline="always")
def _count(x):
    k = 0
    while x:
        x &= x - np.uint64(1)
        k += 1
    return k


@njit(cache=True, inline="always")
def _same_as(card, prev, suit_of, pts, alive):
    """``card`` plays like ``prev`` (searched just before): same suit and points, and no
    card still in play lies between them, so the search needs only one of the two."""
    return (
        prev >= 0
        and suit_of[card] == suit_of[prev]
        and pts[card] == pts[prev]
        and (alive & ((_ONE << np.uint64(card)) - (np.uint64(2) << np.uint64(prev)))) == 0
    )


@njit(cache=True)
def _find(keys, vals, hands, n, tag):
    """Slot of (hands, tag) in the table: its own, or the empty slot where it would go."""
    h = tag * np.uint64(0x9E3779B97F4A7C15)
    for s in range(n):
        h ^= hands[s]
        h *= np.uint64(0xBF58476D1CE4E5B9)
        h ^= h >> np.uint64(31)
    mask = vals.shape[0] - 1
    i = np.int64(h & np.uint64(mask))
    while vals[i] >= 0:
        if keys[i, n] == tag:
            same = True
            for s in range(n):
                if keys[i, s] != hands[s]:
                    same = False
                    break
            if same:
                return i
        i = (i + 1) & mask
    return i


@njit(cache=True)
def _store(keys, vals, fill, hands, n, tag, value):
    if 4 * fill[0] >= 3 * vals.shape[0]:  # three quarters full: start afresh
        vals[:] = -1
        fill[0] = 0
    i = _find(keys, vals, hands, n, tag)
    if vals[i] < 0:
        fill[0] += 1
    for s in range(n):
        keys[i, s] = hands[s]
    keys[i, n] = tag
    vals[i] = value


@njit(cache=True, inline="always")
def _tag(leader, run, prm):
    return np.uint64(leader + 64 * (prm[VIEWER] + 64 * run))


@njit(cache=True, inline="always")
def _final_points(run, winner, card, pts, prm):
    """Points of a hand whose last trick ``winner`` took with ``card``, after ``run``."""
    p = pts[card]
    if p == 0:
        return 1
    total = p
    if run // 4096 - 1 == winner:
        total += (run // 64) % 64
        if prm[BONUS] and run % 64 == 1:
            total += p
    return total


@njit(cache=True, inline="always")
def _next_run(run, trick, winner, card, pts, prm):
    """The scoring run after ``trick`` (not the last) was won by ``winner`` with ``card``.

    A run is ``(seat + 1) * 4096 + points * 64 + tricks``: the tricks in the
    scoring window that one seat won in a row, each with a scoring card.
    """
    if trick < prm[WINDOW]:
        return run
    p = pts[card]
    if p == 0:
        return 0
    if run // 4096 - 1 == winner:
        return run + 64 * p + 1
    return (winner + 1) * 4096 + 64 * p + 1


@njit(cache=True, inline="always")
def _top(hand, seat, rank, prm, pt_pts, pt_mask):
    """The best rank ``seat`` could still reach: winning with the most points its cards allow."""
    p = 1
    for k in range(pt_pts.shape[0]):
        if hand & pt_mask[k]:
            p = pt_pts[k] if prm[CHAIN1] else prm[MAXP]
            break
    return rank[seat, seat * prm[PBASE] + p]


@njit(cache=True)
def _last_trick(hands, leader, order, suit_of, pts, prm, run):
    """Outcome of the last trick, every seat holding one card."""
    c = _low(hands[leader])
    led = suit_of[c]
    best = c
    winner = leader
    for k in range(1, prm[M_IN]):
        s = order[leader, k]
        d = _low(hands[s])
        if suit_of[d] == led and d < best:
            best = d
            winner = s
    return winner * prm[PBASE] + _final_points(run, winner, best, pts, prm)


@njit(cache=True, inline="always")
def _push(fi, fu, sp, hands, order, lead, i, led, best, bs, run, alive, par, prank, tb):
    suit_of, smask, pts, rank, maxr, pt_pts, pt_mask, prm = tb
    s = order[lead, i]
    h = hands[s]
    if i == 0:
        x = h
    else:
        x = h & smask[led]
        if x == 0:
            x = h
    fi[sp, F_I] = i
    fi[sp, F_LEAD] = lead
    fi[sp, F_PREV] = -1
    fi[sp, F_BU] = -1
    fi[sp, F_BV] = -1
    fi[sp, F_TP] = _top(h, s, rank, prm, pt_pts, pt_mask)
    fi[sp, F_LED] = led
    fi[sp, F_BEST] = best
    fi[sp, F_BS] = bs
    fi[sp, F_RUN] = run
    fi[sp, F_PAR] = par
    fi[sp, F_PRANK] = prank
    fu[sp, U_HAND] = h
    fu[sp, U_LEFT] = x
    fu[sp, U_ALIVE] = alive


@njit(cache=True)
def _search(
    hands, order, lead0, i0, led0, best0, bs0, run0, alive0, tb, keys, vals, fill, fi, fu, stats
):
    """Max-n value of the node where the ``i0``-th seat from ``lead0`` plays next.

    ``hands`` is changed during the search and restored on return. Nodes at the
    start of a trick are memoised. The node itself is searched exactly.
    """
    suit_of, smask, pts, rank, maxr, pt_pts, pt_mask, prm = tb
    n, m, hand_size, pbase = prm[N_SEATS], prm[M_IN], prm[HAND], prm[PBASE]
    sp = 0
    _push(fi, fu, 0, hands, order, lead0, i0, led0, best0, bs0, run0, alive0, -1, -1, tb)
    while True:
        lead = fi[sp, F_LEAD]
        i = fi[sp, F_I]
        s = order[lead, i]
        x = fu[sp, U_LEFT]
        alive = fu[sp, U_ALIVE]
        prev = fi[sp, F_PREV]
        c = -1
        while x:
            d = _low(x)
            x ^= _ONE << np.uint64(d)
            if _same_as(d, prev, suit_of, pts, alive):
                prev = d  # equivalent to the card just searched
                continue
            c = d
            break
        fu[sp, U_LEFT] = x
        if c < 0:  # every choice searched (or pruned): the node's value is known
            v = fi[sp, F_BV]
            hands[s] = fu[sp, U_HAND]
            if i == 0:
                _store(keys, vals, fill, hands, n, _tag(lead, fi[sp, F_RUN], prm), v)
            sp -= 1
            if sp < 0:
                return v
        else:
            fi[sp, F_PREV] = c
            stats[0] += 1
            hands[s] = fu[sp, U_HAND] ^ (_ONE << np.uint64(c))
            led, best, bs = fi[sp, F_LED], fi[sp, F_BEST], fi[sp, F_BS]
            if i == 0:
                led, best, bs = suit_of[c], c, s
            elif suit_of[c] == led and c < best:
                best, bs = c, s
            run = fi[sp, F_RUN]
            if i + 1 < m:  # the next seat of this trick plays
                bv = fi[sp, F_BV]
                prank = rank[s, bv] if bv >= 0 else -1
                sp += 1
                _push(
                    fi, fu, sp, hands, order, lead, i + 1, led, best, bs, run, alive, s, prank, tb
                )
                continue
            left = _count(hands[bs])
            if left == 0:
                v = bs * pbase + _final_points(run, bs, best, pts, prm)
            else:
                run = _next_run(run, hand_size - left - 1, bs, best, pts, prm)
                if left == 1:
                    v = _last_trick(hands, bs, order, suit_of, pts, prm, run)
                else:
                    slot = _find(keys, vals, hands, n, _tag(bs, run, prm))
                    v = vals[slot]
                    if v < 0:  # a new trick to search
                        alive = np.uint64(0)
                        for q in range(n):
                            alive |= hands[q]
                        sp += 1
                        _push(fi, fu, sp, hands, order, bs, 0, -1, -1, -1, run, alive, -1, -1, tb)
                        continue
        # hand the value v to the frame at sp
        s = order[fi[sp, F_LEAD], fi[sp, F_I]]
        u = rank[s, v]
        if u > fi[sp, F_BU]:
            fi[sp, F_BU] = u
            fi[sp, F_BV] = v
            par = fi[sp, F_PAR]
            if u >= fi[sp, F_TP] or (par >= 0 and maxr[s, par, u] <= fi[sp, F_PRANK]):
                fu[sp, U_LEFT] = np.uint64(0)


@njit(cache=True)
def solve_worlds(
    worlds, order, lead, i0, led0, best0, bs0, run0, best_bit, tb, keys, vals, fill, stats, out
):
    """The outcome of each legal play of the seat to move, in each world.

    Args:
        worlds: ``uint64 [W, N]`` every seat's hand in each world.
        order: ``int64 [N, N]`` the k-th seat of a trick led by each seat.
        lead, i0: the trick's leader and how many seats have played to it.
        led0, best0, bs0: led suit, best card so far and its seat (-1 if none).
        run0: the scoring run before this trick.
        best_bit: the best card so far as a bit set (0 if none).
        out: ``int64 [W, C]``, filled with the outcome of every legal card
            (-1 for the others).
    """
    suit_of, smask, pts, rank, maxr, pt_pts, pt_mask, prm = tb
    n, m, hand_size, pbase = prm[N_SEATS], prm[M_IN], prm[HAND], prm[PBASE]
    depth = m * hand_size + 2
    fi = np.empty((depth, FI_WIDTH), dtype=np.int64)
    fu = np.empty((depth, FU_WIDTH), dtype=np.uint64)
    hands = np.empty(n, dtype=np.uint64)
    out[:] = -1
    s = order[lead, i0]
    for w in range(worlds.shape[0]):
        alive = best_bit
        for q in range(n):
            hands[q] = worlds[w, q]
            alive |= hands[q]
        h = hands[s]
        x = h
        if i0 > 0 and h & smask[led0]:
            x = h & smask[led0]
        prev = -1
        while x:
            c = _low(x)
            x ^= _ONE << np.uint64(c)
            if _same_as(c, prev, suit_of, pts, alive):
                out[w, c] = out[w, prev]
                prev = c
                continue
            prev = c
            hands[s] = h ^ (_ONE << np.uint64(c))
            led, best, bs = led0, best0, bs0
            if i0 == 0:
                led, best, bs = suit_of[c], c, s
            elif suit_of[c] == led and c < best:
                best, bs = c, s
            if i0 + 1 < m:
                v = _search(
                    hands,
                    order,
                    lead,
                    i0 + 1,
                    led,
                    best,
                    bs,
                    run0,
                    alive,
                    tb,
                    keys,
                    vals,
                    fill,
                    fi,
                    fu,
                    stats,
                )
            else:
                left = _count(hands[bs])
                if left == 0:
                    v = bs * pbase + _final_points(run0, bs, best, pts, prm)
                else:
                    run = _next_run(run0, hand_size - left - 1, bs, best, pts, prm)
                    if left == 1:
                        v = _last_trick(hands, bs, order, suit_of, pts, prm, run)
                    else:
                        v = vals[_find(keys, vals, hands, n, _tag(bs, run, prm))]
                        if v < 0:
                            alive2 = np.uint64(0)
                            for q in range(n):
                                alive2 |= hands[q]
                            v = _search(
                                hands,
                                order,
                                bs,
                                0,
                                -1,
                                -1,
                                -1,
                                run,
                                alive2,
                                tb,
                                keys,
                                vals,
                                fill,
                                fi,
                                fu,
                                stats,
                            )
            out[w, c] = v
            hands[s] = h
