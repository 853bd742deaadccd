"""``spar train``: train an agent from a TOML config, with TensorBoard curves and safe checkpoints.

    spar train                                  # the shipped ppo_spar4, the default
    spar train --list                           # the shipped configs, by name
    spar train ppo_spar2 --seed 7 --name mine   # a shipped config by name
    spar train configs/ppo_spar2.toml --seed 7  # or any config file
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
it, and --resume starts a run killed before then from the beginning. The keys
and their defaults are in train/sections.py; configs/ holds ready-made configs,
shipped with the package (spar train --list names them).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Column, Table
from rich.text import Text

from spar_apps.cli.arguments import (
    add_command,
    add_ray_option,
    add_trust_code_option,
    nonempty_path,
    seed,
)
from spar_env.printable import printable


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = add_command(
        subparsers, "train", "train an agent (PPO self-play, or an exact CFR/LP solve)", __doc__
    )
    parser.add_argument(
        "config",
        nargs="?",
        help="a TOML config file, or the name of a shipped config (spar train --list; "
        "default: ppo_spar4)",
    )
    parser.add_argument(
        "--list", action="store_true", help="list the shipped configs and what each is for"
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
        "--resume", type=nonempty_path, metavar="RUN", help="go on with the run in this folder"
    )
    parser.add_argument(
        "--runs-dir", type=nonempty_path, default=Path("runs"), help="folder of runs"
    )
    parser.add_argument(
        "--league", type=nonempty_path, metavar="LEAGUE",
        help="when the run ends, add its agent to the league in this folder (spar league), "
        "starting one for the run's game if there is none",
    )  # fmt: skip
    add_ray_option(parser, "collect the PPO rollouts with ray.workers actors (ray.enabled)")
    add_trust_code_option(parser, "the config file (or the resumed run's config.toml)", True)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import spar_train
    from spar_train.config import default_config_path, load_config, resolve_config
    from spar_train.hooks import JoinLeague

    if args.list:
        return _list_configs()
    if args.config is not None:
        args.config = resolve_config(args.config)
    config, overrides = None, args.set
    if args.resume is not None:
        if args.config is not None or args.seed is not None or args.name is not None:
            raise ValueError("--resume takes the run's own config: drop CONFIG, --seed and --name")
    else:
        typed = [*args.set, *_typed_address(args.ray)]  # the user's own, never refused
        config = load_config(args.config or default_config_path(), typed,
                             trust_code=args.trust_code)  # fmt: skip
        overrides = ()
    league = None
    if args.league is not None:  # refused now, not when the run is over
        _check_league(args, config)
        league = JoinLeague(args.league)
    console = Console(stderr=False)
    with _Bar(console) as bar:
        try:
            result = spar_train.run(config, args.runs_dir, resume=args.resume, overrides=overrides,
                                    seed=args.seed, name=args.name, ray=args.ray,
                                    ray_timeout=args.ray_timeout, trust_code=args.trust_code,
                                    report=bar.update,
                                    hooks=[] if league is None else [league])  # fmt: skip
        except KeyboardInterrupt:
            bar.stop()
            where = args.resume or args.runs_dir / (args.name or config.run.name)
            solve = (config.algorithm if config else bar.phase) in ("cfr", "lp")
            hint = "" if solve else f"; {_resume_hint(Path(where))}"
            print(f"spar train: stopped{hint}", file=sys.stderr)
            return 130
    _summary(console, result.summary())
    return 0 if league is None else _said_league(league)


def _check_league(args: argparse.Namespace, config: Any) -> None:
    """Refuse a --league the run's agent could not join, before the run (a resumed run: its
    own config's game)."""
    from spar_train.config import resume_config
    from spar_train.league.join import check_joinable

    if config is None:
        config = resume_config(args.resume, args.set, trust_code=args.trust_code,
                               ray=args.ray)  # fmt: skip
    check_joinable(args.league, config)


def _typed_address(ray: str | None) -> list[str]:
    """``--ray ADDRESS`` as the ``--set`` it stands for: the cluster the user names (a Ray
    address a config file names is joined only with --trust-code; one typed is the user's
    choice); none for a bare ``--ray``, which joins the config's ``ray.address``."""
    return [f"ray.address={ray!r}"] if ray else []


def _said_league(league: Any) -> int:
    """Say whether the run's agent joined the league (:class:`spar_train.hooks.JoinLeague`)."""
    if league.error is not None:
        print(f"spar train: the run is saved, but {league.spec} did not join the league "
              f"{league.folder}: {league.error}", file=sys.stderr)  # fmt: skip
        return 1
    state = "joined" if league.joined else "was already in"
    print(f"spar train: {league.spec} {state} the league {league.folder}; "
          f"spar league play {league.folder} rates it")  # fmt: skip
    return 0


