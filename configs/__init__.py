"""The ready-made TOML configs of ``spar train``.

Installed as the package data ``spar_env.configs``; :mod:`spar_env.shipped` finds them.
"""
