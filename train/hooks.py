"""What a run calls as it goes: the one hook interface of every trainer (Stable-Baselines3's callbacks).

A :class:`Hook` hears a run's start, each of its updates and its end; each method does nothing
unless a hook overrides it. A PPO run is a short loop (collect, update, log) whose evaluations,
checkpoints, time limit, snapshots and progress report are hooks of this kind
(:mod:`spar_train.ppo.hooks`); :func:`spar_train.run` passes a caller's own hooks on, and
calls ``on_end`` with the run's result for every algorithm (an exact or sampled CFR run has
no updates to hear). :class:`JoinLeague` is ``spar train --league``'s: when the run ends, its
agent joins a league.

=============  ===================================  ===========================================
method         called                               with
=============  ===================================  ===========================================
``on_start``   before a PPO run's warm start        the run's parts (:class:`~spar_train.ppo.parts.Run`)
``on_update``  after each PPO update                the parts and what the update did
                                                    (:class:`~spar_train.ppo.parts.Update`);
                                                    ``False`` stops the run after it
``on_end``     once the run is over (not when it    the run's result (a PPO run's, an exact
                                                    solve's or a sampled-CFR run's)
               fails)
=============  ===================================  ===========================================
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias

from spar_train.league import add_entrants

if TYPE_CHECKING:
    from spar_train.mccfr import MCCFRResult
    from spar_train.ppo.parts import RunResult
    from spar_train.solve import SolveResult

    TrainResult: TypeAlias = "RunResult | SolveResult | MCCFRResult"  # spar_train.run gives it


class Hook:
    """A run's hook (module docstring); override the methods it needs."""

    def on_start(self, run: Any) -> None:
        """Before a PPO run's warm start and first update."""

    def on_update(self, run: Any, update: Any) -> bool:
        """After each PPO update; ``False`` stops the run after this update."""
        return True

    def on_end(self, result: TrainResult) -> None:
        """Once the run is over, with its result."""


class JoinLeague(Hook):
    """When the run ends, its agent (``result.agent_spec``) joins the league in ``folder``,
    which is started for the run's game if there is none (``spar train --league``).

    A run whose agent cannot join is still saved: ``error`` says why it did not join, and
    ``joined`` whether it joined now (``False``: it was in the league already).
    """

    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder)
        self.spec: str | None = None
        self.joined: bool | None = None  # None: not tried, or refused (see error)
        self.error: str | None = None

    def on_end(self, result: TrainResult) -> None:
        self.spec = result.agent_spec
        try:
            self.joined = bool(add_entrants(self.folder, [self.spec], result.rules))
        except ValueError as e:
            self.error = " ".join(str(e).split())
