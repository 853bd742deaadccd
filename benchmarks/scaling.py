"""The whole machine's training speed: every target of docs/scaling.md, in one prepared call.

    python benchmarks/scaling.py --out scaling.json            # a GPU box: about 8 minutes
    python benchmarks/scaling.py --device cpu --quick           # the same cases on a CPU, tiny

Each case trains PPO updates alone (no warm start, no evaluation) and reports the learner's
decisions a second in steady state (:func:`universal_speed.speed`: the updates before the pool
is full are left out). Each runs in a process of its own, pinned to the cores it is given
(``os.sched_setaffinity``), one after another, so that the ratios come from one run on one
machine:

- **universal** (``configs/ppo_universal.toml``, the trainer of the shipped bots) and
  **default** (``configs/ppo_spar4.toml``):
  - ``cpu2``: the learner on the CPU, two threads, two cores, the games in its process (the
    reference of every ratio);
  - ``gpu``: the learner on the device, every core, ``rollout.workers = "auto"``, each worker
    running its own CPU copy of the network;
  - ``gpu_served``: the same, the workers' turns answered by the learner on the device in one
    batch (``rollout.inference = "learner"``);
- **universal on CPU workers** (the CPU scaling target): ``workers2`` on two cores and
  ``workers16`` on sixteen (or every core there is), the learner on the CPU.

The ratios printed are the targets: the better of ``gpu`` and ``gpu_served`` over ``cpu2`` at
least 10 for both configs, and ``workers16 / workers2`` at least 5. ``--out`` writes every figure and the machine as JSON.
``--device cpu`` runs the ``gpu`` cases on the CPU (a check of the script, not a figure);
``--quick`` cuts every case to a handful of small updates.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
CONFIGS = {"universal": "ppo_universal.toml", "default": "ppo_spar4.toml"}
QUICK = ["rollout.games=256", "ppo.epochs=1"]  # --quick: a check of the script, not a figure


def cases(cores: int, device: str) -> list[tuple[str, str, int, list[str]]]:
    """(name, config, cores it is pinned to, overrides) of every case, in order."""
    out = []
    for name, config in CONFIGS.items():
        out.append((f"{name}.cpu2", config, 2, ['run.device="cpu"', "run.threads=2"]))
        gpu = [f'run.device="{device}"', "run.threads=2", 'rollout.workers="auto"']
        out.append((f"{name}.gpu", config, cores, gpu))
        out.append((f"{name}.gpu_served", config, cores, [*gpu, 'rollout.inference="learner"']))
    for workers in sorted({2, min(16, cores)}):  # a 2-core machine: the one case
        out.append((f"universal.workers{workers}", CONFIGS["universal"], workers,
                    ['run.device="cpu"', "run.threads=2", f"rollout.workers={workers}"]))  # fmt: skip
    return out


def one_case(config: str, updates: int, overrides: list[str]) -> float:
    """The case's speed, in this process (run as ``--case``)."""
    sys.path.insert(0, str(HERE))
    from universal_speed import speed

    return speed(config, updates, 2, "auto", overrides)


def run_case(config: str, cores: list[int], updates: int, overrides: list[str]) -> float:
    """The case in a process of its own, pinned to ``cores``."""
    argv = [sys.executable, __file__, "--case", config, "--updates", str(updates),
            "--", *overrides]  # fmt: skip
    done = subprocess.run(argv, capture_output=True, text=True, check=False,
                          preexec_fn=lambda: os.sched_setaffinity(0, cores))  # fmt: skip
    if done.returncode != 0:
        raise RuntimeError(f"{config} {' '.join(overrides)} failed:\n{done.stderr[-3000:]}")
    return float(done.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.partition("\n\n")[0])
    parser.add_argument("--updates", type=int, default=3, help="timed PPO updates a case")
    parser.add_argument("--device", default="cuda", help="run.device of the gpu cases")
    parser.add_argument("--quick", action="store_true", help="tiny cases: check the script")
    parser.add_argument("--out", type=Path, help="write the figures here as JSON")
    parser.add_argument("--case", help=argparse.SUPPRESS)  # one case, in its own process
    parser.add_argument("overrides", nargs="*", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.case:
        print(one_case(args.case, args.updates, args.overrides))
        return 0
    allowed = sorted(os.sched_getaffinity(0))
    began = time.perf_counter()
    figures: dict[str, float] = {}
    for name, config, cores, overrides in cases(len(allowed), args.device):
        more = [*overrides, *(QUICK if args.quick else [])]
        figures[name] = run_case(config, allowed[:cores], args.updates, more)
        print(f"{name:22} {figures[name]:>10,.0f} learner decisions/s "
              f"({cores} cores, {time.perf_counter() - began:.0f} s so far)", flush=True)  # fmt: skip
    top = max(2, min(16, len(allowed)))
    ratios = {
        **{
            f"{name}.{gpu}/cpu2": figures[f"{name}.{gpu}"] / figures[f"{name}.cpu2"]
            for name in CONFIGS
            for gpu in ("gpu", "gpu_served")
        },
        f"universal.workers{top}/workers2": figures[f"universal.workers{top}"]
        / figures["universal.workers2"],
    }
    for name, ratio in ratios.items():
        target = 10.0 if "gpu" in name else 5.0
        verdict = "met" if ratio >= target else "missed"
        print(f"{name:34} {ratio:6.2f}x  (target {target:g}x: {verdict})")
    if args.out:
        machine = {"cpu": platform.processor() or platform.machine(), "cores": len(allowed),
                   "device": args.device, "quick": args.quick}  # fmt: skip
        if args.device.startswith("cuda"):
            import torch

            machine["gpu"] = torch.cuda.get_device_name(0) if torch.cuda.is_available() else None
        args.out.write_text(json.dumps({"figures": figures, "ratios": ratios,
                                        "machine": machine}, indent=1))  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
