"""Two source trees of spar-rl, before and after a change, measured in alternating rounds of one
run: the engine, the vector env, a bench, a short training run and the start-up.

    git worktree add /tmp/before COMMIT
    python benchmarks/tree_speed.py --before /tmp/before:spar_env.cli --after .:spar_apps.cli

Each tree is given as ``PATH:MODULE``: its folder (put first on ``PYTHONPATH``, so its
packages win over the installed ones) and the module of its ``spar`` command's ``main``
(``spar_env.cli`` before the packages took their own names, ``spar_apps.cli`` after). Run it
with the python of the installed project: both trees share its dependencies. A tree whose
``setup.py`` maps its folders onto import names (``FOLDERS``) runs through the import shim of
``benchmarks/same_training.py``, so that it, not the installed project, answers. A tree from
before the namespace move also needs its shipped data where its code looks for it::

    ln -s ../checkpoints /tmp/before/spar_env/checkpoints
    ln -s ../configs /tmp/before/spar_env/configs

Both trees are warmed first (their Numba caches compiled), then each round runs every
measure on both, the order of the trees alternating; the figure is each side's median.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path


class Tree:
    def __init__(self, given: str) -> None:
        path, _, module = given.rpartition(":")
        self.path, self.module = Path(path).resolve(), module
        self.shim = _shim(self.path)

    def spar(self, *argv: str) -> tuple[str, float]:
        """``spar argv`` on this tree: what it printed, and the wall time."""
        code = f"import sys; from {self.module} import main; sys.exit(main(sys.argv[1:]))"
        env = {**os.environ, "PYTHONPATH": str(self.path), "OMP_NUM_THREADS": "1"}
        if self.shim is not None:  # a tree whose folders install under other names
            env.update(PYTHONPATH=str(self.shim), SPAR_TREE=str(self.path))
        start = time.perf_counter()
        done = subprocess.run([sys.executable, "-c", code, *argv], cwd=self.path, env=env,
                              capture_output=True, text=True, check=True)  # fmt: skip
        return done.stdout, time.perf_counter() - start


def _shim(tree: Path) -> Path | None:
    """For a tree whose ``setup.py`` maps folders onto import names (``FOLDERS``), a folder
    holding the import shim of ``benchmarks/same_training.py`` for it (else the tree's own
    folder on ``PYTHONPATH`` is enough); the installed project would answer otherwise."""
    if "FOLDERS" not in (tree / "setup.py").read_text(encoding="utf-8"):
        return None
    from same_training import SHIM, folders_of

    folder = Path(tempfile.mkdtemp(prefix="tree_shim_"))
    (folder / "sitecustomize.py").write_text(SHIM.format(folders=folders_of(tree)))
    return folder


def speed(tree: Tree, mode: str, batch: int) -> float:
    out, _ = tree.spar("speed", "--mode", mode, "--batch", str(batch), "--seconds", "4", "--json")
    return json.loads(out.strip().splitlines()[-1])["agent_steps_per_second"]


def bench(tree: Tree, deals: int = 4000) -> float:
    _, wall = tree.spar("bench", "heuristic", "random", "random", "random", "--deals", str(deals),
                        "--json")  # fmt: skip
    return deals / wall


def train(tree: Tree) -> float:
    with tempfile.TemporaryDirectory() as runs:
        _, wall = tree.spar("train", "ppo_tiny", "--runs-dir", runs, "--set", "run.updates=10",
                            "--set", "rollout.games=512", "--set", "eval.every=100",
                            "--set", "warmstart.updates=1")  # fmt: skip
    return wall


MIX = ('game.mix=[{variant="spar",players=[2,3,4]},{variant="sipa",players=3},'
       '{variant="jeu_de_carte",players=2}]')  # fmt: skip


def train_mix(tree: Tree) -> float:
    with tempfile.TemporaryDirectory() as runs:
        _, wall = tree.spar("train", "ppo_tiny", "--runs-dir", runs, "--set", "run.updates=6",
                            "--set", "rollout.games=512", "--set", "eval.every=100",
                            "--set", "eval.deals=4", "--set", MIX,
                            "--set", "warmstart.updates=1")  # fmt: skip
    return wall


MEASURES: dict[str, Callable[[Tree], float]] = {
    "core card plays/s (batch 1024)": lambda t: speed(t, "core", 1024),
    "vector env steps/s (batch 4096)": lambda t: speed(t, "vector", 4096),
    "bench deals/s (heuristic vs 3 random, 4000 deals, start-up included)": bench,
    "spar train ppo_tiny, 10 updates of 512 games (s)": train,
    "spar train ppo_tiny on a mix of 5 games, 6 updates (s)": train_mix,
    "spar --version (s, the start-up)": lambda t: t.spar("--version")[1],
}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", required=True, type=Tree, help="PATH:MODULE of the old tree")
    parser.add_argument("--after", required=True, type=Tree, help="PATH:MODULE of the new tree")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    trees = {"before": args.before, "after": args.after}
    for tree in trees.values():  # compile both trees' Numba caches before timing
        speed(tree, "core", 64)
        bench(tree, 200)
    got: dict[str, dict[str, list[float]]] = {m: {"before": [], "after": []} for m in MEASURES}
    for r in range(args.rounds):
        order = list(trees) if r % 2 == 0 else list(trees)[::-1]
        for name, measure in MEASURES.items():
            for side in order:
                got[name][side].append(measure(trees[side]))
        print(f"round {r + 1} of {args.rounds} done", file=sys.stderr, flush=True)
    for name, sides in got.items():
        before, after = (statistics.median(sides[s]) for s in ("before", "after"))
        print(f"{name:70s} before {before:11.4g}  after {after:11.4g}  "
              f"after/before {after / before:.3f}")  # fmt: skip


if __name__ == "__main__":
    main()
