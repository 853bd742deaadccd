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
from its own generator, seeded by ``(run.seed, i)``, so a seed and a worker
count fix the run; a checkpoint holds every worker's games and generator,
and a resumed run goes on exactly.

**Faults.** With each rollout a worker also sends its state (its games and
its generator), and the learner keeps the last one. A worker that dies (a
killed process, a lost node) is replaced by a new actor with the state the
dead one had before the rollout, which plays its share again: the same share,
so the run goes on as if nothing had happened and loses no update.
"""

from __future__ import annotations

import logging
import secrets
import weakref
from collections.abc import Callable
from typing import Any

import numpy as np
import torch

from spar_agents.base import Agent
from spar_agents.ppo.network import ActorCritic
from spar_agents.ppo.precision import Precision
from spar_env.rules import Ruleset
from spar_train.config import RaySection
from spar_train.distributed import connect
from spar_train.opponent_pool import OpponentPool
from spar_train.rollout import Collector, Rollout, merge_rollouts

WORKER_STREAM = 2  # the workers' generators are (run.seed, WORKER_STREAM, worker)
REPLACEMENTS = 3  # new actors a worker's share may need in one rollout before the run stops

log = logging.getLogger(__name__)
# {"games": {field: array} of the collector's games, "rng": its generator's state}. The
# games travel as NumPy arrays: torch cannot pickle its uint64 tensors (checkpoints
# are zip files, which can).
WorkerState = dict[str, Any]
ModelMaker = Callable[[], ActorCritic]  # a fresh network of the run's shape (picklable)


class RolloutWorker:
    """One rollout actor: its share of the games, a CPU copy of the policy, the opponent pool."""

    def __init__(
        self, rules: Ruleset, games: int, seed: int, index: int, make_model: ModelMaker,
        threads: int, precision: Precision = "float32",
    ) -> None:  # fmt: skip
        torch.set_num_threads(threads)
        self.rules = rules
        self.make_model = make_model
        self.rng = np.random.default_rng([seed, WORKER_STREAM, index])
        self.collector = Collector(rules, games, self.rng, precision=precision)
        self.model = make_model()
        self.pools: dict[tuple[Any, ...], OpponentPool] = {}

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
        teacher: Agent | None,
    ) -> tuple[Rollout, WorkerState]:
        """Play ``hands`` hands in every game of this worker; ``snapshots`` if the pool's changed."""
        self.model.load_state_dict(weights)
        key = (tuple(mix.items()), keep)
        if key not in self.pools:
            self.pools[key] = OpponentPool(self.rules, mix, keep, make_model=self.make_model)
        pool = self.pools[key]
        if snapshots is not None:
            pool.load_snapshots(snapshots)
        rollout = self.collector.collect(self.model, pool, hands, self.rng, reward_scale, teacher)
        return rollout, self.state()


class RayCollector:
    """A collector whose games are played by Ray actors (module docstring).

    It is built from the pieces of a local collector (the rules, the number of
    games, the generator's seed instead of the generator, and ``make_model``,
    which builds the network the workers play), plus ``[ray]`` and the run's
    name for the actors' names. It has the local collector's interface:
    :meth:`collect` (the ``rng`` passed is not used: the workers draw from
    their own), ``state_dict`` and ``load_state_dict`` (the games of every
    worker) and :meth:`close`.
    """

    def __init__(
        self, rules: Ruleset, games: int, seed: int, make_model: ModelMaker,
        settings: RaySection, *, name: str = "run", precision: Precision = "float32",
    ) -> None:  # fmt: skip
        self.ray = connect(settings.address, settings.timeout)
        self.rules = rules
        self.seed, self.make_model, self.settings, self.name = seed, make_model, settings, name
        self.precision = precision
        workers = settings.workers
        self._worker_class = self.ray.remote(RolloutWorker)
        self.games = [part.size for part in np.array_split(np.arange(games), workers)]
        self.replaced = 0  # actors replaced so far
        self._generation = [0] * workers
        self._session = secrets.token_hex(3)  # this collector's actors, apart from a resumed one's
        self._actors: list[Any] = []
        self._finalizer = weakref.finalize(self, _kill, self.ray, self._actors)
        self._actors.extend(self._start(i) for i in range(workers))
        self._states: list[WorkerState] = self.ray.get([a.state.remote() for a in self._actors])
        self._holds: list[dict[tuple[Any, ...], list]] = [{} for _ in range(workers)]
        self._teacher: tuple[Agent | None, Any] = (None, None)

    def actor_name(self, worker: int) -> str:
        """The Ray name of worker ``worker``'s current actor (``ray list actors`` shows it):
        ``spar-rollout/RUN/SESSION/WORKER-GENERATION``, the generation counting replacements."""
        generation = self._generation[worker]
        return f"spar-rollout/{self.name}/{self._session}/{worker}-{generation}"

    def _start(self, worker: int) -> Any:
        threads = self.settings.cpus_per_worker
        actor = self._worker_class.options(name=self.actor_name(worker), num_cpus=threads)
        return actor.remote(
            self.rules, self.games[worker], self.seed, worker, self.make_model, threads,
            self.precision,
        )  # fmt: skip

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
        pool: OpponentPool,
        hands: int,
        rng: np.random.Generator,
        reward_scale: float,
        teacher: Agent | None = None,
    ) -> Rollout:
        """:meth:`spar_train.rollout.Collector.collect` on every worker, joined in worker order."""
        ray = self.ray
        weights = ray.put({k: v.detach().cpu() for k, v in model.state_dict().items()})
        key = (tuple(pool.mix.items()), pool.keep)
        shared: list[Any] = []  # the pool's snapshots in the object store, put at most once
        if teacher is not self._teacher[0]:
            self._teacher = (teacher, None if teacher is None else ray.put(teacher))

        def submit(worker: int) -> Any:
            snapshots = None
            if self._holds[worker].get(key) is not pool.snapshots:
                if not shared:
                    shared.append(ray.put(pool.snapshots))
                snapshots = shared[0]
                self._holds[worker][key] = pool.snapshots
            return self._actors[worker].collect.remote(
                weights, dict(pool.mix), pool.keep, snapshots, hands, reward_scale,
                self._teacher[1],
            )  # fmt: skip

        pending = {submit(w): w for w in range(len(self._actors))}
        parts: list[Rollout | None] = [None] * len(self._actors)
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
        return merge_rollouts(parts)

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


def _tensors(arrays: dict[str, np.ndarray]) -> dict[str, torch.Tensor]:
    """Writable tensors of arrays (those read from Ray's object store are read-only)."""
    return {k: torch.from_numpy(np.array(v)) for k, v in arrays.items()}


def _kill(ray: Any, actors: list[Any]) -> None:
    if ray.is_initialized():  # else the actors ended with it
        for actor in actors:
            ray.kill(actor)
