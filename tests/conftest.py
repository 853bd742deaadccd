"""Fixtures every test module may use: a tiny PPO run that tests copy and damage (one run per
test module, a fresh copy of it per test), and a headless browser (one per test module)."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.browser import launched
from helpers.cli import copy_run, make_tiny_run


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory) -> Path:
    """A tiny PPO run of 2 updates, made once per test module."""
    return make_tiny_run(tmp_path_factory)


@pytest.fixture
def run_copy(tiny_run: Path, tmp_path: Path, monkeypatch) -> Path:
    """A copy of the tiny run at ``runs/t``, with ``tmp_path`` the current folder."""
    return copy_run(tiny_run, tmp_path, monkeypatch)


@pytest.fixture(scope="module")
def browser():
    """A headless Chromium for the module's tests (:mod:`helpers.browser`)."""
    yield from launched()
