"""Packaging beyond ``pyproject.toml``: the shipped data folders as package data.

The top-level folders ``checkpoints/`` (the trained bots and their cards) and
``configs/`` (the ready-made TOML configs) are mapped to the packages
``spar_env.checkpoints`` and ``spar_env.configs``, so a wheel carries them and
:mod:`spar_env.shipped` finds them with :mod:`importlib.resources`, in an
editable install and in a wheel alike; the page of ``spar serve`` is package
data of ``spar_env.web``. Everything else is in ``pyproject.toml``.
"""

from setuptools import find_packages, setup

SHIPPED = {"spar_env.checkpoints": "checkpoints", "spar_env.configs": "configs"}

setup(
    packages=[*find_packages(include=["spar_env*", "agents*", "train*"]), *SHIPPED],
    package_dir=SHIPPED,
    package_data={
        "spar_env.checkpoints": ["*.onnx", "*.json"],
        "spar_env.configs": ["*.toml"],
        "spar_env.web": ["static/*"],  # the page of spar serve
    },
)
