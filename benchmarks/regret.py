"""How far each bot plays from a strong search: its regret per decision (:mod:`spar_train.regret`).

Deals ``--positions`` decisions of self-play (hands dealt with ``--seed``, played by ``--by``
in every seat), has a judge search (``--worlds`` worlds x ``--candidates`` candidates, the
model of the seats ``--judge-policy``, no prior) value every legal card of each decision in the
same worlds, then asks each ``--agent`` for its card at every decision: its regret is the
judge's best card's value less its card's. No matches are played. For each player count of
``--players`` it prints the mean regret over the decisions with a choice (95% interval, each
hand one draw), each agent less the first on the same decisions (paired), how often it plays
the judge's card, and the breakdown by trick and by leading or following::

    OMP_NUM_THREADS=1 NUMBA_NUM_THREADS=1 python benchmarks/regret.py \\
        --agent onnx:universal --agent onnx:exit4 --agent search --players 4 --positions 1000

The judge's seed is ``--seed`` plus 1000: a searching agent with the same seed, or with as many
worlds as the judge or more, is refused (it would be judged by its own worlds).

``--json FILE`` writes every figure; ``--record NAME`` (one player count) writes each agent's
mean regret to the entry ``NAME.<agent>`` of ``benchmarks/results/``, each agent less the first
and less the row above to ``NAME.<agent>_less_<other>``, and the printed tables to the
transcript ``NAME`` (:mod:`figures`).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import Progress
from rich.table import Table

from spar_agents import make_agent
from spar_env.atomic import atomic_output
from spar_env.rules import make_rules
from spar_train.evaluate import tag_of
from spar_train.regret import (
    Gap,
    Group,
    Regret,
    check_judge,
    difference,
    judge_positions,
    regret_of,
    self_play,
)

sys.path.insert(0, str(Path(__file__).resolve().parent))

from figures import add_record_option, record, record_output  # noqa: E402

AGENTS = ("onnx:universal", "onnx:exit4", "search")
BY = "onnx:path=universal,greedy=false"  # the universal bot, sampling its policy
JUDGE_SEED = 1000  # the judge's seed less --seed: apart from every agent's default seed (0)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--agent", action="append", metavar="SPEC",
                        help=f"an agent to judge (repeat; default {' '.join(AGENTS)})")  # fmt: skip
    parser.add_argument("--players", default="4", help="player counts, comma-separated: 2,3,4")
    parser.add_argument("--positions", type=int, default=1000, help="decisions per player count")
    parser.add_argument("--worlds", type=int, default=256, help="the judge's worlds")
    parser.add_argument("--candidates", type=int, default=4, help="the judge's candidates")
    parser.add_argument("--judge-policy", default="onnx:universal",
                        help="the judge's model of the seats")  # fmt: skip
    parser.add_argument("--by", default=BY, help="the agent whose self-play makes the positions")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path, help="write every figure here")
    add_record_option(parser)
    args = parser.parse_args(argv)
    agents = args.agent or list(AGENTS)
    try:
        if len(set(agents)) < len(agents):
            raise ValueError("each --agent once")
        counts = _player_counts(args.players)
        if args.record and len(counts) != 1:
            raise ValueError("--record takes one player count")
        report = {n: measure(agents, n, args) for n in counts}
    except ValueError as e:
        print(f"regret: error: {' '.join(str(e).split())}", file=sys.stderr)
        return 2
    console = Console(width=None if sys.stdout.isatty() else 160, record=True)  # a file: 160
    for n, figures in report.items():
        show(console, n, figures)
    if args.json is not None:
        with atomic_output(args.json) as f:
            f.write(json.dumps({str(n): r for n, r in report.items()}, indent=2) + "\n")
    if args.record:
        (figures,) = report.values()
        write_records(args.record, figures)
        record_output(args.record, console.export_text().rstrip().splitlines())
    return 0


def measure(agents: list[str], players: int, args: argparse.Namespace) -> dict[str, Any]:
    """The figures of every agent on one player count's positions."""
    rules = make_rules("spar", players=players)
    built = {spec: make_agent(spec, rules) for spec in agents}
    judge_spec = (f"search:policy={args.judge_policy},worlds={args.worlds},"
                  f"candidates={args.candidates},prior=0,seed={args.seed + JUDGE_SEED}")  # fmt: skip
    judge = make_agent(judge_spec, rules)
    check_judge(judge, built)  # type: ignore[arg-type]
    positions = self_play(rules, args.positions, args.seed, make_agent(args.by, rules))
    began = time.perf_counter()
    with Progress(transient=True, console=Console(stderr=True)) as bar:
        task = bar.add_task(
            f"judging {players}-player positions", total=int(positions.choice.sum())
        )
        judged = judge_positions(positions, judge, progress=lambda n: bar.advance(task, n))  # type: ignore[arg-type]
    judge_seconds = time.perf_counter() - began
    reports: dict[str, Regret] = {}
    out = []
    for i, (spec, agent) in enumerate(built.items()):
        began = time.perf_counter()
        reports[spec] = regret_of(agent, judged, seed=args.seed)
        seconds = time.perf_counter() - began
        less = {"less_first": difference(reports[spec], reports[agents[0]]),
                "less_above": difference(reports[spec], reports[agents[max(i - 1, 0)]])}  # fmt: skip
        out.append(_figures(spec, reports[spec], less, seconds))
    return {
        "players": players,
        "positions": positions.count,
        "hands": len(set(positions.hand.tolist())),
        "forced_share": next(iter(reports.values())).forced_share,
        "judge": judge_spec,
        "judge_seconds": judge_seconds,
        "by": args.by,
        "seed": args.seed,
        "agents": out,
    }


