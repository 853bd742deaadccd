"""The headless Chromium the browser tests drive (Playwright), found once for all of them.

:func:`launched` yields a browser for a module's tests (the ``browser`` fixture of
``tests/conftest.py``); without Chromium or Playwright the tests skip, except in CI, where
they fail: there the browser must be installed (``.ci/browser``, the dev extra).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from typing import Any

import pytest

ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]  # fmt: skip


def _missing(reason: str) -> None:
    if os.environ.get("CI") == "true":
        pytest.fail(reason)
    pytest.skip(reason)


def chromium() -> str:
    """The path of this machine's Chromium (downloaded browser builds do not run here)."""
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    if path is None:
        _missing("no chromium on this machine: apt-get install -y chromium (.ci/browser)")
    assert path is not None
    return path


def launched() -> Iterator[Any]:
    """A headless Chromium (a Playwright ``Browser``), closed after its last use."""
    executable = chromium()
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _missing("playwright is not installed: pip install -e '.[dev]' (the dev extra pins it)")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=executable, args=ARGS)
        yield browser
        browser.close()
