"""The README's strength table: every agent against ``heuristic``, against the shipped bot, and its
approximate exploitability, in 2-player and 4-player ``spar``, each cell with its command.

    nice -n 19 python benchmarks/strength_table.py --commands      # the commands only
    python benchmarks/strength_table.py --players 4 --deals 4000 --minutes 30
    nice -n 19 python benchmarks/strength_table.py --players 2 --deals 300 --updates 20 --only random,heuristic

Each cell is one command (printed with ``--commands``):

- against ``heuristic``: ``spar bench AGENT heuristic ...`` (one agent, the other seats
  ``heuristic``), the agent's mean payoff per hand;
- against the universal bot: the same with ``onnx:universal`` (the bot ``spar play``
  seats in 4-player spar; in 2-player spar it seats ``onnx:exit2``, a row here) in the
  other seats;
- approximate exploitability: ``spar exploit AGENT`` with a fixed budget (by default 30
  minutes on one thread, after imitating the shipped bot: ``--warm-start``), the best
  response's payoff per hand on fresh deals (:mod:`spar_train.exploit`).

An agent against copies of itself makes exactly 0 on rotated duplicate deals, so
those cells say so instead of playing. The 2-player table's sampled CFR row needs
``runs/mccfr_spar2/policy.npz`` (``spar train mccfr_spar2``, 30 minutes); a cell whose
agent cannot be built says why. The benches play the commands' own default batches,
so each cell is its command's figure. The published ``search`` exploitability cell comes
instead from a best response to a network distilled from search, benched against search
(docs/guide/strength.md): this script's plain best response makes a handful of updates.
Prints a markdown table, and writes it with ``--out``.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")

BOT = "onnx:universal"  # the reference bot of both tables (spar play seats it at 4 players)
AGENTS = {
    4: ["random", "heuristic", "pimc", "onnx:spar4", BOT, "search"],
    2: [
        "random",
        "heuristic",
        "pimc",
        BOT,
        "onnx:spar2",
        "onnx:exit2",
        "cfr:runs/mccfr_spar2/policy.npz",
        "search",
    ],
}
COLUMNS = ("vs heuristic", "vs the universal bot", "approx. exploitability")
WARM_START = BOT  # the best response first imitates the shipped bot


def commands(agent: str, players: int, deals: int, budget: str) -> list[str]:
    """The command of each cell of ``agent``'s row."""
    bench = f"--players {players} --deals {deals} --seed 0"
    others = players - 1
    return [
        f"spar bench {agent} {' '.join(['heuristic'] * others)} {bench}",
        f"spar bench {agent} {' '.join([BOT] * others)} {bench}",
        f"spar exploit {agent} --players {players} {budget} --deals {deals} --seed 0",
    ]


def cell(agent: str, opponent: str | None, players: int, deals: int, args) -> str:
    """One figure, ``+0.123 ± 0.014``, or why there is none."""
    from spar_env.rules import make_rules
    from spar_train.exploit import exploit_config, run_exploit
    from spar_train.tournament import run_tournament

    rules = make_rules("spar", players=players)
    try:
        if opponent is not None:
            if opponent == agent:
                return "0 (itself)"
            lineup = [agent] + [opponent] * (players - 1)
            mine = run_tournament(lineup, rules, deals, 0).agents[0]
        else:
            runs = args.runs_dir / f"spar{players}"
            config = exploit_config(agent, "spar", players, updates=args.updates,
                                    minutes=args.minutes, warm_start=args.warm_start)  # fmt: skip
            if (runs / config.run.name).exists():  # a table run again: bench the run it made
                mine = run_exploit(resume=runs / config.run.name, deals=deals)
            else:
                mine = run_exploit(config, runs, deals=deals)
        return f"{mine.mean_payoff:+.3f} ± {mine.ci95:.3f}"
    except (ValueError, OSError) as err:
        return f"n/a ({' '.join(str(err).split())[:80]})"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.partition("\n\n")[0])
    parser.add_argument("--players", type=int, choices=(2, 4), default=4)
    parser.add_argument("--deals", type=int, default=4000)
    parser.add_argument("--minutes", type=float, help="spar exploit's budget in minutes")
    parser.add_argument("--updates", type=int, help="spar exploit's budget in updates")
    parser.add_argument("--warm-start", default=WARM_START, help="spar exploit's --warm-start")
    parser.add_argument("--only", help="a comma list of the agents to run (default: all)")
    parser.add_argument("--runs-dir", type=Path, default=Path("runs/strength_table"))
    parser.add_argument("--commands", action="store_true", help="print the commands only")
    parser.add_argument("--out", type=Path, help="also write the markdown table here")
    args = parser.parse_args(argv)
    if args.minutes is None and args.updates is None:
        args.minutes = 30.0
    budget = " ".join(
        f"--{k} {v:g}" for k, v in (("minutes", args.minutes), ("updates", args.updates)) if v
    )
    if args.warm_start:
        budget += f" --warm-start {args.warm_start}"
    agents = AGENTS[args.players] if not args.only else args.only.split(",")
    if args.commands:
        for agent in agents:
            print("\n".join(commands(agent, args.players, args.deals, budget)))
        return
    lines = [
        f"| {args.players}-player spar | " + " | ".join(COLUMNS) + " |",
        "|---|---|---|---|",
    ]
    for agent in agents:
        opponents = ["heuristic", BOT, None]
        figures = [cell(agent, o, args.players, args.deals, args) for o in opponents]
        lines.append(f"| `{agent}` | " + " | ".join(figures) + " |")
        print(lines[-1], file=sys.stderr, flush=True)
    table = "\n".join(lines)
    print(f"{args.deals} deals per cell, spar exploit {budget}\n{table}")
    if args.out is not None:
        args.out.write_text(table + "\n")


if __name__ == "__main__":
    main()
