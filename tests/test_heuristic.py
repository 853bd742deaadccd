"""The ``heuristic`` agent: legal and deterministic everywhere, blind to hidden cards, and strong.

Strength is measured with the duplicate-deal tournament in 4-player ``spar``:
the lower end of its 95% interval must clear zero against ``random``,
``high`` and ``low``.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers.engine import rulesets
from hypothesis import given, settings
from hypothesis import strategies as st

from spar_agents import Situation, make_agent
from spar_agents.heuristic import HeuristicAgent
from spar_agents.knowledge import trick_view
from spar_env.core import EXCHANGE, next_hand, reset, shuffle_decks, start_sessions, step
from spar_env.core.deal import deck_for_hands
from spar_env.core.tables import tables_for
from spar_env.history import History
from spar_env.rules import PRESETS, Ruleset, make_rules
from spar_train.tournament import run_tournament


def play_hands(
    rules: Ruleset, state, agent, rng: np.random.Generator, history: History | None = None
) -> list[np.ndarray]:
    """Play the running hands of ``state`` to their end, the agent in every seat (legality checked).

    Returns the actions of each step.
    """
    history = history or History(state)
    taken = []
    for _ in range(rules.players * (rules.hand_size + 1) + 1):
        rows = np.flatnonzero(~state.terminated)
        if rows.size == 0:
            return taken
        actions = np.zeros(state.batch_size, dtype=np.int64)
        actions[rows] = agent.act(Situation(state, history, rows), rng).actions
        taken.append(actions)
        history.record(state, actions)
        step(state, actions, check=True)
        history.settle(state)
    raise AssertionError("hands did not end")


@pytest.mark.parametrize("variant", sorted(PRESETS))
def test_every_preset_plays_legal_deterministic_hands(variant: str) -> None:
    rules = make_rules(variant)
    agent = make_agent("heuristic", rules)
    runs = []
    for agent_seed in (1, 2):  # the agent ignores its generator
        state = reset(rules, 64, np.random.default_rng(0))
        runs.append(play_hands(rules, state, agent, np.random.default_rng(agent_seed)))
        assert state.terminated.all()
    assert all((a == b).all() for a, b in zip(*runs, strict=True))


@settings(max_examples=40, deadline=None)
@given(rules=rulesets(), seed=st.integers(0, 2**16))
def test_any_ruleset_plays_legal_hands(rules: Ruleset, seed: int) -> None:
    state = reset(rules, 16, np.random.default_rng(seed))
    play_hands(rules, state, HeuristicAgent(rules), np.random.default_rng(seed))
    assert state.terminated.all() and (state.winner >= 0).all()


def test_stones_tie_breaks_with_seats_sitting_out() -> None:
    rules = make_rules("spar", players=3, end="stones:4")
    rng = np.random.default_rng(5)
    state = reset(rules, 64, rng)
    history = History(state)
    agent = HeuristicAgent(rules)
    sat_out = 0
    for _ in range(12):
        play_hands(rules, state, agent, rng, history)
        over = np.flatnonzero(state.session_over)
        going = np.flatnonzero(~state.session_over)
        if over.size:
            start_sessions(state, over, rng)
        if going.size:
            next_hand(state, going, rng)
        history.clear()
        sat_out += int((state.active != tables_for(rules).all_active).sum())
    assert sat_out > 0  # the tie-break hands did come up


def test_forced_play_is_the_only_legal_card() -> None:
    rules = make_rules("spar")
    rng = np.random.default_rng(3)
    state = reset(rules, 256, rng)
    history = History(state)
    agent = HeuristicAgent(rules)
    for _ in range(rules.players * rules.hand_size):
        rows = np.arange(state.batch_size)
        actions = agent.act(Situation(state, history, rows), rng).actions
        single = np.bitwise_count(state.legal) == 1
        assert (np.left_shift(1, actions[single]).astype(np.uint64) == state.legal[single]).all()
        history.record(state, actions)
        step(state, actions)
        history.settle(state)


@pytest.mark.parametrize(("exchange", "choice"), [(True, "exchange"), (False, "keep")])
def test_weak_hands_are_exchanged_unless_told_not_to(exchange: bool, choice: str) -> None:
    rules = make_rules("spar", weak_hand_exchange=True)
    state = reset(rules, 512, np.random.default_rng(4))
    asked = np.flatnonzero(state.phase == EXCHANGE)  # every seat is asked, strong or weak
    weak = (state.legal[asked] >> np.uint64(rules.exchange_action)) & np.uint64(1) == 1
    assert weak.any() and not weak.all()
    agent = make_agent(f"heuristic:exchange={str(exchange).lower()}", rules)
    actions = agent.act(Situation(state, History(state), asked), np.random.default_rng(0)).actions
    expected = rules.exchange_action if choice == "exchange" else rules.keep_action
    assert (actions[weak] == expected).all()
    assert (actions[~weak] == rules.keep_action).all()  # a strong hand may only keep


def script(rules: Ruleset, hands: list[list[str]], dealer: int, plays: list[str]):
    """A one-game state dealt ``hands`` (by seat), after the scripted ``plays``."""
    t = tables_for(rules)
    deck = deck_for_hands(t, [[rules.card_id(c) for c in h] for h in hands], dealer)
    state = reset(rules, 1, np.random.default_rng(0), decks=deck[None], dealers=np.array([dealer]))
    history = History(state)
    for card in plays:
        action = np.array([rules.card_id(card)])
        history.record(state, action)
        step(state, action)
        history.settle(state)
    return state, history


def test_wins_trick_four_with_the_ace_and_the_last_with_the_six() -> None:
    """Seed 001's plan: everyone has shown no hearts; lead A♦ to trick 4, keep 6♥ for the last."""
    rules = make_rules("spar")
    hands = [
        ["KH", "QH", "JH", "AD", "6H"],
        ["7C", "8C", "9C", "10C", "JC"],
        ["7S", "8S", "9S", "10S", "JS"],
        ["7D", "8D", "9D", "QC", "KC"],
    ]
    tricks = ["KH", "7C", "7S", "QC", "QH", "8C", "8S", "KC", "JH", "9C", "9S", "7D"]
    state, history = script(rules, hands, dealer=3, plays=tricks)
    assert int(state.current_player[0]) == 0 and int(state.trick[0]) == 3
    agent = HeuristicAgent(rules)
    rng = np.random.default_rng(0)
    lead = agent.act(Situation(state, history, np.array([0])), rng).actions
    assert rules.card_name(int(lead[0])) == "AD"
    play_hands(rules, state, agent, rng, history)
    assert int(state.winner[0]) == 0 and int(state.points[0]) == 3


