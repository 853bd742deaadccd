"""Scale-out on Ray: a ``pimc`` bench and PPO rollouts on one worker and on two, in one run.
Needs the ``ray`` extra (``pip install -e .[ray]``).

    python benchmarks/ray_speed.py                 # about seven minutes on two cores
    python benchmarks/ray_speed.py --deals 120 --rounds 1

- **bench**: ``pimc heuristic heuristic heuristic`` on ``--deals`` deals of
  4-player Spar in batches of ``--chunk`` (one Ray task each), on a local Ray
  with one CPU and then with two. Both give the same figures (checked); the
  speed-up is the ratio of their times. Each Ray first plays a few one-deal
  tasks, so that the timing leaves out the workers' start. Ray's own cost a
  task is the time of one-deal tasks less that of the same batches played
  locally.
- **rollouts**: the PPO rollouts of ``configs/ppo_spar4.toml`` (2,048 games,
  the default opponent mix with one snapshot, and again with ``pimc:worlds=8``
  instead of ``heuristic``), collected by one Ray actor, by two sharing
  those games, and by two with as many games each, and by the local collector in this process (torch on
  ``run.threads`` threads) for comparison: learner decisions per second of
  the rollout alone, after one rollout of warm-up. With them: the bytes of a
  rollout and of the weights, and how many decisions per second the PPO
  update learns from (``docs/scaling.md`` works from these).
- **end to end**: a few PPO updates of that config (no warm start, no
  evaluation), locally and with two rollout actors: ``charts/SPS``, which
  counts the update too.

The rounds alternate one worker and two, so both see the same machine load.
"""

from __future__ import annotations

import argparse
import copy
import dataclasses
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np
import ray
import torch

from spar_agents.ppo.update import ppo_update
from spar_env.rules import make_rules
from spar_train.config import default_config_path, load_config
from spar_train.distributed.bench import run_tournament_on_ray
from spar_train.games import build_model, game_mix
from spar_train.ppo.learn import ppo_settings, to_batch
from spar_train.ppo.loop import train
from spar_train.ppo.sources.base import Rollout
from spar_train.ppo.sources.mix import MixSource
from spar_train.ppo.start import sources_of
from spar_train.ppo.wrappers.on_ray import ray_source
from spar_train.tournament import run_tournament

LINEUP = ["pimc", "heuristic", "heuristic", "heuristic"]
OBJECT_STORE = 500 * 2**20  # bytes: a rollout is a few MB
PIMC_MIX = '{ self = 0.5, snapshot = 0.25, "pimc:worlds=8" = 0.25 }'  # a search opponent


def bench(cpus: int, deals: int, chunk: int) -> tuple[float, dict]:
    """Seconds of the bench on a fresh local Ray with ``cpus`` CPUs, and its figures."""
    rules = make_rules("spar", players=4)
    ray.init(num_cpus=cpus, object_store_memory=OBJECT_STORE, include_dashboard=False)
    try:
        run_tournament_on_ray(LINEUP, rules, 4 * cpus, seed=99, chunk=1)  # start the workers
        begin = time.perf_counter()
        result = run_tournament_on_ray(LINEUP, rules, deals, seed=0, chunk=chunk)
        return time.perf_counter() - begin, result.to_dict()
    finally:
        ray.shutdown()


def task_cost(tasks: int = 300) -> float:
    """Ray's seconds a task: one-deal batches of ``random`` against ``low`` on a one-CPU Ray,
    less the same batches played locally."""
    rules = make_rules("spar", players=4)
    lineup = ["random", "low"]
    begin = time.perf_counter()
    run_tournament(lineup, rules, tasks, seed=0, chunk=1)
    local = time.perf_counter() - begin
    ray.init(num_cpus=1, object_store_memory=OBJECT_STORE, include_dashboard=False)
    try:
        run_tournament_on_ray(lineup, rules, 4, seed=99, chunk=1)  # start the worker
        begin = time.perf_counter()
        run_tournament_on_ray(lineup, rules, tasks, seed=0, chunk=1)
        return (time.perf_counter() - begin - local) / tasks
    finally:
        ray.shutdown()


def rollouts(source, model, pool, rng, count: int) -> tuple[float, Rollout]:
    """Learner decisions per second over ``count`` rollouts (after one of warm-up), the last."""
    source.collect(model, pool, 1, rng)
    decisions, begin = 0, time.perf_counter()
    for _ in range(count):
        rollout = source.collect(model, pool, 1, rng)
        decisions += rollout.decisions
    return decisions / (time.perf_counter() - begin), rollout


