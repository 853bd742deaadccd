"""PPO rollouts on Ray actors: ``spar train CONFIG --ray``, or ``[ray] enabled = true``.

:class:`RaySource` is a wrapper around the run's source: the games of the
:class:`~spar_train.ppo.sources.mix.MixSource` a local run plays are shared out among
``ray.workers`` actors, each a :class:`~spar_train.ppo.wrappers.worker.RolloutWorker` that
holds its part of them on the batch core, a CPU copy of the policy and the opponent pools.
The rest of the run is the local one: only where the rollouts come from changes.

**Which games a worker plays** (:func:`worker_pieces`). The games of a ``game.mix`` each go
whole to one worker (:func:`assign_games`: the largest first, to the worker with the fewest
games so far), so ``ray.workers`` is at most the number of games; the games of a single game
are shared out among the workers as evenly as can be. Either way the learner joins the
workers' rollouts game by game, in the mix's order: a game's shares one after another
(:func:`~spar_train.ppo.sources.base.merge_rollouts`), then the games
(:func:`~spar_train.ppo.sources.base.join_games`).

**One rollout, synchronously.** The learner puts the network's weights in Ray's object store
once, and every worker reads them from there (the pool's snapshots too, when they change);
each plays ``rollout.hands`` hands in all its games and sends back its decisions, which the
learner joins and learns from. Worker ``i`` draws from its own generator, seeded by
``run.seed`` and ``i``, so a seed and a worker count fix the run (it is not the local run,
which draws every game from one generator); a checkpoint holds every worker's games and
generator, and a resumed run goes on exactly.

**Faults.** With each rollout a worker also sends its state (its games and its generator),
and the learner keeps the last one. A worker that dies (a killed process, a lost node) is
replaced by a new actor with the state the dead one had before the rollout, which plays its
share again: the same share, so the run goes on as if nothing had happened and loses no update.
"""

from __future__ import annotations

import logging
import secrets
import weakref
from collections.abc import Sequence
from functools import partial
from typing import Any

import numpy as np

from spar_agents.base import Agent
from spar_agents.ppo.network import ActorCritic
from spar_agents.ppo.precision import Precision
from spar_train.distributed import connect
from spar_train.ppo.games import GameMix, build_model
from spar_train.ppo.sources.base import (
    ModelMaker,
    PooledGames,
    Rollout,
    SourceMaker,
    join_games,
    merge_rollouts,
)
from spar_train.ppo.sources.mix import Piece, mix_source
from spar_train.ppo.sources.pools import MixPool
from spar_train.ppo.wrappers.worker import RolloutWorker, WorkerState, tensors
from spar_train.sections import Config, RaySection

REPLACEMENTS = 3  # new actors a worker's share may need in one rollout before the run stops

log = logging.getLogger(__name__)