def test_drops_a_six_it_cannot_lead_to_the_last_trick() -> None:
    """Trick 4, no diamond to follow the J♦ with: seat 1 cannot take the trick, so it
    will not lead the last one, where a 6 wins only when led. It keeps the 9♣."""
    rules = make_rules("spar")
    hands = [
        ["AD", "KD", "QD", "JD", "10H"],
        ["7C", "8C", "9C", "6H", "8S"],
        ["7S", "9S", "10S", "JS", "QS"],
        ["7D", "8D", "9D", "QC", "KC"],
    ]
    tricks = ["AD", "7C", "7S", "7D", "KD", "8C", "9S", "8D", "QD", "8S", "10S", "9D", "JD"]
    state, history = script(rules, hands, dealer=3, plays=tricks)
    assert int(state.current_player[0]) == 1 and int(state.trick[0]) == 3
    action = HeuristicAgent(rules).act(
        Situation(state, history, np.array([0])), np.random.default_rng(0)
    )
    assert rules.card_name(int(action.actions[0])) == "6H"


def redeal_hidden(rules: Ruleset, state, game: int, seer: int, keep: dict[int, list[int]], rng):
    """A deck for ``game`` in which ``seer``'s hand and the ``keep`` cards stay put, the rest reshuffled."""
    t = tables_for(rules)
    n = rules.players
    hands = [
        [c for c in range(rules.num_card_ids) if int(state.hands[game, s]) >> c & 1]
        for s in range(n)
    ]
    stock = [int(c) for c in state.deck[game, n * rules.hand_size :]]
    fixed = set(hands[seer]) | {c for cards in keep.values() for c in cards}
    loose = [c for h in hands for c in h if c not in fixed] + stock
    rng.shuffle(loose)
    new_hands = []
    for s in range(n):
        if s == seer:
            new_hands.append(hands[s])
            continue
        held = list(keep.get(s, []))
        while len(held) < rules.hand_size:
            held.append(loose.pop())
        new_hands.append(held)
    return deck_for_hands(t, new_hands, int(state.dealer[game]), loose)


