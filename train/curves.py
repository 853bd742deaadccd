"""Learning curves read back from a run's TensorBoard event files, and plotted.

    python -m spar_train.curves runs/spar4 --out docs/ppo_spar4.png

:func:`read_scalars` gives every scalar tag of a run as ``(steps, values)``
arrays; :func:`plot_run` draws the evaluation payoffs (with their 95%
intervals) and the skill rates against the updates; for a run over a mix of
games (:mod:`spar_train.games`), each game's payoff instead of the skills, one
colour per variant.
"""

from __future__ import annotations

import argparse
import os
import re
from pathlib import Path

import numpy as np


def read_scalars(run_dir: str | os.PathLike) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """``tag -> (steps int64 [K], values float64 [K])`` of the run's event files."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    run_dir = Path(run_dir)
    if not any(run_dir.glob("events.out.tfevents.*")):
        raise ValueError(f"{run_dir}: no TensorBoard event files there; is it a run folder?")
    events = EventAccumulator(str(run_dir), size_guidance={"scalars": 0})
    events.Reload()
    out = {}
    for tag in events.Tags()["scalars"]:
        points = events.Scalars(tag)
        out[tag] = (
            np.array([p.step for p in points], dtype=np.int64),
            np.array([p.value for p in points], dtype=np.float64),
        )
    return out


def plot_run(run_dir: str | os.PathLike, out: str | os.PathLike, title: str | None = None) -> Path:
    """Evaluation payoffs and skill rates of a run against its updates, saved to ``out``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    scalars = read_scalars(run_dir)
    evals = sorted(
        t.removeprefix("eval/payoff_vs_")
        for t in scalars
        if t.startswith("eval/payoff_vs_") and not t.endswith("_ci95")
    )
    skills = sorted(t for t in scalars if t.startswith("skill/"))
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4))
    for name in evals:
        steps, mean = scalars[f"eval/payoff_vs_{name}"]
        _, half = scalars.get(f"eval/payoff_vs_{name}_ci95", (steps, np.zeros_like(mean)))
        ax1.plot(steps, mean, label=f"vs {name}")
        ax1.fill_between(steps, mean - half, mean + half, alpha=0.25)
    ax1.axhline(0, color="grey", lw=0.8)
    ax1.set(xlabel="update", ylabel="mean payoff per hand (95% CI)", title="evaluation")
    ax1.legend()
    per_game = sorted(t for t in scalars if re.fullmatch(r"eval/\w+/payoff_vs_\w+", t))
    if per_game and not skills:
        _plot_games(ax2, scalars, per_game)
    else:
        for tag in skills:
            steps, value = scalars[tag]
            ax2.plot(steps, 100 * value, label=tag.removeprefix("skill/").replace("_", " "))
        ax2.set(xlabel="update", ylabel="% of hands", title="skills")
        ax2.legend(fontsize=7)
    fig.suptitle(title or Path(run_dir).name)
    fig.tight_layout()
    out = Path(out)
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out


def _plot_games(ax, scalars, tags: list[str]) -> None:
    """Each game's payoff against the first evaluation opponent, one colour per variant."""
    first = tags[0].rpartition("/payoff_vs_")[2]
    colours: dict[str, str] = {}
    for tag in tags:
        game, _, opponent = tag.removeprefix("eval/").partition("/payoff_vs_")
        if opponent != first or opponent.endswith("_ci95"):
            continue
        variant = re.match(r"[a-z_]+?(?=\d)", game)
        name = variant.group(0) if variant else game
        new = name not in colours
        colours.setdefault(name, f"C{len(colours) % 10}")
        steps, mean = scalars[tag]
        ax.plot(steps, mean, color=colours[name], lw=0.8, alpha=0.7, label=name if new else None)
    ax.axhline(0, color="grey", lw=0.8)
    ax.set(xlabel="update", ylabel="mean payoff per hand", title=f"each game vs {first}")
    ax.legend(fontsize=7, ncol=2)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Plot a run's learning curves.")
    parser.add_argument("run", type=Path, help="a run folder (runs/NAME)")
    parser.add_argument("--out", type=Path, required=True, help="the image to write (.png)")
    parser.add_argument("--title", help="the figure's title (default: the run's name)")
    args = parser.parse_args(argv)
    print(plot_run(args.run, args.out, args.title))


if __name__ == "__main__":
    main()
