"""Your own agent as a spec: ``py:package.module:Name`` builds ``Name(rules, **params)`` from an
importable module, so ``spar bench``, ``spar league`` and the environments can seat it.

``Name`` is a class (or any callable) that takes the ruleset and the spec's ``key=value``
parameters (``py:path=mybots:Greedy,depth=2``) and returns an object with
``act(situation, rng) -> Decision`` (:class:`spar_agents.base.Agent`). The module is looked
for where Python looks, and then in the current folder, as ``python -m`` would. Importing it
runs its code: name only modules you trust, as you would with ``python -m``.
A spec typed on the command line is the user's choice to run that code; a spec read from a
file is not (:mod:`spar_agents.registry.trust`).
"""

from __future__ import annotations

import contextlib
import importlib
import os
import sys
from collections.abc import Iterator
from typing import Any

from spar_agents.base import Agent
from spar_agents.registry.guarded import GuardedAgent, describe
from spar_env.rules import Ruleset


def user_agent(target: str | None, rules: Ruleset, params: dict[str, Any]) -> Agent:
    """The agent ``module:Name`` builds for ``rules`` (module docstring), its answers checked
    (:class:`~spar_agents.registry.guarded.GuardedAgent`).

    Raises:
        ValueError: for a target that is not ``module:Name``, a module that does not import, a
            missing name, a build that fails, or an object without ``act``.
    """
    module_name, sep, attr = (target or "").partition(":")
    if not (sep and module_name.strip() and attr.isidentifier()):
        raise ValueError(f"py: takes module:Name, such as py:mybots:Greedy; got {target!r}")
    try:
        with _current_folder_on_path():
            module = importlib.import_module(module_name)
    except (Exception, SystemExit) as e:  # noqa: BLE001 - any import failure is the module's
        raise ValueError(f"py:{target}: cannot import {module_name}: {describe(e)}") from None
    factory = getattr(module, attr, None)
    if not callable(factory):
        raise ValueError(f"py:{target}: {module_name} has no class or function {attr}")
    try:
        agent = factory(rules, **params)
    except (Exception, SystemExit) as e:  # noqa: BLE001 - a build that fails is the user's code's
        raise ValueError(f"py:{target}: {attr}(rules, **params) failed: {describe(e)}") from None
    if not callable(getattr(agent, "act", None)):
        raise ValueError(
            f"py:{target}: {attr}(rules) gave a {type(agent).__name__}, which has no "
            "act(situation, rng) method (see spar_agents.base.Agent)"
        )
    return GuardedAgent(agent, f"py:{target}")  # its answers checked, its faults one line


@contextlib.contextmanager
def _current_folder_on_path() -> Iterator[None]:
    """The current folder last on ``sys.path`` while the module imports (installed packages
    win, so a folder of the user's never shadows one of ours)."""
    here = os.getcwd()
    added = here not in sys.path
    if added:
        sys.path.append(here)
    try:
        yield
    finally:
        if added:
            with contextlib.suppress(ValueError):
                sys.path.remove(here)
