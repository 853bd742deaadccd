"""The duplicate-deal tournament: seating, deals, the batch plumbing, and the figures.

The figures are checked against a plain replay: every game of a small
tournament is played again on its own, one step at a time, and the per-deal
means, shares and rates are recounted in Python.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np
import pytest

from spar_agents import Decision, Situation, make_agent
from spar_agents.registry import AGENTS, register
from spar_env.core import reset, step, tables_for
from spar_env.history import History
from spar_env.rules import make_rules
from spar_train.tournament import draw_deals, run_tournament, seating
from spar_train.tournament.stats import mean_ci, t_quantile

# ----- seating -------------------------------------------------------------------------------


def test_full_lineup_rotates_through_every_seat() -> None:
    seats = seating(["heuristic", "random", "random", "random"], 4)
    assert seats.agents == ("heuristic", "random")
    assert seats.table.tolist() == [[0, 1, 1, 1], [1, 0, 1, 1], [1, 1, 0, 1], [1, 1, 1, 0]]
    assert seats.seats.tolist() == [1, 3]


def test_two_agents_sit_alternately_and_repeat_rotations_are_dropped() -> None:
    four = seating(["heuristic", "random"], 4)
    assert four.table.tolist() == [[0, 1, 0, 1], [1, 0, 1, 0]]
    three = seating(["a", "b"], 3)  # a b a: every rotation differs
    assert three.table.tolist() == [[0, 1, 0], [0, 0, 1], [1, 0, 0]]
    assert three.seats.tolist() == [2, 1]


def test_every_agent_sits_in_every_seat_for_any_lineup() -> None:
    for lineup, players in [(["a", "b", "c"], 4), (["a", "b"], 5), (["a", "b", "a", "c"], 4)]:
        table = seating(lineup, players).table
        for agent in set(table.ravel().tolist()):
            assert (table == agent).any(axis=0).all()


@pytest.mark.parametrize(
    ("lineup", "players", "message"),
    [
        (["a", "b", "c"], 2, "does not fit 2 seats"),
        (["random", "random"], 4, "at least two different agents"),
        (["random"], 4, "at least two different agents"),
    ],
)
def test_bad_lineups_are_refused(lineup: list[str], players: int, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        seating(lineup, players)


# ----- deals ---------------------------------------------------------------------------------


def test_a_deal_depends_only_on_the_seed_and_its_index() -> None:
    rules = make_rules("spar")
    decks, dealers = draw_deals(rules, 3, 0, 3000)
    part, part_dealers = draw_deals(rules, 3, 1000, 1100)
    assert (part == decks[1000:2100]).all() and (part_dealers == dealers[1000:2100]).all()
    other, _ = draw_deals(rules, 4, 0, 3000)
    assert (other != decks).any()
    assert sorted(decks[0].tolist()) == sorted(rules.deck)
    assert set(dealers.tolist()) == set(range(rules.players))


def test_a_fixed_first_dealer_deals_every_deal() -> None:
    _, dealers = draw_deals(make_rules("mini"), 0, 0, 50)
    assert (dealers == 1).all()


def test_bad_counts_are_refused() -> None:
    rules = make_rules("spar")
    with pytest.raises(ValueError, match="deals must be at least 1; got 0"):
        run_tournament(["high", "low"], rules, 0)
    with pytest.raises(ValueError, match="seed"):
        run_tournament(["high", "low"], rules, 5, seed=-1)
    with pytest.raises(ValueError, match="unknown agent 'nobody'"):
        run_tournament(["high", "nobody"], rules, 5)


# ----- every agent holds every hand ------------------------------------------------------------


class HandProbe:
    """Plays like ``low`` and notes the hand it holds at each decision of trick 1."""

    def __init__(self, rules) -> None:
        self.low = make_agent("low", rules)
        self.seen: set[tuple[bytes, int]] = set()  # (deck, hand)

    def act(self, situation: Situation, rng: np.random.Generator) -> Decision:
        state, g = situation.state, situation.games
        first = state.trick[g] == 0
        for game, seat in zip(g[first], situation.seats[first], strict=True):
            self.seen.add((state.deck[game].tobytes(), int(state.hands[game, seat])))
        return self.low.act(situation, rng)


@pytest.fixture
def probe() -> Iterator[list[HandProbe]]:
    """The ``probe`` agent spec, registered for one test; the probes it built."""
    built: list[HandProbe] = []

    def factory(rules) -> HandProbe:
        built.append(HandProbe(rules))
        return built[-1]

    register("probe")(factory)
    yield built
    del AGENTS["probe"]


def test_every_agent_holds_every_hand_of_every_deal(probe: list[HandProbe]) -> None:
    rules = make_rules("spar", players=4)
    deals = 20
    run_tournament(["probe", "random", "random", "random"], rules, deals, seed=5, chunk=7)
    decks, dealers = draw_deals(rules, 5, 0, deals)
    state = reset(rules, deals, np.random.default_rng(0), decks=decks, dealers=dealers)
    dealt = {(decks[d].tobytes(), int(state.hands[d, s])) for d in range(deals) for s in range(4)}
    assert dealt <= probe[0].seen
    assert len(probe[0].seen) == 4 * deals  # and nothing else


# ----- determinism ---------------------------------------------------------------------------


def test_same_seed_same_figures_another_seed_other_figures() -> None:
    rules = make_rules("spar")
    lineup = ["heuristic", "random", "random", "random"]
    a = run_tournament(lineup, rules, 300, seed=9).to_dict()
    b = run_tournament(lineup, rules, 300, seed=9).to_dict()
    c = run_tournament(lineup, rules, 300, seed=10).to_dict()
    assert a == b and a != c


def test_batching_does_not_change_what_deterministic_agents_do() -> None:
    rules = make_rules("sipa", players=3)
    lineup = ["heuristic", "high", "low"]
    one = run_tournament(lineup, rules, 200, seed=2).to_dict()
    many = run_tournament(lineup, rules, 200, seed=2, chunk=17).to_dict()
    assert one == many


def test_equal_agents_come_out_exactly_even() -> None:
    """Duplicate deals cancel the luck of the cards: twins end every deal at zero."""
    result = run_tournament(["heuristic", "heuristic:exchange=true"], make_rules("spar"), 200)
    assert all(a.mean_payoff == 0 and a.ci95 == 0 for a in result.agents)


def test_progress_climbs_to_the_deal_count() -> None:
    calls: list[tuple[int, int]] = []
    run_tournament(
        ["high", "low"], make_rules("spar"), 25, chunk=10, progress=lambda *a: calls.append(a)
    )
    done = [d for d, _ in calls]
    assert {total for _, total in calls} == {25}
    assert done == sorted(done) and done[-1] == 25
    assert len(set(done)) > 3  # it moves within a batch, not only between batches


# ----- the figures against a plain replay -------------------------------------------------------


def replay_figures(lineup: list[str], rules, deals: int, seed: int) -> dict[str, dict[str, float]]:
    """Each game played alone, step by step; the figures recounted in plain Python."""
    seats = seating(lineup, rules.players)
    agents = [make_agent(spec, rules) for spec in seats.agents]
    decks, dealers = draw_deals(rules, seed, 0, deals)
    t = tables_for(rules)
    h = rules.hand_size
    per_deal = {a: [] for a in seats.agents}
    counts = {
        a: dict(hands=0, wins=0, points=0, won_low=0, had_low=0, kept_low=0, before_last=0)
        for a in seats.agents
    }
    for d in range(deals):
        total = {a: 0.0 for a in seats.agents}
        for rotation in seats.table:
            state = reset(
                rules,
                1,
                np.random.default_rng(0),
                decks=decks[d : d + 1],
                dealers=dealers[d : d + 1],
            )
            history = History(state)
            last_card = {}
            payoff = np.zeros(rules.players)
            while not state.terminated[0]:
                seat = int(state.current_player[0])
                agent = agents[rotation[seat]]
                action = agent.act(
                    Situation(state, history, np.array([0])), np.random.default_rng(0)
                ).actions
                if int(state.trick[0]) == h - 1:
                    last_card[seat] = int(action[0])
                history.record(state, action)
                payoff += step(state, action)[0]
                history.settle(state)
            winner = int(state.winner[0])
            for seat in range(rules.players):
                name = seats.agents[rotation[seat]]
                c = counts[name]
                total[name] += payoff[seat]
                c["hands"] += 1
                held = [x for x in rules.deck if int(state.held[0, seat]) >> x & 1]
                had = any(t.card_points[x] > 0 for x in held)
                c["had_low"] += had
                c["kept_low"] += had and t.card_points[last_card[seat]] > 0
                c["before_last"] += int(state.trick_winner[0, h - 2]) == seat
                if seat == winner:
                    c["wins"] += 1
                    c["points"] += int(state.points[0])
                    c["won_low"] += t.card_points[int(state.trick_card[0, h - 1])] > 0
        for a, value in total.items():
            per_deal[a].append(value / (seats.rotations * seats.seats[seats.agents.index(a)]))
    return {
        a: dict(
            mean=float(np.mean(per_deal[a])),
            ci=mean_ci(np.array(per_deal[a]))[1],
            win_share=c["wins"] / c["hands"],
            points_per_win=c["points"] / c["wins"],
            low_card_wins=c["won_low"] / c["hands"],
            low_card_kept=c["kept_low"] / c["had_low"],
            before_last_wins=c["before_last"] / c["hands"],
        )
        for a, c in counts.items()
    }


@pytest.mark.parametrize(
    ("variant", "players", "lineup"),
    [
        ("spar", 4, ["heuristic", "high", "low", "high"]),
        ("sipa", 3, ["low", "heuristic"]),
        ("essilfy", 2, ["high", "heuristic"]),
    ],
)
def test_figures_match_a_game_by_game_replay(variant: str, players: int, lineup: list[str]) -> None:
    rules = make_rules(variant, players=players)
    result = run_tournament(lineup, rules, 12, seed=4, chunk=5)
    expected = replay_figures(lineup, rules, 12, seed=4)
    for a in result.agents:
        e = expected[a.spec]
        assert a.mean_payoff == pytest.approx(e["mean"])
        assert a.ci95 == pytest.approx(e["ci"])
        assert a.win_share == pytest.approx(e["win_share"])
        assert a.points_per_win == pytest.approx(e["points_per_win"])
        assert a.low_card_wins == pytest.approx(e["low_card_wins"])
        assert a.low_card_kept == pytest.approx(e["low_card_kept"])
        assert a.before_last_wins == pytest.approx(e["before_last_wins"])


def test_stakes_add_up_and_the_head_to_head_explains_the_means() -> None:
    rules = make_rules("spar", players=5)
    result = run_tournament(["heuristic", "random", "low"], rules, 400, seed=6)
    seats = result.seating.seats
    means = np.array([a.mean_payoff for a in result.agents])
    shares = np.array([a.win_share for a in result.agents])
    assert seats @ means == pytest.approx(0, abs=1e-12)  # zero-sum stakes
    assert seats @ shares == pytest.approx(1)  # one winner per hand
    h2h = result.head_to_head
    assert np.allclose(h2h, -h2h.T)
    assert np.allclose(h2h @ seats, means)
    assert result.payoff_by_deal.shape == (400, 3)
    assert np.allclose(result.payoff_by_deal.mean(axis=0), means)


def test_points_payoff_is_win_share_times_points() -> None:
    rules = make_rules("spar", payoff="points")
    result = run_tournament(["heuristic", "random"], rules, 300, seed=1)
    for a in result.agents:
        assert a.mean_payoff == pytest.approx(a.win_share * a.points_per_win)


def test_variants_without_scoring_ranks_report_no_low_card_rates() -> None:
    result = run_tournament(["heuristic", "random"], make_rules("agram"), 50, seed=1)
    assert all(a.low_card_wins is None and a.low_card_kept is None for a in result.agents)
    assert all(a.points_per_win == 1 for a in result.agents)


def test_one_deal_has_no_interval_and_json_says_so() -> None:
    result = run_tournament(["high", "low"], make_rules("spar"), 1)
    assert all(math.isnan(a.ci95) for a in result.agents)
    data = result.to_dict()
    assert all(a["ci95"] is None and a["ci95_halfwidth"] is None for a in data["agents"])


# ----- statistics ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("df", "table_value"),  # two-sided 95% Student t quantiles from printed tables
    [(1, 12.706), (2, 4.303), (4, 2.776), (9, 2.262), (30, 2.042), (120, 1.980), (10**6, 1.960)],
)
def test_t_quantiles_match_the_printed_tables(df: int, table_value: float) -> None:
    assert t_quantile(0.95, df) == pytest.approx(table_value, abs=6e-4)


@pytest.mark.parametrize("confidence", [0.5, 0.9, 0.95, 0.99])
@pytest.mark.parametrize("df", [1, 2, 5, 30, 200, 201, 10_000])
def test_t_quantiles_are_scipys(confidence: float, df: int) -> None:
    from scipy.stats import t

    assert t_quantile(confidence, df) == pytest.approx(t.ppf(0.5 + confidence / 2, df), rel=1e-12)


def test_a_99_percent_quantile_matches_the_printed_table() -> None:
    assert t_quantile(0.99, 5) == pytest.approx(4.032, abs=6e-4)


def test_mean_ci_of_a_small_sample() -> None:
    mean, half = mean_ci(np.array([1.0, 2.0, 3.0, 4.0, 5.0]))
    assert mean == 3.0
    assert half == pytest.approx(2.776 * math.sqrt(2.5) / math.sqrt(5), abs=1e-3)
    assert math.isnan(mean_ci(np.array([7.0]))[1])
    with pytest.raises(ValueError, match="at least one sample"):
        mean_ci(np.array([]))
    with pytest.raises(ValueError, match="confidence"):
        t_quantile(1.5, 3)
