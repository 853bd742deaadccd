"""The web table of ``spar serve``: a person against bots in the browser, the game on the server.

- :mod:`~spar_env.web.lobby`: what a new game may be (variants, options, the
  opponents the server offers) and the bots of a game.
- :mod:`~spar_env.web.games`: the games by id, each a
  :class:`~spar_env.play.HumanTable` as ``spar play`` runs it, with its records.
- :mod:`~spar_env.web.view`: one seat's view of a table as JSON, the only
  thing the page is sent.
- :mod:`~spar_env.web.limits`: body size, request rates and the number of games.
- :mod:`~spar_env.web.app`: the HTTP interface (Starlette).
- ``static/``: the page, plain HTML, CSS and JavaScript, package data.

Needs the ``web`` extra (Starlette and uvicorn).
"""

from spar_env.web.app import create_app
from spar_env.web.limits import Limits
from spar_env.web.lobby import Lobby

__all__ = ["Limits", "Lobby", "create_app"]
