"""``spar bench``: the duplicate-deal tournament, as a table, JSON, CSV and a chart.

Plays every deal once per rotation of the seating, so that every agent holds
every hand, and reports each agent's mean payoff per hand with a 95%
confidence interval over deals, and the head-to-head payoffs. The lineup fills
the seats in order and repeats when shorter than the table.

    spar bench heuristic random random random --deals 20000 --seed 0
    spar bench heuristic random --players 4 --plot bench.png   # H R H R, head to head
    spar bench heuristic low low low --variant sipa --json
    spar bench pimc heuristic heuristic heuristic --deals 20000 --chunk 500 --ray
    spar bench ppo:runs/spar2 random          # the game the run was trained for
    spar bench heuristic random --matches 2000        # whole matches, to the session end

With --matches, each match is played to the game's session end (spar: first to
10; --set end=target:15, stones:30 or hands:5 choose another), in every rotation
of the seating, and the table gives each agent's share of matches won with its
95% interval over matches, beside its payoff per hand and the match length.

Without --variant and --players, the game is the one the first ppo:, onnx:
or cfr: agent was made for (--set still applies), and a line says so.

With --ray, each batch of --chunk deals is one Ray task (a local Ray, or the
cluster at ADDRESS) and the figures are those of a local run with the same
seed and chunk; a task whose worker dies is run again.
"""

from __future__ import annotations

import argparse
import csv
import sys
import time
from pathlib import Path

from spar_apps.cli.arguments import (
    add_command,
    add_ray_option,
    nonempty_path,
    positive_int_at_most,
    seed,
)
from spar_apps.cli.game_choice import rules_from_lineup
from spar_apps.cli.output import atomic_output, check_output_path, print_table
from spar_apps.cli.overrides import add_rules_arguments
from spar_env import strict_json
from spar_env.limits import MAX_DEALS, MAX_GAMES

CSV_FIELDS = (
    "variant", "players", "deals", "seed", "spec", "seats", "hands", "mean_payoff",
    "ci95_low", "ci95_high", "win_share", "points_per_win", "low_card_wins", "low_card_kept",
)  # fmt: skip
PLOT_SUFFIXES = (".png", ".svg", ".pdf")


def register(subparsers: argparse._SubParsersAction) -> None:
    from spar_train.match.bench import DEFAULT_MATCH_CHUNK
    from spar_train.tournament import DEFAULT_CHUNK

    p = add_command(
        subparsers, "bench", "duplicate-deal tournament between agents", __doc__,
        epilog=_agents_epilog(),
    )  # fmt: skip
    p.add_argument(
        "agents",
        nargs="+",
        metavar="AGENT",
        help="agent specs seated in order, repeated round the table if fewer than the players "
        "(e.g. heuristic random random random; heuristic random sits them alternately)",
    )
    add_rules_arguments(p)
    count = p.add_mutually_exclusive_group()
    count.add_argument(
        "--deals", type=positive_int_at_most(MAX_DEALS, "deals"), default=1000, help="deals to play"
    )
    count.add_argument(
        "--matches",
        type=positive_int_at_most(MAX_DEALS, "matches"),
        metavar="N",
        help="play N whole matches to the session end instead of single hands",
    )
    p.add_argument("--seed", type=seed, default=0, help="seed of the deals and agents, 0 or more")
    p.add_argument(
        "--chunk",
        type=positive_int_at_most(MAX_GAMES, "deals at once"),
        metavar="COUNT",
        help="deals (or matches) played at once (the agents draw one generator per batch, so "
        f"the figures depend on the seed and the chunk; with --ray, one task per batch; "
        f"default {DEFAULT_CHUNK} deals, {DEFAULT_MATCH_CHUNK} matches)",
    )
    add_ray_option(p, "play the batches as tasks")
    p.add_argument("--json", action="store_true", help="print the figures as JSON")
    p.add_argument("--csv", type=nonempty_path, metavar="FILE", help="write one CSV row per agent")
    p.add_argument(
        "--plot",
        type=nonempty_path,
        metavar="FILE",
        help=f"save a chart of the means ({', '.join(PLOT_SUFFIXES)})",
    )
    p.set_defaults(func=run)


