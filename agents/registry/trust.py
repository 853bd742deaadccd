"""Which agent specs would run code, and the one refusal of such specs read from a file.

A ``py:`` spec (:mod:`spar_agents.registry.user`) imports a module. Typed on the command
line, it is the user's choice to run that code; read from a file they were handed (a
league's ``league.json``, a run folder's ``config.toml``), it is not. :func:`refuse_code` is
the check every such reader applies: a ``py:`` spec, nested ones included
(``search:policy=py:mybots:Greedy``), is refused in one line unless the user says they trust
the file's code (``--trust-code``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from spar_agents.registry import parse_spec

CODE_AGENT = "py"  # the one agent name that imports a module


class UntrustedCode(ValueError):
    """A file we were handed names an agent that would import and run Python code."""


def code_specs(spec: str) -> list[str]:
    """The specs within ``spec`` that import a module: itself if it is a ``py:`` spec, and any
    spec given as a parameter's value (a search's ``policy=``), at any depth.

    A spec that does not parse names nothing (building it fails before any import).
    """
    try:
        name, params = parse_spec(spec)
    except ValueError:
        return []
    if name.strip() == CODE_AGENT:
        return [spec.strip()]
    return [found for value in params.values() for found in _code_in(value)]


def _code_in(value: object) -> list[str]:
    """The code-running specs in a parameter's value (text, or lists and tables of it)."""
    if isinstance(value, str):
        return code_specs(value)
    if isinstance(value, list | tuple):
        return [found for item in value for found in _code_in(item)]
    if isinstance(value, dict):
        return [found for item in value.values() for found in _code_in(item)]
    return []


def refuse_code(
    specs: Mapping[str, str], source: str, how_to_trust: str, typed: Sequence[str] = ()
) -> None:
    """Refuse the specs read from the file ``source`` (by the key or place that names each)
    when one of them would run code (module docstring), but for code the user ``typed``
    too (the ``--set`` strings of the command line: naming it there is their choice).

    Raises:
        UntrustedCode: naming the file, the key, the spec and ``how_to_trust``.
    """
    for key, spec in specs.items():
        found = [c for c in code_specs(spec) if not any(c in text for text in typed)]
        if found:
            raise UntrustedCode(
                f"{source}: {key} is {found[0]!r}, which would import and run Python code; "
                f"code named by a file is never run unless you say you trust it ({how_to_trust})"
            )
