"""Solve a small two-player ruleset exactly with a CFR-family solver: the run around the solver.

    result = solve_exact(make_rules("mini"), "dcfr", 2000, log_dir="runs/mini")

Builds the tree (timed apart), runs the solver in chunks of ``eval_every``
iterations, measures the average policy exactly after each chunk
(:mod:`spar_agents.cfr.evaluation`), logs to TensorBoard and saves the average
policy (:mod:`spar_agents.cfr.policy`; :func:`load_policy` reads it back, with
checks). TensorBoard tags:

==============================  ===============================================
tag                             meaning
==============================  ===============================================
``cfr/nash_conv``               NashConv of the average policy (points/hand)
``cfr/game_value``              seat 0's expected payoff of the average policy
``cfr/iterations_per_second``   solver iterations per second over the chunk
==============================  ===============================================
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from spar_agents.cfr.build import build_tree
from spar_agents.cfr.evaluation import expected_value, game_value_bounds
from spar_agents.cfr.policy import CFRPolicy, load_policy
from spar_agents.cfr.seqform import sequence_form
from spar_agents.cfr.solvers import ALGORITHMS, make_solver
from spar_env.atomic import atomic_output
from spar_env.rules import Ruleset, make_rules
from spar_train.progress import Progress, Reporter, Summary
from spar_train.run_dir import run_folder

__all__ = ["SolveResult", "load_policy", "main", "run_solver", "solve_exact", "solve_lp_exact"]


@dataclass
class SolveResult:
    rules: Ruleset
    algorithm: str
    iterations: int
    nash_conv: float
    game_value: float  # seat 0's value of the average policy
    value_bounds: tuple[float, float]  # seat 0's equilibrium value lies in between
    build_seconds: float  # tree and sequence form
    solve_seconds: float  # solver iterations only
    eval_seconds: float  # exact evaluations
    policy: CFRPolicy
    policy_path: Path | None = None
    curve: list[tuple[int, float, float]] = field(default_factory=list)  # (iteration, s, NashConv)

    @property
    def iterations_per_second(self) -> float:
        return self.iterations / self.solve_seconds if self.solve_seconds > 0 else float("nan")

    @property
    def agent_spec(self) -> str:
        """The agent spec that plays the saved policy: ``cfr:runs/NAME/policy.npz``."""
        return f"cfr:{self.policy_path}"

    def summary(self) -> Summary:
        """The value found, how close to equilibrium, and what to do with the policy next."""
        low, high = self.value_bounds
        algorithm, variant = "lp" if self.algorithm == "lp" else "cfr", self.rules.variant
        solver = f" ({self.algorithm}, {self.iterations:,} iterations)" if self.iterations else ""
        return Summary(text=(
            f"{variant}, {algorithm}{solver}: seat 0's value {self.game_value:.6f} (equilibrium "
            f"value in [{low:.6f}, {high:.6f}]), NashConv {self.nash_conv:.3g} points per hand\n"
            f"tree {self.build_seconds:.1f} s, solve {self.solve_seconds:.1f} s, "
            f"evaluation {self.eval_seconds:.1f} s\n"
            f"policy:  {self.policy_path}\n"
            f"bench:   spar bench cfr:{self.policy_path} random --variant {variant} --players 2"
        ))  # fmt: skip


def solve_exact(
    rules: Ruleset,
    algorithm: str = "dcfr",
    iterations: int = 1000,
    *,
    seconds: float | None = None,
    target_nash_conv: float | None = None,
    log_dir: str | Path | None = None,
    policy_path: str | Path | None = None,
    eval_every: int = 100,
    report: Reporter | None = None,
) -> SolveResult:
    """Run ``algorithm`` for ``iterations`` (or until ``seconds`` or ``target_nash_conv``).

    Args:
        rules: a two-player ruleset the exact tree supports (``micro``, ``mini``...).
        algorithm: one of ``cfr``, ``cfr+``, ``dcfr``, ``pcfr+``.
        iterations: the most iterations to run.
        seconds: stop after the chunk that passes this much solver time.
        target_nash_conv: stop once the average policy's NashConv is below it.
        log_dir: TensorBoard events go here, and the policy to ``policy.npz``.
        policy_path: where to save the policy (overrides ``log_dir/policy.npz``).
        eval_every: iterations between exact evaluations (and log points).
        report: hears a :class:`~spar_train.progress.Progress` (phase ``cfr``) after each chunk.
    """
    if algorithm not in ALGORITHMS:
        raise ValueError(f"unknown algorithm {algorithm!r}; choose one of {', '.join(ALGORITHMS)}")
    if eval_every < 1 or iterations < 1:
        raise ValueError("iterations and eval_every must be at least 1")
    t0 = time.perf_counter()
    sf = sequence_form(build_tree(rules))
    build = time.perf_counter() - t0
    solver = make_solver(algorithm, sf)
    writer = None if log_dir is None else _writer(log_dir, rules, algorithm, iterations, eval_every)
    solve_s = eval_s = 0.0
    curve: list[tuple[int, float, float]] = []
    nc = float("nan")
    while solver.iteration < iterations:
        chunk = min(eval_every, iterations - solver.iteration)
        t = time.perf_counter()
        solver.step(chunk)
        dt = time.perf_counter() - t
        solve_s += dt
        t = time.perf_counter()
        profile = solver.average_policy()
        low, high = game_value_bounds(sf, profile)
        nc = high - low
        value = expected_value(sf, profile)
        eval_s += time.perf_counter() - t
        curve.append((solver.iteration, solve_s, nc))
        if writer is not None:
            writer.add_scalar("cfr/nash_conv", nc, solver.iteration)
            writer.add_scalar("cfr/game_value", value, solver.iteration)
            writer.add_scalar("cfr/iterations_per_second", chunk / dt, solver.iteration)
        if report is not None:
            report(Progress("cfr", solver.iteration, iterations, {"nash_conv": nc}))
        if (seconds is not None and solve_s >= seconds) or (
            target_nash_conv is not None and nc < target_nash_conv
        ):
            break
    if writer is not None:
        writer.close()
    if policy_path is None and log_dir is not None:
        policy_path = Path(log_dir) / "policy.npz"
    profile = solver.average_policy()
    times = (build, solve_s, eval_s)
    return _finish(rules, sf, profile, algorithm, solver.iteration, policy_path, times, curve)


def _writer(log_dir: str | Path, rules: Ruleset, algorithm: str, iterations: int,
            eval_every: int) -> Any:  # fmt: skip
    """A TensorBoard writer in ``log_dir``, with the solve's parameters as a table."""
    from torch.utils.tensorboard import SummaryWriter  # torch only where logging is asked

    writer = SummaryWriter(str(log_dir))
    params = {
        "variant": rules.variant,
        "players": rules.players,
        "algorithm": algorithm,
        "iterations": iterations,
        "eval_every": eval_every,
        **rules.options(),
    }
    table = "\n".join(f"|{k}|{v}|" for k, v in params.items())
    writer.add_text("hyperparameters", "|param|value|\n|-|-|\n" + table)
    return writer


