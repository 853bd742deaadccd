"""Published figures as data: each measured figure lives once, as an entry of a results file
in ``benchmarks/results/``, and every page shows it from there (:mod:`figure_pages`).

A results file, ``benchmarks/results/FILE.json``, belongs to one benchmark (its ``about``
says which) and holds:

- ``entries``: ``KEY -> entry``, each a figure with its 95% interval: ``value``,
  ``interval`` (the half-width; ``null`` for a figure without one, such as a speed),
  ``decimals`` (as published), ``unit`` (``""``, ``"%"`` or ``"×"``),
  ``what`` it measures, the exact ``command``, the ``date``, the ``commit`` and the
  ``machine``; optionally ``signed`` (default: a ``+`` on figures without a unit),
  ``card`` (``NAME#a.b``: the bot card ``checkpoints/NAME.json`` holds the raw
  measurement at ``a.b``, and :func:`card_differences` checks that they agree),
  ``output`` (the transcript it is read from) and ``history`` (earlier measurements,
  newest last, each ``value``, ``interval``, ``command``, ``date``, ``commit``,
  ``machine``);
- ``tables``: ``KEY -> {"columns": [...], "rows": [[...]]}``, Markdown cells in which
  ``{FILE.KEY}`` shows an entry;
- ``outputs``: ``KEY -> {"command", "date", "commit", "machine", "lines"}``, a command's
  printed transcript as published.

The figures published before the results files were migrated as the pages gave them: their
``commit`` is the one that first published the figure (``git log -S``), and their date and
machine are the page's (the date of that commit where the page gave none).

An entry is named ``FILE.KEY`` (``strength.spar4.heuristic_4p``); ``NAME@DATE`` names the
measurement of that date, the entry's own or one of its history. A page shows an entry as
``+0.173 ± 0.014`` (a minus sign, not a hyphen, in prose).

A benchmark run writes or updates its entry, told only which one: ``--record NAME`` on a
benchmark script (:func:`add_record_option`, :func:`record`), or, for a figure that one
``spar bench`` command measures, ``python benchmarks/figures.py measure NAME``, which runs
the entry's own command again. Either fills in the command, date, commit and machine, and
keeps the previous measurement in the entry's history.

    python benchmarks/figures.py show strength.spar4.heuristic_4p
    python benchmarks/figures.py measure strength.spar4.heuristic_4p
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass, replace
from pathlib import Path

from spar_env.atomic import atomic_output

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
MINUS = "\N{MINUS SIGN}"
# FILE.KEY, then optionally @DATE (that day's measurement) and :D (shown with D decimals)
NAME = r"[a-z][a-z0-9_]*\.[a-z0-9_.]*[a-z0-9_](?:@\d{4}-\d\d-\d\d)?(?::\d)?"
_REQUIRED = ("value", "decimals", "what", "command", "date", "commit", "machine")
_UNITS = ("", "%", "×")  # a unit is written against the number: 25.58%, 94.2×
_MEASUREMENT = ("value", "interval", "command", "date", "commit", "machine")


@dataclass(frozen=True)
class Entry:
    """One published figure and where it comes from."""

    name: str
    value: float
    interval: float | None  # None for a figure without one (a speed, a count)
    decimals: int
    unit: str
    signed: bool
    what: str
    command: str
    date: str
    commit: str
    machine: str
    card: str | None = None  # the bot card holding the raw measurement: "spar4#bench.heuristic"
    output: str | None = None  # the transcript (FILE.KEY of outputs) that printed it

    def text(self, minus: str = MINUS) -> str:
        """The figure as pages show it: ``+0.173 ± 0.014``, ``25.58% ± 0.36%``, ``457,712``."""
        d, u = self.decimals, self.unit
        number = f"{abs(self.value):,.{d}f}"
        sign = minus if self.value < 0 and float(number.replace(",", "")) != 0 else ""
        if self.signed and not sign and self.value >= 0:
            sign = "+"
        if self.interval is None:
            return f"{sign}{number}{u}"
        return f"{sign}{number}{u} ± {self.interval:,.{d}f}{u}"

    def provenance(self) -> str:
        return f"{self.command} ({self.date}, commit {self.commit}; {self.machine})"


@dataclass(frozen=True)
class Output:
    """A command's printed transcript, as published."""

    name: str
    command: str
    date: str
    lines: tuple[str, ...]
    fence: str  # the info string of the code block that shows it: "" or "text"


