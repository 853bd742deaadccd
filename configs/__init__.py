"""The ready-made TOML configs of ``spar train``.

Installed as the package data ``spar_train.configs``; :mod:`spar_agents.shipped` finds them.
"""
