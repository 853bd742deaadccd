"""PPO rollouts on Ray actors: ``spar train CONFIG --ray``, or ``[ray] enabled = true``.

:class:`RayCollector` stands in for the local :class:`~spar_train.rollout.Collector`
in :func:`spar_train.ppo.train`, which is otherwise the same: only where the
rollouts come from changes. ``rollout.games`` is shared out among
``ray.workers`` actors (:class:`RolloutWorker`); each holds its games on the
batch core, a CPU copy of the policy and the opponent pool, and plays them
with the very :class:`~spar_train.rollout.Collector` of a local run.

**One rollout, synchronously.** The learner puts the network's weights in
Ray's object store once, and every worker reads them from there (the pool's
snapshots too, when they change); each plays ``rollout.hands`` hands in all
its games and sends back its decisions, which the learner joins
(:func:`spar_train.rollout.merge_rollouts`) and learns from. Worker ``i`` draws
from its own generator, seeded by ``run.seed`` and ``i``, so a seed and a worker
count fix the run; a checkpoint holds every worker's games and generator,
and a resumed run goes on exactly.

**A game mix.** With a ``game.mix`` (:mod:`spar_train.game_mix`),
:class:`RayMixCollector` stands in for the local
:class:`~spar_train.game_mix.MixCollector`. Each game of the mix gets its
share of ``rollout.games`` as in a local run, and each game goes whole to
one worker (:func:`assign_games`: the largest first, to the worker with the
fewest games so far), so ``ray.workers`` is at most the number of games. A
worker plays its games in lockstep with a ``MixCollector`` of them, its own
pool of each (the snapshots shared) and each game's teacher in the warm
start; the learner joins the games' rollouts in the mix's order, as a local
mix does. A local mix draws every game from the run's one generator and a
worker from its own, so the run is not the local one; as for one game, a
seed and a worker count fix it.

**Faults.** With each rollout a worker also sends its state (its games and
its generator), and the learner keeps the last one. A worker that dies (a
killed process, a lost node) is replaced by a new actor with the state the
dead one had before the rollout, which plays its share again: the same share,
so the run goes on as if nothing had happened and loses no update.
"""

from __future__ import annotations

import dataclasses
import logging
import secrets
import weakref
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any, TypeVar

import numpy as np
import torch

from spar_agents.base import Agent
from spar_agents.ppo.network import ActorCritic
from spar_agents.ppo.precision import Precision, resolve
from spar_env.rules import Ruleset
from spar_train.config import Config, RaySection
from spar_train.distributed import connect
from spar_train.game_mix import MixCollector, MixPool, MixRollouts, join_games, mix_games, shares
from spar_train.opponent_pool import OpponentPool
from spar_train.rollout import Collector, Rollout, merge_rollouts

WORKER_STREAM = 2  # the workers' generators are (run.seed, WORKER_STREAM, worker)
REPLACEMENTS = 3  # new actors a worker's share may need in one rollout before the run stops

R = TypeVar("R")
log = logging.getLogger(__name__)
# {"games": {field: array} of the collector's games, "rng": its generator's state}. The
# games travel as NumPy arrays: torch cannot pickle its uint64 tensors (checkpoints
# are zip files, which can).
WorkerState = dict[str, Any]
ModelMaker = Callable[[], ActorCritic]  # a fresh network of the run's shape (picklable)
# A worker's local collector, given the worker's generator (picklable): a Collector of its
# share of one game's games, or a MixCollector of its games of a mix.
CollectorMaker = Callable[[np.random.Generator], Collector | MixCollector]


