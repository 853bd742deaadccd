"""``spar equity``: each seat's chance to win the match, from any score.

Estimates a hand model of the lineup (who wins a hand, with how many points,
given who deals) from duplicate deals, then solves the match: exactly for a
session to a target whose table fits, by Monte Carlo with 95% intervals for
stones, hands:K and the largest tables (a line says which).

    spar equity                                  # 4 equal onnx:universal seats, to 10
    spar equity --players 2 --plot equity.png    # the heat map of a 2-player match
    spar equity heuristic random --scores 7,9,0,2 --dealer 1
    spar equity --set end=stones:30 --scores 12,9,0,2 --dealer 3   # stones held

A simulation plays at most a budget of hands (a line says so when the
matches are fewer than asked: a match to a far end lasts thousands of
hands). The table shows seat 0's chance by its score (rows) against seat 1's
(columns), any further seats at 0, averaged over who deals next.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from spar_apps.cli.arguments import (
    add_command,
    nonempty_path,
    positive_int_at_most,
    seed,
    whole_numbers,
)
from spar_apps.cli.game_choice import rules_from_lineup
from spar_apps.cli.output import atomic_output, check_output_path
from spar_apps.cli.overrides import add_rules_arguments
from spar_env import strict_json
from spar_env.limits import MAX_SCORE

PLOT_SUFFIXES = (".png", ".svg", ".pdf")
DEFAULT_LINEUP = "onnx:universal"


def register(subparsers: argparse._SubParsersAction) -> None:
    p = add_command(
        subparsers, "equity", "each seat's chance to win the match from any score", __doc__
    )
    p.add_argument(
        "agents",
        nargs="*",
        metavar="AGENT",
        help=f"the lineup the hand model is of, seated in order and repeated round the table "
        f"(default: {DEFAULT_LINEUP} at every seat)",
    )
    add_rules_arguments(p)
    p.add_argument(
        "--deals",
        type=positive_int_at_most(10_000_000, "deals"),
        default=2000,
        help="deals the hand model is estimated from, each dealt by every seat",
    )
    p.add_argument("--seed", type=seed, default=0, help="seed of the deals and the simulation")
    p.add_argument(
        "--scores",
        metavar="S0,S1,...",
        help="one state: every seat's score (in a stones:K session, the stones it holds)",
    )
    p.add_argument(
        "--played",
        type=int,
        metavar="H",
        help="hands played so far, with --scores in a hands:K session",
    )
    p.add_argument(
        "--dealer", type=int, metavar="SEAT", help="who deals the next hand (with --scores)"
    )
    p.add_argument("--json", action="store_true", help="print the figures as JSON")
    p.add_argument(
        "--plot",
        type=nonempty_path,
        metavar="FILE",
        help=f"save the heat map ({', '.join(PLOT_SUFFIXES)})",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from spar_train.match.equity import check_match_state, leader_grid, match_equity
    from spar_train.match.model import estimate_hand_model, require_match_end

    lineup = args.agents or [DEFAULT_LINEUP]
    rules, note = rules_from_lineup(args, lineup)
    if note and args.agents:
        print(f"spar equity: {note}", file=sys.stderr)
    require_match_end(rules)  # before the hand model is estimated
    scores = _scores(args.scores, rules.players)
    if args.dealer is not None and scores is None:
        raise ValueError("--dealer goes with --scores: the state whose next hand it deals")
    if args.dealer is not None and not 0 <= args.dealer < rules.players:  # before the work
        raise ValueError(f"--dealer must be a seat 0..{rules.players - 1}; got {args.dealer}")
    played = _played(args.played, scores, rules)
    if scores is not None:  # a state no match can be in is refused before the work
        stones = rules.end_kind == "stones"
        check_match_state(rules, None if stones else scores, scores if stones else None, played)
    if args.plot is not None:
        check_output_path(args.plot, "--plot", PLOT_SUFFIXES)
    model = estimate_hand_model(lineup, rules, args.deals, args.seed)
    _say_cost(model, rules, scores, played)
    start = match_equity(model, rules, seed=args.seed)
    state = None
    if scores is not None:
        dealer = args.dealer if args.dealer is not None else rules.first_dealer
        if dealer is None:
            raise ValueError("give --dealer SEAT: who deals the next hand")
        state = match_equity(model, rules, scores, dealer, seed=args.seed, hands_played=played)
    grid = leader_grid(model, rules)
    if args.plot is not None and grid is None:
        raise ValueError(f"a heat map needs an exact table: {rules.end} is found by simulation")
    if args.plot is not None:
        plot_grid(grid, rules, lineup, args.plot)
    if args.json:
        out = {
            "variant": rules.variant,
            "players": rules.players,
            "end": rules.end,
            "lineup": lineup,
            "deals": args.deals,
            "seed": args.seed,
            "hand_model": model.to_dict(),
            "start": _equity_dict(start),
            "grid": None if grid is None else grid.tolist(),
        }
        if state is not None:
            held = "stones" if rules.end_kind == "stones" else "scores"
            out["state"] = {held: scores, "dealer": dealer, **_equity_dict(state)}
            if rules.end_kind == "hands":
                out["state"]["hands_played"] = played
        print(strict_json.dumps(out, indent=2))
        return 0
    _print(rules, lineup, model, start, state, scores, grid)
    return 0


def _scores(text: str | None, players: int) -> list[int] | None:
    if text is None:
        return None
    scores = whole_numbers(text, "--scores", MAX_SCORE)
    if len(scores) != players:
        raise ValueError(
            f"--scores needs {players} scores of 0 or more, one per seat; got {len(scores)}"
        )
    return scores


def _played(played: int | None, scores: list[int] | None, rules) -> int:
    """The hands played of the state: a ``hands:K`` session with scores needs them."""
    if played is not None and (scores is None or rules.end_kind != "hands"):
        raise ValueError("--played goes with --scores in a hands:K session (--set end=hands:K)")
    if played is None and scores is not None and rules.end_kind == "hands" and any(scores):
        raise ValueError(
            f"give --played H: how many of the {rules.end_value} hands the state at "
            f"{','.join(map(str, scores))} has played"
        )
    return played or 0


def _say_cost(model, rules, scores: list[int] | None, played: int) -> None:
    """Before a simulation whose budget plays fewer matches than asked, say so on stderr."""
    from spar_train.match.equity import (
        EXACT_LIMIT,
        SIMULATED_HANDS,
        SIMULATED_MATCHES,
        expected_hands,
        simulated_matches,
        table_cells,
    )

    asked = SIMULATED_MATCHES
    if rules.end_kind == "target" and table_cells(rules.players, rules.end_value) <= EXACT_LIMIT:
        return
    matches = simulated_matches(model, rules, asked, SIMULATED_HANDS)
    if matches < asked:
        hands = expected_hands(model, rules)
        print(
            f"spar equity: {rules.end} is sampled from {matches:,} matches, not {asked:,}: "
            f"a match lasts about {hands:,.0f} hands, and a simulation plays at most "
            f"{SIMULATED_HANDS:,} (the intervals say how close)",
            file=sys.stderr,
        )


def _equity_dict(equity) -> dict[str, object]:
    return {
        "method": equity.method,
        "matches": equity.matches,
        "win": equity.win.tolist(),
        "ci95_halfwidth": equity.ci95.tolist(),
    }


def _chances(equity) -> str:
    if equity.method == "exact":
        return "  ".join(f"seat {s} {w:.1%}" for s, w in enumerate(equity.win))
    return "  ".join(
        f"seat {s} {w:.1%} ± {h:.1%}"
        for s, (w, h) in enumerate(zip(equity.win, equity.ci95, strict=True))
    )


def _print(rules, lineup, model, start, state, scores, grid) -> None:
    from rich import box
    from rich.console import Console
    from rich.table import Table

    from spar_apps.cli.output import print_table

    console = Console()
    if not console.is_terminal:  # a file or a pipe: no need to fold lines into 80 columns
        console = Console(width=max(120, 6 * (rules.end_value or 0) + 10))
    how = (
        "exact (dynamic programming)"
        if start.method == "exact"
        else f"sampled (Monte Carlo, {start.matches:,} matches, 95% CI)"
    )
    console.print(
        f"spar equity: {rules.variant} {rules.end}, {rules.players} players, "
        f"lineup {' '.join(lineup)}; hand model from {model.hands:,} hands; {how}",
        soft_wrap=True,  # one line, however long the lineup: the terminal folds it
    )
    console.print(f"from {'-'.join(['0'] * rules.players)}: {_chances(start)}")
    if state is not None:
        held = " stones" if rules.end_kind == "stones" else ""
        console.print(f"at {'-'.join(map(str, scores))}{held}: {_chances(state)}")
    if grid is None:
        return
    target = grid.shape[0]
    across = "the other seat's" if rules.players == 2 else "seat 1's (seats 2+ at 0)"
    table = Table(
        box=box.SIMPLE_HEAD,
        title=f"seat 0's chance to win the match, %: its score down, {across} across",
        caption="averaged over who deals next",
    )
    table.add_column("", style="bold", justify="right")
    for c in range(target):
        table.add_column(str(c), justify="right")
    for r in range(target):
        table.add_row(str(r), *(f"{100 * grid[r, c]:.0f}" for c in range(target)))
    print_table(table)


def plot_grid(grid, rules, lineup, path: Path) -> None:
    """The heat map of seat 0's chance against the leading other seat, as the suffix says."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    target = grid.shape[0]
    fig = Figure(figsize=(7.2, 6.2), layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    image = ax.imshow(grid, origin="lower", cmap="RdYlBu", vmin=0, vmax=1)
    fig.colorbar(image, ax=ax, label="chance seat 0 wins the match")
    if target <= 15:
        ax.set_xticks(range(target))
        ax.set_yticks(range(target))
        for r in range(target):
            for c in range(target):
                value = grid[r, c]
                ax.text(c, r, f"{100 * value:.0f}", ha="center", va="center", fontsize=7,
                        color="white" if value < 0.2 or value > 0.8 else "black")  # fmt: skip
    other = "the other seat" if rules.players == 2 else "seat 1 (seats 2+ at 0)"
    ax.set_xlabel(f"score of {other}")
    ax.set_ylabel("score of seat 0")
    ax.set_title(
        f"{rules.variant} {rules.end}, {rules.players} players: match equity ({' '.join(lineup)})",
        fontsize=10,
    )
    with atomic_output(path, "wb") as f:
        fig.savefig(f, format=path.suffix.lower().lstrip("."), dpi=120)
