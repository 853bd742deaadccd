"""Published figures shown from their one home, the entries of ``benchmarks/results/``.

- ``{figure-ref}`strength.spar4.heuristic_4p``` shows the entry's figure (``+0.173 ±
  0.014``); hovering it shows the command, date, commit and machine. ``NAME@DATE`` shows the
  measurement of that date.
- ``{figure-table} FILE.KEY`` renders a table of the results file, each cell's figure from
  its entry.
- ``{figure-output} FILE.KEY`` shows a command's transcript as it was published.

A name with no entry is a warning, so the build (warnings as errors) fails. The results
files are read once per build, and a page that cites them is rebuilt when they change.
"""

from __future__ import annotations

import sys
from pathlib import Path

from docutils import nodes
from docutils.parsers.rst import Directive
from docutils.statemachine import StringList
from sphinx.util import logging

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from figures import RESULTS, Figures  # noqa: E402  (benchmarks/ is no package)

LOG = logging.getLogger(__name__)


def setup(app) -> dict[str, object]:
    app.add_role("figure-ref", figure_role)
    app.add_directive("figure-table", FigureTable)
    app.add_directive("figure-output", FigureOutput)
    return {"parallel_read_safe": True}


_READ: dict[tuple[tuple[str, int], ...], Figures] = {}


def _figures(env) -> Figures:
    """The results files, read again only when one changes, and noted as a dependency of
    every page that cites them."""
    paths = sorted(RESULTS.glob("*.json"))
    for path in paths:
        env.note_dependency(str(path))
    stamp = tuple((str(p), p.stat().st_mtime_ns) for p in paths)
    if stamp not in _READ:
        _READ.clear()
        _READ[stamp] = Figures(RESULTS)
    return _READ[stamp]


def figure_role(name, rawtext, text, lineno, inliner, options=None, content=None):
    env = inliner.document.settings.env
    try:
        entry = _figures(env).entry(text.strip())
    except KeyError as error:
        msg = inliner.reporter.warning(f"figure-ref: {error.args[0]}", line=lineno)
        return [inliner.problematic(rawtext, rawtext, msg)], [msg]
    shown = nodes.abbreviation(rawtext, entry.text(), explanation=entry.provenance())
    return [shown], []


class _FigureDirective(Directive):
    required_arguments = 1
    has_content = False

    def _figures(self) -> Figures:
        return _figures(self.state.document.settings.env)

    def _fail(self, error: KeyError) -> list[nodes.Node]:
        return [self.state.document.reporter.warning(
            f"{self.name}: {error.args[0]}", line=self.lineno)]  # fmt: skip


class FigureTable(_FigureDirective):
    """A results file's table, parsed as the Markdown that the README shows too."""

    def run(self) -> list[nodes.Node]:
        try:
            markdown = self._figures().table_markdown(self.arguments[0])
        except KeyError as error:
            return self._fail(error)
        holder = nodes.container(classes=["figure-table"])
        source = self.state.document.current_source
        self.state.nested_parse(
            StringList(markdown.splitlines(), source), self.content_offset, holder
        )
        return holder.children


class FigureOutput(_FigureDirective):
    """A command's transcript, as published."""

    def run(self) -> list[nodes.Node]:
        try:
            out = self._figures().outputs[self.arguments[0]]
        except KeyError:
            return self._fail(KeyError(f"no output {self.arguments[0]!r}"))
        text = "\n".join(out.lines)
        block = nodes.literal_block(text, text, language=out.fence or "text")
        return [block]
