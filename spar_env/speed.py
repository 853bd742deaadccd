"""Throughput under random legal play: the figures behind ``spar speed``.

Modes (every one plays uniformly random legal actions, and re-deals finished
games inside the timed loop):

=============  ==============================================================
``core``       the batch core alone: ``step`` on ``batch`` games
``vector``     the native Gymnasium vector env (``batch`` sub-envs, random
               opponents), reading observations and masks every step
``selfplay``   the self-play batch API, reading the mover's observation and mask
``aec``        the PettingZoo AEC env (``env()``, one game), the usual
               ``agent_iter`` / ``last`` / ``step`` loop
=============  ==============================================================

``agent_steps`` counts every action of every agent (cards played, exchange
decisions); ``env_steps`` counts the steps the caller takes (in ``vector``,
one learner decision per sub-env; elsewhere the same as agent steps).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass

import numpy as np

from spar_env.core import random_member, reset, start_sessions, step
from spar_env.core.tables import seats_in
from spar_env.rules import Ruleset

MODES = ("core", "vector", "selfplay", "aec")


@dataclass(frozen=True)
class SpeedResult:
    mode: str
    variant: str
    players: int
    batch: int
    seconds: float
    agent_steps: int
    env_steps: int
    hands: int

    @property
    def agent_steps_per_second(self) -> float:
        return self.agent_steps / self.seconds

    @property
    def env_steps_per_second(self) -> float:
        return self.env_steps / self.seconds

    @property
    def hands_per_second(self) -> float:
        return self.hands / self.seconds

    def to_dict(self) -> dict[str, float | int | str]:
        return {
            **asdict(self),
            "agent_steps_per_second": self.agent_steps_per_second,
            "env_steps_per_second": self.env_steps_per_second,
            "hands_per_second": self.hands_per_second,
        }


def measure(
    mode: str, rules: Ruleset, batch: int, seconds: float = 2.0, seed: int = 0
) -> SpeedResult:
    """Play for about ``seconds`` in ``mode`` (see the module docstring)."""
    runners: dict[str, Callable[..., tuple[int, int, int]]] = {
        "core": _run_core,
        "vector": _run_vector,
        "selfplay": _run_selfplay,
        "aec": _run_aec,
    }
    if mode not in runners:
        raise ValueError(f"mode must be one of {', '.join(MODES)}; got {mode!r}")
    if batch < 1:
        raise ValueError(f"batch must be at least 1; got {batch}")
    if mode == "aec" and batch != 1:
        raise ValueError("the AEC env plays one game: use batch 1")
    start = time.perf_counter()
    agent_steps, env_steps, hands = runners[mode](rules, batch, start + seconds, seed)
    elapsed = time.perf_counter() - start
    return SpeedResult(
        mode, rules.variant, rules.players, batch, elapsed, agent_steps, env_steps, hands
    )


def measure_core(rules: Ruleset, batch: int, seconds: float = 2.0, seed: int = 0) -> SpeedResult:
    """The batch core alone: ``measure("core", ...)``."""
    return measure("core", rules, batch, seconds, seed)


def random_legal(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per row of a ``[B, A]`` mask, as a learner reads it."""
    return np.where(mask, rng.random(mask.shape, dtype=np.float32), -1.0).argmax(axis=1)


def _run_core(rules: Ruleset, batch: int, deadline: float, seed: int) -> tuple[int, int, int]:
    rng = np.random.default_rng(seed)
    state = reset(rules, batch, rng)
    plays = hands = 0
    while True:
        for _ in range(64):  # look at the clock every few steps, not every step
            step(state, random_member(state.legal, rng), check=False)
            over = state.terminated
            if over.any():
                done = np.flatnonzero(over)
                hands += done.size
                plays += int(seats_in(state.active[done]).sum()) * rules.hand_size
                start_sessions(state, slice(None) if done.size == batch else done, rng)
        if time.perf_counter() >= deadline and hands:  # a figure needs one whole hand at least
            # Cards already played in the hands still running count too.
            plays += int((state.trick * seats_in(state.active) + state.pos).sum())
            return plays, plays, hands


def _run_vector(rules: Ruleset, batch: int, deadline: float, seed: int) -> tuple[int, int, int]:
    from spar_env.envs import SparVectorEnv

    envs = SparVectorEnv(batch, rules.variant, **_options(rules))
    rng = np.random.default_rng(seed)
    _obs, info = envs.reset(seed=seed)
    table = envs._table
    moves0, steps, hands = table.moves, 0, 0
    while time.perf_counter() < deadline or not hands:  # one whole hand at least
        _obs, _reward, terminated, _truncated, info = envs.step(
            random_legal(info["action_mask"].view(bool), rng)
        )
        steps += batch
        hands += int(terminated.sum())
    return table.moves - moves0, steps, hands


def _run_selfplay(rules: Ruleset, batch: int, deadline: float, seed: int) -> tuple[int, int, int]:
    from spar_env.envs import SelfPlay

    games = SelfPlay(rules.variant, batch_size=batch, seed=seed, **_options(rules))
    rng = np.random.default_rng(seed)
    steps = hands = 0
    while time.perf_counter() < deadline or not hands:  # one whole hand at least
        _obs, mask = games.observation, games.action_mask  # read both, as a trainer would
        games.step(random_legal(mask, rng))
        steps += batch
        hands += int(games.terminated.sum())
    return steps, steps, hands


def _run_aec(rules: Ruleset, batch: int, deadline: float, seed: int) -> tuple[int, int, int]:
    from spar_env.envs import env

    aec = env(variant=rules.variant, **_options(rules))
    rng = np.random.default_rng(seed)
    steps = hands = 0
    while time.perf_counter() < deadline or not hands:  # one whole hand at least
        aec.reset(seed=int(rng.integers(1 << 31)))
        for _agent in aec.agent_iter():
            obs, _reward, terminated, truncated, _info = aec.last()
            done = terminated or truncated
            aec.step(None if done else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            steps += 1
        hands += 1
    return steps, steps, hands


def _options(rules: Ruleset) -> dict[str, object]:
    """The env keyword arguments that rebuild ``rules`` from its preset."""
    return {"num_players": rules.players, **rules.options()}
