"""Exact exploitability on a small game: PPO, PPO with the magnet (MMD) and CFR+, side by side.

    python benchmarks/exact_curves.py                              # mini, 5 minutes a learner
    python benchmarks/exact_curves.py --game micro --minutes 1 --out curves.png

Both learners are ``spar train`` runs on the same 2-player game, from the same config
(``configs/ppo_mmd_mini.toml``: self-play, no warm start), one with ``ppo.magnet_coef = 0``
(plain PPO) and one as the config says; each logs the exact exploitability of the policy
it samples from (``eval.exact``: the policy read back into every information set of the
game's tree, :mod:`spar_agents.cfr.readback`) at every evaluation. CFR+ solves the same
tree (:func:`spar_train.solve.solve_exact`), its exploitability (half its NashConv) by
solver seconds. The learners run one after the other, so each has the machine alone.

Prints each one's exploitability at the end and the least it reached, and how many of
the tree's information sets the learners' observation cannot tell apart (a policy of that
observation plays one distribution at all of them), and draws the curves against wall
clock (``--out``).
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / "configs" / "ppo_mmd_mini.toml"


def learner(name: str, game: str, minutes: float, runs: Path, *more: str) -> dict[str, list]:
    """One ``spar train`` run of the config for ``minutes``; its exploitability curve."""
    import spar_train
    from spar_train.config import load_config
    from spar_train.curves import read_scalars

    overrides = [f'run.name="{name}"', f'game.variant="{game}"', f"run.max_minutes={minutes}",
                 *more]  # fmt: skip
    run = spar_train.run(load_config(CONFIG, overrides), runs)
    steps, values = read_scalars(run.run_dir)["eval/exploitability"]
    seconds = run.counters.seconds
    # Evaluations are evenly spaced in updates; the run's own clock spaces them in time.
    minutes_at = np.asarray(steps) / max(int(steps[-1]), 1) * seconds / 60
    return {"minutes": minutes_at.tolist(), "exploitability": list(map(float, values)),
            "updates": list(map(int, steps))}  # fmt: skip


def cfr_plus(game: str, minutes: float) -> dict[str, list]:
    from spar_env.rules import make_rules
    from spar_train.solve import solve_exact

    result = solve_exact(make_rules(game, players=2), "cfr+", 10**9, seconds=60 * minutes,
                         eval_every=10)  # fmt: skip
    return {"minutes": [s / 60 for _, s, _ in result.curve],
            "exploitability": [nc / 2 for _, _, nc in result.curve],
            "updates": [i for i, _, _ in result.curve]}  # fmt: skip


def observation_note(game: str) -> str:
    """How many of the tree's information sets the learners' observation cannot tell apart."""
    from spar_agents.cfr.readback import merged_infosets, representatives
    from spar_env.core.bits import popcount
    from spar_env.observation.per_game import encode
    from spar_env.rules import make_rules

    reps = representatives(make_rules(game, players=2))
    merged = merged_infosets(reps, lambda states: encode(states, states.current_player))
    choices = sum(int((popcount(states.legal) > 1).sum()) for states, _ in reps.levels)
    return (f"{game}: the observation the learners read merges {merged:,} of the tree's "
            f"{choices:,} information sets with a choice into others")  # fmt: skip


def plot(curves: dict[str, dict[str, list]], game: str, out: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    for name, c in curves.items():
        ax.plot(c["minutes"], c["exploitability"], label=name)
    ax.set_yscale("log")
    ax.set_xlabel("minutes (learners: the run's wall clock; CFR+: solver time)")
    ax.set_ylabel("exact exploitability (points a hand)")
    ax.set_title(f"{game}, 2 players")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(out, dpi=120)


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.partition("\n\n")[0])
    parser.add_argument("--game", default="mini", choices=["micro", "mini"])
    parser.add_argument("--minutes", type=float, default=5.0, help="wall clock of each learner")
    parser.add_argument("--cfr-minutes", type=float, default=0.5, help="CFR+'s solver time")
    parser.add_argument("--out", type=Path, help="the PNG of the curves")
    parser.add_argument("--json", type=Path, help="also write the curves to this file")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="an override for both learners (as spar train --set)")  # fmt: skip
    args = parser.parse_args(argv)
    curves: dict[str, dict[str, list]] = {}
    with tempfile.TemporaryDirectory() as runs:
        curves["PPO"] = learner("ppo", args.game, args.minutes, Path(runs), *args.set,
                                "ppo.magnet_coef=0")  # fmt: skip
        curves["PPO + magnet (MMD)"] = learner("mmd", args.game, args.minutes, Path(runs),
                                               *args.set)  # fmt: skip
    curves["CFR+"] = cfr_plus(args.game, args.cfr_minutes)
    print(observation_note(args.game))
    for name, c in curves.items():
        e = c["exploitability"]
        print(f"{name:20} after {c['minutes'][-1]:5.2f} min ({c['updates'][-1]:,} "
              f"{'iterations' if name == 'CFR+' else 'updates'}): exploitability {e[-1]:.4f}, "
              f"least {min(e):.4f}")  # fmt: skip
    if args.out:
        plot(curves, args.game, args.out)
    if args.json:
        args.json.write_text(json.dumps(curves, indent=1))
    return curves


if __name__ == "__main__":
    main()
