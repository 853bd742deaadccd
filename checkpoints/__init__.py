"""The trained bots the package ships (``*.onnx``) and their cards (``*.json``).

Installed as the package data ``spar_agents.checkpoints``; :mod:`spar_agents.shipped` finds them.
"""
