"""Exact CFR solvers on ``micro`` and ``mini``: values, convergence, speed, and OpenSpiel's CFR+.
OpenSpiel's CFR+ needs the ``bench`` extra (``pip install -e .[bench]``).

    python benchmarks/cfr_speed.py                       # everything (mini's LP and OpenSpiel: minutes)
    python benchmarks/cfr_speed.py --no-lp-mini --no-openspiel-mini   # the quick part

For each variant it prints the tree's size and build time (apart from the
solvers), the LP game value from both seats' sides (HiGHS), then for every
algorithm: the NashConv of the average policy against iterations and
seconds, the wall time to NashConv < 1e-3 **best responses included**, and
the iterations per second of the solver alone. "Node updates per second" is
the tree's nodes times iterations per second: each iteration is exact over
the whole tree (both seats' passes), though here in sequence form, so the
arrays touched are the sequences and the payoff matrix's non-zeros, not the
nodes one by one.

OpenSpiel: ``open_spiel.python.algorithms.cfr.CFRPlusSolver`` on the bridged
game (:mod:`spar_env.openspiel`), tree-backed (states are node ids of the
same enumerated tree, the fastest way OpenSpiel's Python solver can walk
it), and core-backed on micro; its iterations per second against our CFR+'s
in the same run. The NashConv curves go to ``docs/cfr_curves.png``.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ.setdefault(_var, "1")  # one thread: the machine's two cores are shared

import numpy as np  # noqa: E402

from spar_agents.cfr import evaluation as ev  # noqa: E402
from spar_agents.cfr.build import build_tree  # noqa: E402
from spar_agents.cfr.lp import solve_lp  # noqa: E402
from spar_agents.cfr.seqform import SequenceForm, sequence_form  # noqa: E402
from spar_agents.cfr.solvers import ALGORITHMS, make_solver  # noqa: E402
from spar_env.rules import make_rules  # noqa: E402

TARGET = 1e-3


def checkpoints(limit: int, ratio: float = 1.15) -> np.ndarray:
    """Iterations at which to evaluate: every one at first, then geometrically spaced."""
    points = np.unique(np.round(ratio ** np.arange(200)).astype(np.int64))
    return points[points <= limit]


def run_curve(sf: SequenceForm, algorithm: str, seconds: float, max_iterations: int):
    """NashConv at geometric checkpoints until ``seconds`` of wall time (evaluations included).

    Returns rows (iteration, solver s, wall s, NashConv) and the wall time at
    which NashConv < TARGET was first confirmed (None if never).
    """
    solver = make_solver(algorithm, sf)
    rows, hit = [], None
    start = time.perf_counter()
    solve = 0.0
    for point in checkpoints(max_iterations):
        t = time.perf_counter()
        solver.step(int(point - solver.iteration))
        solve += time.perf_counter() - t
        nc = ev.nash_conv(sf, solver.average_policy())
        wall = time.perf_counter() - start
        rows.append((solver.iteration, solve, wall, nc))
        if hit is None and nc < TARGET:
            hit = wall
        if wall > seconds:
            break
    return rows, hit, solver


def throughput(sf: SequenceForm, algorithm: str, seconds: float) -> float:
    """Iterations per second of the solver alone (no evaluation)."""
    solver = make_solver(algorithm, sf)
    solver.step(5)  # warm up
    t, n = time.perf_counter(), 0
    while time.perf_counter() - t < seconds:
        solver.step(10)
        n += 10
    return n / (time.perf_counter() - t)


def openspiel_cfr_plus(game, iterations: int) -> tuple[float, float]:
    """(constructor seconds, iterations per second) of OpenSpiel's Python CFRPlusSolver."""
    from open_spiel.python.algorithms import cfr

    t = time.perf_counter()
    solver = cfr.CFRPlusSolver(game)
    init = time.perf_counter() - t
    t = time.perf_counter()
    for _ in range(iterations):
        solver.evaluate_and_update_policy()
    return init, iterations / (time.perf_counter() - t)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--variants", nargs="+", default=["micro", "mini"])
    ap.add_argument("--algorithms", nargs="+", default=list(ALGORITHMS), choices=ALGORITHMS)
    ap.add_argument("--seconds", type=float, default=5.0, help="wall budget per curve")
    ap.add_argument("--throughput-seconds", type=float, default=2.0)
    ap.add_argument("--no-lp-mini", action="store_true", help="skip mini's LP (minutes)")
    ap.add_argument("--no-openspiel", action="store_true")
    ap.add_argument("--no-openspiel-mini", action="store_true", help="skip OpenSpiel on mini")
    ap.add_argument("--openspiel-iterations", type=int, default=20, help="on micro; mini runs 1")
    ap.add_argument("--plot", default="docs/cfr_curves.png")
    args = ap.parse_args(argv)
    curves = measure(args)
    if args.plot:
        plot(curves, Path(args.plot))
        print(f"\nplot: {args.plot}")


