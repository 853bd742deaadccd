"""The pages that show published figures, checked against their entries (:mod:`figures`).

Pages cite a figure, never copy it:

- **docs pages** (``docs/``, built by Sphinx): ``{figure-ref}`FILE.KEY``` in the text, and
  the directives ``{figure-table} FILE.KEY`` and ``{figure-output} FILE.KEY``
  (``docs/_ext/figure_refs.py``);
- **pages GitHub shows as written** (``README.md``, ``benchmarks/*.md``, ``CHANGELOG.md``):
  the figure followed by a comment naming its entry, ``+0.173 ± 0.014<!--fig:FILE.KEY-->``,
  and generated regions for tables and transcripts, ``<!--figures:FILE.KEY-->`` ...
  ``<!--/figures-->``. ``python benchmarks/figure_pages.py --write`` writes them from the
  entries; the check says where a page differs.

:func:`problems` lists what is wrong: a cited figure or region that differs from its entry,
a name with no entry, a figure quoted as plain text that equals an entry (cite it; a command's
transcript in a code block may show one), a figure quoted as plain text in more than one page
(a copy; give it an entry), an undated citation in a dated page (the notebook, the
changelog), an entry its transcript or its bot card does not agree with.

    python benchmarks/figure_pages.py            # check every page
    python benchmarks/figure_pages.py --write    # show every cited figure from its entry
    python benchmarks/figure_pages.py --count    # figures quoted in more than one file
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import defaultdict
from pathlib import Path

from figures import MINUS, NAME, ROOT, Figures, card_differences

# A figure with its interval, as pages write it: +0.173 ± 0.014, −61.4 ± 6.1, 25.58% ± 0.36%.
FIGURE = r"[+\-−]?\d[\d,]*(?:\.\d+)?%?\s?±\s?\d[\d,]*(?:\.\d+)?%?"
NUMBER = r"[+\-−]?\d[\d,]*(?:\.\d+)?(?:%|×)?"  # a figure without an interval: 457,712, 94.2×
CITED = re.compile(rf"(?P<figure>{FIGURE}|{NUMBER})?<!--fig:(?P<name>{NAME})-->")
REGION = re.compile(rf"<!--figures:(?P<name>{NAME})-->\n(?P<body>.*?)<!--/figures-->", re.S)
ROLE = re.compile(r"\{figure-ref\}`(?P<name>[^`\s]*)`")
DIRECTIVE = re.compile(r"^(?P<fence>```+|:::+)\{figure-(?P<kind>table|output)\}[ \t]*(?P<name>\S*)", re.M)  # fmt: skip
SKIP = {"_build", "_api", "_generated"}
# Pages of dated history: they cite the measurement of their day, NAME@DATE, which stays when
# the entry is measured again.
DATED = {"benchmarks/NOTEBOOK.md", "CHANGELOG.md"}


def pages(root: Path = ROOT) -> list[Path]:
    """Every page that may show a figure: the Markdown pages and the bot cards."""
    found = [root / "README.md", root / "CHANGELOG.md", root / "CONTRIBUTING.md"]
    found += sorted((root / "benchmarks").glob("*.md"))
    found += sorted(p for p in (root / "docs").rglob("*.md") if not SKIP & set(p.parts))
    found += sorted((root / "checkpoints").glob("*.json"))
    return [p for p in found if p.is_file()]


def is_docs_page(path: Path, root: Path = ROOT) -> bool:
    """Built by Sphinx, so it cites with the role and directives."""
    return path.suffix == ".md" and path.is_relative_to(root / "docs")


def normal(figure: str) -> str:
    """A figure as compared: one space, a hyphen for the minus sign."""
    return re.sub(r"\s*±\s*", " ± ", figure.replace(MINUS, "-").strip())


def written(text: str, figures: Figures) -> str:
    """A page that GitHub shows as written, with every cited figure and region from its entry."""

    def region(m: re.Match[str]) -> str:
        name = m["name"]
        body = (
            figures.output_block(name) if name in figures.outputs else figures.table_markdown(name)
        )
        return f"<!--figures:{name}-->\n{body}\n<!--/figures-->"

    text = REGION.sub(region, text)
    return CITED.sub(lambda m: f"{figures.entry(m['name']).text()}<!--fig:{m['name']}-->", text)


def literal_figures(text: str) -> list[tuple[int, str, bool]]:
    """The figures a page quotes as plain text (those it neither cites nor generates): each
    with its line and whether it stands in a code block (a command's transcript)."""
    masked = text
    for pattern in (REGION, CITED, ROLE):
        masked = pattern.sub(lambda m: re.sub(r"[^\n]", " ", m[0]), masked)
    code = _code_lines(masked)
    found = []
    for m in re.finditer(FIGURE, masked):
        line = masked.count("\n", 0, m.start()) + 1
        found.append((line, m[0], line in code))
    return found


def _code_lines(text: str) -> set[int]:
    """The numbers of the lines inside fenced code blocks."""
    inside, fence, lines = False, "", set()
    for number, line in enumerate(text.splitlines(), 1):
        opened = re.match(r"\s*(```+|~~~+)", line)
        if opened and (not inside or opened[1].startswith(fence)):
            inside, fence = not inside, opened[1]
        elif inside:
            lines.add(number)
    return lines


def problems(root: Path = ROOT, figures: Figures | None = None) -> list[str]:
    """What is wrong with the figures of the pages under ``root``; empty when all is well."""
    figures = figures or Figures(root / "benchmarks" / "results")
    shown: dict[str, list[str]] = defaultdict(list)
    for name, entry in figures.entries.items():
        shown[normal(entry.text())].append(name)
    found: list[str] = []
    quoted: dict[str, set[str]] = defaultdict(set)
    for path in pages(root):
        where = str(path.relative_to(root))
        text = path.read_text(encoding="utf-8")
        found += _names_problems(where, text, figures, is_docs_page(path, root))
        if not is_docs_page(path, root):
            found += _differences(where, text, figures)
        if where in DATED:
            found += [f"{where}: a dated page cites the measurement of its day: {m['name']}@DATE"
                      for m in CITED.finditer(text) if "@" not in m["name"]]  # fmt: skip
        for line, figure, transcript in literal_figures(text):
            quoted[normal(figure)].add(where)
            if normal(figure) in shown and not transcript:
                found.append(
                    f"{where}:{line}: {figure} copies the figure of {' or '.join(shown[normal(figure)])}; "
                    "cite the entry instead"
                )  # a transcript shows what a command printed that day, and may match one
    for figure, where in sorted(quoted.items()):
        if len(where) > 1 and figure not in shown:
            found.append(f"{figure} is quoted in {len(where)} files ({', '.join(sorted(where))}); "
                         "give it an entry in benchmarks/results/ and cite it")  # fmt: skip
    for name, entry in figures.entries.items():  # a figure read from a transcript is in it
        out = figures.outputs.get(entry.output or "")
        if entry.output and (out is None or entry.text("-") not in "\n".join(out.lines)):
            found.append(f"{name}: its transcript {entry.output} does not show {entry.text()}")
    return found + card_differences(figures, root / "checkpoints")


def _names_problems(where: str, text: str, figures: Figures, docs: bool) -> list[str]:
    """Citations of names that have no entry, and the wrong syntax for the kind of page."""
    found = []
    cited = [m["name"] for m in ROLE.finditer(text)] + [m["name"] for m in DIRECTIVE.finditer(text)]
    raw = [m["name"] for m in CITED.finditer(text)] + [m["name"] for m in REGION.finditer(text)]
    if docs and raw:
        found.append(f"{where}: a docs page cites with {{figure-ref}} and the figure directives, "
                     f"not <!--fig:...--> ({raw[0]})")  # fmt: skip
    if not docs and cited:
        found.append(f"{where}: GitHub shows this page as written: cite with "
                     f"FIGURE<!--fig:NAME--> or a <!--figures:NAME--> region ({cited[0]})")  # fmt: skip
    for name in cited + raw:
        try:
            known = name.partition("@")[0]
            if known not in figures.tables and known not in figures.outputs:
                figures.entry(name)
        except KeyError as error:
            found.append(f"{where}: {error.args[0]}")
    return found


def _differences(where: str, text: str, figures: Figures) -> list[str]:
    """Cited figures and regions of a page GitHub shows as written that differ from their
    entries."""
    found = []
    for m in CITED.finditer(text):
        line = text.count("\n", 0, m.start()) + 1
        try:
            want = figures.entry(m["name"]).text()
        except KeyError:
            continue  # reported by _names_problems
        if m["figure"] is None or normal(m["figure"]) != normal(want):
            found.append(f"{where}:{line}: shows {m['figure'] or 'nothing'} for {m['name']}, "
                         f"whose entry is {want}; run python benchmarks/figure_pages.py --write")  # fmt: skip
    for m in REGION.finditer(text):
        try:
            want = written(m[0], figures)
        except KeyError:
            continue
        if want != m[0]:
            line = text.count("\n", 0, m.start()) + 1
            found.append(f"{where}:{line}: the region {m['name']} differs from its entries; "
                         "run python benchmarks/figure_pages.py --write")  # fmt: skip
    return found


def counts(root: Path = ROOT, *, literal_only: bool = True) -> tuple[int, int, int]:
    """Distinct figures quoted in the pages, how many in more than one file, in three or more.

    ``literal_only``: plain-text quotes only (what the pages copy by hand); otherwise every
    figure the files hold as text, cited and generated ones included.
    """
    where: dict[str, set[Path]] = defaultdict(set)
    for path in pages(root):
        text = path.read_text(encoding="utf-8")
        found = (
            literal_figures(text)
            if literal_only
            else [(0, m[0], 0) for m in re.finditer(FIGURE, text)]
        )
        for _, figure, _ in found:
            where[normal(figure)].add(path)
    return (
        len(where),
        sum(len(w) > 1 for w in where.values()),
        sum(len(w) > 2 for w in where.values()),
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.partition("\n\n")[0])
    parser.add_argument(
        "--write", action="store_true", help="write every cited figure from its entry"
    )
    parser.add_argument(
        "--count", action="store_true", help="count the figures quoted in the pages"
    )
    args = parser.parse_args(argv)
    if args.count:
        for label, literal in (("as plain text", True), ("in all (cited ones included)", False)):
            total, twice, thrice = counts(literal_only=literal)
            print(f"figures {label}: {total} distinct, {twice} in more than one file, "
                  f"{thrice} in three or more")  # fmt: skip
        return 0
    if args.write:
        figures = Figures()
        for path in pages():
            if path.suffix == ".md" and not is_docs_page(path):
                text = path.read_text(encoding="utf-8")
                new = written(text, figures)
                if new != text:
                    path.write_text(new, encoding="utf-8")
                    print(f"wrote {path.relative_to(ROOT)}")
    found = problems()
    for line in found:
        print(line, file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
