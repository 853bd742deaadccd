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
:mod:`~spar_train.ppo.games`              the games, read once: a mix, or one game (a mix of one)
:mod:`~spar_train.ppo.sources`            the rollout source and what it is made of
:mod:`~spar_train.ppo.wrappers`           where a source plays: a worker process, Ray actors
:mod:`~spar_train.ppo.learn`              one update: GAE, PPO, the magnet, the divergence check
:mod:`~spar_train.ppo.hooks`              snapshots, time limit, evaluation, checkpoints, ...
:mod:`~spar_train.ppo.warm_start`         a bot's actor, then imitation
:mod:`~spar_train.ppo.evaluation`         the learner on fixed deals; exact exploitability
:mod:`~spar_train.ppo.checkpoint`         what a checkpoint holds; resuming bit for bit
:mod:`~spar_train.ppo.divergence`         a diverged run stops, naming the likely cause
========================================  =====================================================

A new training feature is a source, a wrapper, a loss term or a hook.
"""

from spar_train.ppo.checkpoint import has_checkpoint
from spar_train.ppo.learn import ppo_settings, to_batch
from spar_train.ppo.loop import train
from spar_train.ppo.parts import Counters, RunResult

__all__ = ["Counters", "RunResult", "has_checkpoint", "ppo_settings", "to_batch", "train"]
