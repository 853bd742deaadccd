"""The PPO update alone: seconds per update of the default config's batch, against another checkout.

    python benchmarks/update_speed.py                              # this checkout
    python benchmarks/update_speed.py --against /tmp/spar-before   # and another, alternating
    python benchmarks/update_speed.py --precision float32          # this checkout in float32

One update is :func:`spar_agents.ppo.update.ppo_update` on the default config's
networks (``configs/ppo_spar4.toml``: two 256-wide layers each, the
privileged critic) and settings (3 epochs of minibatches of 8,192), over a
batch the size of one default rollout's decisions (``--rows``, about 18,700
with more than one legal card out of 2,048 games). The batch is drawn from a
fixed seed with the real shapes and dtypes: observations within the
layout's bounds, 2 to 8 legal actions a row, a hidden hand of 5 cards per
other seat. The cost of an update does not depend on those values.

Each round runs every checkout in a fresh process (``PYTHONPATH`` set to it),
one after the other, so both see the same machine load; a round's figure is
the median of ``--updates`` timed updates after one warm-up. The ratio of the
medians over rounds is the figure to compare. A checkout without
``make_optimizer`` gets the Adam it built itself (``eps`` 1e-5).
``--precision`` sets ``ppo.precision`` (the config's ``auto`` by default)
in every checkout that has it.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]


def measure(rows: int, updates: int, threads: int, precision: str) -> dict[str, float]:
    """Seconds per update of this interpreter's checkout (run in a child process)."""
    import numpy as np
    import torch

    from spar_agents.ppo import update
    from spar_train import ppo
    from spar_train.config import load_config, rules_of
    from spar_train.ppo import ppo_settings

    torch.set_num_threads(threads)
    torch.manual_seed(0)
    config = load_config(Path("configs/ppo_spar4.toml"), [])  # the checkout's own (cwd)
    rules = rules_of(config)
    if hasattr(ppo, "build_model"):  # a checkout from before the PPO run became a package
        model = ppo.build_model(config, rules)
    else:
        try:
            from spar_train.games import build_model, game_mix
        except ImportError:  # a checkout from before the games moved up out of spar_train.ppo
            from spar_train.ppo.games import build_model, game_mix  # type: ignore[no-redef]

        model = build_model(config, game_mix(config))
    if hasattr(update, "make_optimizer"):
        optimizer = update.make_optimizer(model, config.ppo.lr)
    else:
        optimizer = torch.optim.Adam(model.parameters(), lr=config.ppo.lr, eps=1e-5)
    batch = _batch(rows, model, np.random.default_rng(0))
    settings = ppo_settings(config)
    if precision and hasattr(settings, "precision"):
        settings = dataclasses.replace(settings, precision=precision)
    rng = np.random.default_rng(1)
    update.ppo_update(model, optimizer, batch, settings, rng)  # warm-up
    seconds = []
    for _ in range(updates):
        start = time.perf_counter()
        update.ppo_update(model, optimizer, batch, settings, rng)
        seconds.append(time.perf_counter() - start)
    return {
        "seconds": statistics.median(seconds),
        "load": os.getloadavg()[0],
        "precision": _resolved(getattr(settings, "precision", "float32")),
    }


def _resolved(precision: str) -> str:
    """The arithmetic a checkout's ``precision`` setting stands for on this machine."""
    try:
        from spar_agents.ppo.precision import resolve
    except ImportError:  # a checkout from before the setting: float32
        return precision
    return resolve(precision)


def _batch(rows: int, model, g):
    import numpy as np
    import torch

    from spar_agents.ppo.update import Batch

    high = (1.0 / model.obs_scale.numpy()).round().astype(np.int64)
    obs = (g.random((rows, model.obs_size)) * (high + 1)).astype(np.uint8)
    a = model.num_actions
    legal = np.argsort(g.random((rows, a)), axis=1) < g.integers(2, 9, rows)[:, None]
    actions = np.array([g.choice(np.flatnonzero(row)) for row in legal])
    hands = model.privileged // 3
    extra = np.zeros((rows, model.privileged), dtype=np.uint8)
    for seat in range(3):
        cards = np.argsort(g.random((rows, hands)), axis=1)[:, :5]
        np.put_along_axis(extra[:, seat * hands : (seat + 1) * hands], cards, 1, axis=1)

    def floats(values) -> torch.Tensor:
        return torch.from_numpy(np.asarray(values, dtype=np.float32))

    return Batch(
        obs=torch.from_numpy(obs),
        mask=torch.from_numpy(legal),
        actions=torch.from_numpy(actions.astype(np.int64)),
        logp=floats(-np.log(legal.sum(axis=1))),
        values=floats(g.normal(0, 0.3, rows)),
        advantages=floats(g.normal(0, 0.3, rows)),
        returns=floats(g.normal(0, 0.3, rows)),
        extra=torch.from_numpy(extra),
    )


def _in_child(tree: Path, rows: int, updates: int, threads: int, precision: str) -> dict:
    """:func:`measure` in a fresh process that imports ``tree``'s code."""
    out = subprocess.run(
        [sys.executable, __file__, "--child", str(rows), str(updates), str(threads), precision],
        env={**os.environ, "PYTHONPATH": str(tree)}, cwd=tree,
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--against", type=Path, default=None, help="another checkout to compare")
    parser.add_argument("--rows", type=int, default=18_700, help="decisions in the batch")
    parser.add_argument("--updates", type=int, default=3, help="timed updates per round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument(
        "--precision",
        default="",
        help="ppo.precision: auto, float32 or bfloat16 (default: the config's)",
    )
    parser.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        rows, updates, threads, precision = args.child
        print(json.dumps(measure(int(rows), int(updates), int(threads), precision)))
        return
    trees = {"this": HERE} | ({"other": args.against.resolve()} if args.against else {})
    seconds: dict[str, list[float]] = {name: [] for name in trees}
    for r in range(args.rounds):
        line = []
        for name, tree in trees.items():
            got = _in_child(tree, args.rows, args.updates, args.threads, args.precision)
            seconds[name].append(got["seconds"])
            line.append(
                f"{name} {got['seconds']:.3f} s ({got['precision']}, load {got['load']:.1f})"
            )
        print(f"round {r + 1}: " + ", ".join(line), flush=True)
    print(f"\nPPO update, {args.rows:,} decisions, {args.threads} threads, median over rounds:")
    for name in trees:
        print(f"  {name:5} {statistics.median(seconds[name]):.3f} s per update")
    if args.against:
        ratios = [o / t for o, t in zip(seconds["other"], seconds["this"], strict=True)]
        print(
            f"  this is {statistics.median(seconds['other']) / statistics.median(seconds['this']):.2f}x"
            f" faster (per round: {', '.join(f'{x:.2f}' for x in ratios)})"
        )


if __name__ == "__main__":
    main()
