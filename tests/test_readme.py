"""The README's Python examples run as written (doctest blocks are checked, others executed)."""

from __future__ import annotations

import doctest
import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.S)


def test_the_readme_has_python_examples() -> None:
    assert len(BLOCKS) >= 4


@pytest.mark.parametrize("block", BLOCKS, ids=[f"block{i}" for i in range(len(BLOCKS))])
def test_readme_example_runs(block: str) -> None:
    if block.lstrip().startswith(">>>"):
        test = doctest.DocTestParser().get_doctest(block, {}, "README", str(README), 0)
        runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
        runner.run(test)
        assert runner.failures == 0
    else:
        exec(compile(block, "README.md", "exec"), {"__name__": "readme"})
