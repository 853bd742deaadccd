"""``spar league``: a rating ladder in a folder. Agents join, pair matches are played, and
``show`` rates every entrant on one scale with a 95% interval.

    spar league add league/ heuristic random low high onnx:spar4 onnx:universal
    spar league play league/ --deals 20000        # scheduled where the intervals are widest
    spar league show league/ --plot league.png
    spar league add league/ ppo:runs/spar4        # joins; earlier matches are not replayed

A league is for one game, fixed by its first add (--variant, --players, --set; else the
game the first ppo:, onnx: or cfr: entrant was made for). Each pair match seats two
entrants round the table, as spar bench A B does, and plays its deals in every rotation. A
rating is the payoff per 100 hands an entrant wins over the league's average entrant: two
entrants 30 apart are expected to differ by 0.3 per hand when they meet. play plans a
round of matches at a time (first the pairs never played, then the matches that narrow the
widest interval) and saves the league after every match: a stopped play loses only the
match under way, and the next play finishes the round first. With --ray a round's matches
run as Ray tasks, and the table is the one a local run gives.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from spar_apps.cli.arguments import (
    add_command,
    add_ray_option,
    add_trust_code_option,
    nonempty_path,
    positive_int_at_most,
    positive_minutes,
    seed,
)
from spar_apps.cli.game_choice import rules_from_lineup
from spar_apps.cli.output import atomic_output, check_output_path
from spar_apps.cli.overrides import add_rules_arguments
from spar_env import strict_json
from spar_env.limits import MAX_DEALS, MAX_GAMES
from spar_env.printable import printable

PLOT_SUFFIXES = (".png", ".svg", ".pdf")
DEFAULT_PLAY_DEALS = 2000  # deals league play plays, unless --minutes is given alone


def register(subparsers: argparse._SubParsersAction) -> None:
    from spar_train.league import DEFAULT_MATCH_DEALS, DEFAULT_ROUND

    p = add_command(subparsers, "league", "a rating ladder of agents, kept in a folder", __doc__)
    actions = p.add_subparsers(title="actions", metavar="ACTION", dest="action", required=True)
    add = add_command(actions, "add", "add agents to a league (starting it)", __doc__)
    add.add_argument("folder", type=nonempty_path, metavar="LEAGUE", help="the league's folder")
    add.add_argument("agents", nargs="+", metavar="AGENT", help="agent specs to add")
    add_rules_arguments(add)
    add.add_argument("--seed", type=seed, default=0, help="a new league's seed (its deals)")
    add.set_defaults(func=run_add)

    play = add_command(actions, "play", "play the league's next matches", __doc__)
    play.add_argument("folder", type=nonempty_path, metavar="LEAGUE", help="the league's folder")
    play.add_argument(
        "--deals", "--hands", type=positive_int_at_most(MAX_DEALS, "deals"),
        help=f"deals to play, in whole matches (each deal is played in every rotation; default "
        f"{DEFAULT_PLAY_DEALS:,}, or no bound when --minutes is given alone)",
    )  # fmt: skip
    play.add_argument(
        "--match", type=positive_int_at_most(MAX_GAMES, "deals in a match"),
        default=DEFAULT_MATCH_DEALS, metavar="DEALS", help="deals in one pair match (2 or more)",
    )  # fmt: skip
    play.add_argument(
        "--round", type=positive_int_at_most(1024, "matches in a round"), default=DEFAULT_ROUND,
        metavar="MATCHES", help="matches planned at once (with --ray, played at once); "
        "the schedule depends on it",
    )  # fmt: skip
    play.add_argument(
        "--minutes", type=positive_minutes, metavar="M",
        help="stop after the match under way once M minutes have passed (alone: play for M "
        "minutes)",
    )  # fmt: skip
    add_ray_option(play, "play each round's matches as tasks")
    add_trust_code_option(play, "the league's league.json")
    play.set_defaults(func=run_play)

    show = add_command(actions, "show", "the league's ratings and pair results", __doc__)
    show.add_argument("folder", type=nonempty_path, metavar="LEAGUE", help="the league's folder")
    show.add_argument("--json", action="store_true", help="print the table as JSON")
    show.add_argument(
        "--plot", type=nonempty_path, metavar="FILE",
        help=f"save the ratings and the pair margins as a chart ({', '.join(PLOT_SUFFIXES)})",
    )  # fmt: skip
    show.set_defaults(func=run_show)


def run_add(args: argparse.Namespace) -> int:
    from spar_train.league import add_entrants, load

    folder: Path = args.folder
    if (folder / "league.json").exists() and args.variant is None and args.players is None \
            and not args.overrides:  # fmt: skip
        rules = load(folder).rules  # joining a league: its game
    else:
        rules, note = rules_from_lineup(args, args.agents)
        if note:
            print(f"spar league: {note}", file=sys.stderr)
    added = add_entrants(folder, args.agents, rules, args.seed)
    league = load(folder)
    kept = [s for s in args.agents if s.strip() not in added]
    print(printable(f"spar league: {folder}: {len(league.entrants)} entrants"
                    + (f"; added {', '.join(added)}" if added else "")
                    + (f"; already in: {', '.join(kept)}" if kept else "")))  # fmt: skip
    return 0


def run_play(args: argparse.Namespace) -> int:
    from rich.console import Console

    from spar_apps.cli.bench import progress_bar
    from spar_train.league import play_league

    if args.match < 2:
        raise ValueError("--match: a match needs at least 2 deals (its interval needs two)")
    if args.deals is None and args.minutes is None:
        args.deals = DEFAULT_PLAY_DEALS  # --minutes alone: no bound on the deals
    if args.ray is not None:
        from spar_train.distributed import connect

        connect(args.ray, args.ray_timeout)

    def skip(spec: str, why: str) -> None:
        print(printable(f"spar league: skipping {spec}: it does not load ({why})"), file=sys.stderr)

    with progress_bar(Console(stderr=True)) as bar:
        task = bar.add_task("deals", total=args.deals)
        try:
            done = play_league(args.folder, args.deals, match_deals=args.match,
                               round_size=args.round, minutes=args.minutes, ray=args.ray,
                               trust_code=args.trust_code, on_skip=skip,
                               on_deals=lambda n: bar.advance(task, n))  # fmt: skip
        except KeyboardInterrupt:
            bar.stop()
            print(f"spar league: stopped; every finished match is kept, and spar league play "
                  f"{args.folder} goes on with the round it had planned", file=sys.stderr)  # fmt: skip
            return 130
    print(f"spar league: {args.folder}: played {done:,} deals; spar league show "
          f"{args.folder} prints the table")  # fmt: skip
    return 0


def run_show(args: argparse.Namespace) -> int:
    from spar_train.league import load, standings

    if args.plot is not None:
        check_output_path(args.plot, "--plot", PLOT_SUFFIXES)
    table = standings(load(args.folder), check_loads=True)
    if args.plot is not None:
        plot_league(table, args.plot)
    if args.json:
        print(strict_json.dumps(table.to_dict(), indent=2))
    else:
        print_league(table, args.folder)
    return 0


def _cell(mean: float, half: float) -> str:
    import math

    if math.isnan(mean):
        return "·"
    return f"{100 * mean:+.1f}" + ("" if math.isnan(half) else f" ± {100 * half:.1f}")


def print_league(table, folder: Path) -> None:
    """The ratings, then the pair margins, as rich tables."""
    from rich import box
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    from spar_agents.signature import describe_game
    from spar_train.league.store import game_of

    console = Console(highlight=False)
    if not console.is_terminal:
        console = Console(width=160, highlight=False)
    r = table.ratings
    unit = f"{table.rules.payoff} per 100 hands"
    played = int(table.deals.sum()) // 2
    console.print(Text(printable(f"spar league {folder}: {describe_game(game_of(table.rules))}, "
                                 f"{table.matches} matches, {played:,} deals"), style="bold"))  # fmt: skip
    ratings = Table(box=box.SIMPLE_HEAD)
    for name, justify in (("#", "right"), ("agent", "left"), ("rating", "right"),
                          ("deals", "right"), ("met", "right")):  # fmt: skip
        ratings.add_column(name, justify=justify, no_wrap=name != "agent")
    for place, i in enumerate(table.order(), 1):
        spec = printable(table.entrants[i])  # a name from the league's file: shown, not obeyed
        if table.loads is not None and table.loads[i] is None:
            spec += " (runs code: not loaded to show)"
        elif table.loads is not None and not table.loads[i]:
            spec += " (does not load)"
        ratings.add_row(str(place), Text(spec), _cell(r.rating[i], r.halfwidth[i]),
                        f"{int(table.deals[i]):,}", str(int(table.opponents[i])))  # fmt: skip
    console.print(ratings)
    widened = (f", widened ×{r.dispersion**0.5:.2f} as the pair results are not all additive"
               if r.dispersion > 1 else "")  # fmt: skip
    console.print(
        f"rating: {unit} won over the league's average entrant, with its 95% interval{widened}.\n"
        f"The ratings agree with {table.agree} of the {table.decided} pair results whose "
        "interval excludes 0.\n"
    )
    order = table.order()
    console.print("pair margins: the row's payoff minus the column's when they meet, "
                  f"{unit}, 95% interval (· never met)", style="bold")  # fmt: skip
    pairs = Table(box=box.SIMPLE_HEAD)
    pairs.add_column("")
    for n, _ in enumerate(order, 1):
        pairs.add_column(f"#{n}", justify="right", no_wrap=True)
    for n, i in enumerate(order, 1):
        pairs.add_row(Text(f"#{n} {printable(table.entrants[i])}"),
                      *("" if i == j else _cell(table.margin[i, j], table.margin_halfwidth[i, j])
                        for j in order))  # fmt: skip
    console.print(pairs)


def plot_league(table, path: Path) -> None:
    """The ratings with their intervals, beside a heat map of the pair margins."""
    import numpy as np
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    order = table.order()
    k = len(order)
    names = [printable(table.entrants[i]) for i in order]
    rating = 100 * table.ratings.rating[order]
    half = 100 * np.nan_to_num(table.ratings.halfwidth[order])
    fig = Figure(figsize=(6 + 0.55 * k, 1.8 + 0.45 * k), layout="constrained")
    FigureCanvasAgg(fig)
    left, right = fig.subplots(1, 2, width_ratios=[1, 1.2])
    rows = np.arange(k)[::-1]
    shown = np.nan_to_num(rating)
    left.errorbar(shown, rows, xerr=half, fmt="o", color="#2a7ab9", ecolor="black", capsize=5)
    left.axvline(0, color="black", lw=0.8)
    left.set_yticks(rows, [f"#{n} {name}" for n, name in enumerate(names, 1)])
    left.set_xlabel(f"rating ({table.rules.payoff} per 100 hands), 95% interval")
    left.grid(axis="x", alpha=0.3)
    margin = 100 * table.margin[np.ix_(order, order)]
    span = float(np.nanmax(np.abs(margin))) if np.isfinite(margin).any() else 1.0
    image = right.imshow(margin, cmap="RdBu", vmin=-span, vmax=span)
    right.set_xticks(range(k), [f"#{n}" for n in range(1, k + 1)])
    right.set_yticks(range(k), [f"#{n}" for n in range(1, k + 1)])
    for a in range(k):
        for b in range(k):
            if np.isfinite(margin[a, b]):
                dark = abs(margin[a, b]) > 0.6 * span
                right.text(b, a, f"{margin[a, b]:+.0f}", ha="center", va="center", fontsize=7,
                           color="white" if dark else "black")  # fmt: skip
    fig.colorbar(image, ax=right, label="row's margin over column, per 100 hands")
    from spar_agents.signature import describe_game
    from spar_train.league.store import game_of

    fig.suptitle(f"spar league: {describe_game(game_of(table.rules))}, {table.matches} matches")
    with atomic_output(path, "wb") as f:
        fig.savefig(f, format=path.suffix.lower().lstrip("."), dpi=110)