def _finish(
    rules: Ruleset,
    sf,
    profile,
    algorithm: str,
    iterations: int,
    path: str | Path | None,
    times: tuple[float, float, float],
    curve: list[tuple[int, float, float]],
) -> SolveResult:
    """Evaluate the final profile exactly, save it as a policy, close the log: the result."""
    build, solve_s, eval_s = times
    t = time.perf_counter()
    low, high = game_value_bounds(sf, profile)
    value = expected_value(sf, profile)
    eval_s += time.perf_counter() - t
    policy = CFRPolicy.from_profile(
        sf, profile, algorithm=algorithm, iterations=iterations, nash_conv=high - low,
        game_value=value,
    )  # fmt: skip
    if path is not None:
        path = Path(path)
        policy.save(path)
    return SolveResult(
        rules=rules,
        algorithm=algorithm,
        iterations=iterations,
        nash_conv=high - low,
        game_value=value,
        value_bounds=(low, high),
        build_seconds=build,
        solve_seconds=solve_s,
        eval_seconds=eval_s,
        policy=policy,
        policy_path=path,
        curve=curve,
    )


def solve_lp_exact(rules: Ruleset, log_dir: str | Path | None = None) -> SolveResult:
    """Solve ``rules`` as the sequence-form linear program (:mod:`spar_agents.cfr.lp`), from both
    seats' sides; log the value and the NashConv of its equilibrium and save its policy."""
    from spar_agents.cfr.lp import solve_lp

    t0 = time.perf_counter()
    sf = sequence_form(build_tree(rules))
    build = time.perf_counter() - t0
    t = time.perf_counter()
    lp = solve_lp(sf)
    solve_s = time.perf_counter() - t
    path = None if log_dir is None else Path(log_dir) / "policy.npz"
    result = _finish(rules, sf, lp.profile, "lp", 0, path, (build, solve_s, 0.0), [])
    if log_dir is not None:
        from torch.utils.tensorboard import SummaryWriter

        with SummaryWriter(str(log_dir)) as writer:
            writer.add_scalar("cfr/nash_conv", result.nash_conv, 0)
            writer.add_scalar("cfr/game_value", result.game_value, 0)
            writer.add_scalar("lp/value_seat0_side", lp.value_seat0_side, 0)
            writer.add_scalar("lp/value_seat1_side", lp.value_seat1_side, 0)
    return result


