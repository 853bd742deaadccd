"""Every published figure lives once, as an entry of benchmarks/results/, and the pages show it
from there: the docs through {figure-ref} and the figure directives, the README and the other
pages GitHub shows as written through cited figures and generated regions.

The checks here fail when a page quotes a figure that is not drawn from, or equal to, its
entry: each is shown to fail on a damaged copy (an entry changed, a figure pasted as text).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
import figure_pages  # noqa: E402  (benchmarks/ is no package)
import figures  # noqa: E402


def _site(tmp_path: Path, *pages: str) -> Path:
    """A copy of the results, the bot cards and the named pages under ``tmp_path``."""
    shutil.copytree(ROOT / "benchmarks" / "results", tmp_path / "benchmarks" / "results")
    (tmp_path / "checkpoints").mkdir()
    for card in (ROOT / "checkpoints").glob("*.json"):
        shutil.copy(card, tmp_path / "checkpoints" / card.name)
    for page in pages:
        (tmp_path / page).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / page, tmp_path / page)
    return tmp_path


def _change_entry(root: Path, name: str, **fields: object) -> None:
    stem, _, key = name.partition(".")
    path = root / "benchmarks" / "results" / f"{stem}.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data["entries"][key].update(fields)
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False), encoding="utf-8")


def test_every_page_shows_its_figures_from_their_entries() -> None:
    assert figure_pages.problems() == []


def test_no_figure_is_quoted_as_text_in_more_than_one_file() -> None:
    distinct, twice, thrice = figure_pages.counts()
    assert distinct > 100 and twice == 0 and thrice == 0


def test_the_readme_cites_its_figures_and_tables() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(figure_pages.CITED.findall(text)) >= 3
    regions = {m["name"] for m in figure_pages.REGION.finditer(text)}
    assert {"league.readme", "matches.shipped_vs_heuristic"} <= regions


def test_a_changed_entry_fails_the_readme_until_it_is_written_again(tmp_path: Path) -> None:
    """An entry measured again: the README still shows the old figure, and the check says
    where; ``--write`` shows the new one, and the check passes."""
    root = _site(tmp_path, "README.md")
    assert figure_pages.problems(root) == []
    assert "+0.011 ± 0.009<!--fig:exploit.spar2_2p-->" in (root / "README.md").read_text()
    _change_entry(root, "exploit.spar2_2p", value=0.012)
    _change_entry(root, "league.search", value=53.4)
    found = figure_pages.problems(root)
    assert any(
        p.startswith("README.md:") and "+0.011 ± 0.009 for exploit.spar2_2p" in p and "+0.012" in p
        for p in found
    ), found
    assert any("the region league.readme differs" in p for p in found), found
    figs = figures.Figures(root / "benchmarks" / "results")
    readme = root / "README.md"
    readme.write_text(figure_pages.written(readme.read_text(), figs), encoding="utf-8")
    assert "+0.012 ± 0.009<!--fig:exploit.spar2_2p-->" in readme.read_text()
    assert "| +53.4 ± 6.0 |" in readme.read_text()
    assert figure_pages.problems(root) == []


def test_a_figure_pasted_into_a_docs_page_fails(tmp_path: Path) -> None:
    """The quick start shows the specialist's figure through its entry; pasted as text, the
    same figure is a copy."""
    page = "docs/guide/quickstart.md"
    root = _site(tmp_path, page)
    text = (root / page).read_text(encoding="utf-8")
    role = "{figure-ref}`bench.spar4.heuristic_4p`"
    assert role in text and figure_pages.problems(root) == []
    (root / page).write_text(text.replace(role, "+0.173 ± 0.014", 1), encoding="utf-8")
    found = figure_pages.problems(root)
    assert len(found) == 1 and "copies the figure of bench.spar4.heuristic_4p" in found[0]


def test_a_figure_copied_between_two_pages_fails(tmp_path: Path) -> None:
    root = _site(tmp_path)
    (root / "docs").mkdir()
    (root / "docs" / "a.md").write_text("We measured +0.999 ± 0.001 per hand.\n")
    (root / "README.md").write_text("The bot makes +0.999 ±\n0.001 per hand.\n")
    found = figure_pages.problems(root)
    assert found == [
        "+0.999 ± 0.001 is quoted in 2 files (README.md, docs/a.md); give it an entry in "
        "benchmarks/results/ and cite it"
    ]


def test_a_transcript_may_show_an_entrys_figure_but_prose_may_not(tmp_path: Path) -> None:
    root = _site(tmp_path)
    (root / "README.md").write_text("```\n  onnx:spar4   1   +0.173 ± 0.014\n```\n")
    assert figure_pages.problems(root) == []
    (root / "README.md").write_text("It makes +0.173 ± 0.014 per hand.\n")
    assert "copies the figure of bench.spar4.heuristic_4p" in figure_pages.problems(root)[0]


def test_a_name_without_an_entry_or_the_wrong_syntax_fails(tmp_path: Path) -> None:
    root = _site(tmp_path)
    (root / "docs").mkdir()
    (root / "docs" / "a.md").write_text("It makes {figure-ref}`bench.nosuch` per hand.\n")
    (root / "README.md").write_text("It makes {figure-ref}`bench.spar4.heuristic_4p`.\n")
    found = figure_pages.problems(root)
    assert any("docs/a.md: no figure 'bench.nosuch'" in p for p in found), found
    assert any(p.startswith("README.md: GitHub shows this page as written") for p in found)


def test_a_dated_citation_keeps_its_measurement(tmp_path: Path) -> None:
    """The lab notebook cites NAME@DATE: measured again, the entry moves on and the notebook
    still shows that day's figure."""
    results = _site(tmp_path) / "benchmarks" / "results"
    old = figures.Figures(results).entry("exploit.spar2_2p")
    figures.record("exploit.spar2_2p", 0.0123, 0.0087, results=results)
    figs = figures.Figures(results)
    assert figs.entry("exploit.spar2_2p").text() == "+0.012 ± 0.009"
    assert figs.entry(f"exploit.spar2_2p@{old.date}").text() == "+0.011 ± 0.009"
    assert figs.entry("matches.match.universal_2p:1").text() == "52.2% ± 0.5%"
    with pytest.raises(KeyError, match="no measurement of 1999-01-01"):
        figs.entry("exploit.spar2_2p@1999-01-01")


