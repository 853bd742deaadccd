"""The league's targets: a 10-agent league of 4-player ``spar`` within a time budget, and how
often its ratings order each pair as the pair's own result does.

    python benchmarks/league.py --folder /tmp/lg10 --minutes 30

Trains a short PPO run for three checkpoints (updates 10, 20 and 30) unless ``--run`` names
one, starts a league of the built-in agents, both shipped bots, ``search`` and the three
checkpoints, plays pair matches for ``--minutes`` (``spar league play --minutes``), and
prints the widest rating interval, each entrant's interval, and the count of pairs whose
interval excludes 0 that the ratings order the same way (the target: all of them). Run it
on a quiet machine: the budget is wall time. ``--record league`` writes each entrant's rating
to its entry of ``benchmarks/results/league.json`` (``league.search``, ``league.spar4``,
``league.ppo_update_20``, ...), the figures the README's and the reference's tables show.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import time
from pathlib import Path

from figures import add_record_option, record

SPAR = Path(sys.executable).parent / "spar"
BUILT_IN = ["random", "high", "low", "heuristic", "onnx:spar4", "onnx:universal", "search"]
TRAIN = ["ppo_spar4", "--set", "run.updates=30", "--set", "run.checkpoint_every=10",
         "--set", "rollout.games=512", "--set", "run.max_minutes=6"]  # fmt: skip


def spar(*argv: object, cwd: Path) -> str:
    return subprocess.run([SPAR, *map(str, argv)], cwd=cwd, check=True, capture_output=True,
                          text=True).stdout  # fmt: skip


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.partition("\n\n")[0])
    p.add_argument("--folder", type=Path, required=True, help="where the runs and league go")
    p.add_argument("--minutes", type=float, default=30.0)
    p.add_argument("--match", type=int, default=100, help="deals per pair match")
    p.add_argument("--run", help="a PPO run folder with checkpoints 10, 20, 30 (else trained)")
    add_record_option(p)
    args = p.parse_args()
    folder = args.folder.resolve()
    folder.mkdir(parents=True, exist_ok=True)
    run = args.run
    if run is None:
        spar("train", *TRAIN, "--name", "league_ckpt", cwd=folder)
        run = "runs/league_ckpt"
    checkpoints = [f"ppo:{run}/checkpoints/update_{u:06d}.pt" for u in (10, 20, 30)]
    spar("league", "add", "league", *BUILT_IN, *checkpoints, cwd=folder)
    started = time.perf_counter()
    spar("league", "play", "league", "--deals", 10_000_000, "--match", args.match,
         "--minutes", args.minutes, cwd=folder)  # fmt: skip
    minutes = (time.perf_counter() - started) / 60
    table = json.loads(spar("league", "show", "league", "--json", cwd=folder))
    widest = max(e["ci95_halfwidth"] for e in table["entrants"])
    print(f"{len(table['entrants'])} entrants, {table['matches']} matches in {minutes:.1f} min; "
          f"widest interval ±{widest:.1f} {table['unit']}; the ratings agree with "
          f"{table['agree']} of {table['decided']} decided pairs")  # fmt: skip
    for e in table["entrants"]:
        print(f"  {e['spec']:<48} {e['rating']:+7.1f} ± {e['ci95_halfwidth']:.1f}  "
              f"{e['deals']:>7,} deals")  # fmt: skip
        if args.record:
            what = f"{e['spec']}'s rating in the league ({table['unit']}, 95% interval)"
            record(f"{args.record}.{entry_key(e['spec'])}", e["rating"], e["ci95_halfwidth"],
                   decimals=1, what=what)  # fmt: skip


def entry_key(spec: str) -> str:
    """An entrant's key in the results file: ``onnx:spar4`` -> ``spar4``, a checkpoint's
    ``ppo:.../update_000020.pt`` -> ``ppo_update_20``."""
    checkpoint = re.search(r"update_0*(\d+)\.pt$", spec)
    if checkpoint:
        return f"ppo_update_{checkpoint[1]}"
    return re.sub(r"[^a-z0-9]+", "_", spec.removeprefix("onnx:").lower()).strip("_")


if __name__ == "__main__":
    main()
