"""Training speed: `spar train` (PPO on the batch core) against sb3-contrib's MaskablePPO, in one run.
MaskablePPO needs the ``dev`` extra (sb3-contrib); ``--no-sb3`` runs on the plain install.

    python benchmarks/train_speed.py                    # about two minutes
    python benchmarks/train_speed.py --updates 20 --sb3-steps 8192
    python benchmarks/train_speed.py --overlap --no-sb3 --rounds 3   # overlap against none
    python benchmarks/train_speed.py --device cpu --device cuda --no-sb3   # a GPU beside the CPU
    python benchmarks/train_speed.py --overlap --no-sb3 --rounds 3 --record speed.train.overlap
    python benchmarks/train_speed.py --workers auto --no-sb3 --rounds 4   # rollout workers

Both learners train on 4-player ``spar`` and count learner decisions per
second end to end (rollout and update together, TensorBoard's
``charts/SPS``):

- **ours**: :func:`spar_train.run` on ``configs/ppo_spar4.toml`` (its opponent
  mix), and once more with ``heuristic`` in every other seat, the same
  opponents as the MaskablePPO run. The first update (torch warm-up) is left
  out. Where the time goes is reported too: the learner's forward passes,
  the opponents' decisions, the game (core, observations, history) and the
  PPO update.
- **MaskablePPO**: off the shelf (its default ``MlpPolicy`` and
  hyperparameters) on ``gym.make("spar_env/Spar-v0", opponents="heuristic")``.

The two alternate in rounds, so both see the same machine load; the ratio
of their speeds is the figure to compare across machines. ``--overlap`` adds
the default mix with ``rollout.overlap`` (the next rollout in a worker process
while the update runs; the learner keeps ``--threads`` less the worker's one)
and prints its ratio to the default mix; ``--workers N`` adds the default mix on ``N``
rollout worker processes (``rollout.workers``, ``auto``: one a core), the same; each
``--device`` runs ours on that ``run.device`` (``--no-sb3`` leaves MaskablePPO
out). ``--record NAME`` writes the overlap's ratio to that entry of ``benchmarks/results/``
(:mod:`figures`), with the machine's load average as the run ends: the ratio moves with the
load (``benchmarks/NOTEBOOK.md``); ``--workers`` with ``--record`` writes the workers' ratio.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import gymnasium as gym
import torch

import spar_env  # noqa: F401  (registers spar_env/Spar-v0)
import spar_train
from spar_train.config import default_config_path, load_config

sys.path.insert(0, str(Path(__file__).resolve().parent))
from figures import add_record_option, record  # noqa: E402


def ours(updates: int, mix: str | None, threads: int, *more: str) -> dict[str, float]:
    overrides = [f"run.updates={updates}", f"run.threads={threads}", "eval.every=100000", *more]
    overrides += ["eval.deals=2", "eval.opponents=[]", f"run.checkpoint_every={updates}"]
    overrides += ['warmstart.imitate=""']  # PPO updates only
    if mix is not None:
        overrides.append(f"pool.mix={mix}")
    config = load_config(default_config_path(), overrides)
    seen: list = []
    with tempfile.TemporaryDirectory() as runs:
        spar_train.run(config, Path(runs), report=seen.append)
    steady = [e.figures for e in seen if e.phase == "ppo"][1:]  # the first pays torch's warm-up
    parts = {
        k.removesuffix("_seconds"): statistics.fmean(f[k] for f in steady)
        for k in steady[0]
        if k.endswith("_seconds")
    }
    return {"sps": statistics.median(f["decisions_per_second"] for f in steady), **parts}


def sb3(steps: int, threads: int) -> float:
    from sb3_contrib import MaskablePPO

    torch.set_num_threads(threads)
    env = gym.make("spar_env/Spar-v0", variant="spar", opponents="heuristic")
    model = MaskablePPO("MlpPolicy", env, seed=0, verbose=0)
    model.learn(total_timesteps=2048)  # warm-up: one rollout and update
    begin = time.perf_counter()
    model.learn(total_timesteps=steps, reset_num_timesteps=False)
    return steps / (time.perf_counter() - begin)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--updates", type=int, default=12, help="PPO updates per run of ours")
    parser.add_argument("--sb3-steps", type=int, default=6144, help="MaskablePPO steps per round")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--overlap", action="store_true", help="also the default mix overlapped")
    parser.add_argument("--workers", help="also the default mix on this many rollout workers")
    parser.add_argument("--device", action="append", default=None,
                        help="run.device of ours (repeat for several; default: the config's)")  # fmt: skip
    parser.add_argument("--no-sb3", action="store_true", help="leave MaskablePPO out")
    add_record_option(parser)
    args = parser.parse_args()
    if args.record and args.overlap == bool(args.workers):
        parser.error("--record writes the ratio of the overlap or the workers: give one of them")
    devices = args.device or [None]
    runs: dict[str, tuple[str | None, list[str]]] = {}  # row -> (pool mix, overrides)
    for device in devices:
        where = [] if device is None else [f'run.device="{device}"']
        tag = "" if device is None or len(devices) == 1 else f" on {device}"
        runs[f"default mix{tag}"] = (None, where)
        runs[f"heuristic{tag}"] = ("{ heuristic = 1.0 }", where)
        if args.overlap:
            # The worker takes a core: the learner gets the others (2 + 1 threads on 2 cores
            # run slower than either alone).
            learner = f"run.threads={max(1, args.threads - 1)}"
            runs[f"default mix, overlap{tag}"] = (None, [*where, "rollout.overlap=true", learner])
        if args.workers:
            workers = f"rollout.workers={args.workers}"
            runs[f"default mix, workers{tag}"] = (None, [*where, workers])
    rows: dict[str, list[float]] = {name: [] for name in [*runs, "sb3"]}
    parts: dict[str, dict[str, float]] = {}
    for r in range(args.rounds):
        for name, (mix, more) in runs.items():
            parts[name] = ours(args.updates, mix, args.threads, *more)
            rows[name].append(parts[name]["sps"])
        figures = ", ".join(f"{name} {rows[name][-1]:,.0f}" for name in runs)
        if not args.no_sb3:
            rows["sb3"].append(sb3(args.sb3_steps, args.threads))
            figures += f", MaskablePPO {rows['sb3'][-1]:,.0f}"
        print(f"round {r + 1}: {figures} learner decisions/s", flush=True)
    sb3_sps = statistics.median(rows["sb3"]) if rows["sb3"] else None
    if sb3_sps is not None:
        print(f"\nMaskablePPO on Spar-v0, heuristic opponents: {sb3_sps:,.0f} decisions/s")
    print()
    for name in runs:
        sps = statistics.median(rows[name])
        p = parts[name]
        total = p["learner"] + p["opponents"] + p["game"] + p["update"]
        split = ", ".join(
            f"{k} {100 * p[k] / total:.0f}%" for k in ("learner", "opponents", "game", "update")
        )
        versus = "" if sb3_sps is None else f" = {sps / sb3_sps:5.1f}x MaskablePPO"
        print(
            f"spar train, {name:11}: {sps:>9,.0f} decisions/s{versus}   (time per update: {split})"
        )
        if "workers" in p:  # the learner's wait on its workers, split
            print(f"{'':>13}  the slowest worker {p['workers']:.2f} s an update, the "
                  f"transfer {p['transfer']:.2f} s")  # fmt: skip
    for name in runs:
        for variant in (", overlap", ", workers"):
            if variant not in name:
                continue
            base = name.replace(variant, "")
            ratio = statistics.median(rows[name]) / statistics.median(rows[base])
            print(f"{name} / {base}: {ratio:.2f}x (medians of {args.rounds} rounds)")
            if args.record and name == f"default mix{variant}":
                record(args.record, round(ratio, 2), None, decimals=2, unit="×")


if __name__ == "__main__":
    main()
