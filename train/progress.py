"""What a run reports as it goes: one event type that every trainer emits.

:func:`spar_train.run` passes ``report(event)`` to the trainer it chooses, and the
trainer calls it with a :class:`Progress` after each step of each phase:

=============  ===============================  ===========================================
``phase``      a step is                        ``figures``
=============  ===============================  ===========================================
``start``      before the run (step 0 of 0)     none; ``note`` says where the learner runs
``note``       a line to show as it is          none; ``note`` says how ``run.max_minutes``
                                                is shared (:mod:`spar_train.budget`)
``imitation``  one warm-start step (PPO)        ``cross_entropy``
``ppo``        one PPO update                   ``decisions_per_second``, ``approx_kl``,
                                                ``<part>_seconds`` (``learner``,
                                                ``opponents``, ``game``: the work done,
                                                summed over Ray's workers and a mix's
                                                games; ``update``),
                                                ``exploitability`` (``eval.exact``)
``cfr``        a chunk of solver iterations     ``nash_conv``
``lp``         the linear program (one step)    ``nash_conv``
``mccfr``      the batches up to an evaluation  ``deals``, ``deals_per_second``
=============  ===============================  ===========================================

A ``start`` event (step 0 of 0) comes first where the run has something to
say before it begins, in ``note``: the GPU its learner runs on.

``evaluations`` holds the latest duplicate-deal figures by opponent
(``mean_payoff``, ``ci95``, ...), and ``evaluated`` says whether they were
made at this step.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Progress:
    phase: str  # start | note | imitation | ppo | cfr | lp | mccfr (table above)
    step: int  # steps of this phase done so far
    of: int  # steps this phase runs in all
    figures: dict[str, float] = field(default_factory=dict)  # this step's live figures, by name
    evaluations: dict[str, dict[str, float]] = field(default_factory=dict)  # latest, by opponent
    evaluated: bool = False  # the evaluations were made at this step
    note: str = ""  # a line to show as it is (the start and note events')


Reporter = Callable[[Progress], None]