def _agents_epilog() -> str:
    """The agent spec syntax and every registered agent with its parameters and defaults."""
    from spar_agents.registry import agent_names, agent_parameters

    lines = [
        "An AGENT is a name, then optionally :key=value,... (e.g. pimc:worlds=16,seed=1).",
        "Agents and their parameters (defaults):",
    ]
    names = agent_names()
    width = max(map(len, names))
    for name in names:
        params = ", ".join(f"{k}={v}" for k, v in agent_parameters(name).items())
        lines.append(f"  {name:<{width}}  {params}".rstrip())
    lines.append(f"Shipped bots, by name: {shipped_bots_line()}")
    return "\n".join(lines)


def shipped_bots_line() -> str:
    """``onnx:spar4 (spar, 4 players)``: every shipped bot as a spec, with its game."""
    from spar_agents.shipped import bot_card, bot_names

    return ", ".join(
        f"onnx:{name} ({bot_card(name)['game'].split(';')[0]})" for name in bot_names()
    )


def run(args: argparse.Namespace) -> int:
    from rich.console import Console

    from spar_agents.registry.spec import parse_lineup
    from spar_train.match.bench import DEFAULT_MATCH_CHUNK
    from spar_train.tournament import DEFAULT_CHUNK

    lineup = parse_lineup(args.agents)  # each spec read once, its game with it
    rules, note = rules_from_lineup(args, lineup)
    if note:  # on stderr: stdout may be the JSON
        print(f"spar bench: {note}", file=sys.stderr)
    if args.csv is not None:
        check_output_path(args.csv, "--csv")
    if args.plot is not None:
        check_output_path(args.plot, "--plot", PLOT_SUFFIXES)
    matches = args.matches is not None
    if matches:
        from spar_train.match.model import require_match_end

        require_match_end(rules)  # before any agent loads
    what = "matches" if matches else "deals"
    total = args.matches if matches else args.deals
    chunk = args.chunk or (DEFAULT_MATCH_CHUNK if matches else DEFAULT_CHUNK)
    play = _local(matches) if args.ray is None else _on_ray(args, total, chunk, matches)
    started = time.perf_counter()
    with progress_bar(Console(stderr=True)) as bar:
        task = bar.add_task(what, total=total)
        result = play(
            lineup if args.ray is None else args.agents,  # Ray's tasks are sent the texts
            rules,
            total,
            args.seed,
            chunk=chunk,
            progress=lambda done, total: bar.update(task, completed=done),
        )
    seconds = time.perf_counter() - started
    # Files first: a reader that closes stdout early (`| head`) must not cost them.
    if args.csv is not None:
        (write_match_csv if matches else write_csv)(result, args.csv)
    if args.plot is not None:
        (plot_match_shares if matches else plot_means)(result, args.plot)
    if args.json:
        print(strict_json.dumps(result.to_dict(), indent=2))
    elif matches:
        _print_match_table(result, seconds)
    else:
        _print_tables(result, seconds)
    return 0


def _local(matches: bool):
    if matches:
        from spar_train.match.bench import run_match_bench

        return run_match_bench
    from spar_train.tournament import run_tournament

    return run_tournament