class Figures:
    """Every results file of a folder: its entries, tables and transcripts by full name."""

    def __init__(self, results: Path = RESULTS) -> None:
        self.results = results
        self.files: dict[str, dict] = {}
        for path in sorted(results.glob("*.json")):
            with path.open(encoding="utf-8") as f:
                self.files[path.stem] = json.load(f)
        self.entries: dict[str, Entry] = {}
        self.history: dict[str, list[Entry]] = {}
        self.tables: dict[str, dict] = {}
        self.outputs: dict[str, Output] = {}
        for stem, data in self.files.items():
            unknown = set(data) - {"about", "entries", "tables", "outputs"}
            if unknown or not isinstance(data.get("about"), str):
                raise ValueError(f"{stem}.json: needs 'about'; unknown keys {sorted(unknown)}")
            for key, raw in data.get("entries", {}).items():
                name = f"{stem}.{key}"
                self.entries[name] = _entry(name, raw)
                self.history[name] = [
                    _entry(name, {**raw, **old}) for old in raw.get("history", [])
                ]
            for key, table in data.get("tables", {}).items():
                self.tables[f"{stem}.{key}"] = table
            for key, raw in data.get("outputs", {}).items():
                self.outputs[f"{stem}.{key}"] = Output(
                    f"{stem}.{key}", raw["command"], raw["date"], tuple(raw["lines"]),
                    raw.get("fence", ""),
                )  # fmt: skip

    def entry(self, name: str) -> Entry:
        """The entry ``FILE.KEY``; ``FILE.KEY@DATE`` its measurement of that date, and
        ``...:D`` the same shown with ``D`` decimals."""
        name, _, decimals = name.partition(":")
        base, _, date = name.partition("@")
        if base not in self.entries:
            raise KeyError(f"no figure {base!r} in {_short(self.results)}")
        # a date names that day's first measurement: what a page dated that day cited
        found = [e for e in [*self.history[base], self.entries[base]] if e.date == date]
        found = found if date else [self.entries[base]]
        if not found:
            raise KeyError(f"figure {base!r} has no measurement of {date}")
        return replace(found[0], decimals=int(decimals)) if decimals else found[0]

    def table_markdown(self, name: str) -> str:
        """The table ``FILE.KEY`` as a Markdown table, each ``{FILE.KEY}`` cell shown."""
        if name not in self.tables:
            raise KeyError(f"no table {name!r} in {_short(self.results)}")
        table = self.tables[name]
        lines = [_row(table["columns"]), "|" + "---|" * len(table["columns"])]
        lines += [_row([self.fill(cell) for cell in row]) for row in table["rows"]]
        return "\n".join(lines)

    def output_block(self, name: str) -> str:
        """The transcript ``FILE.KEY`` as a fenced code block."""
        if name not in self.outputs:
            raise KeyError(f"no output {name!r} in {_short(self.results)}")
        out = self.outputs[name]
        return "\n".join([f"```{out.fence}", *out.lines, "```"])

    def fill(self, text: str) -> str:
        """``text`` with each ``{FILE.KEY}`` replaced by the entry's figure."""
        return re.sub(r"\{(" + NAME + r")\}", lambda m: self.entry(m[1]).text(), text)


