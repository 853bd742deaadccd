"""Why one card beat another at a reviewed decision, from what the search's worlds showed.

The position proves few things (:mod:`spar_apps.table.review_reasons`); the search's worlds
show more. In each world the search played the hand out after each card
(:attr:`~spar_agents.card_estimates.CardEstimates.ends`), so for the best card and the card
played it counts how often the seat

- ``seen_lead``: leads the last trick (it won the trick before);
- ``seen_win``: wins the last trick;
- ``seen_keep``: still holds a scoring card (a 6 or a 7 in ``spar``) for the last trick;
- ``seen_big``: wins the hand for more than 1 point;
- ``seen_against``: lets another seat win the hand for more than 1 point.

A count is a reason only where it tells the two cards apart: the paired difference (world
by world, both cards played out in the same worlds) is more than :data:`SEEN_Z` standard
errors from zero, and the two counts, said out of 10 worlds, differ by at least 2 (or, said
out of 100, by at least 5: :data:`SCALES`). Winning the last trick and keeping a scoring card are reasons only for a
best card that does them more often, and another seat's big win for one that lets it
happen less often; leading the last trick is a reason either way (leading may win it or lose
it). A fact a reason of the position proves (of either card, or of both) is not said again: the worlds are drawn from
what the seat saw, and the position may know better.
"""

from __future__ import annotations

import numpy as np

from spar_agents.card_estimates import CardEstimates
from spar_apps.table.review_reasons import Reason
from spar_env.core import tables_for
from spar_env.rules import Ruleset

# the counts are said out of 10 worlds ("in 7 of 10 worlds") where they differ by 2 or more
# so, else out of 100 where they differ by 5 or more (else they tell nothing apart)
SCALES = ((10, 2), (100, 5))
SEEN_Z = 2.0  # and their paired difference is this many standard errors from zero
SEEN_KINDS = ("seen_lead", "seen_win", "seen_keep", "seen_big", "seen_against")
# the facts of the position that already say what a count of the worlds would
SAID_BY = {
    "seen_lead": {"wins_lead", "loses_lead"},
    "seen_keep": {"keeps", "keeps_void", "keeps_void_seen", "scorer"},
    "seen_win": set(),
    "seen_big": set(),
    "seen_against": set(),
}
LESS_IS_BETTER = ("seen_against",)


def seen_reasons(
    rules: Ruleset,
    estimates: CardEstimates,
    seat: int,
    trick: int,
    best: int,
    played: int,
    said: set[str],
) -> list[Reason]:
    """The counts of the worlds that tell ``best`` from ``played`` apart, the largest
    difference first (``trick``: the decision's, from 0; ``said``: the kinds of fact the
    position proves of either card, or gives as a reason)."""
    ends = estimates.ends
    if ends is None or best == played:
        return []
    last = rules.hand_size - 1
    facts: dict[str, np.ndarray] = {"seen_win": ends.last_winner == seat}
    if rules.rank_points:  # some cards score more than 1 point
        facts["seen_big"] = (ends.winner == seat) & (ends.points > 1)
        facts["seen_against"] = (ends.winner != seat) & (ends.winner >= 0) & (ends.points > 1)
    if trick < last:
        facts["seen_lead"] = ends.last_leader == seat
        scoring = tables_for(rules).card_points > 0
        if 0 < scoring.sum() < scoring.size:  # some cards score more than others
            facts["seen_keep"] = scoring[np.maximum(ends.last_card, 0)] & (ends.last_card >= 0)
    out = []
    for kind, per_world in facts.items():
        if SAID_BY[kind] & said:
            continue
        yes = per_world.astype(np.float64)
        rate = estimates.average(yes)
        difference = yes[:, best] - yes[:, played]
        gap, spread = float(estimates.average(difference)), float(estimates.spread(difference))
        if kind in LESS_IS_BETTER:
            gap = -gap
        if kind != "seen_lead" and gap <= 0:
            continue  # the best card doing it less often (more, for a bad thing) explains nothing
        if not abs(gap) > SEEN_Z * spread:
            continue
        for scale, apart in SCALES:
            mine, theirs = _out_of(rate[best], scale), _out_of(rate[played], scale)
            if abs(mine - theirs) >= apart:
                reason = Reason(kind, best, other=played, counts=(mine, theirs), out_of=scale)
                out.append((abs(gap), reason))
                break
    return [reason for _, reason in sorted(out, key=lambda x: -x[0])]


def _out_of(rate: float, scale: int) -> int:
    return int(round(scale * float(rate)))
