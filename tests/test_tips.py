"""Tip agents (``spar_agents.tips``): the base agent's card everywhere but in their spots, and there
the card their deviation says; always legal. The spots are re-derived here from the state."""

from __future__ import annotations

import numpy as np
import pytest

from spar_agents import Situation, make_agent
from spar_agents.tips import DEVIATIONS, TipAgent
from spar_env.core import reset, step, tables_for
from spar_env.history import History
from spar_env.rules import make_rules

GAMES = 400


def decisions(rules, deviation: str, rank: str | None = None) -> dict[str, np.ndarray]:
    """Every play decision of ``GAMES`` hands, all seats the tip agent over ``heuristic``:
    what the seat knew (read from the state here), the base agent's card and the tip agent's."""
    base = make_agent("heuristic", rules)
    tip = TipAgent(rules, base, deviation, rank)
    rng = np.random.default_rng(7)
    state = reset(rules, GAMES, rng)
    history = History(state)
    parts: dict[str, list[np.ndarray]] = {}
    while not state.terminated.all():
        rows = np.flatnonzero(~state.terminated)
        situation = Situation(state, history, rows)
        chosen = tip.act(situation, rng).actions
        seen = {
            "hand": state.hands[rows, situation.seats],
            "legal": situation.legal,
            "trick": state.trick[rows],
            "leading": state.pos[rows] == 0,
            "led": state.led_suit[rows],
            "best": state.best_card[rows],
            "base": base.act(situation, rng).actions,
            "tip": chosen,
        }
        for key, value in seen.items():
            parts.setdefault(key, []).append(np.asarray(value))
        actions = np.zeros(GAMES, dtype=np.int64)
        actions[rows] = chosen
        history.record(state, actions)
        step(state, actions)
        history.settle(state)
    return {key: np.concatenate(value) for key, value in parts.items()}


def cards(bits: int, rules) -> list[int]:
    return [c for c in range(rules.num_card_ids) if bits >> c & 1]


def expected(rules, deviation: str, d: dict[str, np.ndarray], i: int, rank=None) -> set[int] | None:
    """The cards the deviation may play at decision ``i`` (``None``: the base agent's card)."""
    t = tables_for(rules)
    points = t.card_points
    low = {c for c in range(rules.num_card_ids) if points[c] > 0}
    if rank is not None:
        low = {c for c in low if rules.card_rank(c) == rank}
    hand, legal = cards(int(d["hand"][i]), rules), cards(int(d["legal"][i]), rules)
    base, trick, leading = int(d["base"][i]), int(d["trick"][i]), bool(d["leading"][i])
    early = leading and trick < rules.hand_size - 2
    strength, suit = t.card_strength, t.card_suit
    if deviation == "dump_low":
        pool = [c for c in legal if c in low]
        return set(pool) if len(hand) >= 2 and pool else None
    if deviation == "keep_low":
        pool = [c for c in legal if c not in low]
        return set(pool) if len(hand) >= 2 and base in low and pool else None
    if deviation == "duck":
        if trick != rules.hand_size - 2 or leading:
            return None
        best = int(d["best"][i])

        def beats(c: int) -> bool:
            return suit[c] == d["led"][i] and strength[c] > strength[best]

        pool = [c for c in legal if not beats(c)]
        return set(pool) if beats(base) and pool else None
    if deviation in ("high_first", "low_first"):
        pool = [c for c in legal if c not in low]
        if not early or not pool:
            return None
        pick = max if deviation == "high_first" else min
        return {pick(pool, key=lambda c: strength[c])}
    keepers = [c for c in hand if c in low]
    if not early or not keepers:
        return None
    keeper = max(keepers, key=lambda c: (points[c], -strength[c]))
    same = [c for c in legal if suit[c] == suit[keeper]]
    if deviation == "strip":
        pool = [c for c in same if c != keeper]
        return set(pool) if suit[base] != suit[keeper] and pool else None
    pool = [c for c in legal if suit[c] != suit[keeper]]  # no_strip
    return set(pool) if suit[base] == suit[keeper] and pool else None


@pytest.mark.parametrize("deviation", DEVIATIONS)
@pytest.mark.parametrize(
    ("variant", "players", "rank"), [("spar", 4, None), ("spar", 2, "6"), ("sipa", 3, None)]
)
def test_a_tip_agent_plays_the_base_card_outside_its_spots_and_its_deviation_in_them(
    deviation: str, variant: str, players: int, rank: str | None
) -> None:
    rules = make_rules(variant, players=players)
    d = decisions(rules, deviation, rank)
    legal_bit = (d["legal"] >> d["tip"].astype(np.uint64)) & np.uint64(1)
    assert legal_bit.all()
    spots = 0
    for i in range(d["tip"].shape[0]):
        allowed = expected(rules, deviation, d, i, rank)
        if allowed is None:
            assert d["tip"][i] == d["base"][i], i
        else:
            spots += 1
            assert int(d["tip"][i]) in allowed, i
    assert spots > 0


def test_the_deviations_differ_from_the_base_agent_in_their_spots() -> None:
    rules = make_rules("spar", players=4)
    d = decisions(rules, "dump_low")
    assert (d["tip"] != d["base"]).sum() > 50


def test_bad_deviations_and_ranks_are_refused_with_a_clear_error() -> None:
    spar, agram = make_rules("spar"), make_rules("agram")
    base = make_agent("random", spar)
    with pytest.raises(ValueError, match="unknown deviation 'cheat'"):
        TipAgent(spar, base, "cheat")
    with pytest.raises(ValueError, match="rank 'A' is not a scoring rank of spar"):
        TipAgent(spar, base, "dump_low", "A")
    with pytest.raises(ValueError, match="dump_low needs scoring ranks; agram has none"):
        TipAgent(agram, base, "dump_low")
    TipAgent(agram, make_agent("random", agram), "duck")  # no scoring rank needed
