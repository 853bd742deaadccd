"""What a file we were handed may not make us do on its own word: run code, or dial out.

A ``py:`` spec (:mod:`spar_agents.registry.user`) imports a module. Typed on the command
line, it is the user's choice to run that code; read from a file they were handed (a
league's ``league.json``, a run folder's ``config.toml``), it is not. :func:`refuse_code` is
the check every such reader applies: a ``py:`` spec, nested ones included
(``search:policy=py:mybots:Greedy``), is refused in one line unless the user says they trust
the file (``--trust-code``).

A network address is the same kind of door: a Ray client unpickles what the cluster it
joins sends, so joining a cluster is running its code. :func:`refuse_address` refuses an
address read from a file (any but a Ray started here, ``""`` or ``local``) on the same terms:
unless the user typed that address themselves, or says they trust the file.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from spar_agents.registry import parse_spec

CODE_AGENT = "py"  # the one agent name that imports a module
# The Ray addresses that start a Ray on this machine rather than join one: nothing is dialled.
LOCAL_ADDRESSES = ("", "local")


class Untrusted(ValueError):
    """A file we were handed asks for what only the user may ask for (module docstring)."""


class UntrustedCode(Untrusted):
    """A file we were handed names an agent that would import and run Python code."""


class UntrustedAddress(Untrusted):
    """A file we were handed names a network address to join (a Ray cluster)."""


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


def refuse_address(
    addresses: Mapping[str, str], source: str, how_to_trust: str, typed: Sequence[str] = ()
) -> None:
    """Refuse the addresses read from the file ``source`` (by the key that names each) that
    would join a cluster over the network (``auto`` included: it joins whichever cluster the
    machine points to), but for one the user ``typed`` (exactly that address, given on the
    command line).

    Raises:
        UntrustedAddress: naming the file, the key, the address and ``how_to_trust``.
    """
    for key, address in addresses.items():
        if address.strip() in LOCAL_ADDRESSES or address in typed:
            continue
        raise UntrustedAddress(
            f"{source}: {key} is {address!r}, a cluster to join, and a cluster's answers are "
            f"unpickled as code; an address named by a file is never joined unless you say "
            f"you trust it ({how_to_trust})"
        )
