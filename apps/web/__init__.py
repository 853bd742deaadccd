"""The web table of ``spar serve``: people against bots in the browser, the game on the server.

- :mod:`~spar_apps.web.lobby`: what a new game may be (variants, options, the
  opponents the server offers) and the bots of a game.
- :mod:`~spar_apps.web.game_store`: a game, a
  :class:`~spar_apps.table.HumanTable` as ``spar play`` runs it, with its records;
  :mod:`~spar_apps.web.store`: the games by id.
- :mod:`~spar_apps.web.friends`: a table of friends, several people and the bots, each
  seat held by a secret; :mod:`~spar_apps.web.friends_store`: the tables by id;
  :mod:`~spar_apps.web.live`: their HTTP and WebSocket endpoints.
- :mod:`~spar_apps.web.view`: one seat's view of a table as JSON, the only
  thing the page is sent.
- :mod:`~spar_apps.web.limits`: body size, request rates and the number of games.
- :mod:`~spar_apps.web.app`: the HTTP interface (Starlette); :mod:`~spar_apps.web.answers`:
  its JSON answers and the request's language.
- ``static/``: the page, plain HTML, CSS and JavaScript, package data.

Needs the ``web`` extra (Starlette and uvicorn).
"""

from spar_apps.web.app import create_app
from spar_apps.web.limits import Limits
from spar_apps.web.lobby import Lobby

__all__ = ["Limits", "Lobby", "create_app"]
