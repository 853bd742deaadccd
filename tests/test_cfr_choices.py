"""Reading a solved profile's choices (``spar_agents.cfr.choices``) on ``micro``: the walk's reach
agrees with the exact evaluation, and the tables' shares are exact for the uniform profile."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from spar_agents.cfr.build import build_tree
from spar_agents.cfr.choices import before_last_table, keep_table, lead_table, walk, walk_policy
from spar_agents.cfr.evaluation import expected_value
from spar_agents.cfr.seqform import sequence_form
from spar_agents.cfr.solvers import make_solver
from spar_agents.cfr.tree import make_tree
from spar_env.core import unpack
from spar_env.rules import make_rules


@pytest.fixture(scope="module")
def micro():
    return sequence_form(build_tree(make_rules("micro")))


@pytest.fixture(scope="module")
def solved(micro):
    solver = make_solver("cfr+", micro)
    solver.step(200)
    return solver.average_policy()


def test_the_walk_reaches_every_hand_once_and_its_payoffs_are_the_exact_value(
    micro, solved
) -> None:
    w = walk(micro, solved)
    assert w.ends.reach.sum() == pytest.approx(1.0, abs=1e-12)
    assert (w.ends.payoffs.sum(axis=1) == 0).all()
    mean = float(w.ends.reach @ w.ends.payoffs[:, 0])
    assert mean == pytest.approx(expected_value(micro, solved), abs=1e-12)
    assert mean == pytest.approx(7 / 9, abs=1e-3)  # micro's value for seat 0
    probs = w.spots.probs
    legal = unpack(w.spots.legal, probs.shape[1])
    assert np.allclose(probs.sum(axis=1), 1.0)
    assert (probs[~legal] == 0).all()
    assert (legal.sum(axis=1) >= 2).all()  # spots are choices


def test_the_uniform_profile_gives_even_choices_in_every_table(micro) -> None:
    w = walk(micro, micro.uniform())
    lead = lead_table(w)
    assert lead.rows and all(r.shares == (0.5,) for r in lead.rows)
    assert {r.spot.split(",")[0] for r in lead.rows} == {"trick 1"}  # two tricks: one to lead
    before = before_last_table(w)
    assert before.rows and all(r.shares == pytest.approx((0.5,)) for r in before.rows)
    keep = keep_table(w)
    seat0 = [r for r in keep.rows if r.spot.startswith("seat 0 (leads trick 1)")]
    assert seat0 and all(r.shares[0] == pytest.approx(0.5) for r in seat0)
    # Seat 0 is dealt exactly one of the two 6s in 2 * 4 of the 15 hands of two cards.
    assert sum(r.per_hand for r in seat0) == pytest.approx(float(Fraction(8, 15)))


def test_a_saved_policy_walks_as_its_profile(micro, solved, tmp_path) -> None:
    from spar_agents.cfr.policy import CFRPolicy, load_policy

    path = CFRPolicy.from_profile(micro, solved).save(tmp_path / "policy.npz")
    again = walk_policy(load_policy(path))
    direct = walk(micro, solved)
    assert np.allclose(again.ends.reach, direct.ends.reach)
    assert lead_table(again) == lead_table(direct)


def test_tables_read_a_solved_profile_and_render_with_rich(micro, solved) -> None:
    from rich.console import Console

    w = walk(micro, solved)
    console = Console(width=120, record=True)
    for table in (
        lead_table(w),
        keep_table(w),
        before_last_table(
            w,
        ),
    ):
        assert all(0 <= s <= 1 for r in table.rows for s in r.shares)
        console.print(table)
    text = console.export_text()
    assert "When it leads the 6" in text and "kept to the end" in text


def test_the_walk_refuses_hand_made_trees_and_the_tables_unknown_ranks(micro, solved) -> None:
    pennies = make_tree(
        parent=[-1, 0, 0, 1, 1, 2, 2], player=[0, 1, 1, -2, -2, -2, -2],
        action=[0, 0, 1, 0, 1, 0, 1], infoset=[0, 1, 1, -1, -1, -1, -1],
        returns=[[0, 0]] * 3 + [[1, -1], [-1, 1], [-1, 1], [1, -1]],
    )  # fmt: skip
    sf = sequence_form(pennies)
    with pytest.raises(ValueError, match="built from a ruleset"):
        walk(sf, sf.uniform())
    with pytest.raises(ValueError, match="'K' is not a scoring rank of micro"):
        lead_table(walk(micro, solved), "K")
