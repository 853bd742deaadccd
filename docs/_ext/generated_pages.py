"""Pages of the docs site written from the code at build time, so they cannot drift from it:
every ``spar`` command's help (from the argparse definitions) and every config key with its
default and meaning (from the config sections, their one home).

Sphinx loads this as an extension; before it reads the sources it writes the pages to
``docs/_generated/`` (not kept in git), which the guide includes.
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import io
import tokenize
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "_generated"


def setup(app) -> dict[str, object]:
    app.connect("builder-inited", lambda _app: write_pages())
    return {"parallel_read_safe": True}


def write_pages() -> None:
    OUT.mkdir(exist_ok=True)
    _write(OUT / "commands.md", commands_page())
    _write(OUT / "config.md", config_page())


def _write(path: Path, text: str) -> None:
    if not path.exists() or path.read_text(encoding="utf-8") != text:  # keep Sphinx's cache
        path.write_text(text, encoding="utf-8")


def commands_page() -> str:
    """Each command's ``--help``, as the command prints it, at 88 columns."""
    import os

    from spar_apps.cli import build_parser

    os.environ["COLUMNS"] = "88"  # argparse wraps to the terminal's width
    parser = build_parser()
    parts = []
    for action in parser._subparsers._group_actions:  # the commands, in --help's order
        assert isinstance(action, argparse._SubParsersAction)
        for name, sub in action.choices.items():
            parts.append(_help_section(f"spar {name}", sub, 2))
            for inner in sub._actions:
                if isinstance(inner, argparse._SubParsersAction):
                    for verb, leaf in inner.choices.items():
                        parts.append(_help_section(f"spar {name} {verb}", leaf, 3))
    return "\n".join(parts)


def _help_section(title: str, parser: argparse.ArgumentParser, level: int) -> str:
    return f"{'#' * level} `{title}`\n\n```text\n{parser.format_help().rstrip()}\n```\n"


def config_page() -> str:
    """One table per config section: each key, its default and the comment that explains it."""
    import spar_train.sections as sections

    comments = _field_comments(Path(sections.__file__))
    out = []
    for name, kind in sections.SECTIONS.items():
        readers = ", ".join(f'`algorithm = "{a}"`' for a, names in sections.SECTIONS_OF.items()
                            if name in names)  # fmt: skip
        out.append(
            f"## `[{name}]`\n\nRead by {readers}.\n\n| key | default | meaning |\n|---|---|---|"
        )
        default = kind()
        for f in dataclasses.fields(kind):
            value = getattr(default, f.name)
            meaning = comments.get((kind.__name__, f.name), "").replace("|", "\\|")
            out.append(f"| `{name}.{f.name}` | `{_toml(value)}` | {meaning} |")
        out.append("")
    return "\n".join(out)


def _toml(value: object) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k} = {_toml(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    return "none" if value is None else str(value)


def _field_comments(path: Path) -> dict[tuple[str, str], str]:
    """``(class, field) -> comment``: the comment lines just above a field and the one after it."""
    source = path.read_text(encoding="utf-8")
    by_line: dict[int, str] = {}
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.COMMENT:
            by_line[tok.start[0]] = tok.string.lstrip("#").strip()
    lines = source.splitlines()
    out = {}
    for node in ast.parse(source).body:
        if not isinstance(node, ast.ClassDef):
            continue
        for item in node.body:
            if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                above, n = [], item.lineno - 1
                while n in by_line and lines[n - 1].lstrip().startswith("#"):
                    above.insert(0, by_line[n])
                    n -= 1
                if above and above[-1].endswith(":"):  # a heading over several keys
                    above = []
                text = " ".join([*above, by_line.get(item.end_lineno or item.lineno, "")]).strip()
                out[(node.name, item.target.id)] = text
    return out