def test_record_writes_an_entry_with_its_provenance_and_history(tmp_path: Path) -> None:
    results = tmp_path / "results"
    first = figures.record("demo.bot.vs_random", -0.5, 0.02, decimals=2, what="a demo",
                           command="spar bench a b", results=results)  # fmt: skip
    assert first.text() == "−0.50 ± 0.02" and first.command == "spar bench a b"
    again = figures.record("demo.bot.vs_random", 0.25, 0.0149, results=results)
    assert again.text() == "+0.25 ± 0.01" and again.what == "a demo"
    raw = json.loads((results / "demo.json").read_text())["entries"]["bot.vs_random"]
    assert raw["command"].startswith("python ") and re.fullmatch(r"\d{4}-\d\d-\d\d", raw["date"])
    assert raw["commit"] and raw["machine"] and raw["history"][0]["value"] == -0.5
    with pytest.raises(ValueError, match="FILE.KEY"):
        figures.record("NoDot", 1.0, 0.1, results=results)


def test_measure_reruns_the_entrys_own_command(tmp_path: Path) -> None:
    results = tmp_path / "results"
    command = "spar bench heuristic random --variant micro --players 2 --deals 300 --seed 0"
    figures.record("demo.heuristic", 0.0, 0.0, what="heuristic on micro", command=command,
                   results=results)  # fmt: skip
    measured = figures.measure("demo.heuristic", results)
    spar = Path(sys.executable).parent / "spar"
    done = subprocess.run([str(spar), *command.split()[1:], "--json"], capture_output=True,
                          text=True, check=True)  # fmt: skip
    first = json.loads(done.stdout)["agents"][0]
    assert measured.value == first["mean_payoff"] and measured.command == command
    assert measured.interval == first["ci95_halfwidth"]


def test_a_bot_card_that_disagrees_with_its_entry_fails(tmp_path: Path) -> None:
    root = _site(tmp_path)
    figs = figures.Figures(root / "benchmarks" / "results")
    assert figures.card_differences(figs, root / "checkpoints") == []
    card = root / "checkpoints" / "spar4.json"
    data = json.loads(card.read_text())
    data["bench"]["heuristic"]["mean_payoff"] = 0.1801
    card.write_text(json.dumps(data))
    found = figures.card_differences(figs, root / "checkpoints")
    assert found == [
        "bench.spar4.heuristic_4p shows +0.173 ± 0.014, but its card spar4#bench.heuristic "
        "holds 0.1801 ± 0.0135"
    ]