def card_differences(figures: Figures, cards: Path = ROOT / "checkpoints") -> list[str]:
    """Entries that disagree with the bot card holding their raw measurement: the card's
    figure, rounded as the entry shows it, must be the entry's, and its interval within one
    last digit (a card may keep only the interval's rounded ends)."""
    found = []
    for name, entry in figures.entries.items():
        if entry.card is None or entry.interval is None:
            continue
        stem, _, where = entry.card.partition("#")
        node = json.loads((cards / f"{stem}.json").read_text(encoding="utf-8"))
        for part in where.split("."):
            node = node[int(part)] if isinstance(node, list) else node[part]
        if entry.unit == "%":
            value, ci = 100 * node["match_share"], node["ci95"]
            half = 100 * (ci[1] - ci[0]) / 2
        else:
            value, ci = node["mean_payoff"], node.get("payoff_ci95_halfwidth", node.get("ci95"))
            half = (ci[1] - ci[0]) / 2 if isinstance(ci, list) else ci
        step = 10.0**-entry.decimals
        if abs(value - entry.value) > step / 2 + 1e-9 or abs(half - entry.interval) > step + 1e-9:
            found.append(f"{name} shows {entry.text()}, but its card {entry.card} holds "
                         f"{value:.4f} ± {half:.4f}")  # fmt: skip
    return found


def _entry(name: str, raw: dict) -> Entry:
    missing = [k for k in _REQUIRED if raw.get(k) in (None, "")]
    if missing:
        raise ValueError(f"figure {name}: missing {', '.join(missing)}")
    unit = raw.get("unit", "")
    if unit not in _UNITS:
        raise ValueError(f"figure {name}: unit must be one of {_UNITS}, got {unit!r}")
    interval = raw.get("interval")
    return Entry(
        name, float(raw["value"]), None if interval is None else float(interval),
        int(raw["decimals"]), unit, bool(raw.get("signed", unit == "" and interval is not None)),
        raw["what"], raw["command"], raw["date"], raw["commit"], raw["machine"], raw.get("card"),
        raw.get("output"),
    )  # fmt: skip


def _row(cells: list[str]) -> str:
    return "|" + "|".join(f" {cell} " if cell else " " for cell in cells) + "|"


def _short(path: Path) -> str:
    try:
        return str(path.relative_to(ROOT))
    except ValueError:
        return str(path)


# --- recording: a benchmark run writes its entry ---------------------------------------------


def add_record_option(parser: argparse.ArgumentParser) -> None:
    """Give a benchmark script ``--record NAME``: write its figure to that entry."""
    parser.add_argument(
        "--record",
        metavar="NAME",
        help="write the figure to its entry FILE.KEY in benchmarks/results/ (with this "
        "command, today's date, the commit and the machine)",
    )


def record(
    name: str,
    value: float,
    interval: float | None,
    *,
    decimals: int | None = None,
    unit: str | None = None,
    what: str | None = None,
    command: str | None = None,
    signed: bool | None = None,
    results: Path = RESULTS,
) -> Entry:
    """Write (or update) the entry ``FILE.KEY`` with a new measurement.

    The command defaults to this process's own (``python benchmarks/x.py ...``); the date,
    commit and machine are today's, the checkout's and this machine's. An existing entry's
    previous measurement goes to its history; its ``decimals``, ``unit``, ``what`` and
    ``signed`` stay unless given.
    """
    path, key, data = _results_file(name, "an entry", results)
    entries = data.setdefault("entries", {})
    old = entries.get(key, {})
    new = {
        **old,
        "value": value,
        "interval": interval,
        "decimals": old.get("decimals", 3) if decimals is None else decimals,
        "unit": old.get("unit", "") if unit is None else unit,
        "what": what or old.get("what") or name,
        "command": command or this_command(),
        "date": datetime.date.today().isoformat(),
        "commit": this_commit(),
        "machine": this_machine(),
    }
    if signed is not None:
        new["signed"] = signed
    if old:
        new["history"] = [*old.get("history", []), {k: old[k] for k in _MEASUREMENT if k in old}]
    entries[key] = new
    _save(path, data)
    return _entry(name, new)