def _list_configs() -> int:
    """``spar train --list``: each shipped config's name and the first line of its comment."""
    from spar_train.config import config_names, config_summary

    names = config_names()
    width = max(map(len, names))
    for name in names:
        print(f"{name:<{width}}  {config_summary(name)}")
    return 0


def _progress(console: Console) -> Progress:
    """A bar with a description and a free text of live figures (off when not a terminal).

    The figures are cut with an ellipsis, and the bar narrows, to fit a narrow terminal on
    one line: a bar that wraps redraws as a scroll of half lines.
    """
    one_line = {"no_wrap": True, "overflow": "ellipsis"}
    return Progress(
        TextColumn("[bold]{task.description}", table_column=Column(**one_line)),
        BarColumn(bar_width=None, table_column=Column(ratio=1, min_width=4)),
        MofNCompleteColumn(table_column=Column(**one_line)),
        TimeElapsedColumn(),
        TextColumn("{task.fields[figures]}", table_column=Column(ratio=3, **one_line)),
        console=console,
        disable=not console.is_terminal,
        expand=True,
    )


class _Bar:
    """A rich progress bar with the live figures of any run (:class:`spar_train.progress.Progress`);
    in a log, not a terminal, one line per evaluation instead."""

    NAMES = {"imitation": "warm start", "ppo": "train"}  # else the phase's own name

    def __init__(self, console: Console) -> None:
        self.console = console
        self.live = console.is_terminal
        self.progress = _progress(console)
        self.task = self.progress.add_task("starting", total=None, figures="")
        self.phase: str | None = None

    def __enter__(self) -> _Bar:
        self.progress.start()
        if not self.live:  # a log: say at once that the run began, and what comes
            print("spar train: starting; a line follows each tenth of the warm start and each "
                  "evaluation (the first step also compiles the engine)", flush=True)  # fmt: skip
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    def stop(self) -> None:
        self.progress.stop()

    def update(self, event: Any) -> None:
        if event.phase in ("start", "note"):  # a line as it is (the device, the budget)
            self.progress.console.print(f"spar train: {event.note}", highlight=False)
            return
        self.phase = event.phase
        f = event.figures
        evals = "  ".join(f"vs {k} {v['mean_payoff']:+.3f}" for k, v in event.evaluations.items())
        line = None
        if event.phase == "imitation":
            text = f"imitation {event.step}/{event.of}, cross-entropy {f['cross_entropy']:.3f}"
            tenth = max(1, event.of // 10)
            shown = event.step == event.of or event.step % tenth == 0
            line = f"warm start: {text}" if shown else None
        elif event.phase == "ppo":
            text = f"{f['decisions_per_second']:,.0f} decisions/s  KL {f['approx_kl']:.4f}  {evals}"
            if "exploitability" in f:  # eval.exact
                text += f"  exploitability {f['exploitability']:.4f}"
            line = f"update {event.step}/{event.of}: {text}" if event.evaluated else None
        elif event.phase == "mccfr":
            text = f"{f['deals']:,} hands  {f['deals_per_second']:,.0f} hands/s  {evals}"
            line = f"batch {event.step}: {text}"
        else:  # an exact solve
            text = f"NashConv {f['nash_conv']:.3g}"
        name = self.NAMES.get(event.phase, event.phase)
        self.progress.update(self.task, description=name, completed=event.step, total=event.of,
                             figures=text)  # fmt: skip
        if not self.live and line is not None:
            print(line, flush=True)


def _summary(console: Console, summary: Any) -> None:
    """What the run reached (its result's :class:`~spar_train.progress.Summary`)."""
    if summary.columns:
        table = Table(title=summary.title)
        for column in summary.columns:
            table.add_column(column, justify="right")
        for row in summary.rows:
            table.add_row(*(Text(printable(cell)) for cell in row))  # names from files
        console.print(table)
    console.print(summary.text)


def _resume_hint(run_dir: Path) -> str:
    """How to go on with a run stopped by Ctrl-C: from its checkpoint, or from the beginning."""
    from spar_train.mccfr import has_tables
    from spar_train.ppo.checkpoint import has_checkpoint

    if has_checkpoint(run_dir) or has_tables(run_dir):
        return f"resume from the latest checkpoint with spar train --resume {run_dir}"
    return f"it had no checkpoint yet: spar train --resume {run_dir} starts it from the beginning"
