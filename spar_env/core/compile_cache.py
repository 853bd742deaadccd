"""Numba's on-disk cache, kept fresh: compiled code is reused only while its sources are unchanged.

Numba stamps each cached function with a hash of its own file only. A kernel
that inlines a compiled helper from another module (``count_of`` from
:mod:`spar_env.core.bits`) or reads a constant of another module at compile
time would keep running the old code after an edit there, until someone
deleted the ``*.nbi``/``*.nbc`` files by hand.

So the functions of this project are cached by locators of their own, put
ahead of Numba's: the same places as Numba's (``NUMBA_CACHE_DIR`` if set,
else ``__pycache__`` beside the source, else the user-wide cache), but
stamped with :func:`sources_stamp`, one hash of every project module that
imports Numba and of every project module those import from (where the
helpers and the constants they compile in live). An edit to any of them
makes every cached kernel of the project stale, and the next call compiles
it again. Functions outside the project keep Numba's own
locators. :mod:`spar_env.core` imports this module before any compiled one.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import re
from importlib.metadata import distributions
from pathlib import Path

from numba.core import caching
from numba.core.caching import InTreeCacheLocator, UserProvidedCacheLocator, UserWideCacheLocator

_NUMBA = re.compile(rb"^\s*(?:from numba[\s.]|import numba)", re.MULTILINE)
_HOME = __name__.partition(".")[0]  # the top-level package of this module: spar_env


@functools.lru_cache(maxsize=1)
def project_packages() -> dict[str, Path]:
    """The project's top-level packages by import name, each with its folder.

    They are the top-level names of the installed distribution that holds this module's
    own package (its ``top_level.txt``), found where the import system finds them, so an
    editable install (which maps the names onto the repository's folders) and a wheel
    answer alike. Without such a distribution (a bare source tree), this package alone.
    """
    names = {_HOME}
    for dist in distributions():
        listed = (dist.read_text("top_level.txt") or "").split()
        if _HOME in listed:
            names.update(listed)
    folders = {}
    for name in sorted(names):
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.submodule_search_locations:
            folders[name] = Path(next(iter(spec.submodule_search_locations))).resolve()
    return folders


def project_modules() -> dict[str, Path]:
    """Every module of the project packages, by dotted name."""
    out = {}
    for package, folder in project_packages().items():
        for path in sorted(folder.rglob("*.py")):
            parts = (package, *path.relative_to(folder).with_suffix("").parts)
            out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


_IMPORT = re.compile(rb"^(?:from\s+([\w.]+)\s+import|import\s+([\w.]+))", re.MULTILINE)


def _imports(source: bytes, modules: dict[str, Path]) -> set[str]:
    """The project modules that a source imports from (its import lines, at any depth)."""
    found = set()
    for groups in _IMPORT.findall(source):
        name = (groups[0] or groups[1]).decode()
        while name and name not in modules:
            name = name.rpartition(".")[0]
        if name:
            found.add(name)
    return found


@functools.lru_cache(maxsize=1)
def sources_stamp() -> str:
    """A hash of the sources the compiled functions of the project may depend on: the
    modules that import Numba and the project modules they import from."""
    modules = project_modules()
    sources = {m: path.read_bytes() for m, path in modules.items()}
    compiled = {m for m, source in sources.items() if _NUMBA.search(source)}
    depends = compiled.union(*(_imports(sources[m], modules) for m in compiled))
    digest = hashlib.sha256()
    for module in sorted(depends):
        digest.update(module.encode() + b"\0" + sources[module] + b"\0")
    return digest.hexdigest()


def _in_project(py_file: str) -> bool:
    path = Path(py_file).resolve()
    return any(path.is_relative_to(folder) for folder in project_packages().values())


class _Fresh:
    """A locator stamped with :func:`sources_stamp`, for the project's functions only."""

    def get_source_stamp(self) -> str:
        return sources_stamp()

    @classmethod
    def from_function(cls, py_func, py_file):
        if not _in_project(py_file):
            return None
        return super().from_function(py_func, py_file)


class FreshUserProvidedLocator(_Fresh, UserProvidedCacheLocator):
    """``NUMBA_CACHE_DIR``, when it is set."""


class FreshInTreeLocator(_Fresh, InTreeCacheLocator):
    """``__pycache__`` beside the source, when it is writable."""


class FreshUserWideLocator(_Fresh, UserWideCacheLocator):
    """The user-wide cache folder (an installed package's own folder may be read-only)."""


LOCATORS = (FreshUserProvidedLocator, FreshInTreeLocator, FreshUserWideLocator)


def install() -> None:
    """Put :data:`LOCATORS` ahead of Numba's own (once)."""
    impl = getattr(caching, "CacheImpl", None) or caching._CacheImpl  # type: ignore[attr-defined]  # before 0.61
    classes = impl._locator_classes
    if classes[: len(LOCATORS)] != list(LOCATORS):
        classes[:] = [*LOCATORS, *(c for c in classes if c not in LOCATORS)]


install()
