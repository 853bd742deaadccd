"""``run.max_minutes`` bounds the whole run (:mod:`spar_train.budget`): the warm start takes at
most its share, PPO the rest, and the final evaluation and checkpoint fit in too.

No test here waits or times anything: the clock is ``time.perf_counter`` plus seconds that a
slow teacher, update or evaluation adds when it runs, so the runs are tiny and the budget is
spent on the fake seconds.
"""

from __future__ import annotations

import re
import time
from typing import Any

import pytest
from helpers.cli import TINY

import spar_train.ppo.hooks
import spar_train.ppo.learn
import spar_train.ppo.warm_start
from spar_train.config import load_config
from spar_train.ppo.loop import train
from spar_train.progress import Progress


class Clock:
    """``time.perf_counter`` ahead of the real one by the seconds :meth:`spend` added."""

    def __init__(self) -> None:
        self.ahead = 0.0
        self.real = time.perf_counter

    def __call__(self) -> float:
        return self.real() + self.ahead

    def spend(self, seconds: float) -> None:
        self.ahead += seconds


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    fake = Clock()
    monkeypatch.setattr(time, "perf_counter", fake)
    return fake


def slow(function: Any, clock: Clock, seconds: float) -> Any:
    """``function``, taking ``seconds`` more of the fake clock each call."""

    def slowed(*args: Any, **kwargs: Any) -> Any:
        clock.spend(seconds)
        return function(*args, **kwargs)

    return slowed


class SlowTeacher:
    """An agent that decides as ``inner`` does, taking ``seconds`` of the clock a decision."""

    def __init__(self, inner: Any, clock: Clock, seconds: float) -> None:
        self.inner, self.clock, self.seconds = inner, clock, seconds

    def act(self, situation: Any, rng: Any) -> Any:
        self.clock.spend(self.seconds)
        return self.inner.act(situation, rng)


def test_a_slow_warm_start_takes_its_share_and_leaves_the_rest_to_ppo(
    clock: Clock, monkeypatch: pytest.MonkeyPatch, tmp_path
) -> None:
    """Before the fix the imitation ran all its steps (40 of about 20 s here: 13 minutes of a
    budget of 10), and PPO stopped after its first update."""
    make = spar_train.ppo.warm_start.make_agent
    monkeypatch.setattr(spar_train.ppo.warm_start, "make_agent",
                        lambda spec, rules: SlowTeacher(make(spec, rules), clock, 2.0))  # fmt: skip
    heard: list[Progress] = []
    config = load_config(TINY, ["run.max_minutes=10", "warmstart.updates=40", "run.updates=2",
                                "rollout.games=32", "eval.deals=10"])  # fmt: skip
    result = train(config, tmp_path, report=heard.append)
    steps = [e.step for e in heard if e.phase == "imitation"]
    assert 2 <= len(steps) < 40  # cut short at its share: 2.5 of the 10 minutes
    assert result.counters.update == 2 and not result.out_of_time  # PPO had the rest
    assert result.counters.seconds <= 600
    notes = [e.note for e in heard if e.phase == "note"]
    assert re.fullmatch(r"run.max_minutes 10: the warm start may take up to 2\.[45] of the "
                        r"(10\.0|9\.9) min left, PPO the rest", notes[0])  # fmt: skip
    assert notes[1].startswith("the warm start took ")
    assert f"({len(steps)} of 40 imitation steps, stopped at its share of run.max_minutes); " \
        "PPO has " in notes[1]  # fmt: skip


def test_ppo_stops_where_another_update_and_the_last_evaluation_would_not_fit(
    clock: Clock, monkeypatch: pytest.MonkeyPatch, tmp_path
) -> None:
    """Updates of 100 s, evaluations of 150 s, 11 minutes: three updates and two evaluations
    fit (600 s). Before the fix the run went on while under the budget and then evaluated
    past it: five updates and three evaluations, 950 s."""
    learn, hooks = spar_train.ppo.learn, spar_train.ppo.hooks
    monkeypatch.setattr(learn, "ppo_update", slow(learn.ppo_update, clock, 100))
    monkeypatch.setattr(hooks, "evaluate_games", slow(hooks.evaluate_games, clock, 150))
    config = load_config(TINY, ["run.max_minutes=11", "warmstart.updates=0", "run.updates=50",
                                "rollout.games=32", "eval.deals=10", "eval.every=2"])  # fmt: skip
    result = train(config, tmp_path)
    assert result.out_of_time and result.counters.update == 3
    assert 600 <= result.counters.seconds <= 660


def test_a_run_that_only_imitates_may_take_the_whole_budget(
    clock: Clock, monkeypatch: pytest.MonkeyPatch, tmp_path
) -> None:
    make = spar_train.ppo.warm_start.make_agent
    monkeypatch.setattr(spar_train.ppo.warm_start, "make_agent",
                        lambda spec, rules: SlowTeacher(make(spec, rules), clock, 2.0))  # fmt: skip
    heard: list[Progress] = []
    config = load_config(TINY, ["run.max_minutes=2", "warmstart.updates=40", "run.updates=0",
                                "rollout.games=32"])  # fmt: skip
    result = train(config, tmp_path, report=heard.append)
    steps = [e.step for e in heard if e.phase == "imitation"]
    assert 3 <= len(steps) < 40 and result.counters.seconds <= 120
    assert [e.note for e in heard if e.phase == "note"][0].endswith(
        "the imitation may take all 2.0 min left"
    )


def test_the_budget_counts_earlier_sessions_and_has_no_limit_at_zero(clock: Clock) -> None:
    from spar_train.budget import WARM_START_SHARE, Budget

    budget = Budget.of(2, spent=90.0)
    assert budget.limited and budget.fits(29) and not budget.fits(31)
    clock.spend(20)
    assert not budget.fits(11) and budget.left() == pytest.approx(10, abs=0.5)
    unlimited = Budget.of(0)
    assert not unlimited.limited and unlimited.fits(1e300)
    assert 0 < WARM_START_SHARE < 1


def test_a_sampled_cfr_run_ends_where_a_batch_and_the_last_evaluation_would_not_fit(
    clock: Clock, monkeypatch: pytest.MonkeyPatch, tmp_path
) -> None:
    """Batches of 100 s, evaluations of 150 s, 11 minutes: three batches and two evaluations
    (600 s). Before the fix it evaluated past the budget: 700 s."""
    import spar_train.mccfr
    from spar_agents.cfr.mccfr import ExternalSampling

    monkeypatch.setattr(ExternalSampling, "step", slow(ExternalSampling.step, clock, 100))
    monkeypatch.setattr(spar_train.mccfr, "evaluate", slow(spar_train.mccfr.evaluate, clock, 150))
    config = load_config(None, ["algorithm=mccfr", "run.name=m", "game.players=2",
                                "mccfr.deals=16", "mccfr.batches=100", "mccfr.eval_every=2",
                                "mccfr.eval_deals=10", 'mccfr.eval_opponents=["random"]',
                                "run.max_minutes=11"])  # fmt: skip
    result = spar_train.mccfr.run_mccfr(config, tmp_path)
    assert result.batches == 3 and 600 <= result.seconds <= 660
