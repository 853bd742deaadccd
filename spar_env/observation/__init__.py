"""What a seat may know, as a flat ``uint8`` vector: the two observation versions.

- version 1, :mod:`spar_env.observation.per_game`: a layout of each game's own
  (:mod:`spar_env.observation.per_game_layout`; 379 entries in 4-player spar);
- version 2, :mod:`spar_env.observation.universal`: one layout of 1,212 entries
  for every game of the family, so one network plays them all.

Both stay readable for the bots exported with them; a bot's file names its version.
"""
