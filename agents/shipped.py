"""What the package ships, by name: the trained bots, and finding any package's shipped files.

==============  ================================  ===========================  ===============
what            in the source tree                package data                 a user types
==============  ================================  ===========================  ===============
bots and cards  ``checkpoints/NAME.onnx``, .json  ``spar_agents.checkpoints``  ``onnx:spar4``
configs         ``configs/NAME.toml``             ``spar_train.configs``       ``ppo_tiny``
==============  ================================  ===========================  ===============

``setup.py`` maps each folder to its package, and this module finds a data package's files
with :mod:`importlib.resources` (:func:`shipped_names`, :func:`shipped_file`,
:func:`resolve_shipped`), so an editable install and a wheel see the same files. The bots are
this floor's; the configs are the training floor's own, found the same way by
:mod:`spar_train.configs`. A path that exists always wins over a shipped name, so
``onnx:checkpoints/spar4.onnx`` and ``spar train configs/ppo_tiny.toml`` keep working from a
checkout.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from importlib.resources import files
from pathlib import Path
from typing import Any

BOTS_PACKAGE = "spar_agents.checkpoints"
BOT_SUFFIX = ".onnx"
CARD_SUFFIX = ".json"
DEFAULT_BOT = "spar4"  # trained for the default game: spar with 4 players
UNIVERSAL_BOT = "universal"  # one bot for every game of the family (observation v2)
TWO_PLAYER_BOT = "spar2"  # the universal bot fine-tuned by 2-player self-play: hard to exploit
MATCH_BOT = "match"  # the universal bot fine-tuned on the match reward, 4- and 2-player spar
# Trained further with search in the loop (docs/guide/search-loop.md): spar2 for 2-player spar,
# the universal bot for 4-player spar.
SEARCH_LOOP_BOT_2P, SEARCH_LOOP_BOT_4P = "exit2", "exit4"


def data_folder(package: str) -> Path:
    """The folder of a data package (an installed package is a folder on disk)."""
    folder = files(package)
    if not isinstance(folder, Path):  # a zipped install: onnxruntime and tomllib need real files
        raise RuntimeError(f"{package} is not installed as a folder; reinstall spar-rl with pip")
    return folder


def shipped_names(package: str, suffix: str) -> list[str]:
    """The names of the files of a data package that end in ``suffix``, sorted."""
    return sorted(p.stem for p in data_folder(package).glob(f"*{suffix}"))


def shipped_file(package: str, suffix: str, name: str, what: str) -> Path:
    """The file ``name`` (with or without ``suffix``) of a data package.

    Raises:
        ValueError: if there is none, naming the files of that kind there are.
    """
    path = data_folder(package) / f"{name.removesuffix(suffix)}{suffix}"
    if not path.is_file():
        known = ", ".join(shipped_names(package, suffix)) or "none"
        raise ValueError(f"no shipped {what} named {name!r}; the shipped {what}s: {known}")
    return path


def bot_names() -> list[str]:
    """The names of the shipped bots, sorted: ``["exit2", "exit4", "match", "spar2", ...]``."""
    return shipped_names(BOTS_PACKAGE, BOT_SUFFIX)


def bot_path(name: str = DEFAULT_BOT) -> Path:
    """The ONNX file of the shipped bot ``name``.

    Raises:
        ValueError: if no bot of that name is shipped, naming the ones that are.
    """
    return shipped_file(BOTS_PACKAGE, BOT_SUFFIX, name, "bot")


def default_bots() -> list[str]:
    """The shipped bots ``spar play`` and ``spar serve`` seat, in order of preference; each
    game gets the first that plays it, the stronger match player where two do (matches won
    head to head, docs/guide/strength.md): the search-loop bots (2-player spar: it beats the
    two-player bot and ``search`` itself; 4-player spar: it wins more matches than the match
    bot; docs/guide/search-loop.md), the two-player bot (it beats the universal bot there, and
    is harder to exploit), the match bot (4-player spar, at any session end: it wins more
    matches than the universal bot), the universal bot (49 games, and 4-player spar's hands
    better than the specialist), then the specialist."""
    search_loop = (SEARCH_LOOP_BOT_2P, SEARCH_LOOP_BOT_4P)
    preferred = (*search_loop, TWO_PLAYER_BOT, MATCH_BOT, UNIVERSAL_BOT, DEFAULT_BOT)
    return [name for name in preferred if name in bot_names()]


def default_bot_specs() -> list[str]:
    """The agent specs of :func:`default_bots`, in the same order: ``["onnx:universal", ...]``."""
    return [f"onnx:{name}" for name in default_bots()]


def search_policy_specs(specs: Sequence[str]) -> list[str]:
    """``specs`` (shipped bots' specs in order of preference, :func:`default_bot_specs`) in
    the order the web's ``search`` opponent prefers them as its policy: the same, but the
    universal bot before the 4-player bots trained on from it (the match bot, the 4-player
    search-loop bot). In 4-player spar, where those are seated, search with the universal
    bot's policy beats search with the match bot's on duplicate deals (benchmarks/README.md,
    "The web's search opponent"), and search with the search-loop bot's does no better
    (docs/guide/search-loop.md)."""
    order = list(specs)
    universal = f"onnx:{UNIVERSAL_BOT}"
    if universal not in order:
        return order
    later = [f"onnx:{name}" for name in (MATCH_BOT, SEARCH_LOOP_BOT_4P)]
    order = [s for s in order if s not in later]
    at = order.index(universal) + 1
    return order[:at] + [s for s in later if s in specs] + order[at:]


def bot_card(name: str = DEFAULT_BOT) -> dict[str, Any]:
    """The card of a shipped bot: its game, inputs, size and how it was trained."""
    card = bot_path(name).with_suffix(CARD_SUFFIX)
    return json.loads(card.read_text(encoding="utf-8"))


def resolve_bot(given: str | os.PathLike) -> Path:
    """``given`` if it is a file, else the shipped bot it names (a bare name such as ``spar4``).

    A path that is neither stays as given, so that the loader reports it missing.
    """
    return resolve_shipped(given, bot_names(), bot_path)


def resolve_shipped(
    given: str | os.PathLike, names: list[str], find: Callable[[str], Path], suffix: str = ""
) -> Path:
    """``given`` if it is a file or a path of folders, else what ``find`` gives for the shipped
    name it is (one of ``names``, given with or without ``suffix``), else ``given`` as it is."""
    path = Path(given)
    if path.is_file() or len(path.parts) != 1:
        return path
    name = path.name.removesuffix(suffix) if suffix else path.name
    return find(name) if name in names else path