@pytest.mark.parametrize("variant", ["spar", "jeu_de_carte", "sipa"])
def test_decisions_ignore_hidden_cards(variant: str) -> None:
    """The leader's and the second seat's first plays stay the same when the hidden cards move."""
    rules = make_rules(variant)
    t = tables_for(rules)
    rng = np.random.default_rng(11)
    agent = HeuristicAgent(rules)
    games = 60
    decks = shuffle_decks(t, games, rng)
    dealers = np.full(games, int(np.flatnonzero(t.next_seat == 0)[0]))  # seat 0 leads
    second = int(t.next_seat[0])

    def first_two_plays(decks: np.ndarray, lead: np.ndarray | None = None) -> np.ndarray:
        """The leader's play (the agent's, or ``lead``) and the agent's reply."""
        state = reset(rules, games, rng, decks=decks, dealers=dealers)
        history = History(state)
        rows = np.arange(games)
        if lead is None:
            lead = agent.act(Situation(state, history, rows), rng).actions
        history.record(state, lead)
        step(state, lead)
        history.settle(state)
        reply = agent.act(Situation(state, history, rows), rng).actions
        return np.stack([lead, reply], axis=1)

    base = first_two_plays(decks)
    state = reset(rules, games, rng, decks=decks, dealers=dealers)
    leader_view = np.stack([redeal_hidden(rules, state, g, 0, {}, rng) for g in range(games)])
    assert (first_two_plays(leader_view)[:, 0] == base[:, 0]).all()
    second_view = np.stack(
        [redeal_hidden(rules, state, g, second, {0: [int(base[g, 0])]}, rng) for g in range(games)]
    )
    assert (first_two_plays(second_view, lead=base[:, 0])[:, 1] == base[:, 1]).all()
    # A control: the reply does change when the second seat's own hand does.
    own_view = np.stack([redeal_hidden(rules, state, g, 0, {}, rng) for g in range(games)])
    changed = first_two_plays(own_view)
    assert (changed[:, 1] != base[:, 1]).any()


def test_trick_view_reads_the_trick_in_progress() -> None:
    rules = make_rules("spar")
    hands = [
        ["KH", "QH", "JH", "AC", "10D"],
        ["7C", "8C", "9C", "6H", "8D"],
        ["7S", "8S", "9S", "10S", "JS"],
        ["7D", "9D", "QC", "KC", "JD"],
    ]
    state, history = script(rules, hands, dealer=3, plays=["KH", "6H"])
    view = trick_view(Situation(state, history, np.array([0])))
    assert int(view.trick[0]) == 0 and int(view.led_suit[0]) == rules.suits.index("H")
    assert rules.card_name(int(view.best_card[0])) == "KH" and int(view.best_seat[0]) == 0
    assert view.to_play[0].tolist() == [False, False, False, True]  # seat 2 decides; seat 3 after
    state, history = script(rules, hands, dealer=3, plays=[])
    view = trick_view(Situation(state, history, np.array([0])))
    assert int(view.led_suit[0]) == -1 and int(view.best_card[0]) == -1
    assert view.to_play[0].tolist() == [False, True, True, True]


@pytest.mark.parametrize("opponent", ["random", "high", "low"])
def test_beats_the_baselines_in_four_player_spar(opponent: str) -> None:
    rules = make_rules("spar", players=4)
    result = run_tournament(["heuristic", opponent, opponent, opponent], rules, 2000, seed=1)
    heuristic = result.agents[0]
    assert heuristic.spec == "heuristic"
    assert heuristic.mean_payoff - heuristic.ci95 > 0.1
    assert heuristic.win_share > 0.25  # more than its share of one hand in four


def test_beats_random_head_to_head() -> None:
    result = run_tournament(["heuristic", "random"], make_rules("spar", players=4), 2000, seed=2)
    assert result.head_to_head[0, 1] - result.head_to_head_ci95[0, 1] > 0.1