def test_the_docs_role_and_directives_render_entries(tmp_path: Path) -> None:
    """A small Sphinx site with the extension: the role shows the figure with its command,
    the table its cells, and an unknown name is a warning (an error in CI's build)."""
    pytest.importorskip("myst_parser")
    from sphinx.application import Sphinx

    src = tmp_path / "src"
    src.mkdir()
    (src / "conf.py").write_text(
        f"import sys\nsys.path.insert(0, {str(ROOT / 'docs' / '_ext')!r})\n"
        "extensions = ['myst_parser', 'figure_refs']\n"
    )
    (src / "index.md").write_text(
        "# Figures\n\nThe specialist makes {figure-ref}`bench.spar4.heuristic_4p` per hand.\n\n"
        "```{figure-table} league.readme\n```\n\n```{figure-output} training.spar4_bench\n```\n\n"
        "And {figure-ref}`bench.nosuch`.\n"
    )
    warnings = tmp_path / "warnings.txt"
    with warnings.open("w") as stream:
        app = Sphinx(src, src, tmp_path / "html", tmp_path / "doctrees", "html",
                     status=None, warning=stream, freshenv=True)  # fmt: skip
        app.build()
    html = (tmp_path / "html" / "index.html").read_text(encoding="utf-8")
    assert re.search(
        r"<abbr title=\"spar bench onnx:spar4 heuristic [^\"]*\">\+0\.173 ± 0\.014</abbr>", html
    )
    assert "<td><p>+52.9 ± 6.0</p></td>" in html and "ppo:runs/spar4       1   +0.170" in html
    assert "figure-ref: no figure &#39;bench.nosuch&#39;" in html or "bench.nosuch" in html
    assert "no figure 'bench.nosuch'" in warnings.read_text()


def _paragraphs(text: str) -> set[str]:
    text = re.sub(r"<!--.*?-->", "", text, flags=re.S)
    return {" ".join(p.split()) for p in re.split(r"\n\s*\n", text) if len(p.split()) > 8}


def test_the_readme_and_the_site_front_page_share_no_paragraph() -> None:
    """docs/index.md shows the README's introduction by including it, not by a copy."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    index = (ROOT / "docs" / "index.md").read_text(encoding="utf-8")
    assert _paragraphs(readme) & _paragraphs(index) == set()
    assert "```{include} ../README.md\n:start-after: <!-- intro -->" in index
    assert readme.count("<!-- intro -->") == 1 and readme.count("<!-- /intro -->") == 1
    intro = readme.split("<!-- intro -->")[1].split("<!-- /intro -->")[0]
    assert "the Ghanaian trick-taking game where only the last trick counts" in intro


def test_a_dated_page_cites_the_measurement_of_its_day(tmp_path: Path) -> None:
    root = _site(tmp_path, "benchmarks/NOTEBOOK.md")
    notebook = root / "benchmarks" / "NOTEBOOK.md"
    text = notebook.read_text(encoding="utf-8")
    assert "<!--fig:exploit.spar2_2p@2026-12-04-->" in text and figure_pages.problems(root) == []
    notebook.write_text(text.replace("exploit.spar2_2p@2026-12-04", "exploit.spar2_2p", 1))
    assert figure_pages.problems(root) == [
        "benchmarks/NOTEBOOK.md: a dated page cites the measurement of its day: exploit.spar2_2p@DATE"
    ]


def test_the_league_script_records_the_entries_the_tables_show() -> None:
    import league

    checkpoints = [f"ppo:runs/lg4/checkpoints/update_{u:06d}.pt" for u in (10, 20, 30)]
    keys = {league.entry_key(spec) for spec in [*league.BUILT_IN, *checkpoints]}
    shown = {
        n.removeprefix("league.") for n in figures.Figures().entries if n.startswith("league.")
    }
    assert keys == shown


def test_a_figure_read_from_a_transcript_must_be_in_it(tmp_path: Path) -> None:
    root = _site(tmp_path)
    assert figure_pages.problems(root) == []
    _change_entry(root, "training.ppo_spar4.heuristic_4p", value=0.171)
    assert figure_pages.problems(root) == [
        "training.ppo_spar4.heuristic_4p: its transcript training.spar4_bench does not show "
        "+0.171 ± 0.014"
    ]