class RaySource(PooledGames):
    """The run's source on Ray actors (module docstring).

    Worker ``i`` plays ``pieces[i]`` of the mix with the source ``makers[i]`` builds. This
    class starts the actors, sends them the weights, the pool's snapshots and the teachers,
    replaces those that die, keeps their states for a checkpoint and joins their rollouts. It
    has a source's interface (:class:`~spar_train.ppo.sources.base.RolloutSource`; the ``rng``
    passed to :meth:`collect` is not used: the workers draw from their own).

    Args:
        mix: the run's games.
        pieces: each worker's games and how many of each (:func:`worker_pieces`).
        makers: each worker's source, given the worker's generator (picklable).
        seed: the run's seed (each worker's generator is seeded by it and its number).
        make_model: a fresh network of the run's shape, for each worker's CPU copy.
        settings: ``[ray]``.
        name: the run's name, in the actors' names.
    """

    def __init__(
        self, mix: GameMix, pieces: Sequence[Sequence[Piece]], makers: Sequence[SourceMaker],
        seed: int,
        make_model: ModelMaker, settings: RaySection, *, name: str = "run",
    ) -> None:  # fmt: skip
        self.ray = connect(settings.address, settings.timeout)
        self.games = list(mix.games)
        self.pieces = [list(p) for p in pieces]
        self.seed, self.make_model, self.settings, self.name = seed, make_model, settings, name
        self._makers = list(makers)
        workers = len(self._makers)
        self._worker_class = self.ray.remote(RolloutWorker)
        self.replaced = 0  # actors replaced so far
        self._generation = [0] * workers
        self._session = secrets.token_hex(3)  # this source's actors, apart from a resumed one's
        self._actors: list[Any] = []
        self._finalizer = weakref.finalize(self, _kill, self.ray, self._actors)
        self._actors.extend(self._start(i) for i in range(workers))
        self._states: list[WorkerState] = self.ray.get([a.state.remote() for a in self._actors])
        self._holds: list[dict[tuple[Any, ...], list]] = [{} for _ in range(workers)]
        self._teacher: tuple[Any, list[Any]] = (None, [None] * workers)

    def actor_name(self, worker: int) -> str:
        """The Ray name of worker ``worker``'s current actor (``ray list actors`` shows it):
        ``spar-rollout/RUN/SESSION/WORKER-GENERATION``, the generation counting replacements."""
        generation = self._generation[worker]
        return f"spar-rollout/{self.name}/{self._session}/{worker}-{generation}"

    def _start(self, worker: int) -> Any:
        threads = self.settings.cpus_per_worker
        actor = self._worker_class.options(name=self.actor_name(worker), num_cpus=threads)
        return actor.remote(self._makers[worker], self.seed, worker, self.make_model, threads)

    def _replace(self, worker: int) -> None:
        """A new actor for ``worker``, in the state its last one had before this rollout."""
        self.ray.kill(self._actors[worker])  # if it is only unreachable, it must not come back
        self._generation[worker] += 1
        self.replaced += 1
        actor = self._start(worker)
        actor.load_state.remote(self._states[worker])  # runs before any later call
        self._actors[worker] = actor
        self._holds[worker] = {}

    def collect(
        self,
        model: ActorCritic,
        pool: MixPool,
        hands: int,
        rng: np.random.Generator,
        teacher: Sequence[Agent] | None = None,
        *,
        ahead: bool = False,
    ) -> Rollout:
        """Every worker's games, joined game by game (module docstring)."""
        del rng, ahead
        if teacher is not self._teacher[0]:
            refs = [None] * len(self._actors) if teacher is None else self._put_teachers(teacher)
            self._teacher = (teacher, refs)
        submit = self._submitter(model, pool, hands)
        pending = {submit(w): w for w in range(len(self._actors))}
        parts: list[list[Rollout]] = [[] for _ in self._actors]
        states = list(self._states)
        lost = [0] * len(self._actors)
        while pending:
            (ready,), _ = self.ray.wait(list(pending), num_returns=1)
            worker = pending.pop(ready)
            try:
                parts[worker], states[worker] = self.ray.get(ready)
            except self.ray.exceptions.RayActorError as e:
                lost[worker] += 1
                if lost[worker] > REPLACEMENTS:
                    raise RuntimeError(
                        f"rollout worker {worker} died {lost[worker]} times in one rollout"
                    ) from e
                log.warning(
                    "rollout worker %d (%s) died; a new actor plays its share again",
                    worker, self.actor_name(worker),
                )  # fmt: skip
                self._replace(worker)
                pending[submit(worker)] = worker
        self._states = states
        return self._join(parts)

    def _submitter(self, model: ActorCritic, pool: MixPool, hands: int) -> Any:
        """What starts a worker's rollout: the weights in the object store once, the pool's
        snapshots there at most once, and only to the workers that do not hold them."""
        ray = self.ray
        weights = ray.put({k: v.detach().cpu() for k, v in model.state_dict().items()})
        key = (tuple(pool.mix.items()), pool.keep)
        shared: list[Any] = []

        def submit(worker: int) -> Any:
            snapshots = None
            if self._holds[worker].get(key) is not pool.snapshots:
                if not shared:
                    shared.append(ray.put(pool.snapshots))
                snapshots = shared[0]
                self._holds[worker][key] = pool.snapshots
            return self._actors[worker].collect.remote(
                weights, dict(pool.mix), pool.keep, snapshots, hands, self._teacher[1][worker]
            )

        return submit

    def _join(self, parts: list[list[Rollout]]) -> Rollout:
        """One rollout of every worker's (``parts[worker]``, one a piece): each game's shares in
        worker order, then the games in the mix's order."""
        by_game: dict[int, list[Rollout]] = {}
        for pieces, rollouts in zip(self.pieces, parts, strict=True):
            for (game, _), rollout in zip(pieces, rollouts, strict=True):
                by_game.setdefault(game, []).append(rollout)
        games = [merge_rollouts(by_game[g]) for g in range(len(self.games))]
        return join_games(self.games, games)

    def _put_teachers(self, teacher: Sequence[Agent]) -> list[Any]:
        """Each worker's teachers in the object store: one a piece it plays."""
        return [self.ray.put([teacher[g] for g, _ in pieces]) for pieces in self.pieces]

    def state_dict(self) -> dict[str, list[dict[str, Any]]]:
        """Every worker's games (as tensors) and generator, for a checkpoint."""
        return {"workers": [{"games": tensors(s["games"]), "rng": s["rng"]} for s in self._states]}

    def load_state_dict(self, saved: dict[str, Any]) -> None:
        workers = saved.get("workers")
        if workers is None:
            raise ValueError(
                "the checkpoint's games were played without Ray (ray.enabled = false); "
                "resume the run without Ray"
            )
        if len(workers) != len(self._actors):
            raise ValueError(
                f"the checkpoint holds the games of {len(workers)} Ray workers; "
                f"this run has ray.workers = {len(self._actors)}"
            )
        states = [
            {"games": {k: v.numpy() for k, v in w["games"].items()}, "rng": w["rng"]}
            for w in workers
        ]
        self.ray.get([a.load_state.remote(s) for a, s in zip(self._actors, states, strict=True)])
        self._states = states

    def close(self) -> None:
        """End the actors (also done when the source is dropped)."""
        self._finalizer()


