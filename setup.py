"""Packaging beyond ``pyproject.toml``: which folder installs under which import name.

Everything installs under a name of its own, never a generic one, so that a
user's ``agents/`` package or ``train.py`` cannot shadow ours:

================  ===========================  ======================================
folder            import name                  what it holds (the floors, bottom to top)
================  ===========================  ======================================
``spar_env/``     ``spar_env``                 the engine: rules, core, observations,
                                               records, environments, bridges
``agents/``       ``spar_agents``              policies and their learners' parts
``checkpoints/``  ``spar_agents.checkpoints``  the shipped bots (package data)
``train/``        ``spar_train``               runs: training, the bench, exploit
``configs/``      ``spar_train.configs``       the ready-made configs (package data)
``apps/``         ``spar_apps``                the ``spar`` command, the terminal and
                                               web tables
================  ===========================  ======================================

The mapping is setuptools' ``package_dir``: a wheel holds the packages under
their import names, and an editable install maps the same names onto these
folders. :mod:`spar_agents.shipped` finds the data with :mod:`importlib.resources`
in either.
"""

from setuptools import find_packages, setup

FOLDERS = {  # import name -> folder
    "spar_env": "spar_env",
    "spar_agents": "agents",
    "spar_agents.checkpoints": "checkpoints",
    "spar_train": "train",
    "spar_train.configs": "configs",
    "spar_apps": "apps",
}


def packages() -> list[str]:
    """Every package under its import name: each folder's subpackages, renamed."""
    found = []
    for name, folder in FOLDERS.items():
        found.append(name)
        found += [f"{name}.{sub}" for sub in find_packages(where=folder)]
    return found


setup(
    packages=packages(),
    package_dir=FOLDERS,
    package_data={
        "spar_agents.checkpoints": ["*.onnx", "*.json"],
        "spar_train.configs": ["*.toml"],
        "spar_apps.web": ["static/*"],  # the page of spar serve
    },
)