def record_output(
    name: str, lines: list[str], *, fence: str = "text", results: Path = RESULTS
) -> Output:
    """Write (or replace) the transcript ``FILE.KEY``: what this process printed, with its
    command, today's date, the commit and the machine (as :func:`record`)."""
    path, key, data = _results_file(name, "a transcript", results)
    out = {"command": this_command(), "date": datetime.date.today().isoformat(),
           "commit": this_commit(), "machine": this_machine(), "lines": lines, "fence": fence}  # fmt: skip
    data.setdefault("outputs", {})[key] = out
    _save(path, data)
    return Output(name, out["command"], out["date"], tuple(lines), fence)


def _results_file(name: str, what: str, results: Path) -> tuple[Path, str, dict]:
    """The results file of ``FILE.KEY``, the key, and the file's data (an empty ``about``
    for a new file)."""
    stem, _, key = name.partition(".")
    if not re.fullmatch(NAME, name) or "@" in name:
        raise ValueError(f"{what} name is FILE.KEY in lower case, got {name!r}")
    path = results / f"{stem}.json"
    data = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {"about": ""}
    return path, key, data


def _save(path: Path, data: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_output(path) as f:
        f.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def this_command() -> str:
    script = Path(sys.argv[0]).resolve()
    shown = _short(script) if script.is_file() else sys.argv[0]
    return shlex.join(["python", shown, *sys.argv[1:]])


def this_commit() -> str:
    """The checkout's commit, ``+changes`` if tracked files differ from it; else ``unknown``."""
    try:
        head = _git("rev-parse", "--short", "HEAD")
        changed = _git("status", "--porcelain", "--untracked-files=no")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + ("+changes" if changed else "")


def this_machine() -> str:
    """The CPU model, its count and the load average, as the pages describe a machine."""
    model = "unknown CPU"
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        found = re.search(r"^model name\s*:\s*(.+)$", cpuinfo.read_text(), flags=re.M)
        model = found[1].strip() if found else model
    load = f", load average {os.getloadavg()[0]:.1f}" if hasattr(os, "getloadavg") else ""
    return f"{model}, {os.cpu_count()} CPUs{load}"


def _git(*argv: str) -> str:
    return subprocess.run(
        ["git", *argv], cwd=ROOT, check=True, capture_output=True, text=True
    ).stdout.strip()


def measure(name: str, results: Path = RESULTS) -> Entry:
    """Run the entry's own ``spar bench`` command again (``--json``) and record its figure:
    the first agent's mean payoff per hand, or its share of matches for a ``%`` entry."""
    old = Figures(results).entry(name)
    words = shlex.split(old.command)
    if words[:2] != ["spar", "bench"]:
        raise ValueError(f"{name}: measure reruns spar bench commands; run {old.command!r}")
    spar = Path(sys.executable).parent / "spar"
    done = subprocess.run(
        [str(spar), *words[1:], "--json"], check=True, capture_output=True, text=True
    )
    first = json.loads(done.stdout)["agents"][0]
    if old.unit == "%":
        value, half = 100 * first["match_share"], 100 * first["match_ci95_halfwidth"]
    else:
        value, half = first["mean_payoff"], first["ci95_halfwidth"]
    return record(name, value, half, command=old.command, results=results)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.partition("\n\n")[0])
    sub = parser.add_subparsers(dest="what", required=True)
    sub.add_parser("show", help="an entry's figure and provenance").add_argument("name")
    sub.add_parser("measure", help="rerun an entry's spar bench command").add_argument("name")
    args = parser.parse_args(argv)
    entry = measure(args.name) if args.what == "measure" else Figures().entry(args.name)
    print(f"{entry.name}: {entry.text()}  {entry.what}\n  {entry.provenance()}")


if __name__ == "__main__":
    main()
