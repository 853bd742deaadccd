"""Which games each rollout worker plays, and what it is built from.

A single game's games are shared out among the workers as evenly as can be; the games of a
``game.mix`` each go whole to one worker (:func:`assign_games`: the largest first, to the
worker with the fewest games so far), so there are at most as many workers as games and each
worker's forward passes stay whole. :func:`worker_args` gives each worker its pieces and the
picklable arguments of its :class:`~spar_train.ppo.wrappers.worker.RolloutWorker`, built where
it runs (a process, a Ray actor), with the source the run hands it for its pieces
(:data:`WorkerSources`): :mod:`~spar_train.ppo.wrappers.shared` joins what they play.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

import numpy as np

from spar_train.games import GameMix, build_model
from spar_train.ppo.sources.base import SourceMaker
from spar_train.ppo.sources.mix import Piece
from spar_train.sections import Config

# Each worker's source, given every worker's pieces (picklable makers: built where it runs).
WorkerSources = Callable[[list[list[Piece]]], list[SourceMaker]]


def worker_args(config: Config, mix: GameMix, sources: WorkerSources, workers: int,
                threads: int) -> tuple[list[list[Piece]], list[tuple[Any, ...]]]:  # fmt: skip
    """What each of ``workers`` workers plays (:func:`worker_pieces`), and the arguments of its
    :class:`~spar_train.ppo.wrappers.worker.RolloutWorker` (picklable: it is built where it
    runs): the maker of its source that ``sources`` gives for its pieces, the run's seed, its
    number, the run's network maker and ``threads`` torch threads."""
    pieces = worker_pieces(mix.shares(config.rollout.games), workers)
    make_model = partial(build_model, config, mix)
    makers = sources(pieces)
    args = [(maker, config.run.seed, i, make_model, threads) for i, maker in enumerate(makers)]
    return pieces, args


def worker_pieces(counts: Sequence[int], workers: int) -> list[list[Piece]]:
    """What each of ``workers`` workers plays, given each game's number of games (``counts``):
    ``(game, games)`` pieces. One game is shared out among the workers as evenly as can be;
    the games of a mix each go whole to one worker (:func:`assign_games`).

    Raises:
        ValueError: for more workers than the games of a mix (a worker would have none).
    """
    if len(counts) == 1:
        return [[(0, part.size)] for part in np.array_split(np.arange(counts[0]), workers)]
    return [[(g, counts[g]) for g in games] for games in assign_games(counts, workers)]


def assign_games(counts: Sequence[int], workers: int) -> list[list[int]]:
    """Which games of a mix (by index) each of ``workers`` workers plays, given each game's
    number of games (``counts``, :func:`~spar_train.games.shares`).

    Each game goes whole to one worker, the largest first (ties: the lower index) to the
    worker with the fewest games so far (ties: the lower worker), which keeps the workers'
    loads close; each worker's games are in the mix's order.

    Raises:
        ValueError: for more workers than games (a worker would have none).
    """
    if workers > len(counts):
        raise ValueError(f"{workers} workers for the {len(counts)} games of the mix")
    loads = [0] * workers
    mine: list[list[int]] = [[] for _ in range(workers)]
    for game in sorted(range(len(counts)), key=lambda i: -counts[i]):  # stable: ties by index
        worker = loads.index(min(loads))
        mine[worker].append(game)
        loads[worker] += counts[game]
    return [sorted(games) for games in mine]