def ray_source(config: Config, mix: GameMix, precision: Precision) -> RaySource:
    """The run's source on ``ray.workers`` actors; they play on their CPUs, in ``precision``
    (``rollout.precision`` as the driver resolves it, not each node's own ``auto``)."""
    pieces = worker_pieces(mix.shares(config.rollout.games), config.ray.workers)
    makers = [mix_source(mix, config, precision=precision, pieces=p) for p in pieces]
    return RaySource(mix, pieces, makers, config.run.seed, partial(build_model, config, mix),
                     config.ray, name=config.run.name)  # fmt: skip


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
    number of games (``counts``, :func:`~spar_train.ppo.games.shares`).

    Each game goes whole to one worker, the largest first (ties: the lower index) to the
    worker with the fewest games so far (ties: the lower worker), which keeps the workers'
    loads close; each worker's games are in the mix's order.

    Raises:
        ValueError: for more workers than games (a worker would have none).
    """
    if workers > len(counts):
        raise ValueError(f"ray.workers: {workers} workers for the {len(counts)} games of the mix")
    loads = [0] * workers
    mine: list[list[int]] = [[] for _ in range(workers)]
    for game in sorted(range(len(counts)), key=lambda i: -counts[i]):  # stable: ties by index
        worker = loads.index(min(loads))
        mine[worker].append(game)
        loads[worker] += counts[game]
    return [sorted(games) for games in mine]


def _kill(ray: Any, actors: list[Any]) -> None:
    if ray.is_initialized():  # else the actors ended with it
        for actor in actors:
            ray.kill(actor)
