"""Whether a change trains exactly as a commit before it did: the same checkpoints, bit for bit.

    python benchmarks/same_training.py --base COMMIT           # every case below
    python benchmarks/same_training.py --base COMMIT --case mix --case overlap
    python benchmarks/same_training.py --base COMMIT --ray     # and on a local Ray

A change that means to move code, not what it computes (a refactor of the training loop),
must leave every run as it was. This script takes the source tree of ``COMMIT`` out of git
(``git archive``, into a temporary folder), then runs each case below twice, on this machine,
in fresh interpreters: once on that tree and once on the tree this script lies in. Each run
is a shipped config cut down to seconds. It compares:

- the digest of every checkpoint (:mod:`helpers.fingerprint`: the weights, the optimiser, both
  generators, the pool, the games between hands and the counters, wall times left out), the
  games put in one form first (the overlap's worker kept them in another before the workers,
  :func:`spar_train.ppo.wrappers.shared.one_form`, and a search run's workers theirs in another
  before search was a source like any other,
  :func:`spar_train.ppo.sources.search.one_search_form`);
- the learning curves that do not measure the clock: every TensorBoard tag but those that time
  the run (``time/``, ``charts/SPS``), and the values of ``losses/``, ``eval/``, ``skill/``,
  ``warmstart/`` and the training payoffs;
- for sampled CFR, the policy file's arrays.

Digests are compared on one machine only: torch's float kernels differ in the last bits from
one instruction set to another, so a digest written down elsewhere proves nothing here.

Each tree runs through an import shim: a ``sitecustomize`` module, first on ``PYTHONPATH``,
that maps the import names onto the tree's folders as ``setup.py``'s ``FOLDERS`` does (read
from that tree's own ``setup.py``), so the installed project does not answer for it. The
shim reaches the processes a run starts too (the overlap's rollout worker). Both trees use
the installed dependencies. ``tests/test_same_training.py`` runs it against the commit the
last refactor was checked against.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import subprocess
import sys
import tarfile
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from helpers.fingerprint import checkpoint_digests, digest, npz_digest  # noqa: E402

TINY = "configs/ppo_tiny.toml"
SHORT = ["run.updates=3", "run.checkpoint_every=1", "eval.every=3", "eval.deals=10",
         "warmstart.updates=1", "rollout.games=32"]  # fmt: skip
MIX = ('game.mix=[{variant="jeu_de_carte",players=2},{variant="sipa",players=3},'
       '{variant="spar",players=4,weight=2.0}]')  # fmt: skip
# The shipped fine-tunes of the universal bot, cut down: a few games, two updates.
FINE_TUNE = ["run.updates=2", "run.checkpoint_every=1", "rollout.games=24", "eval.every=2",
             "eval.deals=6", "warmstart.updates=1", "ppo.minibatch_size=512"]  # fmt: skip
MCCFR = ["algorithm=mccfr", "run.name=m", "game.players=2", "mccfr.deals=16", "mccfr.batches=4",
         "mccfr.eval_every=2", "mccfr.eval_deals=10", 'mccfr.eval_opponents=["random"]']  # fmt: skip
SEARCH = ["search.games=4", "search.worlds=2", "search.candidates=2", "search.buffer=64",
          "rollout.games=16"]  # fmt: skip
# The tags that time a run: a change may add some (the workers' split of the learner's wait).
TIMING = ("time/", "charts/SPS")
# TensorBoard tags whose values a run computes (the others time it).
COMPUTED = ("losses/", "eval/", "skill/", "warmstart/", "charts/train_payoff", "charts/decisions",
            "charts/learning_rate")  # fmt: skip


@dataclass(frozen=True)
class Case:
    """A run: a config file and its overrides; ``stop_after`` stops it there, then resumes it."""

    name: str
    config: str | None
    overrides: list[str] = field(default_factory=list)
    stop_after: int | None = None


CASES = [
    Case("one_game", TINY, SHORT),
    Case("one_game_resumed", TINY, SHORT, stop_after=1),
    Case("mix", TINY, [*SHORT, MIX, "rollout.precision=auto", 'eval.opponents=["heuristic"]']),
    Case("mix_resumed", TINY, [*SHORT, MIX, 'eval.opponents=["heuristic"]'], stop_after=2),
    Case("overlap", TINY, [*SHORT, "rollout.overlap=true"], stop_after=2),
    Case("overlap_mix", TINY, [*SHORT, MIX, "rollout.overlap=true", 'eval.opponents=["random"]']),
    Case(
        "match_reward",
        "configs/ppo_match.toml",
        [*FINE_TUNE, "ppo.match_deals=20", "eval.matches=4"],
    ),  # fmt: skip
    Case(
        "magnet",
        "configs/ppo_mmd_mini.toml",
        ["run.updates=3", "rollout.games=64", "eval.every=3", "eval.deals=10"],
    ),  # fmt: skip
    Case("warm_start_magnet", "configs/ppo_mmd_spar2.toml", FINE_TUNE),
    Case("imitation_only", TINY, [*SHORT, "run.updates=0", "warmstart.updates=2"]),
    Case("mccfr", None, MCCFR),
]
# Cases of features a base must have (search in the loop, served inference: from dd2efeb on);
# run by default, beside CASES.
LATER_CASES = [
    # Search in the loop: searched games beside the rollout, played here, then by two worker
    # processes (each its share of them), each stopped and resumed.
    Case("search", TINY, [*SHORT, *SEARCH], stop_after=2),
    Case("search_workers", TINY, [*SHORT, *SEARCH, "rollout.workers=2"], stop_after=1),
    # Served inference: two worker processes whose turns the learner answers. A base from
    # before the learner joined their turns in worker order, whatever order they asked in,
    # may differ from itself run to run in the curves' last bits (a row's answer depends on
    # its place in the batch); its checkpoints did not.
    Case(
        "served", TINY, [*SHORT, "rollout.workers=2", 'rollout.inference="learner"'], stop_after=2
    ),  # fmt: skip
]
# On a local Ray (--ray: a Ray start per tree): one game shared out among two workers, and a
# mix whose games go whole to them; each stopped and resumed.
RAY = ["ray.enabled=true", "ray.workers=2"]
RAY_CASES = [
    Case("ray_one_game", TINY, [*SHORT, *RAY], stop_after=2),
    Case("ray_mix", TINY, [*SHORT, *RAY, MIX, 'eval.opponents=["random"]'], stop_after=1),
]

SHIM = '''\
"""An import shim for benchmarks/same_training.py: the project's names from SPAR_TREE."""
import importlib.abc
import importlib.util
import os
import sys

