"""The ``pimc`` agent: optimal when nothing is hidden, legal everywhere, deterministic, no peeking."""

from __future__ import annotations

import numpy as np
import pytest
from test_solver import brute_children
from test_worlds import random_situation, relabel, true_world

from spar_agents import Situation, make_agent
from spar_agents.pimc import PimcAgent
from spar_agents.worlds import seat_views
from spar_env import make_rules
from spar_env.core import EXCHANGE, reset, step
from spar_env.history import History
from spar_env.rules import Ruleset


def play(rules: Ruleset, seats: list, hands: int, seed: int) -> tuple[np.ndarray, list]:
    """Play ``hands`` hands in one batch, seat ``s`` by ``seats[s]``; payoffs and every decision
    ``(phase, action)`` the seats took."""
    rng = np.random.default_rng(seed)
    state = reset(rules, hands, rng)
    history = History(state)
    payoffs = np.zeros((hands, rules.players))
    taken = []
    while not state.terminated.all():
        actions = np.zeros(hands, dtype=np.int64)
        live = ~state.terminated
        for seat, agent in enumerate(seats):
            games = np.flatnonzero(live & (state.current_player == seat))
            if games.size:
                decision = agent.act(Situation(state, history, games), rng)
                assert decision.probs is None or (decision.probs.sum(axis=1) == 1).all()
                actions[games] = decision.actions
                taken += [
                    (int(state.phase[g]), int(a))
                    for g, a in zip(games, decision.actions, strict=True)
                ]
        history.record(state, actions)
        rewards = step(state, actions)  # check=True: an illegal action raises
        history.settle(state)
        ended = live & state.terminated
        payoffs[ended] = rewards[ended]
    return payoffs, taken


@pytest.mark.parametrize("variant", ["mini", "micro"])
def test_optimal_when_nothing_is_hidden(variant: str) -> None:
    """Two players and the whole deck dealt: every world is the truth, so pimc plays the card
    that brute force finds best for it (the lowest card id among equally good ones)."""
    rules = make_rules(variant, hand_size=6 if variant == "mini" else 3)
    assert rules.stock_size == 0
    agent = PimcAgent(rules, worlds=4)
    rng = np.random.default_rng(2)
    checked = 0
    for _ in range(40):
        situation = random_situation(rules, 1, rng)
        state = situation.state
        if situation.size == 0 or np.bitwise_count(state.hands[0]).max() > 3:
            continue
        if bin(int(state.legal[0])).count("1") < 2:
            continue
        mover = int(state.current_player[0])
        children = brute_children(state.take(np.array([0])), mover)
        best = max(r.payoffs[mover] for r in children.values())
        optimal = min(c for c, r in children.items() if r.payoffs[mover] == best)
        assert agent.act(situation).actions[0] == optimal
        checked += 1
    assert checked >= 10


def test_spec_string_builds_it_and_checks_parameters() -> None:
    rules = make_rules("spar")
    agent = make_agent("pimc:worlds=8,seed=3,time_limit=0.5", rules)
    assert isinstance(agent, PimcAgent)
    assert (agent.worlds, agent.seed, agent.time_limit) == (8, 3, 0.5)
    for bad in ("pimc:worlds=0", "pimc:seed=-1", "pimc:time_limit=0", "pimc:speed=1"):
        with pytest.raises(ValueError):
            make_agent(bad, rules)
    with pytest.raises(ValueError, match=r"worlds: at most 65,536 \(a limit of spar-rl\)"):
        make_agent("pimc:worlds=1000000000", rules)  # refused before any memory is taken


def test_same_seed_same_play_whatever_the_batch() -> None:
    rules = make_rules("spar")
    situation = random_situation(rules, 24, np.random.default_rng(4))
    together = PimcAgent(rules, worlds=8, seed=5).act(situation).actions
    alone = PimcAgent(rules, worlds=8, seed=5)
    for i, g in enumerate(situation.games):
        one = Situation(situation.state, situation.history, np.array([g]))
        assert alone.act(one).actions[0] == together[i]
    assert (PimcAgent(rules, worlds=8, seed=5).act(situation).actions == together).all()


def test_time_limit_stops_adding_worlds() -> None:
    rules = make_rules("spar")
    situation = random_situation(rules, 24, np.random.default_rng(6))
    agent = PimcAgent(rules, worlds=16, time_limit=1e-9)
    actions = agent.act(situation).actions
    assert agent.searched >= 6 and agent.worlds_solved == agent.searched  # one world each
    assert all(int(situation.legal[i]) >> int(a) & 1 for i, a in enumerate(actions))


def test_no_peek_same_view_same_card() -> None:
    """Swapping hidden cards between other seats changes nothing the agent does."""
    rules = make_rules("jeu_de_carte")
    situation = random_situation(rules, 16, np.random.default_rng(7))
    agent = PimcAgent(rules, worlds=8, seed=1)
    views = seat_views(situation)
    compared = 0
    for i, view in enumerate(views):
        truth = true_world(situation, i, view)
        unseen = [c for c in range(64) if view.unseen >> c & 1]
        holders = [c for c in unseen if any(int(h) >> c & 1 for h in truth.hands[0])]
        if len(holders) < 2:
            continue
        g = situation.games[i]
        other = relabel(situation, int(g), holders[0], holders[-1])
        a = agent.act(Situation(situation.state, situation.history, np.array([g]))).actions
        b = agent.act(Situation(other.state, other.history, np.array([g]))).actions
        assert a[0] == b[0]
        compared += 1
    assert compared >= 8


@pytest.mark.parametrize(
    ("variant", "overrides"),
    [
        ("spar", {"weak_hand_exchange": True, "reveal_stock_bottom": True}),
        ("essilfy", {"players": 3, "last_two": "bonus"}),
        ("jeu_de_carte", {}),
        ("sipa", {"payoff": "points"}),
        ("agram", {"players": 5}),
        ("fapfap", {"players": 2}),
        ("agram_mali", {}),
        ("spar_classic", {"players": 3, "hand_size": 2, "weak_hand_exchange": True}),
    ],
)
def test_legal_play_in_every_preset(variant: str, overrides: dict) -> None:
    rules = make_rules(variant, **overrides)
    pimc = PimcAgent(rules, worlds=4)
    payoffs, taken = play(rules, [pimc] * rules.players, 12, seed=len(variant))
    assert len(taken) >= 12 * rules.players * rules.hand_size
    if rules.payoff == "stakes":
        assert (payoffs.sum(axis=1) == 0).all()


def test_exchange_choices_use_both_options() -> None:
    """Asked often (short hands, a big stock), it sometimes keeps and sometimes exchanges."""
    rules = make_rules("spar_classic", players=3, hand_size=2, weak_hand_exchange=True)
    pimc = PimcAgent(rules, worlds=8)
    _, taken = play(rules, [pimc] * 3, 60, seed=3)
    choices = {a for phase, a in taken if phase == EXCHANGE}
    assert choices == {rules.keep_action, rules.exchange_action}


def test_beats_random() -> None:
    """pimc in one seat of 4-player spar against three random seats, 300 hands."""
    rules = make_rules("spar")
    pimc = PimcAgent(rules, worlds=16)
    rand = make_agent("random", rules)
    payoffs, _ = play(rules, [pimc, rand, rand, rand], 300, seed=11)
    edge = payoffs[:, 0] - payoffs[:, 1:].mean(axis=1)
    low = edge.mean() - 1.96 * edge.std(ddof=1) / np.sqrt(edge.size)
    assert low > 0, edge.mean()
