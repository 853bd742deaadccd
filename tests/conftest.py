"""Fixtures every test module may use, and the lanes every test is marked with.

- ``tiny_run``: a tiny PPO run, trained once per test process (each xdist worker) and shared
  by every module that reads one; ``run_copy``: a fresh copy of it per test, to change.
- ``browser``: a headless Chromium, launched once per browser test module.
- The ``slow`` and ``gym_ray`` marks, from the lists of :mod:`helpers.lanes`.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.browser import launched
from helpers.cli import copy_run, make_tiny_run
from helpers.lanes import is_slow, touches_gym_or_ray


def pytest_collection_modifyitems(config, items) -> None:
    """Mark each test ``slow`` and ``gym_ray`` as :mod:`helpers.lanes` says."""
    for item in items:
        if is_slow(item.nodeid):
            item.add_marker(pytest.mark.slow)
        callspec = getattr(item, "callspec", None)
        params = callspec.params if callspec is not None else {}
        cls = getattr(item, "cls", None)
        name = cls.__name__ if cls is not None else getattr(item, "originalname", item.name)
        if touches_gym_or_ray(item.path, name, item.fixturenames, params):
            item.add_marker(pytest.mark.gym_ray)


@pytest.fixture(scope="session")
def tiny_run(tmp_path_factory) -> Path:
    """A tiny PPO run of 2 updates, made once per test process: read it, never change it (a
    test that changes a run takes ``run_copy``)."""
    return make_tiny_run(tmp_path_factory)


@pytest.fixture
def run_copy(tiny_run: Path, tmp_path: Path, monkeypatch) -> Path:
    """A copy of the tiny run at ``runs/t``, with ``tmp_path`` the current folder."""
    return copy_run(tiny_run, tmp_path, monkeypatch)


@pytest.fixture(scope="module")
def browser():
    """A headless Chromium for the browser tests of one module (:mod:`helpers.browser`).

    Not one per process: while Playwright's sync API is open, its event loop runs in the
    thread, so every later test of the process that calls ``asyncio.run`` (the web tests)
    would fail."""
    yield from launched()
