"""The ready-made TOML configs of ``spar train``.

Installed as the package data ``spar_train.configs``; :mod:`spar_train.config` finds them by
name (:func:`spar_train.config.config_path`).
"""
