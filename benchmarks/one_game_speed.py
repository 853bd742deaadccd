"""One game at a time: ``Spar-v0``, the AEC env, one ``heuristic`` decision, and large batches.

    python benchmarks/one_game_speed.py                            # this checkout, all targets
    python benchmarks/one_game_speed.py --against /tmp/spar-before  # and another checkout
    python benchmarks/one_game_speed.py --only gym_heuristic aec --rounds 5

Each figure is measured in a fresh process (one thread), after a warm-up that
loads the compiled code. With ``--against DIR`` every target runs on both
checkouts in alternating rounds (``PYTHONPATH=DIR`` for the other one), so
both see the same machine load; the ratio of their medians is the figure to
compare. The targets:

==================  ========================================================  ==========
target              what is measured                                          aim
==================  ========================================================  ==========
``gym_random``      ``gym.make("spar_env/Spar-v0")``, learner steps/s with    >= 8,000
                    random legal actions, ``random`` opponents
``gym_heuristic``   the same with ``opponents="heuristic"``                   >= 3,000
``aec``             ``spar_env.env()`` steps/s over ``leduc_holdem_v4``'s,    >= 1.3x
                    the same masked-random ``agent_iter`` loop, alternating
``heuristic``       microseconds per ``heuristic`` decision, one game at a    < 100 us
                    time, over the decisions of whole hands (every seat)
``core``            card plays/s of the core at batch 8,192 (``spar speed``)  >= 15 M
``maskable``        the README's ``MaskablePPO`` example on ``Spar-v0``       faster
                    (``learn(3000)``, ``random`` opponents): steps/s
``maskable_h``      the same with ``opponents="heuristic"``                   faster
==================  ========================================================  ==========

The AEC and Leduc figures need the ``bench`` extra (rlcard, pygame); the
MaskablePPO ones need sb3-contrib, in the ``dev`` extra.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

TARGETS = ("gym_random", "gym_heuristic", "aec", "heuristic", "core", "maskable", "maskable_h")
UNITS = {
    "gym_random": "learner steps/s",
    "gym_heuristic": "learner steps/s",
    "aec": "x leduc",
    "heuristic": "us per decision",
    "core": "card plays/s",
    "maskable": "steps/s",
    "maskable_h": "steps/s",
}
AIMS = {
    "gym_random": (">=", 8000),
    "gym_heuristic": (">=", 3000),
    "aec": (">=", 1.3),
    "heuristic": ("<", 100),
    "core": (">=", 15e6),
}


def gym_steps_per_second(opponents: str, seconds: float) -> float:
    """Learner steps/s of ``Spar-v0`` with random legal learner actions."""
    import gymnasium as gym

    import spar_env  # noqa: F401  (registers spar_env/Spar-v0)

    env = gym.make("spar_env/Spar-v0", opponents=opponents)
    rng = np.random.default_rng(0)

    def run(duration: float) -> float:
        _obs, info = env.reset(seed=int(rng.integers(1 << 30)))
        steps, start = 0, time.perf_counter()
        while time.perf_counter() - start < duration:
            legal = np.flatnonzero(info["action_mask"])
            _obs, _reward, terminated, truncated, info = env.step(
                int(legal[rng.integers(legal.size)])
            )
            steps += 1
            if terminated or truncated:
                _obs, info = env.reset()
        return steps / (time.perf_counter() - start)

    run(0.5)  # warm-up
    return run(seconds)


def aec_over_leduc(seconds: float) -> float:
    """Steps/s of ``spar_env.env()`` over ``leduc_holdem_v4.env()``'s, median of paired rounds."""
    from env_speed import aec_steps_per_second  # the loop of benchmarks/env_speed.py
    from pettingzoo.classic import leduc_holdem_v4

    import spar_env

    rng = np.random.default_rng(0)
    ours, leduc = spar_env.env(), leduc_holdem_v4.env()
    aec_steps_per_second(ours, 0.3, rng), aec_steps_per_second(leduc, 0.3, rng)  # warm-up
    ratios = [
        aec_steps_per_second(ours, seconds / 10, rng)
        / aec_steps_per_second(leduc, seconds / 10, rng)
        for _ in range(5)
    ]
    return statistics.median(ratios)