def measure(args: argparse.Namespace) -> dict[str, dict[str, list]]:
    curves: dict[str, dict[str, list]] = {}
    for variant in args.variants:
        rules = make_rules(variant)
        t = time.perf_counter()
        tree = build_tree(rules)
        t_tree = time.perf_counter() - t
        t = time.perf_counter()
        sf = sequence_form(tree)
        t_sf = time.perf_counter() - t
        seqs = [p.num_sequences for p in sf.players]
        choice = sum(p.num_infosets for p in sf.players)
        print(
            f"\n== {variant}: {tree.num_nodes:,} nodes, {tree.num_infosets:,} infosets "
            f"({choice:,} with a choice), sequences {seqs[0]:,} + {seqs[1]:,}, "
            f"payoff non-zeros {sf.payoff.nnz:,}"
        )
        print(
            f"tree built by the core in {t_tree:.2f} s, sequence form {t_sf:.2f} s "
            "(not counted below)"
        )
        if variant != "mini" or not args.no_lp_mini:
            t = time.perf_counter()
            lp = solve_lp(sf)
            print(
                f"LP (HiGHS): seat 0 value {lp.value_seat0_side:.10f} (seat 0's program), "
                f"{lp.value_seat1_side:.10f} (seat 1's program), "
                f"NashConv of its profile {ev.nash_conv(sf, lp.profile):.1e}, "
                f"{time.perf_counter() - t:.1f} s"
            )
        curves[variant] = {}
        print(
            f"{'algorithm':<8} {'iters':>7} {'NashConv':>10} {'value(seat 0)':>14} "
            f"{'s to <1e-3':>11} {'it/s':>9} {'node upd/s':>10}"
        )
        ours_plus = None
        for alg in args.algorithms:
            rows, hit, solver = run_curve(sf, alg, args.seconds, 100_000)
            curves[variant][alg] = rows
            rate = throughput(sf, alg, args.throughput_seconds)
            if alg == "cfr+":
                ours_plus = rate
            value = ev.expected_value(sf, solver.average_policy())
            hit_s = f"{hit:.3f}" if hit is not None else "never"
            print(
                f"{alg:<8} {rows[-1][0]:>7,} {rows[-1][3]:>10.2e} {value:>14.8f} "
                f"{hit_s:>11} {rate:>9,.0f} {rate * tree.num_nodes:>10.2e}"
            )
        if args.no_openspiel or (variant == "mini" and args.no_openspiel_mini):
            continue
        from spar_env.openspiel import load_game

        iterations = args.openspiel_iterations if variant == "micro" else 1
        games = [("tree-backed", load_game(rules, tree=tree))]
        if variant == "micro":
            games.append(("core-backed", load_game(rules)))
        if ours_plus is None:
            ours_plus = throughput(sf, "cfr+", args.throughput_seconds)
        for label, game in games:
            init, rate = openspiel_cfr_plus(game, iterations)
            print(
                f"OpenSpiel CFRPlusSolver ({label}, {iterations} it, constructor {init:.1f} s): "
                f"{rate:.4g} it/s; ours (cfr+) {ours_plus:,.0f} it/s; "
                f"ratio {ours_plus / rate:,.0f}x"
            )
    return curves


def plot(curves: dict[str, dict[str, list]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(len(curves), 2, figsize=(11, 4 * len(curves)), squeeze=False)
    for row, (variant, algs) in enumerate(curves.items()):
        for alg, rows in algs.items():
            r = np.array(rows)
            axes[row, 0].loglog(r[:, 0], r[:, 3], label=alg)
            axes[row, 1].loglog(r[:, 2], r[:, 3], label=alg)
        for col, xlabel in enumerate(("iterations", "wall seconds (best responses included)")):
            ax = axes[row, col]
            ax.axhline(TARGET, color="grey", lw=0.8, ls="--")
            ax.set_xlabel(xlabel)
            ax.set_ylabel("NashConv (points per hand)")
            ax.set_title(f"{variant}")
            ax.grid(True, which="both", alpha=0.3)
            ax.legend()
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)


if __name__ == "__main__":
    main()
