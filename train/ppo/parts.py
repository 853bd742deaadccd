"""A PPO run's parts: what the loop, the warm start and the hooks share.

:class:`Run` holds what a run builds once from its config (:func:`spar_train.ppo.start.start_run`):
its games, where the learner runs and in which arithmetic (:class:`Placement`), the network,
its optimiser and magnet, the generator, the rollout source and the opponent pool, the
counters, the TensorBoard writer, the clock and the result so far. :class:`Update` is what one
update did, as the hooks hear it; :class:`RunResult` is what the run returns.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch

from spar_agents.ppo.device import resolve_device
from spar_agents.ppo.network import ActorCritic
from spar_agents.ppo.precision import Precision, resolve
from spar_agents.ppo.update import PPOSettings
from spar_env.rules import Ruleset
from spar_train.budget import RunBudget
from spar_train.games import GameMix
from spar_train.ppo.sources.base import Rollout, RolloutSource
from spar_train.ppo.sources.pools import MixPool
from spar_train.progress import Summary
from spar_train.sections import Config


@dataclass
class Counters:
    """How far the run is: saved with every checkpoint."""

    update: int = 0
    decisions: int = 0
    seconds: float = 0.0  # training wall clock so far (over every session of the run)
    warm_started: bool = False


@dataclass(frozen=True)
class Placement:
    """Where the learner runs, and the arithmetic of each kind of forward pass: ``run.device``,
    ``ppo.precision`` and ``rollout.precision``, resolved once for the run
    (:mod:`spar_agents.ppo.precision`)."""

    device: torch.device
    learner: Precision  # the update's and the warm start's matrix products, on the device
    rollout: Precision  # the rollouts' forward passes where the learner answers them
    workers: Precision  # those of a worker process or Ray actor, on its CPU

    @classmethod
    def of(cls, config: Config) -> Placement:
        device = resolve_device(config.run.device)
        return cls(
            device,
            resolve(config.ppo.precision, device),
            resolve(config.rollout.precision, device),
            resolve(config.rollout.precision),
        )


@dataclass
class RunResult:
    """What a PPO run reached (:func:`spar_train.ppo.train`)."""

    rules: Ruleset  # the game the run plays when none is named (a mix: its home game)
    run_dir: Path
    counters: Counters
    evaluations: dict[str, dict[str, float]] = field(default_factory=dict)  # latest, by opponent
    stopped_early: bool = False
    out_of_time: bool = False  # run.max_minutes ended it before run.updates
    planned_updates: int = 0  # run.updates
    max_minutes: float = 0.0  # run.max_minutes
    exploitability: float | None = None  # the latest exact one (eval.exact)

    @property
    def agent_spec(self) -> str:
        """The agent spec that plays the trained network: ``ppo:runs/NAME``."""
        return f"ppo:{self.run_dir}"

    def summary(self) -> Summary:
        """The last evaluation by opponent, and what to do with the run next."""
        run_dir = self.run_dir
        if self.planned_updates == 0:  # run.updates = 0: the warm start's imitation only
            return Summary(text=(
                f"{run_dir.name}: imitation only (run.updates = 0), no PPO update; the network "
                f"imitates warmstart.imitate (curve: warmstart/cross_entropy)\n"
                f"checkpoint in {run_dir}/checkpoints\n"
                f"export:  spar export {run_dir} --out {run_dir.name}.onnx"
            ))  # fmt: skip
        low = "/".join(self.rules.rank_points) or "low"  # the scoring ranks: 6/7 in Spar
        others = self.rules.players - 1
        rows = []
        for spec, f in self.evaluations.items():
            who = f"{spec} × {others}"
            if "games" in f:  # a game mix: the mean over its games (ppo.evaluation)
                who = f"{spec}, mean of {f['games']:.0f} games ({f['games_above']:.0f} above 0)"
            rows.append((who, f"{f['mean_payoff']:+.3f} ± {f['ci95']:.3f}",
                         _share(f.get("won_last_with_low_card")), _share(f.get("kept_low_card")),
                         _share(f.get("won_trick_before_last"))))  # fmt: skip
        text = (
            f"{self.counters.decisions:,} learner decisions in {self.counters.seconds / 60:.1f} "
            f"min; checkpoints in {run_dir}/checkpoints\n"
            f"curves:  tensorboard --logdir {run_dir.parent}\n"
            f"bench:   spar bench ppo:{run_dir} {' '.join(['heuristic'] * others)} --deals 20000"
        )
        if self.out_of_time:
            text += (
                f"\nrun.max_minutes ({self.max_minutes:g}) ended the run after update "
                f"{self.counters.update} of {self.planned_updates}, and the learning rate was "
                f"scheduled for {self.planned_updates}; to train to the end: "
                f"spar train --resume {run_dir} --set run.max_minutes=0"
            )
        columns = ("opponent", "mean payoff", f"won {low}", f"kept {low}", "won trick H-1")
        title = f"{run_dir.name}: evaluation after update {self.counters.update}"
        return Summary(title, columns, tuple(rows), text)


def _share(x: float | None) -> str:
    return "n/a" if x is None else f"{100 * x:.1f}%"


@dataclass
class Update:
    """What one update did, as the hooks hear it (:mod:`spar_train.ppo.hooks`)."""

    step: int  # the update's number, from 1
    lr: float  # the learning rate it ran at
    rollout: Rollout  # the rollout it learned from
    stats: dict[str, float]  # the PPO update's losses and diagnostics, by name
    seconds: dict[str, float]  # where the time went: the rollout's parts, then "update"
    decisions_per_second: float  # the learner's decisions, over the rollout and the update
    decisions: int  # the learner's decisions of the run so far
    began: float  # time.perf_counter() when its rollout began
    collect_seconds: float  # what its rollout took (the learner waited for it)
    final: bool = False  # the run ends after it: its last update, or out of time (the loop's)
    evaluated: bool = False  # the evaluations are made after it (the loop's schedule)


@dataclass
class Run:
    """A PPO run's parts (module docstring)."""

    config: Config
    run_dir: Path
    mix: GameMix
    placement: Placement
    model: ActorCritic
    optimizer: torch.optim.Optimizer
    magnet: ActorCritic | None  # magnetic mirror descent's magnet (ppo.magnet_coef > 0)
    settings: PPOSettings  # the update's, in the learner's arithmetic
    rng: np.random.Generator  # every random choice of the run but the network's first weights
    source: RolloutSource
    pool: MixPool
    scale: float  # the home game's reward scale (each game's rewards are scaled by its own)
    resumed: bool  # from a checkpoint
    counters: Counters
    result: RunResult
    budget: RunBudget  # run.max_minutes, shared between the warm start and PPO
    writer: Any = None  # the run's TensorBoard SummaryWriter
    begin: float = field(default_factory=time.perf_counter)  # this session's start (its clock)
    seconds_before: float = 0.0  # the training wall clock of the sessions before this one
    done_here: int = 0  # updates in this session
    saved_at: int | None = None  # the update of this session's latest checkpoint

    def seconds(self) -> float:
        """The run's training wall clock so far, over every session."""
        return self.seconds_before + time.perf_counter() - self.begin