def show(console: Console, players: int, figures: dict[str, Any]) -> None:
    """The tables of one player count."""
    first = figures["agents"][0]["agent"]
    title = (f"{players}-player spar: regret per decision with a choice, {figures['positions']} "
             f"positions ({figures['hands']} hands of {figures['by']}, seed {figures['seed']}; "
             f"{figures['forced_share']:.0%} with one legal card); judge {figures['judge']}, "
             f"{figures['judge_seconds']:.0f} s")  # fmt: skip
    summary = Table(title=title)
    columns = ("agent", "regret", f"less {first}", "less the row above", "plays the judge's card",
               "seconds")  # fmt: skip
    for column in columns:
        summary.add_column(column, justify="left" if column == "agent" else "right")
    for i, a in enumerate(figures["agents"]):
        less = [
            "—" if i == 0 else _pm(a[key]["mean"], a[key]["ci95"], signed=True)
            for key in ("less_first", "less_above")
        ]
        summary.add_row(a["agent"], _pm(a["mean"], a["ci95"]), *less, f"{a['agreement']:.1%}",
                        f"{a['seconds']:.1f}")  # fmt: skip
    console.print(summary)
    parts = Table(title="where the regret lies: its mean by trick and by leading or following")
    parts.add_column("decisions")
    parts.add_column("with a choice (one card)", justify="right")
    for a in figures["agents"]:
        parts.add_column(a["agent"], justify="right")
    for breakdown in ("by_trick", "by_role"):
        for i, g in enumerate(figures["agents"][0][breakdown]):
            cells = [_group_cell(a[breakdown][i], share=False) for a in figures["agents"]]
            parts.add_row(g["name"], f"{g['decisions']} ({g['forced']})", *cells)
        parts.add_section()
    console.print(parts)
    if len(figures["agents"]) < 2:
        return
    gaps = Table(title="where each agent gains on the row above (paired): its regret less the "
                 "row above's (contribution)")  # fmt: skip
    gaps.add_column("decisions")
    for a, above in zip(figures["agents"][1:], figures["agents"], strict=False):
        gaps.add_column(f"{a['agent']} less {above['agent']}", justify="right")
    for breakdown in ("by_trick", "by_role"):
        for i, g in enumerate(figures["agents"][0][breakdown]):
            cells = [_group_cell(a["less_above"][breakdown][i], signed=True)
                     for a in figures["agents"][1:]]  # fmt: skip
            gaps.add_row(g["name"], *cells)
        gaps.add_section()
    console.print(gaps)


def write_records(name: str, figures: dict[str, Any]) -> None:
    """Each agent's mean regret, and each agent less the first and less the one above it
    (module docstring)."""
    where = (f"{figures['positions']} positions of {figures['players']}-player spar from "
             f"self-play of {figures['by']} (seed {figures['seed']}), judged by {figures['judge']}")  # fmt: skip
    agents = figures["agents"]
    for i, a in enumerate(agents):
        tag = tag_of(a["agent"]).lower()
        record(f"{name}.{tag}", a["mean"], a["ci95"], signed=False,
               what=f"mean regret per decision with a choice of {a['agent']}: {where}")  # fmt: skip
        others = {agents[0]["agent"]: a["less_first"], agents[i - 1]["agent"]: a["less_above"]}
        for other, gap in others.items() if i else ():
            record(f"{name}.{tag}_less_{tag_of(other).lower()}", gap["mean"], gap["ci95"],
                   what=f"regret of {a['agent']} less that of {other}, decision by decision "
                   f"(negative: nearer the judge): {where}")  # fmt: skip


def _figures(spec: str, r: Regret, less: dict[str, Gap], seconds: float) -> dict[str, Any]:
    return {
        "agent": spec,
        **_broken_down(r),
        **{key: _broken_down(gap) for key, gap in less.items()},
        "agreement": r.agreement,
        "decisions_with_a_choice": r.decisions - r.forced,
        "seconds": seconds,
    }


def _broken_down(r: Regret | Gap) -> dict[str, Any]:
    def group(g: Group) -> dict[str, Any]:
        none = not g.decisions  # no mean, no interval (JSON has no NaN)
        return {"name": g.name, "decisions": g.decisions, "forced": g.forced, "share": g.share,
                "mean": None if none else g.mean, "ci95": None if none else g.half,
                "contribution": g.contribution}  # fmt: skip

    return {"mean": r.mean, "ci95": r.half, "by_trick": [group(g) for g in r.by_trick],
            "by_role": [group(g) for g in r.by_role]}  # fmt: skip


def _player_counts(text: str) -> list[int]:
    try:
        counts = [int(part) for part in text.split(",")]
    except ValueError:
        raise ValueError(f"--players takes counts such as 4 or 2,3,4; got {text!r}") from None
    for n in counts:
        make_rules("spar", players=n)  # a clear error for a count spar does not allow
    return counts


def _group_cell(g: dict[str, Any], signed: bool = False, share: bool = True) -> str:
    """A group's mean and interval, and with ``share`` its contribution to the total."""
    if not g["decisions"]:
        return "—"
    mean = _pm(g["mean"], g["ci95"], signed)
    return f"{mean} ({g['contribution']:{'+' if signed else ''}.3f})" if share else mean


def _pm(mean: float, half: float, signed: bool = False) -> str:
    sign = "+" if signed else ""
    return f"{mean:{sign}.3f} ± {half:.3f}"


if __name__ == "__main__":
    sys.exit(main())