def _on_ray(args: argparse.Namespace, total: int, chunk: int, matches: bool):
    """The bench on Ray, after a note if the chunk leaves some of the cluster's CPUs idle."""
    from spar_train.distributed import cluster_cpus, connect
    from spar_train.distributed.bench import (
        run_match_bench_on_ray,
        run_tournament_on_ray,
        spread,
    )

    connect(args.ray, args.ray_timeout)  # None: the default
    cpus = cluster_cpus()
    better = spread(total, chunk, cpus)
    if better is not None:
        tasks = -(-total // chunk)
        print(
            f"spar bench: note: {total:,} {'matches' if matches else 'deals'} make {tasks} "
            f"task{'s' * (tasks > 1)} of --chunk {chunk} for {cpus} CPUs; --chunk {better} "
            "gives each CPU one (the figures are then those of a local run with that chunk)",
            file=sys.stderr,
        )
    return run_match_bench_on_ray if matches else run_tournament_on_ray


def progress_bar(console):
    """A rich progress bar on stderr, shown only on a terminal and cleared when done."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    return Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=console,
        transient=True,
        disable=not console.is_terminal,
    )


def _fmt(value: float | None, spec: str = ".3f") -> str:
    return "n/a" if value is None else format(value, spec)


def _print_tables(result, seconds: float) -> None:
    from rich import box
    from rich.table import Table

    rules = result.rules
    scoring = bool(rules.rank_points)
    low = "/".join(rules.rank_points)
    explain = (
        f" won {low}: hands won at the last trick with a {low}; kept {low}: hands ending"
        f" with a {low}, of those holding one at trick 1."
        if scoring
        else ""
    )
    table = Table(
        box=box.SIMPLE_HEAD,
        title=(
            f"spar bench: {rules.variant}, {rules.players} players, {result.deals:,} deals"
            f" × {result.seating.rotations} rotations, seed {result.seed}"
        ),
        caption=f"mean {rules.payoff} per hand, 95% CI over deals ({seconds:.1f} s).{explain}",
    )
    table.add_column("agent", style="bold", no_wrap=True)
    columns = ["seats", "mean payoff", "win", "pts/win"]
    columns += [f"won {low}", f"kept {low}"] if scoring else []
    for name in columns:
        table.add_column(name, justify="right", no_wrap=True)
    for a in result.agents:
        cells = [
            str(a.seats),
            f"{a.mean_payoff:+.3f} ± {a.ci95:.3f}",
            f"{a.win_share:.1%}",
            _fmt(a.points_per_win, ".2f"),
        ]
        if scoring:
            cells += [_fmt(a.low_card_wins, ".1%"), _fmt(a.low_card_kept, ".1%")]
        table.add_row(a.spec, *cells)
    print_table(table)
    names = result.seating.agents
    h2h = Table(
        box=box.SIMPLE_HEAD,
        title="head to head",
        caption="net stake per hand that one seat of the column agent pays one of the row agent",
    )
    h2h.add_column("", style="bold")
    for name in names:
        h2h.add_column(name, justify="right", no_wrap=True)
    for i, row in enumerate(names):
        cells = [
            ""
            if i == j
            else f"{result.head_to_head[i, j]:+.3f} ± {result.head_to_head_ci95[i, j]:.3f}"
            for j in range(len(names))
        ]
        h2h.add_row(row, *cells)
    print_table(h2h)


def _print_match_table(result, seconds: float) -> None:
    from rich import box
    from rich.table import Table

    rules = result.rules
    ties = f"; {result.ties:.1%} of matches tied" if result.ties else ""
    table = Table(
        box=box.SIMPLE_HEAD,
        title=(
            f"spar bench: {rules.variant} {rules.end}, {rules.players} players, "
            f"{result.matches:,} matches × {result.seating.rotations} rotations, seed {result.seed}"
        ),
        caption=(
            f"matches won, with the 95% CI over matches; the fair share is seats / players. "
            f"{result.mean_hands:.1f} hands per match{ties} "
            f"({result.games / seconds:,.0f} matches/s, {seconds:.1f} s)."
        ),
    )
    table.add_column("agent", style="bold", no_wrap=True)
    for name in ("seats", "matches won", "fair", f"{rules.payoff} per hand"):
        table.add_column(name, justify="right", no_wrap=True)
    for a in result.agents:
        table.add_row(
            a.spec,
            str(a.seats),
            f"{a.match_share:.1%} ± {a.match_ci95:.1%}",
            f"{a.fair_share:.0%}",
            f"{a.mean_payoff:+.3f} ± {a.payoff_ci95:.3f}",
        )
    print_table(table)


MATCH_CSV_FIELDS = (
    "variant", "players", "end", "matches", "seed", "spec", "seats", "match_share",
    "ci95_low", "ci95_high", "fair_share", "mean_payoff", "mean_hands",
)  # fmt: skip


def write_match_csv(result, path: Path) -> None:
    """One row per agent of a match bench."""
    rules = result.rules
    with atomic_output(path) as f:
        writer = csv.DictWriter(f, fieldnames=MATCH_CSV_FIELDS)
        writer.writeheader()
        for a in result.agents:
            writer.writerow(
                {
                    "variant": rules.variant,
                    "players": rules.players,
                    "end": rules.end,
                    "matches": result.matches,
                    "seed": result.seed,
                    "spec": a.spec,
                    "seats": a.seats,
                    "match_share": a.match_share,
                    "ci95_low": a.match_share - a.match_ci95,
                    "ci95_high": a.match_share + a.match_ci95,
                    "fair_share": a.fair_share,
                    "mean_payoff": a.mean_payoff,
                    "mean_hands": result.mean_hands,
                }
            )


def write_csv(result, path: Path) -> None:
    """One row per agent, with the run's variant, players, deals and seed on each."""
    rules = result.rules
    with atomic_output(path) as f:
        writer = csv.DictWriter(f, fieldnames=CSV_FIELDS)
        writer.writeheader()
        for a in result.agents:
            writer.writerow(
                {
                    "variant": rules.variant,
                    "players": rules.players,
                    "deals": result.deals,
                    "seed": result.seed,
                    "spec": a.spec,
                    "seats": a.seats,
                    "hands": a.hands,
                    "mean_payoff": a.mean_payoff,
                    "ci95_low": a.mean_payoff - a.ci95,
                    "ci95_high": a.mean_payoff + a.ci95,
                    "win_share": a.win_share,
                    "points_per_win": "" if a.points_per_win is None else a.points_per_win,
                    "low_card_wins": "" if a.low_card_wins is None else a.low_card_wins,
                    "low_card_kept": "" if a.low_card_kept is None else a.low_card_kept,
                }
            )


def plot_means(result, path: Path) -> None:
    """A chart of each agent's mean payoff per hand with its 95% interval, as the suffix says."""
    rules = result.rules
    _plot_bars(
        [a.mean_payoff for a in result.agents],
        [a.ci95 for a in result.agents],
        [f"{a.spec}  ({a.seats} seat{'s' * (a.seats > 1)})" for a in result.agents],
        f"mean payoff per hand ({rules.payoff}), with 95% confidence interval",
        f"spar bench: {rules.variant}, {rules.players} players, "
        f"{result.deals:,} deals × {result.seating.rotations} rotations, seed {result.seed}",
        path,
    )


def plot_match_shares(result, path: Path) -> None:
    """A chart of each agent's share of matches won above or below its fair share."""
    rules = result.rules
    _plot_bars(
        [a.match_share - a.fair_share for a in result.agents],
        [a.match_ci95 for a in result.agents],
        [
            f"{a.spec}  ({a.match_share:.1%} of matches, fair {a.fair_share:.0%})"
            for a in result.agents
        ],  # fmt: skip
        "share of matches won minus the fair share (seats / players), with 95% interval",
        f"spar bench: {rules.variant} {rules.end}, {rules.players} players, "
        f"{result.matches:,} matches × {result.seating.rotations} rotations, seed {result.seed}",
        path,
    )


def _plot_bars(
    values: list[float], halves: list[float], labels: list[str], xlabel: str, title: str, path
) -> None:
    """Horizontal bars about 0 with their intervals, first on top, saved as the suffix says."""
    import numpy as np
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    means = np.array(values)
    half = np.nan_to_num(np.array(halves))
    rows = np.arange(len(means))[::-1]  # first agent on top
    fig = Figure(figsize=(7.5, 1.6 + 0.7 * len(means)), layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    colors = ["#2a7ab9" if m >= 0 else "#c8553d" for m in means]
    ax.barh(rows, means, height=0.55, color=colors, alpha=0.85)
    ax.errorbar(means, rows, xerr=half, fmt="none", ecolor="black", capsize=6, lw=1.5)
    ax.axvline(0, color="black", lw=0.8)
    ax.set_yticks(rows, labels)
    ax.set_xlabel(xlabel)
    ax.set_title(title, fontsize=10)
    span = float(np.max(np.abs(means) + half)) or 1.0
    ax.set_xlim(-1.35 * span, 1.35 * span)
    for row, m, h in zip(rows, means, half, strict=True):
        ax.annotate(
            f"{m:+.3f} ± {h:.3f}",
            (m + (h if m >= 0 else -h), row),
            xytext=(6 if m >= 0 else -6, 9),
            textcoords="offset points",
            ha="left" if m >= 0 else "right",
            fontsize=9,
        )
    ax.grid(axis="x", alpha=0.3)
    with atomic_output(path, "wb") as f:
        fig.savefig(f, format=path.suffix.lower().lstrip("."), dpi=120)
