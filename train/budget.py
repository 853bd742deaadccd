"""``run.max_minutes``: one time budget for the whole run, warm start and compiling included.

A run given ``run.max_minutes`` keeps it as a whole: the clock starts when the trainer is
called (building the agents, compiling the engine, the warm start, PPO and the final
evaluation all count), and a resumed run counts the minutes of its earlier sessions. The
budget is shared between the two phases of a PPO run:

- **the warm start** (``warmstart.imitate``) may take at most ``WARM_START_SHARE`` of the
  budget (all of it in a run that only imitates, ``run.updates = 0``); it stops after the
  imitation step past which the next would not fit in its share, having made fewer steps
  than ``warmstart.updates``;
- **PPO** gets everything the warm start left. It starts another update only while that
  update and the final evaluation and checkpoint still fit (each predicted from the last
  one measured; before the first evaluation, from the rollout's seconds a learner
  decision, which overstates an evaluation's, about twice over on the default run).

Every run makes at least one step of each phase it has, so a budget shorter than one
imitation step and one update (with its evaluation) is overrun by that much. Without a
budget (``run.max_minutes = 0``) nothing here changes what a run does.

A sampled-CFR run (:mod:`spar_train.mccfr`) keeps its budget so too, with a :class:`Budget`
of its own: it ends with the batch past which another batch and the final evaluation would
not fit. Its tables do not hold the time spent, so each session of it gets the whole budget.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from spar_train.games import mix_games
from spar_train.progress import Progress, Reporter
from spar_train.sections import Config

WARM_START_SHARE = 0.25  # the most of the budget the warm start may take, when PPO follows
T = TypeVar("T")
MATCH_HANDS = 12  # hands a match is taken to last, to estimate an evaluation's matches


@dataclass
class Budget:
    """Seconds of wall clock for a run (``inf``: no limit), counted from ``start``.

    Args:
        seconds: the whole budget, over every session of the run.
        spent: the seconds earlier sessions took (a resumed run's counters).
        start: ``time.perf_counter()`` when this session began.
    """

    seconds: float
    spent: float = 0.0
    start: float = field(default_factory=time.perf_counter)

    @classmethod
    def of(cls, minutes: float, spent: float = 0.0, start: float | None = None) -> Budget:
        """``minutes`` of ``run.max_minutes`` (0: no limit)."""
        seconds = 60.0 * minutes if minutes > 0 else float("inf")
        return cls(seconds, spent, time.perf_counter() if start is None else start)

    @property
    def limited(self) -> bool:
        return self.seconds != float("inf")

    def elapsed(self) -> float:
        """Seconds of the run so far, earlier sessions included."""
        return self.spent + time.perf_counter() - self.start

    def left(self) -> float:
        return self.seconds - self.elapsed()

    def fits(self, seconds: float) -> bool:
        """Whether work of ``seconds`` more still ends within the budget."""
        return self.elapsed() + seconds <= self.seconds


class RunBudget:
    """How a PPO run shares its :class:`Budget` between the warm start and PPO (module
    docstring), and the lines that say so (:class:`~spar_train.progress.Progress` notes)."""

    def __init__(self, config: Config, budget: Budget, report: Reporter | None = None) -> None:
        self.config = config
        self.budget = budget
        self.report = report
        only_imitates = config.run.updates == 0
        self.warm_share = 1.0 if only_imitates else WARM_START_SHARE
        self._warm_began: float | None = None
        self._update_seconds: float | None = None  # the last update, its evaluation left out
        self._eval_seconds: float | None = None  # the dearest evaluation so far
        self._save_seconds = 0.0

    # ----- the warm start ------------------------------------------------------------
    def warm_start_stop(self) -> Callable[[], bool] | None:
        """For the imitation: called after each step, True when the next would not fit in
        the warm start's share (``None`` without a budget). Says how the budget is shared."""
        if not self.budget.limited:
            return None
        self._warm_began = self.budget.elapsed()
        self._say(self._share_line())
        last = [self.budget.elapsed()]

        def stop() -> bool:
            now = self.budget.elapsed()
            step, last[0] = now - last[0], now
            return not self.budget.fits(step) or now + step > self._warm_deadline()

        return stop

    def _warm_deadline(self) -> float:
        assert self._warm_began is not None
        return self._warm_began + self.warm_share * (self.budget.seconds - self._warm_began)

    def _share_line(self) -> str:
        minutes = self.budget.seconds / 60
        left = self.budget.left() / 60
        if self.warm_share == 1.0:
            return f"run.max_minutes {minutes:g}: the imitation may take all {left:.1f} min left"
        return (f"run.max_minutes {minutes:g}: the warm start may take up to "
                f"{self.warm_share * left:.1f} of the {left:.1f} min left, PPO the rest")  # fmt: skip

    def warm_start_done(self, steps: int) -> None:
        """Say what the warm start took and what PPO has (with a budget, after imitating)."""
        if not self.budget.limited or self._warm_began is None:
            return
        planned = self.config.warmstart.updates
        took = (self.budget.elapsed() - self._warm_began) / 60
        cut = "" if steps >= planned else ", stopped at its share of run.max_minutes"
        rest = (
            f"; PPO has {max(self.budget.left(), 0) / 60:.1f} min"
            if self.config.run.updates
            else ""
        )
        self._say(f"the warm start took {took:.1f} min ({steps} of {planned} imitation steps"
                  f"{cut}){rest}")  # fmt: skip

    # ----- PPO -----------------------------------------------------------------------
    def out_of_time(self, began: float, rollout_seconds: float, decisions: int) -> bool:
        """After an update that began at ``began`` (``time.perf_counter()``), before its
        evaluation: whether the run must end with it, since another update like it, the final
        evaluation and the checkpoint would not fit. ``rollout_seconds``: its rollout's, of
        ``decisions`` learner decisions (to estimate an evaluation before one is measured)."""
        if not self.budget.limited:
            return False
        self._update_seconds = time.perf_counter() - began
        evaluation = self._eval_seconds
        if evaluation is None:  # none measured yet: the rollout's seconds a decision, scaled
            evaluation = rollout_seconds * eval_decisions(self.config) / max(decisions, 1)
        return not self.budget.fits(self._update_seconds + evaluation + self._save_seconds)

    def timed_evaluation(self, evaluate: Callable[..., T], *args: Any) -> T:
        """``evaluate(*args)``, its seconds kept (the dearest evaluation predicts the last)."""
        began = time.perf_counter()
        result = evaluate(*args)
        seconds = time.perf_counter() - began
        self._eval_seconds = max(self._eval_seconds or 0.0, seconds)
        return result

    def timed_save(self, save: Callable[[], None]) -> None:
        """``save()``, its seconds kept (the last checkpoint's predicts the final one's)."""
        began = time.perf_counter()
        save()
        self._save_seconds = time.perf_counter() - began

    def _say(self, line: str) -> None:
        if self.report is not None:
            self.report(Progress("note", 0, 0, note=line))


def eval_decisions(config: Config) -> int:
    """The learner's decisions in an evaluation: it holds one seat of every hand, in every
    rotation, against every opponent, in every game of a mix."""
    games = [g.rules for g in mix_games(config)]
    e = config.eval
    hands = (e.deals + e.matches * MATCH_HANDS) * len(e.opponents)  # a rotation's
    return sum(rules.players * rules.hand_size * hands for rules in games)