def rollout_speeds(count: int, mix: str | None = None) -> dict[str, float]:
    """Decisions/s of the local collector and of 1 and 2 Ray workers; the sizes the docs use."""
    config = load_config(default_config_path(), [] if mix is None else [f"pool.mix={mix}"])
    mix = game_mix(config)
    torch.manual_seed(0)
    model = build_model(config, mix)
    rng = np.random.default_rng(0)
    local = MixSource(mix, config, rng)
    pool = local.pool(config.pool.mix, config.pool.snapshots, lambda: build_model(config, mix))
    pool.add_snapshot(model)
    torch.set_num_threads(config.run.threads)
    speeds: dict[str, float] = {}
    speeds["local"], rollout = rollouts(local, model, pool, rng, count)
    ray.init(num_cpus=2, object_store_memory=OBJECT_STORE, include_dashboard=False)
    try:  # two workers share the games of one, then each has as many as the one had
        for name, workers, games in [("1 worker", 1, 1), ("2 worker", 2, 1), ("2 x games", 2, 2)]:
            on_ray = config.replace(
                ray=dataclasses.replace(config.ray, workers=workers),
                rollout=dataclasses.replace(config.rollout, games=games * config.rollout.games),
            )
            source = ray_source(on_ray, mix, sources_of(on_ray, mix, "float32"))
            speeds[name] = rollouts(source, model, pool, rng, count)[0]
            source.close()
    finally:
        ray.shutdown()
    # What crosses the network, and how fast the learner consumes it.
    fields = [f.name for f in dataclasses.fields(rollout)]
    arrays = [getattr(rollout, name) for name in fields]
    size = sum(a.nbytes for a in arrays if isinstance(a, np.ndarray))
    speeds["bytes"] = size
    speeds["decisions"] = rollout.decisions
    speeds["trajectories"] = int((rollout.lengths > 0).sum())
    speeds["weights bytes"] = sum(t.nbytes for t in model.state_dict().values())
    learner = copy.deepcopy(model)
    optimizer = torch.optim.Adam(learner.parameters(), lr=config.ppo.lr, eps=1e-5)
    settings = ppo_settings(config)
    batch = to_batch(rollout, config.ppo.gamma, config.ppo.gae_lambda, config.ppo.train_forced)
    ppo_update(learner, optimizer, batch, settings, rng)  # warm-up
    begin = time.perf_counter()
    ppo_update(learner, optimizer, batch, settings, rng)
    speeds["update"] = rollout.decisions / (time.perf_counter() - begin)
    return speeds


def end_to_end(updates: int, on_ray: bool) -> float:
    """Median ``charts/SPS`` of PPO updates (the first, torch's warm-up, left out)."""
    overrides = [f"run.updates={updates}", "eval.every=100000", "eval.deals=2",
                 "eval.opponents=[]", f"run.checkpoint_every={updates}",
                 'warmstart.imitate=""', f"ray.enabled={'true' if on_ray else 'false'}"]  # fmt: skip
    config = load_config(default_config_path(), overrides)
    seen: list = []
    if on_ray:
        ray.init(num_cpus=2, object_store_memory=OBJECT_STORE, include_dashboard=False)
    try:
        with tempfile.TemporaryDirectory() as runs:
            train(config, Path(runs), report=seen.append)
    finally:
        if on_ray:
            ray.shutdown()
    return statistics.median(e.figures["decisions_per_second"] for e in seen[1:])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=240, help="deals of the pimc bench")
    parser.add_argument("--chunk", type=int, default=10, help="deals per task")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--rollouts", type=int, default=6, help="rollouts timed per collector")
    parser.add_argument("--updates", type=int, default=8, help="PPO updates per end-to-end run")
    parser.add_argument("--part", choices=("all", "bench", "ppo"), default="all")
    args = parser.parse_args()
    if args.part != "ppo":
        bench_speeds(args)
    if args.part != "bench":
        ppo_speeds(args)


def bench_speeds(args: argparse.Namespace) -> None:
    ratios = []
    for r in range(args.rounds):
        one, figures_one = bench(1, args.deals, args.chunk)
        two, figures_two = bench(2, args.deals, args.chunk)
        assert figures_one == figures_two, "the figures differ between one worker and two"
        ratios.append(one / two)
        print(f"round {r + 1}: pimc bench of {args.deals} deals in tasks of {args.chunk}: "
              f"1 worker {one:.1f} s, 2 workers {two:.1f} s, speed-up {one / two:.2f}x "
              f"(identical figures)", flush=True)  # fmt: skip
    print(f"pimc bench speed-up, 2 workers against 1: {statistics.median(ratios):.2f}x")
    print(f"Ray's cost a bench task: {1000 * task_cost():.2f} ms")


def ppo_speeds(args: argparse.Namespace) -> None:
    found = {}
    for name, mix, count in [("default mix", None, args.rollouts),
                             ("pimc in the pool", PIMC_MIX, max(args.rollouts // 2, 1))]:  # fmt: skip
        found[name] = speeds = rollout_speeds(count, mix)
        one = speeds["1 worker"]
        print(
            f"PPO rollouts, {name} (learner decisions/s): local {speeds['local']:,.0f}, "
            f"1 worker {one:,.0f}, 2 workers {speeds['2 worker']:,.0f} "
            f"({speeds['2 worker'] / one:.2f}x), 2 workers with twice the games "
            f"{speeds['2 x games']:,.0f} ({speeds['2 x games'] / one:.2f}x)",
            flush=True,
        )
    speeds = found["default mix"]
    d = speeds["decisions"]
    print(
        f"a rollout: {d:,} decisions in {speeds['trajectories']:,} trajectories, "
        f"{speeds['bytes'] / 1e6:.1f} MB ({speeds['bytes'] / d:.0f} bytes a decision, "
        f"{speeds['bytes'] / speeds['trajectories']:.0f} a trajectory); weights "
        f"{speeds['weights bytes'] / 1e6:.2f} MB; the PPO update learns from "
        f"{speeds['update']:,.0f} decisions/s"
    )
    local, on_ray = end_to_end(args.updates, False), end_to_end(args.updates, True)
    print(
        f"PPO end to end (charts/SPS, update included): local {local:,.0f}, "
        f"2 rollout workers {on_ray:,.0f} ({on_ray / local:.2f}x)"
    )


if __name__ == "__main__":
    main()
