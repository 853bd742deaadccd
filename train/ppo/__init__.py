"""The PPO run: one rollout source, a short loop, and hooks.

:func:`train` runs a config (``spar train``, :func:`spar_train.run`); the loop
(:mod:`~spar_train.ppo.loop`) reads top to bottom, like CleanRL's: collect, update, log::

                       ┌──────────────────────── the rollout source ────────────────────────┐
    config ─► start ─► │ wrapper (optional): where the games are played                     │
    (games read once,  │   worker processes, the overlap, Ray actors: each runs a source    │
     placement,        │ ┌────────────────────────────────────────────────────────────────┐ │
     parts)            │ │ MixSource: every game of the mix (a single game: a mix of one) │ │
                       │ │   one GameBatch a game ─► lockstep forward passes ─► Rollout   │ │
                       │ │ (SearchSource: a source's games, then searched games beside)   │ │
                       │ └────────────────────────────────────────────────────────────────┘ │
                       └──────────────────────────────┬─────────────────────────────────────┘
                                                      │ collect
              ┌─────────────────── loop ──────────────▼───────────────┐
              │ warm start ─► collect ─► learn (GAE, PPO) ─► last?    │
              │                  ▲            (run.updates, time) │   │
              │                  └──── log, hooks ◄───────────────┘   │
              │     snapshots · evaluation · checkpoints · iterations │
              │     · progress report · your own hooks                │
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
:mod:`~spar_train.ppo.hooks`              snapshots, evaluation, checkpoints, iterations, ...
:mod:`~spar_train.ppo.warm_start`         a bot's actor, then imitation
:mod:`~spar_train.ppo.evaluation`         the learner on fixed deals; exact exploitability
:mod:`~spar_train.ppo.checkpoint`         what a checkpoint holds; resuming bit for bit
:mod:`~spar_train.ppo.divergence`         a diverged run stops, naming the likely cause
========================================  =====================================================

A new training feature is a source, a wrapper, a loss term or a hook. The games a run plays
(a mix, or one game: a mix of one) are the run's, read once by :mod:`spar_train.games`.

The package's face is lazy, the way Scientific Python's SPEC 1 makes one: the names of
:data:`LAZY` are imported from their modules on first use, since a rollout worker process
imports :mod:`~spar_train.ppo.wrappers.worker` and the sources alone, never the loop, the warm
start (onnx), the checkpoints or the evaluation, which would add most of a second to its
start. The imports under ``TYPE_CHECKING`` name each one's module for a reader and for mypy;
code in the project imports each name from its module (``from spar_train.ppo.loop import
train``).
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from spar_train.ppo.checkpoint import has_checkpoint as has_checkpoint
    from spar_train.ppo.learn import ppo_settings as ppo_settings
    from spar_train.ppo.learn import to_batch as to_batch
    from spar_train.ppo.loop import train as train
    from spar_train.ppo.parts import Counters as Counters
    from spar_train.ppo.parts import RunResult as RunResult

LAZY = {  # each name of the face: the module that holds it
    "Counters": "spar_train.ppo.parts",
    "RunResult": "spar_train.ppo.parts",
    "has_checkpoint": "spar_train.ppo.checkpoint",
    "ppo_settings": "spar_train.ppo.learn",
    "to_batch": "spar_train.ppo.learn",
    "train": "spar_train.ppo.loop",
}
__all__ = sorted(LAZY)


def __getattr__(name: str) -> Any:
    if name not in LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(LAZY[name]), name)


def __dir__() -> list[str]:
    return __all__