class RolloutWorker:
    """One rollout actor: its local collector, a CPU copy of the policy, the opponent pools."""

    def __init__(
        self, make_collector: CollectorMaker, seed: int, index: int, make_model: ModelMaker,
        threads: int,
    ) -> None:  # fmt: skip
        torch.set_num_threads(threads)
        self.make_model = make_model
        self.rng = np.random.default_rng([seed, WORKER_STREAM, index])
        self.collector = make_collector(self.rng)
        self.model = make_model()
        self.pools: dict[tuple[Any, ...], OpponentPool | MixPool] = {}

    def state(self) -> WorkerState:
        games = {k: v.numpy() for k, v in self.collector.state_dict().items()}
        return {"games": games, "rng": self.rng.bit_generator.state}

    def load_state(self, state: WorkerState) -> None:
        self.collector.load_state_dict(_tensors(state["games"]))
        self.rng.bit_generator.state = state["rng"]

    def collect(
        self,
        weights: dict[str, torch.Tensor],
        mix: dict[str, float],
        keep: int,
        snapshots: list[dict[str, torch.Tensor]] | None,
        hands: int,
        reward_scale: float,
        teacher: Agent | list[Agent] | None,
    ) -> tuple[list[Rollout], WorkerState]:
        """Play ``hands`` hands in every game of this worker; ``snapshots`` if the pool's changed.

        Returns the rollout of each of a mix's games (in the worker's order), or the one
        rollout of a single game's share, and the worker's state after it.
        """
        self.model.load_state_dict(weights)
        key = (tuple(mix.items()), keep)
        if key not in self.pools:
            self.pools[key] = self._new_pool(mix, keep)
        pool = self.pools[key]
        if snapshots is not None:
            pool.load_snapshots(snapshots)
        collector, model, rng = self.collector, self.model, self.rng
        if isinstance(collector, MixCollector):
            parts = collector.collect_games(model, pool, hands, rng, teacher)  # type: ignore[arg-type]
        else:
            parts = [collector.collect(model, pool, hands, rng, reward_scale, teacher)]  # type: ignore[arg-type]
        return parts, self.state()

    def _new_pool(self, mix: dict[str, float], keep: int) -> OpponentPool | MixPool:
        if isinstance(self.collector, MixCollector):  # one pool a game, the snapshots shared
            return MixPool(self.collector.games, mix, keep, self.make_model)
        return OpponentPool(self.collector.rules, mix, keep, make_model=self.make_model)


class RayWorkers:
    """Rollout actors standing in for a local collector (module docstring).

    Worker ``i`` plays the collector ``makers[i]`` builds from its generator. This class
    starts the actors, sends them the weights, the pool's snapshots and the teacher,
    replaces those that die, and keeps their states for a checkpoint; :class:`RayCollector`
    (one game) and :class:`RayMixCollector` (a mix) say how the workers' rollouts join
    (:meth:`_join`) and what teacher each worker gets (:meth:`_put_teachers`). It has a
    local collector's interface: :meth:`collect` (the ``rng`` passed is not used: the
    workers draw from their own), ``state_dict`` and ``load_state_dict`` (the games of
    every worker) and :meth:`close`.
    """

    def __init__(
        self, makers: Sequence[CollectorMaker], seed: int, make_model: ModelMaker,
        settings: RaySection, *, name: str = "run",
    ) -> None:  # fmt: skip
        self.ray = connect(settings.address, settings.timeout)
        self.seed, self.make_model, self.settings, self.name = seed, make_model, settings, name
        self._makers = list(makers)
        workers = len(self._makers)
        self._worker_class = self.ray.remote(RolloutWorker)
        self.replaced = 0  # actors replaced so far
        self._generation = [0] * workers
        self._session = secrets.token_hex(3)  # this collector's actors, apart from a resumed one's
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
        pool: OpponentPool | MixPool,
        hands: int,
        rng: np.random.Generator,
        reward_scale: float,
        teacher: Any = None,
    ) -> Rollout:
        """The local collector's ``collect`` on every worker, joined (:meth:`_join`)."""
        ray = self.ray
        weights = ray.put({k: v.detach().cpu() for k, v in model.state_dict().items()})
        key = (tuple(pool.mix.items()), pool.keep)
        shared: list[Any] = []  # the pool's snapshots in the object store, put at most once
        if teacher is not self._teacher[0]:
            refs = [None] * len(self._actors) if teacher is None else self._put_teachers(teacher)
            self._teacher = (teacher, refs)

        def submit(worker: int) -> Any:
            snapshots = None
            if self._holds[worker].get(key) is not pool.snapshots:
                if not shared:
                    shared.append(ray.put(pool.snapshots))
                snapshots = shared[0]
                self._holds[worker][key] = pool.snapshots
            return self._actors[worker].collect.remote(
                weights, dict(pool.mix), pool.keep, snapshots, hands, reward_scale,
                self._teacher[1][worker],
            )  # fmt: skip

        pending = {submit(w): w for w in range(len(self._actors))}
        parts: list[list[Rollout]] = [[] for _ in self._actors]
        states = list(self._states)
        lost = [0] * len(self._actors)
        while pending:
            (ready,), _ = ray.wait(list(pending), num_returns=1)
            worker = pending.pop(ready)
            try:
                parts[worker], states[worker] = ray.get(ready)
            except ray.exceptions.RayActorError as e:
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

    def _join(self, parts: list[list[Rollout]]) -> Rollout:
        """One rollout of every worker's (``parts[worker]``): in worker order."""
        return merge_rollouts([part for mine in parts for part in mine])

    def _put_teachers(self, teacher: Any) -> list[Any]:
        """The object-store reference of the teacher each worker plays with: the one teacher."""
        return [self.ray.put(teacher)] * len(self._actors)

    def state_dict(self) -> dict[str, list[dict[str, Any]]]:
        """Every worker's games (as tensors) and generator, for a checkpoint."""
        return {"workers": [{"games": _tensors(s["games"]), "rng": s["rng"]} for s in self._states]}

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
        """End the actors (also done when the collector is dropped)."""
        self._finalizer()


