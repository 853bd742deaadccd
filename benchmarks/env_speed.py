"""Speed of the environments: native vector env, self-play batch, and AEC env vs Leduc.

    python benchmarks/env_speed.py                 # all three, a few seconds each
    python benchmarks/env_speed.py --only aec --rounds 5

Random legal actions throughout, with observations and masks produced at every
step as a learner would read them.

- **vector**: ``gymnasium.make_vec("spar_env/Spar-v0", num_envs=4096,
  vectorization_mode="vector_entry_point")``, random opponents. Reports env
  steps (one learner decision per sub-env, the Gymnasium SPS) and agent steps
  (every card played or exchange decided, the learner's and its opponents').
- **selfplay**: :class:`spar_env.envs.selfplay.SelfPlay`, 4096 games; every
  step is one agent's action, with the mover's observation and mask.
- **aec**: ``spar_env.env()`` against PettingZoo's ``leduc_holdem_v4`` (needs
  the ``bench`` extra: rlcard, pygame), the same masked-random ``agent_iter``
  loop, interleaved in rounds so that both see the same machine load. A null
  AEC env behind the same PettingZoo wrappers shows what the wrappers and the
  loop cost by themselves. The same three run unwrapped (``raw_env``) too,
  each compared with Leduc's ``raw_env``. The machine is shared and noisy: compare ratios
  measured in one run, not absolute figures across runs.
"""

from __future__ import annotations

import argparse
import statistics
import time

import gymnasium as gym
import numpy as np
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from spar_env.envs.aec import env as spar_aec
from spar_env.envs.aec import raw_env as spar_raw
from spar_env.rules import make_rules
from spar_env.speed import measure


def bench_batched(mode: str, num_envs: int, variant: str, players: int, seconds: float) -> None:
    """The vector env or the self-play API, through :func:`spar_env.speed.measure`."""
    r = measure(mode, make_rules(variant, players=players), num_envs, seconds)
    env_steps = f"{r.env_steps_per_second:>12,.0f} env steps/s   " if mode == "vector" else ""
    print(
        f"{mode:8} {variant} N={players} envs={num_envs}: {env_steps}"
        f"{r.agent_steps_per_second:>12,.0f} agent steps/s   "
        f"({r.seconds / (r.env_steps / num_envs) * 1e3:.1f} ms per batch step)"
    )


class NullAEC(AECEnv):
    """Two agents taking turns for 20 steps; does nothing else. The cost floor of the wrappers."""

    metadata = {"name": "null_v0", "render_modes": [], "is_parallelizable": False}

    def __init__(self) -> None:
        super().__init__()
        self.possible_agents = ["player_0", "player_1"]
        self._space = gym.spaces.Dict(
            {
                "observation": gym.spaces.Box(0, 1, (8,), np.uint8),
                "action_mask": gym.spaces.Box(0, 1, (4,), np.int8),
            }
        )
        self._action = gym.spaces.Discrete(4)
        self._obs = {"observation": np.zeros(8, np.uint8), "action_mask": np.ones(4, np.int8)}

    def observation_space(self, agent):
        return self._space

    def action_space(self, agent):
        return self._action

    def reset(self, seed=None, options=None):
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self.agent_selection, self._count = "player_0", 0

    def observe(self, agent):
        return {k: v.copy() for k, v in self._obs.items()}

    def step(self, action):
        if self.terminations[self.agent_selection]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[self.agent_selection] = 0
        self._count += 1
        if self._count == 20:
            self.terminations = dict.fromkeys(self.agents, True)
        self.agent_selection = self.agents[self._count % 2]
        self._accumulate_rewards()


def null_env() -> AECEnv:
    aec = wrappers.TerminateIllegalWrapper(NullAEC(), illegal_reward=-1)
    return wrappers.OrderEnforcingWrapper(wrappers.AssertOutOfBoundsWrapper(aec))


def aec_steps_per_second(aec: AECEnv, seconds: float, rng: np.random.Generator) -> float:
    """AEC steps (``agent_iter`` iterations, dead steps included) per second."""
    steps, start = 0, time.perf_counter()
    aec.reset(seed=int(rng.integers(1 << 30)))
    while time.perf_counter() - start < seconds:
        for _agent in aec.agent_iter():
            obs, reward, terminated, truncated, info = aec.last()
            if terminated or truncated:
                action = None
            else:
                action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
            aec.step(action)
            steps += 1
        aec.reset()
    return steps / (time.perf_counter() - start)


def bench_aec(variant: str, players: int, seconds: float, rounds: int) -> None:
    from pettingzoo.classic import leduc_holdem_v4

    envs = {
        "leduc_holdem_v4": leduc_holdem_v4.env(),
        f"spar_env {variant} N={players}": spar_aec(variant=variant, num_players=players),
        "null env (wrappers only)": null_env(),
        "leduc_holdem_v4 raw_env": leduc_holdem_v4.raw_env(),
        f"spar_env raw_env {variant} N={players}": spar_raw(variant=variant, num_players=players),
        "null env raw": NullAEC(),
    }
    rng = np.random.default_rng(0)
    rates: dict[str, list[float]] = {name: [] for name in envs}
    for _ in range(rounds):
        for name, aec in envs.items():
            rates[name].append(aec_steps_per_second(aec, seconds, rng))
    for name, values in rates.items():
        leduc = rates["leduc_holdem_v4 raw_env" if "raw" in name else "leduc_holdem_v4"]
        ratios = [v / base for v, base in zip(values, leduc, strict=True)]
        print(
            f"aec      {name:<32} {statistics.median(values):>10,.0f} AEC steps/s   "
            f"x leduc per round: {', '.join(f'{r:.2f}' for r in ratios)}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=["vector", "selfplay", "aec"], default=None)
    parser.add_argument("--variant", default="spar")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--num-envs", type=int, default=4096)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--rounds", type=int, default=3, help="interleaved AEC rounds")
    args = parser.parse_args()
    for mode in ("vector", "selfplay"):
        if args.only in (None, mode):
            bench_batched(mode, args.num_envs, args.variant, args.players, args.seconds)
    if args.only in (None, "aec"):
        bench_aec(args.variant, args.players, args.seconds / 2, args.rounds)


if __name__ == "__main__":
    main()
