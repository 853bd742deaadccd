"""Training speed of the universal trainer beside the single-game one, in one run.

    python benchmarks/universal_speed.py                # a few minutes
    python benchmarks/universal_speed.py --updates 6 --rounds 3
    python benchmarks/universal_speed.py --device cuda   # the learner on a GPU (run.device)
    python benchmarks/universal_speed.py --workers auto  # also the universal run on workers

Both count learner decisions per second end to end (rollout and update
together, TensorBoard's ``charts/SPS``) over PPO updates alone (no warm start,
no evaluation) in steady state: a snapshot is taken after every update, and
the updates before the pool holds all its ``pool.snapshots`` are left out, so
the snapshot opponents play as they do through most of a run:

- **single game**: :func:`spar_train.run` on ``configs/ppo_spar4.toml`` (4-player
  ``spar``, 2,048 games);
- **universal**: :func:`spar_train.run` on ``configs/ppo_universal.toml`` (every
  game of its ``game.mix`` at once, 6,144 games shared out among them).

The two alternate in rounds, so both see the same machine load; the ratio is
the figure to compare across machines. ``--workers N`` adds a third run, the universal one
on ``N`` rollout worker processes (``rollout.workers``), and its ratio to the plain one.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

import spar_train
from spar_train.config import load_config

sys.path.insert(0, str(Path(__file__).resolve().parent))
from figures import add_record_option, record  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
CONFIGS = {"single game": "ppo_spar4.toml", "universal": "ppo_universal.toml"}


def speed(config_file: str, updates: int, threads: int, device: str = "auto",
          more: Sequence[str] = ()) -> float:  # fmt: skip
    """Median learner decisions per second of ``updates`` PPO updates with a full pool;
    ``more``: other ``--set`` overrides (``rollout.workers=16``)."""
    filling = load_config(ROOT / "configs" / config_file).pool.snapshots + 1
    total = filling + updates
    overrides = [f"run.updates={total}", f"run.threads={threads}", "eval.every=100000",
                 "eval.deals=2", "eval.opponents=[]", f"run.checkpoint_every={total}",
                 'warmstart.imitate=""', "run.max_minutes=0", "pool.snapshot_every=1",
                 f'run.device="{device}"', *more]  # fmt: skip
    config = load_config(ROOT / "configs" / config_file, overrides)
    seen: list = []
    with tempfile.TemporaryDirectory() as runs:
        spar_train.run(config, Path(runs), report=seen.append)
    steady = [e.figures["decisions_per_second"] for e in seen if e.phase == "ppo"][filling:]
    return statistics.median(steady)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.partition("\n\n")[0])
    parser.add_argument("--updates", type=int, default=4, help="timed PPO updates per run")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--device", default="auto", help="run.device of both runs")
    parser.add_argument("--workers", help="also the universal run on this many rollout workers")
    add_record_option(parser)
    args = parser.parse_args(argv)
    if args.record and not args.workers:
        parser.error(
            "--record writes the workers' ratio to the plain universal run: give --workers"
        )
    runs = {name: (file, []) for name, file in CONFIGS.items()}
    if args.workers:
        runs["universal, workers"] = (CONFIGS["universal"], [f"rollout.workers={args.workers}"])
    figures: dict[str, list[float]] = {name: [] for name in runs}
    load = os.getloadavg()[0]
    for r in range(args.rounds):
        for name, (file, more) in runs.items():
            figures[name].append(speed(file, args.updates, args.threads, args.device, more))
            print(f"round {r + 1}: {name}: {figures[name][-1]:,.0f} decisions/s", flush=True)
    single, universal = (statistics.median(figures[n]) for n in CONFIGS)
    print(
        f"single game {single:,.0f} decisions/s, universal {universal:,.0f} decisions/s "
        f"(ratio {universal / single:.2f}; target >= 20,000); load average {load:.2f} at the "
        "start"
    )
    if args.workers:
        on_workers = statistics.median(figures["universal, workers"])
        print(
            f"universal on {args.workers} rollout workers {on_workers:,.0f} decisions/s: "
            f"{on_workers / universal:.2f}x the plain run (medians of {args.rounds} rounds)"
        )
        if args.record:
            record(args.record, round(on_workers / universal, 2), None, decimals=2, unit="×")


if __name__ == "__main__":
    main()
