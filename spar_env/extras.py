"""Which extra of spar-rl brings an optional module, and the one line that says how to get it.

The core install runs every command; a few options need more: ``--ray``
needs Ray (the ``ray`` extra), the OpenSpiel bridge needs ``pyspiel`` (the
``openspiel`` extra). The command line turns a missing module into one line
naming the extra to install (:func:`missing_module_message`), never a traceback.
"""

from __future__ import annotations

EXTRA_OF: dict[str, str] = {
    "ray": "ray",
    "pyspiel": "openspiel",
    "open_spiel": "openspiel",
    "rlcard": "bench",
    "pygame": "bench",
    "jupyterlab": "notebooks",
    "sphinx": "docs",
    "mypy": "typecheck",
    "build": "wheel",
}  # top-level module -> the extra of pyproject.toml that installs it


def install_hint(extra: str) -> str:
    """``pip install "spar-rl[ray]" (from a checkout: pip install -e ".[ray]")``."""
    return f'pip install "spar-rl[{extra}]" (from a checkout: pip install -e ".[{extra}]")'


def missing_module_message(error: ModuleNotFoundError) -> str:
    """One line for a module that could not be imported: the extra to install, or a reinstall."""
    module = (error.name or "").partition(".")[0] or "a module"
    extra = EXTRA_OF.get(module)
    if extra is not None:
        return f"{module} is not installed; it comes with the {extra} extra: {install_hint(extra)}"
    return (
        f"{module} is not installed, and spar-rl needs it: reinstall spar-rl (pip install spar-rl)"
    )
