"""The strategy study (``spar_train.study``): tip values on duplicate deals, hand rates, the sweeps."""

from __future__ import annotations

import numpy as np
import pytest

from spar_env.rules import make_rules
from spar_train.study import (
    TIPS,
    Estimate,
    applies,
    estimate,
    hand_rates,
    rate_table,
    tip_table,
    tip_value,
)

TIP = {tip.name: tip for tip in TIPS}


def test_an_estimate_is_the_mean_and_the_students_t_interval() -> None:
    e = estimate(np.array([0.0, 1.0, 0.0, 1.0]))
    assert e.mean == 0.5 and e.samples == 4
    assert e.ci95 == pytest.approx(3.182446 * np.sqrt(1 / 3) / 2, rel=1e-5)  # t(0.975, 3)
    assert (e.low, e.high) == (e.mean - e.ci95, e.mean + e.ci95)
    assert str(Estimate(0.25, 0.01, 9)) == "+0.250 ± 0.010"
    assert Estimate(0.621, 0.004, 9).percent() == "62.1% ± 0.4%"


def test_throwing_the_6_away_early_costs_the_heuristic_points() -> None:
    rules = make_rules("spar", players=2)
    value = tip_value(rules, TIP["keep a 6"], deals=1500, seed=0)
    assert value.high < 0  # the whole interval: keeping the 6 is worth something
    assert value.samples == 1500


def test_a_tip_value_is_fixed_by_its_seed() -> None:
    rules = make_rules("spar", players=3)
    a = tip_value(rules, TIP["win trick H-1"], deals=300, seed=5)
    b = tip_value(rules, TIP["win trick H-1"], deals=300, seed=5)
    c = tip_value(rules, TIP["win trick H-1"], deals=300, seed=6)
    assert a == b and a != c


def test_tips_about_low_cards_do_not_apply_without_scoring_ranks() -> None:
    agram, sipa = make_rules("agram", players=3), make_rules("sipa", players=3)
    assert not applies(TIP["keep a low card"], agram)
    assert applies(TIP["win trick H-1"], agram)
    assert not applies(TIP["keep a 6"], sipa)  # Sipa scores its 7s only
    assert applies(TIP["keep a 7"], sipa)
    with pytest.raises(ValueError, match="has no spots in agram"):
        tip_value(agram, TIP["strip the suit"], deals=10)
    rows = tip_table([agram], [TIP["keep a 6"], TIP["win trick H-1"]], deals=50)
    assert [r.value is None for r in rows] == [True, False]
    assert rows[0].label == "agram, 3 players"


def test_hand_rates_count_the_hands_the_trick_before_the_last_decides() -> None:
    rules = make_rules("spar", players=4)
    small = hand_rates(rules, 2000, seed=1, agent="random")
    large = hand_rates(rules, 8000, seed=1, agent="random")
    for r in (small, large):
        assert r.fair_share == 0.25
        assert r.before_last_takes_hand.low > 0.25  # leading the last trick helps
        assert 0 < r.won_with_scoring_card.mean < r.before_last_takes_hand.mean
    assert large.before_last_takes_hand.ci95 == pytest.approx(
        small.before_last_takes_hand.ci95 / 2, rel=0.15
    )  # four times the hands: half the interval


def test_hand_rates_refuse_one_card_hands_and_single_deals() -> None:
    with pytest.raises(ValueError, match="no trick before the last"):
        hand_rates(make_rules("spar", hand_size=1, deal_pattern=(1,)), 10)
    with pytest.raises(ValueError, match="at least 2 deals"):
        hand_rates(make_rules("spar"), 1)
    table = rate_table([make_rules("spar", players=2)], deals=50)
    assert list(table) == ["spar, 2 players"]


def test_the_command_prints_the_grids_and_writes_the_figures(tmp_path, capsys) -> None:
    import json

    from spar_train.study import main

    out = tmp_path / "study.json"
    main(["--deals", "30", "--ruleset", "spar:2", "--ruleset", "agram:3", "--json", str(out)])
    printed = capsys.readouterr().out
    assert "keep a 6 (dump_low 6)" in printed and "trick H-1 winner takes the hand" in printed
    data = json.loads(out.read_text())
    assert len(data["tips"]) == 2 * len(TIPS)
    agram = [t for t in data["tips"] if t["ruleset"] == "agram, 3 players"]
    assert {t["tip"] for t in agram if t["value"] is None} >= {"keep a 6", "strip the suit"}
    assert data["hand_rates"]["agram, 3 players"]["won_with_scoring_card"] is None
    with pytest.raises(SystemExit, match="VARIANT:PLAYERS"):
        main(["--ruleset", "spar"])
