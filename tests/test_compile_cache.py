"""Numba's on-disk cache stays fresh: an edit to a compiled helper of another module reaches
the cached kernels that inline it, and every cached function of the project is stamped so."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from spar_env.core import compile_cache

ROOT = Path(__file__).resolve().parents[1]
PROBE = '''"""A kernel that inlines a helper of another module."""
import numpy as np
from numba import njit

from spar_env.core.bits import count_of


@njit(cache=True)
def probe(x):
    return count_of(np.uint64(x))
'''
HELPER = "    return np.int64((x * _H01) >> np.uint64(56))\n"


def _probe(copy: Path) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_CACHE")}
    env["PYTHONPATH"] = str(copy)
    code = "from spar_agents._probe import probe; print(probe(7), sum(probe.stats.cache_hits.values()))"
    done = subprocess.run([sys.executable, "-c", code], cwd=copy, env=env, capture_output=True,
                          text=True, timeout=300, check=True)  # fmt: skip
    return done.stdout.strip()


def test_an_edit_to_a_helper_reaches_the_cached_kernel_that_inlines_it(tmp_path: Path) -> None:
    packages = compile_cache.project_packages()
    assert {"spar_env", "spar_agents", "spar_train", "spar_apps"} <= set(packages)
    for package, folder in packages.items():  # each under its import name, as a wheel has them
        shutil.copytree(folder, tmp_path / package,
                        ignore=shutil.ignore_patterns("__pycache__"))  # fmt: skip
    (tmp_path / "spar_agents" / "_probe.py").write_text(PROBE)
    assert _probe(tmp_path) == "3 0"  # compiled, and written to the cache
    assert _probe(tmp_path) == "3 1"  # read back from the cache
    assert list((tmp_path / "spar_agents" / "__pycache__").glob("_probe.probe-*.nbi"))
    bits = tmp_path / "spar_env" / "core" / "bits.py"
    source = bits.read_text()
    assert source.count(HELPER) == 1
    bits.write_text(source.replace(HELPER, HELPER.replace("56))", "56)) + 100")))
    assert _probe(tmp_path) == "103 0"  # compiled again, with the edited helper
    assert _probe(tmp_path) == "103 1"


def test_every_cached_function_of_the_project_is_stamped_with_its_sources() -> None:
    from numba.core.registry import CPUDispatcher

    import spar_agents.card_placement  # noqa: F401
    import spar_agents.heuristic  # noqa: F401  (the compiled modules of agents/)
    import spar_agents.knowledge  # noqa: F401
    import spar_agents.perfect_info.kernel  # noqa: F401
    import spar_env  # noqa: F401

    cached = [
        (name, value)
        for name, module in list(sys.modules.items())
        if name.split(".")[0] in compile_cache.project_packages()
        for value in vars(module).values()
        if isinstance(value, CPUDispatcher) and value._cache.__class__.__name__ != "NullCache"
    ]
    assert len(cached) >= 40
    for name, dispatcher in cached:
        locator = dispatcher._cache._impl.locator
        assert isinstance(locator, compile_cache.LOCATORS), (name, dispatcher)
        assert locator.get_source_stamp() == compile_cache.sources_stamp()