class RayCollector(RayWorkers):
    """One game's rollouts on Ray actors: ``games`` shared out among ``settings.workers``
    workers as evenly as can be, each a local :class:`~spar_train.rollout.Collector`.

    It is built from the pieces of a local collector (the rules, the number of
    games, the generator's seed instead of the generator, and ``make_model``,
    which builds the network the workers play), plus ``[ray]`` and the run's
    name for the actors' names.
    """

    def __init__(
        self, rules: Ruleset, games: int, seed: int, make_model: ModelMaker,
        settings: RaySection, *, name: str = "run", precision: Precision = "float32",
    ) -> None:  # fmt: skip
        self.rules = rules
        sizes = [part.size for part in np.array_split(np.arange(games), settings.workers)]
        makers = [partial(Collector, rules, size, precision=precision) for size in sizes]
        super().__init__(makers, seed, make_model, settings, name=name)


class RayMixCollector(RayWorkers, MixRollouts):
    """A ``game.mix``'s rollouts on Ray actors (module docstring): each game of the mix is
    played whole by one worker (:func:`assign_games`), each worker's games by a local
    :class:`~spar_train.game_mix.MixCollector` of them; the rollout is a local mix's, in
    the mix's order. It offers the run what a local mix collector does
    (:class:`~spar_train.game_mix.MixRollouts`: ``games``, ``rules``, the pools, the
    teachers)."""

    def __init__(self, config: Config, make_model: ModelMaker, *, name: str = "run") -> None:
        self.games = mix_games(config)
        counts = shares(config.rollout.games, [g.weight for g in self.games])
        self.assignment = assign_games(counts, config.ray.workers)
        # The precision the driver resolves, as for one game (not each node's own "auto").
        rollout = dataclasses.replace(config.rollout, precision=resolve(config.rollout.precision))
        played = config.replace(rollout=rollout)
        makers = [partial(MixCollector, played, games=games) for games in self.assignment]
        super().__init__(makers, config.run.seed, make_model, config.ray, name=name)

    def _join(self, parts: list[list[Rollout]]) -> Rollout:
        """The games' rollouts in the mix's order, joined as a local mix joins them."""
        return join_games(self.games, in_mix_order(self.assignment, parts))

    def _put_teachers(self, teacher: Any) -> list[Any]:
        """Each worker's games' teachers (``teacher`` holds one a game of the mix)."""
        return [self.ray.put([teacher[i] for i in games]) for games in self.assignment]


def assign_games(counts: Sequence[int], workers: int) -> list[list[int]]:
    """Which games of a mix (by index) each of ``workers`` workers plays, given each game's
    number of games (``counts``, :func:`~spar_train.game_mix.shares`).

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


def in_mix_order(assignment: Sequence[Sequence[int]], parts: Sequence[Sequence[R]]) -> list[R]:
    """The workers' per-game results (``parts[worker]``, in ``assignment[worker]``'s order) in
    the mix's order."""
    by_game: dict[int, R] = {}
    for games, results in zip(assignment, parts, strict=True):
        by_game.update(zip(games, results, strict=True))
    return [by_game[game] for game in range(len(by_game))]


def _tensors(arrays: dict[str, np.ndarray]) -> dict[str, torch.Tensor]:
    """Writable tensors of arrays (those read from Ray's object store are read-only)."""
    return {k: torch.from_numpy(np.array(v)) for k, v in arrays.items()}


def _kill(ray: Any, actors: list[Any]) -> None:
    if ray.is_initialized():  # else the actors ended with it
        for actor in actors:
            ray.kill(actor)