def heuristic_decision_us(seconds: float) -> float:
    """Mean microseconds of one ``heuristic`` decision in one game, over whole hands."""
    from spar_agents import Situation, make_agent
    from spar_env.core import reset, start_sessions, step
    from spar_env.history import History
    from spar_env.rules import make_rules

    rules = make_rules("spar")
    agent = make_agent("heuristic", rules)
    rng = np.random.default_rng(0)
    state = reset(rules, 1, rng)
    history = History(state)
    game = np.zeros(1, dtype=np.int64)

    def run(duration: float) -> float:
        spent, decisions, start = 0.0, 0, time.perf_counter()
        while time.perf_counter() - start < duration:
            start_sessions(state, slice(None), rng)
            history.clear()
            while not state.terminated[0]:
                t0 = time.perf_counter()
                actions = agent.act(Situation(state, history, game), rng).actions
                spent += time.perf_counter() - t0
                decisions += 1
                history.record(state, actions)
                step(state, actions)
                history.settle(state)
        return spent / decisions * 1e6

    run(0.5)
    return run(seconds)


def core_plays_per_second(seconds: float) -> float:
    from spar_env.rules import make_rules
    from spar_env.speed import measure

    rules = make_rules("spar")
    measure("core", rules, 8192, 0.5)
    return measure("core", rules, 8192, seconds).agent_steps_per_second


def maskable_steps_per_second(opponents: str) -> float:
    """Steps/s of the README's MaskablePPO example (``learn(total_timesteps=3000)``)."""
    import gymnasium as gym
    import torch
    from sb3_contrib import MaskablePPO

    import spar_env  # noqa: F401

    torch.set_num_threads(1)

    def run() -> float:
        env = gym.make("spar_env/Spar-v0", variant="spar", opponents=opponents)
        model = MaskablePPO(
            "MlpPolicy", env, n_steps=256, batch_size=64, n_epochs=2, seed=0, device="cpu"
        )
        start = time.perf_counter()
        model.learn(total_timesteps=3000)
        return model.num_timesteps / (time.perf_counter() - start)

    run()  # warm-up (torch, the compiled code)
    return run()


def measure(target: str, seconds: float) -> float:
    if target == "gym_random":
        return gym_steps_per_second("random", seconds)
    if target == "gym_heuristic":
        return gym_steps_per_second("heuristic", seconds)
    if target == "aec":
        return aec_over_leduc(seconds)
    if target == "heuristic":
        return heuristic_decision_us(seconds)
    if target == "core":
        return core_plays_per_second(seconds)
    if target == "maskable":
        return maskable_steps_per_second("random")
    if target == "maskable_h":
        return maskable_steps_per_second("heuristic")
    raise ValueError(f"unknown target {target!r}; targets: {', '.join(TARGETS)}")


def in_process(tree: Path, target: str, seconds: float) -> float:
    """Measure ``target`` in a fresh process that imports the project from ``tree``."""
    env = {**os.environ, "PYTHONPATH": str(tree), "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    out = subprocess.run(
        [sys.executable, __file__, "--worker", target, "--seconds", str(seconds)],
        env=env,
        cwd=tree,
        capture_output=True,
        text=True,
        check=False,
    )
    if out.returncode != 0:
        raise RuntimeError(f"{target} on {tree} failed:\n{out.stderr[-2000:]}")
    return float(json.loads(out.stdout.strip().splitlines()[-1])["value"])


def verdict(target: str, value: float) -> str:
    if target not in AIMS:
        return ""
    sign, aim = AIMS[target]
    met = value >= aim if sign == ">=" else value < aim
    return f"{'met' if met else 'MISSED'} ({sign} {aim:,g})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="+", choices=TARGETS, default=list(TARGETS))
    parser.add_argument("--against", type=Path, default=None, help="another checkout to compare")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=3.0, help="per measurement")
    parser.add_argument("--worker", choices=TARGETS, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps({"value": measure(args.worker, args.seconds)}))
        return
    here = Path(__file__).resolve().parents[1]
    trees = {"this": here} | ({"other": args.against.resolve()} if args.against else {})
    print(f"load average at the start: {os.getloadavg()[0]:.2f}; {args.rounds} rounds")
    for target in args.only:
        values: dict[str, list[float]] = {name: [] for name in trees}
        for _ in range(args.rounds):
            for name, tree in trees.items():
                values[name].append(in_process(tree, target, args.seconds))
        medians = {name: statistics.median(v) for name, v in values.items()}
        line = f"{target:<14} {medians['this']:>14,.3f} {UNITS[target]:<16}"
        if args.against:
            ratio = medians["this"] / medians["other"]
            line += f" other {medians['other']:>14,.3f}  this/other {ratio:6.2f}x"
        rounds = ", ".join(f"{v:,.3g}" for v in values["this"])
        print(f"{line}  {verdict(target, medians['this'])}  [rounds: {rounds}]", flush=True)


if __name__ == "__main__":
    main()
