"""Match play: the match equity of a session and the bench of whole matches.

- :mod:`spar_train.match.model`: a model of one hand's outcome (who wins, with how many
  points, given the dealer), estimated from play.
- :mod:`spar_train.match.equity`: each seat's chance to win the match from any score.
- :mod:`spar_train.match.table_chances`: the chances a table shows after each hand
  (``spar play``, ``spar serve``), for equal players.
"""