_ROOT = os.environ["SPAR_TREE"]
_FOLDERS = {folders!r}


class _TreeFinder(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        folder = _FOLDERS.get(name)
        if folder is None:
            return None
        where = os.path.join(_ROOT, folder)
        return importlib.util.spec_from_file_location(
            name, os.path.join(where, "__init__.py"), submodule_search_locations=[where]
        )


sys.meta_path.insert(0, _TreeFinder())
'''

# What a tree's interpreter runs: each case of the JSON list in argv[1], into argv[2].
DRIVER = """\
import inspect, json, sys
from pathlib import Path
import spar_train
from spar_train.config import load_config
from spar_train.entry import run


def stopped(updates):  # tests/helpers/stop.py's StopAfter: stop as if killed after a checkpoint
    from spar_train.hooks import Hook
    from spar_train.ppo.checkpoint import save_run

    class StopAfter(Hook):
        def on_update(self, run, update):
            if run.done_here < updates:
                return True
            if run.saved_at != update.step:
                save_run(run)
            run.result.stopped_early = True
            return False

    return StopAfter()


OWN_STOP = "stop_after" in inspect.signature(run).parameters  # a tree from before the hook
cases, runs = json.loads(sys.argv[1]), Path(sys.argv[2])
print("tree", Path(spar_train.__file__).resolve().parents[1], flush=True)
for case in cases:
    config = load_config(case["config"], case["overrides"])
    out = runs / case["name"]
    if case["stop_after"] is None:
        run(config, out)
    else:
        if OWN_STOP:
            run(config, out, stop_after=case["stop_after"])
        else:
            run(config, out, hooks=[stopped(case["stop_after"])])
        run(resume=out / config.run.name)
    print("ran", case["name"], flush=True)
"""


def folders_of(tree: Path) -> dict[str, str]:
    """``FOLDERS`` of a tree's ``setup.py`` (import name -> folder), read without running it."""
    for node in ast.walk(ast.parse((tree / "setup.py").read_text(encoding="utf-8"))):
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "FOLDERS" for t in node.targets
        ):
            return ast.literal_eval(node.value)
    raise ValueError(f"{tree}/setup.py has no FOLDERS")


def export_commit(commit: str, into: Path) -> Path:
    """The source tree of ``commit`` (``git archive``: no worktree to register or remove)."""
    into.mkdir(parents=True, exist_ok=True)
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", "--format=tar", commit],
                             capture_output=True, check=True).stdout  # fmt: skip
    with tempfile.TemporaryFile() as f:
        f.write(archive)
        f.seek(0)
        with tarfile.open(fileobj=f) as tar:
            tar.extractall(into, filter="data")
    return into


def run_tree(tree: Path, cases: list[Case], runs: Path, work: Path) -> None:
    """Run ``cases`` on ``tree`` in a fresh interpreter through the import shim."""
    shim = work / f"shim_{tree.name}"
    shim.mkdir(parents=True, exist_ok=True)
    (shim / "sitecustomize.py").write_text(SHIM.format(folders=folders_of(tree)))
    env = {**os.environ, "SPAR_TREE": str(tree), "PYTHONPATH": str(shim),
           "OMP_NUM_THREADS": "1"}  # fmt: skip
    jobs = [
        {
            "name": c.name,
            "config": None if c.config is None else str(tree / c.config),
            "overrides": c.overrides,
            "stop_after": c.stop_after,
        }  # fmt: skip
        for c in cases
    ]
    done = subprocess.run([sys.executable, "-c", DRIVER, json.dumps(jobs), str(runs)],
                          cwd=work, env=env, capture_output=True, text=True)  # fmt: skip
    if done.returncode != 0:
        raise RuntimeError(f"the runs on {tree} failed:\n{done.stderr[-4000:]}")
    ran_on = done.stdout.splitlines()[0].removeprefix("tree ")
    if Path(ran_on) != tree.resolve():  # the shim must answer for the tree, not the install
        raise RuntimeError(f"the runs meant for {tree} imported the project from {ran_on}")


def fingerprints(runs: Path, case: Case) -> dict[str, str]:
    """What a case's run left, as digests: checkpoints, computed curves, policy files."""
    from spar_train.curves import read_scalars
    from spar_train.ppo.sources.search import one_search_form
    from spar_train.ppo.wrappers.shared import one_form

    def games(saved: dict) -> dict:
        return one_form(one_search_form(saved))

    out: dict[str, str] = {}
    for run_dir in sorted(p for p in (runs / case.name).iterdir() if p.is_dir()):
        for name, value in checkpoint_digests(run_dir / "checkpoints", games).items():
            out[f"{run_dir.name}/{name}"] = value
        for policy in sorted(run_dir.glob("*.npz")):
            out[f"{run_dir.name}/{policy.name}"] = npz_digest(policy)
        for folder in (run_dir, run_dir / "warmstart"):
            if not any(folder.glob("events.out.tfevents*")):
                continue
            scalars = read_scalars(folder)
            tags = sorted(t for t in scalars if not t.startswith(TIMING))
            out[f"{folder.relative_to(runs)}:tags"] = digest(tags)
            for tag, (steps, values) in sorted(scalars.items()):
                if tag.startswith(COMPUTED):
                    out[f"{folder.relative_to(runs)}:{tag}"] = digest([steps, values])
    return out


def compare(base: str, cases: list[Case], work: Path) -> dict[str, list[str]]:
    """Each case's differences between ``base`` and this tree (empty lists: the same runs)."""
    before = export_commit(base, work / "base")
    for tree, runs in ((before, work / "runs_base"), (ROOT, work / "runs_here")):
        run_tree(tree, cases, runs, work)
    report = {}
    for case in cases:
        a, b = fingerprints(work / "runs_base", case), fingerprints(work / "runs_here", case)
        if not a:
            raise RuntimeError(f"{case.name}: the base run left nothing to compare")
        report[case.name] = [
            f"{key}: {a.get(key)} -> {b.get(key)}" for key in sorted(a.keys() | b.keys())
            if a.get(key) != b.get(key)
        ]  # fmt: skip
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", required=True, help="the commit to compare with")
    parser.add_argument("--case", action="append",
                        choices=[c.name for c in CASES + LATER_CASES + RAY_CASES],
                        help="a case to run (repeatable; default: every case)")  # fmt: skip
    parser.add_argument("--ray", action="store_true", help="the Ray cases too (a local Ray)")
    args = parser.parse_args(argv)
    known = CASES + LATER_CASES + (RAY_CASES if args.ray or args.case else [])
    cases = [c for c in known if args.case is None or c.name in args.case]
    with tempfile.TemporaryDirectory(prefix="same_training_") as work:
        report = compare(args.base, cases, Path(work))
    for name, differences in report.items():
        print(f"{name:<20} {'same' if not differences else 'DIFFERS'}")
        for line in differences:
            print(f"    {line}")
    return 0 if not any(report.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
