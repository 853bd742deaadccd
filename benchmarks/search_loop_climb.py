"""The climb of a search-in-the-loop run: its league's rating of each iteration, by update.

A run with ``search.league_every`` keeps its network every so many updates in
``runs/NAME/iterations/`` and adds it to ``runs/NAME/league`` (with the bot it started from,
drawn at update 0). After ``spar league play runs/NAME/league --deals N``, this draws each
entrant's rating with its 95% interval against the update it was kept at:

    spar league play runs/exit_spar2/league --deals 20000
    python benchmarks/search_loop_climb.py runs/exit_spar2/league --out climb.png

Several leagues draw as several lines (a run and its control, for example).
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

ITERATION = re.compile(r"update_(\d+)\.pt$")


def climb(folder: Path) -> list[tuple[int, float, float, str]]:
    """``(update, rating, interval, spec)`` of each rated entrant of the league, by update; an
    entrant that is not one of the run's iterations (the bot it started from) at update 0."""
    from spar_train.league import load, standings

    table = standings(load(folder)).to_dict()
    points = []
    for entrant in table["entrants"]:  # type: ignore[union-attr]
        if entrant["rating"] is None:  # no match played yet, or not tied to the others
            print(f"not rated yet: {entrant['spec']}")
            continue
        found = ITERATION.search(entrant["spec"])
        update = int(found.group(1)) if found else 0
        points.append((update, entrant["rating"], entrant["ci95_halfwidth"], entrant["spec"]))
    return sorted(points)


def main(argv: list[str] | None = None) -> dict[str, list[tuple[int, float, float, str]]]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("leagues", nargs="+", type=Path, help="league folders")
    parser.add_argument("--out", type=Path, required=True, help="the chart (.png, .svg)")
    args = parser.parse_args(argv)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from spar_env.atomic import atomic_output

    curves = {str(folder): climb(folder) for folder in args.leagues}
    fig, ax = plt.subplots(figsize=(7, 4))
    for name, points in curves.items():
        updates, ratings, widths, _ = zip(*points, strict=True)
        ax.errorbar(updates, ratings, yerr=widths, marker="o", capsize=3, label=name)
        print(name)
        for update, rating, width, spec in points:
            print(f"  update {update:>6}: {rating:+6.1f} ± {width:.1f}  {spec}")
    ax.axhline(0, color="grey", lw=0.8)
    ax.set_xlabel("update (0: the bot the run started from)")
    ax.set_ylabel("league rating, stakes per 100 hands (95% interval)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    with atomic_output(args.out, "wb") as f:
        fig.savefig(f, format=args.out.suffix.lstrip(".") or "png")
    return curves


if __name__ == "__main__":
    main()
