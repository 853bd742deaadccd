"""Speed of an exported bot on onnxruntime: decisions per second in batches, and one decision.

    python benchmarks/onnx_speed.py                          # the shipped checkpoints/spar4.onnx
    python benchmarks/onnx_speed.py --bot bots/mine.onnx --seconds 10
    python benchmarks/onnx_speed.py --bot checkpoints/universal.onnx   # observation v2

The bot runs as every seat runs it (:class:`agents.export.bot.OnnxAgent`: one
thread, no spinning) on real decisions of random self-play. It prints:

- decisions per second in batches of ``--batch`` (4,096): the time of
  :meth:`OnnxAgent.probs` and the argmax over whole batches;
- the time of a single decision (a batch of one): median and 90th percentile.

Targets: at least 200,000 decisions per second in batches of 4,096, and a
single decision under 1 ms.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")  # one thread: the machine's two cores are shared

import numpy as np  # noqa: E402

from agents.export.bot import SHIPPED_BOT, OnnxAgent, bot_rules  # noqa: E402
from agents.export.samples import self_play_observations  # noqa: E402


def batch_rate(agent: OnnxAgent, obs: np.ndarray, mask: np.ndarray, batch: int, seconds: float):
    """Decisions per second over whole batches of ``batch``, for about ``seconds``."""
    starts = range(0, obs.shape[0] - batch + 1, batch)
    batches = [(obs[i : i + batch], mask[i : i + batch]) for i in starts]
    agent.probs(*batches[0]).argmax(axis=1)  # warm up
    done, begin = 0, time.perf_counter()
    while time.perf_counter() - begin < seconds:
        for o, m in batches:
            agent.probs(o, m).argmax(axis=1)
            done += o.shape[0]
    return done / (time.perf_counter() - begin)


def single_times(agent: OnnxAgent, obs: np.ndarray, mask: np.ndarray, count: int) -> np.ndarray:
    """Seconds of each of ``count`` single decisions."""
    times = np.empty(count)
    for i in range(count):
        o, m = obs[i % obs.shape[0]][None], mask[i % mask.shape[0]][None]
        begin = time.perf_counter()
        agent.probs(o, m).argmax(axis=1)
        times[i] = time.perf_counter() - begin
    return times


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.partition("\n\n")[0])
    parser.add_argument("--bot", type=Path, default=SHIPPED_BOT, help="the exported bot")
    parser.add_argument("--batch", type=int, default=4096, help="decisions per batch")
    parser.add_argument("--seconds", type=float, default=5.0, help="time of the batch figure")
    parser.add_argument("--singles", type=int, default=5000, help="single decisions to time")
    args = parser.parse_args(argv)
    probe = OnnxAgent.from_path(bot_rules(args.bot), args.bot)
    rules = probe.rules
    universal = probe.view is not None  # a universal bot reads observation v2
    obs, mask = self_play_observations(rules, 8 * args.batch, seed=0, v2=universal)
    load = os.getloadavg()[0]
    rate = batch_rate(probe, obs, mask, args.batch, args.seconds)
    singles = single_times(probe, obs, mask, args.singles) * 1e3
    run = probe.run
    print(
        f"{args.bot}: {rules.variant}, {rules.players} players"
        f"{' (observation v2, its first game)' if universal else ''}, "
        f"from {run.get('name')} update {run.get('update')}; load average {load:.2f} at the start"
    )
    print(f"batch {args.batch:,}: {rate:,.0f} decisions/s (target >= 200,000)")
    print(
        f"single decision: median {np.median(singles):.3f} ms, "
        f"90th percentile {np.percentile(singles, 90):.3f} ms over {args.singles:,} "
        "(target < 1 ms)"
    )


if __name__ == "__main__":
    main()
