"""Every notebook in notebooks/ runs headless from top to bottom without an error, is kept in
git without outputs, and is named in the manual's notebooks page."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


def test_there_are_notebooks() -> None:
    names = {p.name for p in NOTEBOOKS}
    assert {"quickstart.ipynb", "train_ppo.ipynb", "solve_mini.ipynb"} <= names
    assert "strategy_study.ipynb" in names


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_runs(path: Path) -> None:
    notebook = nbformat.read(path, as_version=4)
    NotebookClient(
        notebook,
        timeout=600,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}},
    ).execute()
    outputs = [o for cell in notebook.cells if cell.cell_type == "code" for o in cell.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    assert any(o.output_type in ("stream", "execute_result", "display_data") for o in outputs)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebooks_are_committed_without_outputs(path: Path) -> None:
    """As nbstripout leaves them: no outputs, no execution counts (run them to see the figures)."""
    notebook = nbformat.read(path, as_version=4)
    nbformat.validate(notebook)
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    assert code
    assert [i for i, cell in enumerate(code) if cell.outputs or cell.execution_count] == []


def test_the_manual_names_every_notebook() -> None:
    page = (ROOT / "docs" / "guide" / "notebooks.md").read_text(encoding="utf-8")
    assert [p.name for p in NOTEBOOKS if f"`notebooks/{p.name}`" not in page] == []
