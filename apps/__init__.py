"""The apps, on the top floor: the ``spar`` command (:mod:`spar_apps.cli`), the terminal
table (:mod:`spar_apps.terminal`) and the web table (:mod:`spar_apps.web`).

They may import every floor below (the engine, the agents, the runs); nothing below
imports them.
"""
