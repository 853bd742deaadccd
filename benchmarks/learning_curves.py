"""Learning curves of PPO runs side by side: payoff against an eval opponent, by update and by wall clock.

    python benchmarks/learning_curves.py before=runs/a after=runs/b --out docs/ppo_learning.png
    python benchmarks/learning_curves.py before=runs/a after=runs/b --at 100 250 500
    python benchmarks/learning_curves.py before=runs/a after=runs/b --minutes 10

Reads each run's TensorBoard events (``eval/payoff_vs_<opponent>`` and its
``_ci95``, the run's own evaluation on its fixed duplicate deals) and draws
two panels: payoff against updates, and against minutes since the run's
first event (warm start included), each with its 95% interval as a band.
``--at`` prints the figures at those updates, and whether each run lies
within the first run's interval there; ``--minutes`` does the same for each
run's last evaluation at or before that wall-clock time.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np


def curve(run: Path, opponent: str) -> dict[str, np.ndarray]:
    """``step``, ``minutes``, ``payoff`` and ``ci95`` of one run's evaluations."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    events = EventAccumulator(str(run), size_guidance={"scalars": 0})
    events.Reload()
    tags = events.Tags()["scalars"]
    start = min(events.Scalars(tag)[0].wall_time for tag in tags)
    payoff = events.Scalars(f"eval/payoff_vs_{opponent}")
    ci95 = {e.step: e.value for e in events.Scalars(f"eval/payoff_vs_{opponent}_ci95")}
    return {
        "step": np.array([e.step for e in payoff]),
        "minutes": np.array([(e.wall_time - start) / 60 for e in payoff]),
        "payoff": np.array([e.value for e in payoff]),
        "ci95": np.array([ci95[e.step] for e in payoff]),
    }


def plot(curves: dict[str, dict[str, np.ndarray]], opponent: str, out: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(11, 4), sharey=True)
    for name, c in curves.items():
        for ax, x in zip(axes, ("step", "minutes"), strict=True):
            bars = ax.errorbar(c[x], c["payoff"], yerr=c["ci95"], marker=".", capsize=3, label=name)
            ax.fill_between(
                c[x], c["payoff"] - c["ci95"], c["payoff"] + c["ci95"],
                color=bars.lines[0].get_color(), alpha=0.15,
            )  # fmt: skip
    axes[0].set_xlabel("PPO update")
    axes[1].set_xlabel("minutes since the start (warm start included)")
    axes[0].set_ylabel(f"mean payoff vs three {opponent} (95% interval)")
    for ax in axes:
        ax.grid(alpha=0.3)
        ax.legend()
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110)


def _at_minutes(
    curves: dict[str, dict[str, np.ndarray]], reference: str, minutes: float
) -> list[str]:
    """Each run's last evaluation by ``minutes``, against the reference's interval then."""
    parts, interval = [], None
    for name, c in curves.items():
        done = np.flatnonzero(c["minutes"] <= minutes)
        if done.size == 0:
            parts.append(f"{name} (none yet)")
            continue
        i = done[-1]
        v, ci, step = c["payoff"][i], c["ci95"][i], c["step"][i]
        if interval is None and name == reference:
            interval = (v - ci, v + ci)
            parts.append(f"{name} {v:+.3f} ± {ci:.3f} (update {step})")
            continue
        verdict = "" if interval is None else (
            " (within)" if interval[0] <= v <= interval[1] else
            " (higher)" if v > interval[1] else " (lower)"
        )  # fmt: skip
        parts.append(f"{name} {v:+.3f} (update {step}){verdict}")
    return parts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("runs", nargs="+", help="NAME=RUN_DIR, the first is the reference")
    parser.add_argument("--opponent", default="heuristic")
    parser.add_argument("--out", type=Path, default=None, help="the PNG to write")
    parser.add_argument("--at", type=int, nargs="*", default=[], help="updates to compare at")
    parser.add_argument("--minutes", type=float, nargs="*", default=[], help="and wall clocks")
    args = parser.parse_args()
    curves = {}
    for item in args.runs:
        name, _, folder = item.partition("=")
        curves[name] = curve(Path(folder), args.opponent)
    reference = next(iter(curves))
    for step in args.at:
        ref = curves[reference]
        if step not in ref["step"]:
            print(f"update {step}: {reference} has no evaluation there")
            continue
        i = int(np.flatnonzero(ref["step"] == step)[0])
        lo, hi = ref["payoff"][i] - ref["ci95"][i], ref["payoff"][i] + ref["ci95"][i]
        parts = [f"{reference} {ref['payoff'][i]:+.3f} ± {ref['ci95'][i]:.3f}"]
        for name, c in curves.items():
            if name == reference:
                continue
            j = np.flatnonzero(c["step"] == step)
            if j.size == 0:
                parts.append(f"{name} (none)")
                continue
            v = c["payoff"][j[0]]
            parts.append(f"{name} {v:+.3f} ({'within' if lo <= v <= hi else 'outside'})")
        print(f"update {step}: " + ", ".join(parts))
    for minutes in args.minutes:
        print(f"{minutes:g} min: " + ", ".join(_at_minutes(curves, reference, minutes)))
    for name, c in curves.items():
        if c["step"].size:
            print(
                f"{name}: last evaluation at update {c['step'][-1]}, {c['minutes'][-1]:.1f} min: "
                f"{c['payoff'][-1]:+.3f} ± {c['ci95'][-1]:.3f}"
            )
    if args.out is not None:
        plot(curves, args.opponent, args.out)
        print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
