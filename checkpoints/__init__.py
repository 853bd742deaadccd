"""The trained bots the package ships (``*.onnx``) and their cards (``*.json``).

Installed as the package data ``spar_env.checkpoints``; :mod:`spar_env.shipped` finds them.
"""
