"""A PPO run's start: its parts built once from its config, and a resumed run's put back.

:func:`start_run` reads the games once (:func:`~spar_train.games.game_mix`), resolves where
the learner runs and in which arithmetic (:class:`~spar_train.ppo.parts.Placement`), seeds
torch and the run's generator, and builds the network, its optimiser, the magnet, the rollout
source (:func:`make_source`: the one place that chooses where the games are played) and the
opponent pool. A new run writes its ``config.toml``; a resumed one takes up its latest
checkpoint (:mod:`spar_train.ppo.checkpoint`). The TensorBoard writer opens last (on resume
dropping what a killed session logged past its checkpoint).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from functools import partial
from pathlib import Path

import numpy as np
import torch
from torch.utils.tensorboard import SummaryWriter

from spar_agents.ppo.agent import latest_checkpoint
from spar_agents.ppo.checkpoint import load_checkpoint
from spar_agents.ppo.precision import Precision
from spar_agents.ppo.update import make_optimizer
from spar_env import __version__
from spar_env.atomic import atomic_output
from spar_train.budget import Budget, RunBudget
from spar_train.config import CONFIG_FILE, Config, dump_config
from spar_train.games import GameMix, build_model, game_mix, reward_scale
from spar_train.ppo.checkpoint import (
    check_fits,
    check_same_state,
    model_spec,
    restore_checked,
    restore_run,
)
from spar_train.ppo.learn import ppo_settings
from spar_train.ppo.parts import Counters, Placement, Run, RunResult
from spar_train.ppo.sources.base import RolloutSource, SourceMaker
from spar_train.ppo.sources.mix import Piece, mix_source
from spar_train.ppo.sources.search import SearchBuffer, search_source
from spar_train.ppo.wrappers.on_ray import ray_source
from spar_train.ppo.wrappers.processes import process_source
from spar_train.ppo.wrappers.shares import WorkerSources, worker_pieces
from spar_train.progress import Reporter


def start_run(
    config: Config, run_dir: Path, *, resume: bool, started: float, report: Reporter | None
) -> Run:
    """The run's parts (module docstring); ``resume``: from its latest checkpoint; ``started``:
    when the run began (``time.perf_counter()``: ``run.max_minutes`` counts from there,
    :mod:`spar_train.budget`, whose notes go to ``report``)."""
    mix = game_mix(config)
    torch.set_num_threads(config.run.threads)
    torch.manual_seed(config.run.seed)
    place = Placement.of(config)
    rng = np.random.default_rng(config.run.seed)
    model = build_model(config, mix, place.device)
    optimizer = make_optimizer(model, config.ppo.lr)
    # Magnetic mirror descent's magnet (spar_agents.ppo.update): the policy PPO starts from,
    # then trailing the learner by ppo.magnet_rate an update.
    magnet = build_model(config, mix, place.device) if config.ppo.magnet_coef > 0 else None
    source = make_source(config, mix, rng, place)
    try:  # whatever fails from here ends the source's worker process or Ray actors with it
        pool = source.pool(config.pool.mix, config.pool.snapshots,
                           partial(build_model, config, mix, place.device))  # fmt: skip
        counters = Counters()
        result = RunResult(mix.home, run_dir, counters, planned_updates=config.run.updates,
                           max_minutes=config.run.max_minutes)  # fmt: skip
        settings = dataclasses.replace(ppo_settings(config), precision=place.learner)
        unlimited = RunBudget(config, Budget.of(0.0))  # until the checkpoint says what was spent
        run = Run(config, run_dir, mix, place, model, optimizer, magnet, settings, rng, source,
                  pool, reward_scale(config, mix.home), resume, counters, result, unlimited)  # fmt: skip
        _resume_or_begin(run)
        run.writer = _writer(run)
    except BaseException:
        source.close()
        raise
    run.begin, run.seconds_before = started, counters.seconds
    run.budget = RunBudget(config, Budget.of(config.run.max_minutes, counters.seconds, started),
                           report)  # fmt: skip
    return run


def make_source(
    config: Config, mix: GameMix, rng: np.random.Generator, place: Placement
) -> RolloutSource:
    """The run's source, and where its games are played (the one place that chooses): here,
    drawing from the run's generator, or by a wrapper that hands each worker its share of the
    games: in worker processes (``rollout.workers``, ``rollout.overlap``) or on Ray actors
    (``[ray] enabled``), each worker drawing from its own generator. The source is a
    :class:`~spar_train.ppo.sources.mix.MixSource`, or with ``search.games`` a
    :class:`~spar_train.ppo.sources.search.SearchSource` of it, whose targets a
    :class:`~spar_train.ppo.sources.search.SearchBuffer` keeps (the config check refuses Ray
    with the worker processes)."""
    sources = sources_of(config, mix, place.workers)
    if config.ray.enabled:
        source: RolloutSource = ray_source(config, mix, sources)
    elif on_workers(config):
        served = place.rollout if config.rollout.inference == "learner" else None
        source = process_source(config, mix, sources, served=served)
    else:
        (here,) = worker_sources(config, mix, place.rollout, [None])
        source = here(rng)
    return SearchBuffer(source, config.search) if config.search.games > 0 else source


def sources_of(config: Config, mix: GameMix, precision: Precision) -> WorkerSources:
    """What hands each rollout worker its source, in ``precision`` (:func:`worker_sources`)."""
    return partial(worker_sources, config, mix, precision)


def worker_sources(config: Config, mix: GameMix, precision: Precision,
                   pieces: Sequence[Sequence[Piece] | None]) -> list[SourceMaker]:  # fmt: skip
    """The maker of each worker's source, given its ``pieces`` (None: the whole mix), in
    ``precision``: its games, and with ``search.games`` its share of the searched games
    (shared out as the run's games are; none for a worker left without any)."""
    makers = [mix_source(mix, config, precision=precision, pieces=p) for p in pieces]
    if config.search.games == 0:
        return makers
    if pieces == [None]:
        return [search_source(makers[0], mix, config)]
    searched = worker_pieces(mix.shares(config.search.games), len(pieces))
    return [search_source(maker, mix, config, part) if sum(n for _, n in part) else maker
            for maker, part in zip(makers, searched, strict=True)]  # fmt: skip


def on_workers(config: Config) -> bool:
    """Whether the run's games are played by rollout workers (processes, or Ray actors)."""
    return config.rollout.overlap or config.rollout.workers != 0 or config.ray.enabled


def _resume_or_begin(run: Run) -> None:
    """A resumed run takes up its latest checkpoint; a new one writes its ``config.toml``."""
    if not run.resumed:
        with atomic_output(run.run_dir / CONFIG_FILE) as f:
            f.write(dump_config(run.config, __version__))
        return
    file = latest_checkpoint(run.run_dir)
    saved = load_checkpoint(file)
    check_fits(saved, file, model_spec(run.config.model.hidden, run.model))
    check_same_state(saved, file, run.config)
    restore_checked(file, lambda: restore_run(saved, run))


def _writer(run: Run) -> SummaryWriter:
    """The run's TensorBoard writer: on resume, dropping what a killed session logged past its
    last checkpoint; for a new run, with the config's table of hyperparameters."""
    purge = run.counters.update + 1 if run.resumed else None
    writer = SummaryWriter(str(run.run_dir), purge_step=purge)
    if not run.resumed:
        writer.add_text("hyperparameters", _hparam_table(run.config))
    return writer


def _hparam_table(config: Config) -> str:
    rows = ["| key | value |", "|---|---|"]
    for section, values in config.to_dict().items():
        if isinstance(values, dict):
            rows += [f"| {section}.{k} | {v} |" for k, v in values.items()]
        else:
            rows.append(f"| {section} | {values} |")
    return "\n".join(rows)
