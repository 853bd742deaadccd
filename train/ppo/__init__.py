"""The PPO run: one rollout source, a short loop, and hooks.

:func:`train` runs a config (``spar train``, :func:`spar_train.run`); the loop
(:mod:`~spar_train.ppo.loop`) reads top to bottom, like CleanRL's: collect, update, log::

                       ┌──────────────────────── the rollout source ────────────────────────┐
    config ─► start ─► │ wrapper (optional)                                                 │
    (games read once,  │   overlap: a worker process        Ray: actors, each a worker      │
     placement,        │ ┌────────────────────────────────────────────────────────────────┐ │
     parts)            │ │ MixSource: every game of the mix (a single game: a mix of one) │ │
                       │ │   one GameBatch a game ─► lockstep forward passes ─► Rollout   │ │
                       │ └────────────────────────────────────────────────────────────────┘ │
                       └──────────────────────────────┬─────────────────────────────────────┘
                                                      │ collect
              ┌─────────────────── loop ──────────────▼───────────────┐
              │ warm start ─► collect ─► learn (GAE, PPO) ─► log      │
              │                  ▲                          │         │
              │                  └──── hooks, in order ◄────┘         │
              │     snapshots · time limit · evaluation · checkpoints │
              │     · progress report · stop after · your own hooks   │
              └───────────────────────────────────────────────────────┘

========================================  =====================================================
module                                    what it holds
========================================  =====================================================
:mod:`~spar_train.ppo.loop`               :func:`train`: start, warm start, the loop
:mod:`~spar_train.ppo.start`              the run's parts built once; the choice of source
:mod:`~spar_train.ppo.parts`              the parts the loop and hooks share; the result
:mod:`~spar_train.ppo.sources`            the rollout source and what it is made of
:mod:`~spar_train.ppo.wrappers`           where a source plays: a worker process, Ray actors
:mod:`~spar_train.ppo.learn`              one update: GAE, PPO, the magnet, the divergence check
:mod:`~spar_train.ppo.hooks`              snapshots, time limit, evaluation, checkpoints, ...
:mod:`~spar_train.ppo.warm_start`         a bot's actor, then imitation
:mod:`~spar_train.ppo.evaluation`         the learner on fixed deals; exact exploitability
:mod:`~spar_train.ppo.checkpoint`         what a checkpoint holds; resuming bit for bit
:mod:`~spar_train.ppo.divergence`         a diverged run stops, naming the likely cause
========================================  =====================================================

A new training feature is a source, a wrapper, a loss term or a hook. The games a run plays
(a mix, or one game: a mix of one) are the run's, read once by :mod:`spar_train.games`.

The names below are imported on first use: the overlap's worker process imports
:mod:`~spar_train.ppo.wrappers.worker` and the sources alone, never the loop, the warm start
(onnx), the checkpoints or the evaluation, which would add most of a second to its start.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from spar_train.ppo.checkpoint import has_checkpoint
    from spar_train.ppo.learn import ppo_settings, to_batch
    from spar_train.ppo.loop import train
    from spar_train.ppo.parts import Counters, RunResult

__all__ = ["Counters", "RunResult", "has_checkpoint", "ppo_settings", "to_batch", "train"]

_HOMES = {  # each name of __all__: the module that holds it
    "Counters": "parts",
    "RunResult": "parts",
    "has_checkpoint": "checkpoint",
    "ppo_settings": "learn",
    "to_batch": "learn",
    "train": "loop",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f"{__name__}.{home}"), name)
