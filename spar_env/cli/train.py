"""``spar train``: train an agent from a TOML config, with TensorBoard curves and safe checkpoints.

    spar train                                  # configs/ppo_spar4.toml, the default
    spar train configs/ppo_spar2.toml --seed 7 --name mine
    spar train configs/ppo_spar4.toml --set ppo.lr=3e-4 --set rollout.games=4096
    spar train --resume runs/mine               # go on from its latest checkpoint
    spar train configs/cfr_mini.toml            # solve mini exactly (DCFR)
    spar train configs/ppo_spar4.toml --ray     # rollouts on Ray actors ([ray] in the config)

A run is written to runs/NAME/: config.toml (the config in force), the
TensorBoard event files (tensorboard --logdir runs) and checkpoints/. The
trained agent is the spec ppo:runs/NAME, for spar bench and the environments.
A config with an unknown key, a wrong type, an impossible value, a size past
spar_env/limits.py or an agent that cannot be built for its game is refused
before the run folder is made, naming the key. The folder is locked while a
process trains into it; a run that fails before its first checkpoint removes
it, and --resume starts a run killed before then from the beginning. The keys and their defaults are in
train/config.py; configs/ holds ready-made configs.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from spar_env.cli.arguments import add_command, add_ray_option, seed


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = add_command(
        subparsers, "train", "train an agent (PPO self-play, or an exact CFR/LP solve)", __doc__
    )
    parser.add_argument(
        "config", nargs="?", type=Path, help="a TOML config (default: configs/ppo_spar4.toml)"
    )
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="change a config key, e.g. --set ppo.lr=3e-4 (repeatable)",
    )
    parser.add_argument("--seed", type=seed, help="the run's seed (run.seed)")
    parser.add_argument("--name", help="the run's name: it is written to runs/NAME (run.name)")
    parser.add_argument(
        "--resume", type=Path, metavar="RUN", help="go on with the run in this folder"
    )
    parser.add_argument("--runs-dir", type=Path, default=Path("runs"), help="folder of runs")
    add_ray_option(parser, "collect the PPO rollouts with ray.workers actors (ray.enabled)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from train.config import check, default_config_path, load_config
    from train.ppo import resume_config, train

    if args.resume is not None:
        if args.config is not None or args.seed is not None or args.name is not None:
            raise ValueError("--resume takes the run's own config: drop CONFIG, --seed and --name")
        config = resume_config(args.resume, args.set)
        config = config.replace(run=dataclasses.replace(config.run, name=args.resume.name))
        if args.ray is not None and not config.ray.enabled:
            raise ValueError(
                f"--ray: {args.resume} collected its rollouts without Ray, and its checkpoints "
                "hold those games; resume it without --ray"
            )
        if args.ray:  # a resumed run may find its cluster at another address
            config = config.replace(ray=dataclasses.replace(config.ray, address=args.ray))
        runs_dir = args.resume.parent
        _note_a_restart(args.resume, config.algorithm)
    else:
        config = load_config(args.config or default_config_path(), args.set)
        named = {"seed": args.seed, "name": args.name}
        config = config.replace(
            run=dataclasses.replace(config.run, **{k: v for k, v in named.items() if v is not None})
        )
        if args.ray is not None:
            if config.algorithm != "ppo":
                raise ValueError(
                    f"--ray: algorithm {config.algorithm!r} solves on one machine; "
                    "--ray spreads PPO's rollouts"
                )
            address = args.ray or config.ray.address
            config = config.replace(
                ray=dataclasses.replace(config.ray, enabled=True, address=address)
            )
        runs_dir = args.runs_dir
    if args.ray_timeout is not None:
        config = config.replace(ray=dataclasses.replace(config.ray, timeout=args.ray_timeout))
    check(config)
    console = Console(stderr=False)
    if config.algorithm == "mccfr":
        return _sampled(console, config, runs_dir, resume=args.resume is not None)
    if config.algorithm != "ppo":
        return _solve(console, config, runs_dir, resume=args.resume is not None)
    with _Bar(console, config.run.updates) as bar:
        try:
            result = train(config, runs_dir, resume=args.resume is not None, report=bar.update)
        except KeyboardInterrupt:
            bar.stop()
            print(
                f"spar train: stopped; {_resume_hint(runs_dir / config.run.name)}", file=sys.stderr
            )
            return 130
    _summary(console, config, result)
    return 0


def _progress(console: Console) -> Progress:
    """A bar with a description and a free text of live figures (off when not a terminal)."""
    return Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.fields[figures]}"),
        console=console,
        disable=not console.is_terminal,
    )


class _Bar:
    """A rich progress bar with the live figures (steps/s, KL, evaluation payoffs)."""

    def __init__(self, console: Console, updates: int) -> None:
        self.console = console
        self.live = console.is_terminal
        self.progress = _progress(console)
        self.task = self.progress.add_task("train", total=updates, figures="")

    def __enter__(self) -> _Bar:
        self.progress.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    def stop(self) -> None:
        self.progress.stop()

    def update(self, f: dict[str, Any]) -> None:
        if f["phase"] == "imitation":
            text = f"imitation {f['step']}/{f['of']}, cross-entropy {f['ce']:.3f}"
            self.progress.update(self.task, description="warm start", figures=text)
            if not self.live and f["step"] == f["of"]:
                print(f"warm start: {text}", flush=True)
            return
        evals = "  ".join(f"vs {k} {v:+.3f}" for k, v in f["eval"].items())
        text = f"{f['sps']:,.0f} decisions/s  KL {f['approx_kl']:.4f}  {evals}"
        self.progress.update(self.task, description="train", completed=f["update"], figures=text)
        if not self.live and f["evaluated"]:  # a log, not a terminal: one line per evaluation
            print(f"update {f['update']}/{f['of']}: {text}", flush=True)


def _summary(console: Console, config: Any, result: Any) -> None:
    table = Table(title=f"{config.run.name}: evaluation after update {result.counters.update}")
    from train.ppo import rules_of

    low = "/".join(rules_of(config).rank_points) or "low"  # the scoring ranks: 6/7 in Spar
    for column in ("opponent", "mean payoff", f"kept {low}", f"won {low}", "won trick H-1"):
        table.add_column(column, justify="right")
    for spec, f in result.evaluations.items():
        table.add_row(
            f"{spec} × {config.game.players - 1}",
            f"{f['mean_payoff']:+.3f} ± {f['ci95']:.3f}",
            _share(f.get("kept_low_card")),
            _share(f.get("won_last_with_low_card")),
            _share(f.get("won_trick_before_last")),
        )
    console.print(table)
    run_dir = result.run_dir
    others = " ".join(["heuristic"] * (config.game.players - 1))
    minutes = result.counters.seconds / 60
    console.print(
        f"{result.counters.decisions:,} learner decisions in {minutes:.1f} min; "
        f"checkpoints in {run_dir}/checkpoints\n"
        f"curves:  tensorboard --logdir {run_dir.parent}\n"
        f"bench:   spar bench ppo:{run_dir} {others} --deals 20000"
    )


def _resume_hint(run_dir: Path) -> str:
    """How to go on with a run stopped by Ctrl-C: from its checkpoint, or from the beginning."""
    from train.ppo import has_checkpoint

    if has_checkpoint(run_dir):
        return f"resume from the latest checkpoint with spar train --resume {run_dir}"
    return f"it had no checkpoint yet: spar train --resume {run_dir} starts it from the beginning"


def _note_a_restart(run_dir: Path, algorithm: str) -> None:
    """Say so when ``--resume`` finds nothing to go on from and starts the run over."""
    from train.mccfr import has_tables
    from train.ppo import has_checkpoint
    from train.run_dir import holder_check

    holder_check(run_dir)  # a run in use is refused before any note
    found = {"ppo": has_checkpoint, "mccfr": has_tables}.get(algorithm)
    if found is not None and not found(run_dir):
        print(
            f"spar train: note: {run_dir} stopped before its first checkpoint; "
            "starting it from the beginning",
            file=sys.stderr,
        )


def _solve(console: Console, config: Any, runs_dir: Path, resume: bool = False) -> int:
    """An exact solve (``algorithm = "cfr"`` or ``"lp"``): progress, then the value found."""
    from train.solve import run_solver

    total = config.solver.iterations if config.algorithm == "cfr" else 1
    progress = _progress(console)
    task = progress.add_task(config.algorithm, total=total, figures="building the tree")

    def on_chunk(done: int, of: int, nash_conv: float) -> None:
        progress.update(task, completed=done, figures=f"NashConv {nash_conv:.3g}")

    with progress:
        result = run_solver(config, runs_dir, progress=on_chunk, resume=resume)
        progress.update(task, completed=total)
    low, high = result.value_bounds
    console.print(
        f"{config.game.variant}, {config.algorithm}"
        + (f" ({result.algorithm}, {result.iterations:,} iterations)" if result.iterations else "")
        + f": seat 0's value {result.game_value:.6f} (equilibrium value in [{low:.6f}, "
        f"{high:.6f}]), NashConv {result.nash_conv:.3g} points per hand\n"
        f"tree {result.build_seconds:.1f} s, solve {result.solve_seconds:.1f} s, "
        f"evaluation {result.eval_seconds:.1f} s\n"
        f"policy:  {result.policy_path}\n"
        f"bench:   spar bench cfr:{result.policy_path} random --variant {config.game.variant} "
        f"--players 2"
    )
    return 0


def _sampled(console: Console, config: Any, runs_dir: Path, resume: bool) -> int:
    """A sampled-CFR run (``algorithm = "mccfr"``): progress, then how the agent fares."""
    from train.mccfr import run_mccfr

    progress = _progress(console)
    task = progress.add_task("mccfr", total=config.mccfr.batches, figures="")

    def on_eval(f: dict[str, Any]) -> None:
        evals = "  ".join(f"vs {k} {v['mean_payoff']:+.3f}" for k, v in f["eval"].items())
        text = f"{f['deals']:,} hands  {f['deals_per_second']:,.0f} hands/s  {evals}"
        progress.update(task, completed=f["batches"], figures=text)
        if not console.is_terminal:
            print(f"batch {f['batches']}: {text}", flush=True)

    with progress:
        try:
            result = run_mccfr(config, runs_dir, resume=resume, progress=on_eval)
        except KeyboardInterrupt:
            progress.stop()
            where = runs_dir / config.run.name
            print(f"spar train: stopped; resume with spar train --resume {where}", file=sys.stderr)
            return 130
    table = Table(title=f"{config.run.name}: after {result.deals_walked:,} hands")
    for column in ("opponent", "mean payoff"):
        table.add_column(column, justify="right")
    for spec, f in result.evaluations.items():
        table.add_row(
            f"{spec} × {config.game.players - 1}", f"{f['mean_payoff']:+.3f} ± {f['ci95']:.3f}"
        )
    console.print(table)
    others = " ".join(["heuristic"] * (config.game.players - 1))
    console.print(
        f"{result.batches:,} batches in {result.seconds / 60:.1f} min "
        f"({result.solve_seconds / 60:.1f} min solving)\n"
        f"policy:  {result.policy_path}\n"
        f"curves:  tensorboard --logdir {result.run_dir.parent}\n"
        f"bench:   spar bench cfr:{result.policy_path} {others} --variant {config.game.variant} "
        f"--players {config.game.players} --deals 20000"
    )
    return 0


def _share(x: float | None) -> str:
    return "n/a" if x is None else f"{100 * x:.1f}%"
