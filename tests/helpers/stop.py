"""A hook that stops a PPO run part way, as if killed just after a checkpoint: the tests' way to
stop a run and resume it (``train(config, runs, hooks=[StopAfter(2)])``)."""

from __future__ import annotations

from typing import Any

from spar_train.hooks import Hook
from spar_train.ppo.checkpoint import save_run


class StopAfter(Hook):
    """After ``updates`` updates of this call, stop as if killed just after a checkpoint
    (written if the update had none); ``result.stopped_early`` says so."""

    def __init__(self, updates: int) -> None:
        self.updates = updates

    def on_update(self, run: Any, update: Any) -> bool:
        if run.done_here < self.updates:
            return True
        if run.saved_at != update.step:
            save_run(run)
        run.result.stopped_early = True
        return False
