"""Speed of an exported bot on onnxruntime: decisions per second in batches, and one decision.

    python benchmarks/onnx_speed.py                          # the shipped checkpoints/spar4.onnx
    python benchmarks/onnx_speed.py --bot bots/mine.onnx --seconds 10
    python benchmarks/onnx_speed.py --bot checkpoints/universal.onnx   # observation v2

The bot runs as every seat runs it (:class:`spar_agents.export.bot.OnnxAgent`: one
thread, no spinning) on real decisions of random self-play. It prints:

- decisions per second in batches of ``--batch`` (4,096): the time of
  :meth:`OnnxAgent.game_probs` (what ``act`` plays) and the argmax over whole
  batches;
- the time of a single decision (a batch of one): median and 90th percentile.

A universal bot plays through its game's own graph, made when it is loaded
(:mod:`spar_agents.export.specialise`); ``--game`` picks the game (``spar4``,
``sipa3``: variant and players; default its first), and the figures of its
raw graph on observation v2 (:meth:`OnnxAgent.probs`) are printed beside.

Targets: at least 200,000 decisions per second in batches of 4,096 for the
single-game bot (150,000 for a universal one), and a single decision under 1 ms.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import time
from collections.abc import Callable
from pathlib import Path

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")  # one thread: the machine's two cores are shared

import numpy as np  # noqa: E402

from spar_agents.export.bot import SHIPPED_BOT, OnnxAgent, bot_rules  # noqa: E402
from spar_agents.export.samples import self_play_observations  # noqa: E402
from spar_env.atomic import atomic_output  # noqa: E402
from spar_env.rules import make_rules  # noqa: E402

Policy = Callable[[np.ndarray, np.ndarray], np.ndarray]


def batch_rate(policy: Policy, obs: np.ndarray, mask: np.ndarray, batch: int, seconds: float):
    """Decisions per second over whole batches of ``batch``, for about ``seconds``."""
    starts = range(0, obs.shape[0] - batch + 1, batch)
    batches = [(obs[i : i + batch], mask[i : i + batch]) for i in starts]
    policy(*batches[0]).argmax(axis=1)  # warm up
    done, begin = 0, time.perf_counter()
    while time.perf_counter() - begin < seconds:
        for o, m in batches:
            policy(o, m).argmax(axis=1)
            done += o.shape[0]
    return done / (time.perf_counter() - begin)


def single_times(policy: Policy, obs: np.ndarray, mask: np.ndarray, count: int) -> np.ndarray:
    """Seconds of each of ``count`` single decisions."""
    times = np.empty(count)
    for i in range(count):
        o, m = obs[i % obs.shape[0]][None], mask[i % mask.shape[0]][None]
        begin = time.perf_counter()
        policy(o, m).argmax(axis=1)
        times[i] = time.perf_counter() - begin
    return times


def report(name: str, policy: Policy, obs: np.ndarray, mask: np.ndarray, args) -> dict:
    rate = batch_rate(policy, obs, mask, args.batch, args.seconds)
    singles = single_times(policy, obs, mask, args.singles) * 1e3
    median, p90 = float(np.median(singles)), float(np.percentile(singles, 90))
    print(f"{name}: batch {args.batch:,}: {rate:,.0f} decisions/s")
    print(
        f"{name}: single decision: median {median:.3f} ms, "
        f"90th percentile {p90:.3f} ms over {args.singles:,}"
    )
    return {f"batch_{args.batch}_decisions_per_second": round(rate),
            "single_decision_ms_median": round(median, 4),
            "single_decision_ms_p90": round(p90, 4)}  # fmt: skip


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.partition("\n\n")[0])
    parser.add_argument("--bot", type=Path, default=SHIPPED_BOT, help="the exported bot")
    parser.add_argument("--game", default="", help="a universal bot's game: spar4, sipa3, ...")
    parser.add_argument("--batch", type=int, default=4096, help="decisions per batch")
    parser.add_argument("--seconds", type=float, default=5.0, help="time of the batch figure")
    parser.add_argument("--singles", type=int, default=5000, help="single decisions to time")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args(argv)
    rules = bot_rules(args.bot)
    if args.game:
        variant, players = re.fullmatch(r"(\w+?)(\d+)", args.game).groups()
        rules = make_rules(variant, players=int(players))
    agent = OnnxAgent.from_path(rules, args.bot)
    obs, mask = self_play_observations(rules, 8 * args.batch, seed=0)
    run = agent.run
    load = os.getloadavg()[0]
    print(
        f"{args.bot}: {rules.variant}, {rules.players} players"
        f"{' (a universal bot)' if agent.view else ''}, from {run.get('name')} update "
        f"{run.get('update')}; load average {load:.2f} at the start"
    )
    figures = {"game": f"{rules.variant}{rules.players}", "load_average": round(load, 2)}
    figures["as_it_plays"] = report("as it plays", agent.game_probs, obs, mask, args)
    if agent.view is not None:
        view = agent.view
        v2 = report("its v2 graph", agent.probs, view.from_v1(obs), view.widen_mask(mask), args)
        figures["v2_graph"] = v2
    if args.json:
        with atomic_output(args.json) as f:
            json.dump(figures, f, indent=2)


if __name__ == "__main__":
    main()
