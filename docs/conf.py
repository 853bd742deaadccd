"""Sphinx configuration of the spar-rl documentation: the user guide and the API reference.

Build it as CI does (warnings are errors): ``bash .ci/docs``, or
``sphinx-build -W --keep-going -b html docs docs/_build/html``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import spar_env

sys.path.insert(0, str(Path(__file__).parent / "_ext"))  # generated_pages

project = "spar-rl"
author = "the spar-rl authors"
copyright = "2026, the spar-rl authors"
release = version = spar_env.__version__

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.napoleon",
    "sphinx.ext.viewcode",
    "generated_pages",  # the command and config references, from the code
    "own_references",  # our re-exported and short names, resolved to where they are defined
    "figure_refs",  # measured figures shown from their entries in benchmarks/results/
]
source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
exclude_patterns = ["_build", "_generated", "Thumbs.db", ".DS_Store"]
html_theme = "furo"
html_title = f"spar-rl {release}"

# MyST: heading anchors for the [text](#section) links of the pages and the README.
myst_heading_anchors = 4
myst_enable_extensions = ["colon_fence"]

# The API reference: every module of the four packages, from their docstrings.
# A module's page is its docstring and its members (the template in _templates/ leaves out
# autosummary's tables of members, which cut each summary at its first full stop).
templates_path = ["_templates"]
autosummary_generate = True
autodoc_inherit_docstrings = False  # gymnasium's own docstrings are not written for Sphinx
# A package's page shows what the package defines, not what it re-exports from its
# modules (they have their own pages): one description, one cross-reference target.
autodoc_default_options = {"members": True, "show-inheritance": True, "ignore-module-all": True}
autodoc_member_order = "bysource"
autodoc_typehints = "description"
napoleon_google_docstring = True
napoleon_numpy_docstring = False
# spar_env.rllib is documented without RLlib installed (its extra pins another Gymnasium),
# and spar_env.openspiel without OpenSpiel.
autodoc_mock_imports = ["ray.rllib", "pyspiel"]  # the openspiel extra is not needed to build