def run_solver(
    config, runs_dir: str | Path = "runs", report: Reporter | None = None, *, resume: bool = False
) -> SolveResult:
    """The ``spar train`` run of an ``algorithm = "cfr"`` or ``"lp"`` config: ``runs/<name>/``
    holds its ``config.toml``, TensorBoard events and ``policy.npz``. A solve that fails
    removes its folder; ``resume`` solves a folder without a policy (a killed solve) again.

    Raises:
        ConfigError: for a run folder that exists already (a solved one, when resuming).
    """
    from spar_train.config import ConfigError

    run_dir = Path(runs_dir) / config.run.name
    if resume and (run_dir / "policy.npz").is_file():
        raise ConfigError(
            f"--resume {run_dir}: the solve is finished (its policy is {run_dir / 'policy.npz'}); "
            "a new solve needs another --name"
        )
    with run_folder(run_dir, resume=resume, has_checkpoint=lambda d: (d / "policy.npz").is_file()):
        return _solve_into(config, run_dir, report)


def _solve_into(config, run_dir: Path, report: Reporter | None) -> SolveResult:
    """The solve inside its locked folder (:func:`run_solver`)."""
    from spar_env import __version__
    from spar_train.config import CONFIG_FILE, dump_config, rules_of

    with atomic_output(run_dir / CONFIG_FILE) as f:
        f.write(dump_config(config, __version__))
    rules = rules_of(config)
    if config.algorithm == "lp":
        result = solve_lp_exact(rules, log_dir=run_dir)
        if report is not None:
            report(Progress("lp", 1, 1, {"nash_conv": result.nash_conv}))
        return result
    v = config.solver
    return solve_exact(
        rules,
        v.algorithm,
        v.iterations,
        seconds=v.seconds or None,
        target_nash_conv=v.target_nash_conv or None,
        log_dir=run_dir,
        eval_every=v.eval_every,
        report=report,
    )


def main(argv: list[str] | None = None) -> SolveResult:
    """``python -m spar_train.solve --variant mini --algorithm dcfr --iterations 2000``."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--variant", default="micro")
    ap.add_argument("--algorithm", default="dcfr", choices=ALGORITHMS)
    ap.add_argument("--iterations", type=int, default=1000)
    ap.add_argument("--seconds", type=float, default=None)
    ap.add_argument("--eval-every", type=int, default=100)
    ap.add_argument("--log-dir", default=None)
    args = ap.parse_args(argv)
    result = solve_exact(
        make_rules(args.variant),
        args.algorithm,
        args.iterations,
        seconds=args.seconds,
        log_dir=args.log_dir,
        eval_every=args.eval_every,
    )
    print(
        f"{args.variant} {result.algorithm}: {result.iterations} iterations, "
        f"NashConv {result.nash_conv:.3g}, seat 0 value {result.game_value:.6f}, "
        f"{result.iterations_per_second:,.0f} it/s (tree {result.build_seconds:.2f} s)"
    )
    return result


if __name__ == "__main__":
    main()
