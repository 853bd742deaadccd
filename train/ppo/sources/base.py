"""What a rollout source is, and what it gives: the learner's records, and how parts join.

A :class:`RolloutSource` is what a PPO run collects from: a source over the run's game mix
(:class:`~spar_train.ppo.sources.mix.MixSource`, or search's
:class:`~spar_train.ppo.sources.search.SearchSource` of it), or a wrapper that plays one
elsewhere (:mod:`spar_train.ppo.wrappers`), handed a :class:`PartSource` for each worker.
Each :meth:`~RolloutSource.collect` gives one :class:`Rollout`: the learner's decisions and
the rewards they led to, ready for GAE, and what rides beside them (search's targets).
:func:`merge_rollouts` joins the rollouts of several batches of one game (workers' shares),
:func:`join_games` those of the games of a mix, in the mix's order, and :func:`join_workers`
those of several workers.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from spar_agents.base import Agent
from spar_agents.ppo.improve import SearchTargets
from spar_agents.ppo.network import ActorCritic
from spar_agents.ppo.precision import Precision
from spar_train.games import MixGame
from spar_train.ppo.sources.pools import MixPool

if TYPE_CHECKING:
    from spar_train.ppo.sources.lockstep import Answer

ModelMaker = Callable[[], ActorCritic]  # a fresh network of the run's shape (picklable)


class RolloutSource(Protocol):
    """Where a run's rollouts come from (module docstring).

    Its games live in it between rollouts; ``state_dict`` holds them for a checkpoint, so that
    a resumed run goes on with the very same games.
    """

    def pool(self, shares: dict[str, float], keep: int, make_model: ModelMaker | None) -> MixPool:
        """An opponent pool for this source's games: ``shares`` by ``pool.mix`` entry, the
        newest ``keep`` snapshots, each built by ``make_model``."""
        ...

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
        """``hands`` hands in every game, the learner's seats played by ``model`` (or by
        ``teacher``, one agent a game of the mix, for imitation), the others by ``pool``.

        ``ahead``: another rollout with this pool follows this one, so a wrapper may start
        playing it now (the overlap does, with the weights as they are at this call).
        """
        ...

    def state_dict(self) -> dict[str, Any]:
        """The games between hands (and whatever else resuming needs), for a checkpoint."""
        ...

    def load_state_dict(self, saved: dict[str, Any]) -> None:
        """Go on with the games of a checkpoint (``ValueError`` for another source's)."""
        ...

    def close(self) -> None:
        """Release what the source holds (a wrapper's worker process, its Ray actors)."""
        ...


class PartSource(RolloutSource, Protocol):
    """A source a worker holds (:mod:`spar_train.ppo.wrappers`): it also gives each of its
    games' rollouts apart, to be joined with the other workers' (:func:`join_workers`), and
    its ``state_dict`` holds tensors, at any depth of dicts, so that it can travel."""

    games: list[MixGame]  # the games it plays, in the mix's order

    precision: Precision  # the arithmetic of its forward passes

    def collect_games(
        self,
        model: ActorCritic,
        pool: MixPool,
        hands: int,
        rng: np.random.Generator,
        stand_ins: Sequence[Agent] | None = None,
        answer: Answer | None = None,
    ) -> list[Rollout]:
        """The rollout of each of the source's games, in order; ``stand_ins`` play the
        learner's seats, one agent a game (imitation's teachers, as :meth:`collect`'s
        ``teacher``; search's labelers); ``answer`` answers the
        networks' turns (:data:`~spar_train.ppo.sources.lockstep.Answer`; None: here)."""
        ...


SourceMaker = Callable[[np.random.Generator], PartSource]  # a source from its generator


class PooledGames:
    """What every source and wrapper shares: the games it plays (``games``, in the mix's
    order), and an opponent pool for them."""

    games: list[MixGame]

    def pool(self, shares: dict[str, float], keep: int, make_model: ModelMaker | None) -> MixPool:
        """An opponent pool for each of the games, the snapshot networks shared."""
        return MixPool(self.games, shares, keep, make_model)


class PlayedWhenAsked(PooledGames):
    """A part source whose games are played when asked: :meth:`collect` joins what
    :meth:`collect_games` gives, in the mix's order."""

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
        """``hands`` hands in every game, one rollout; ``ahead`` is for wrappers
        (:class:`RolloutSource`): the games here are played when asked."""
        del ahead
        return join_games(self.games, self.collect_games(model, pool, hands, rng, teacher))

    def collect_games(
        self,
        model: ActorCritic,
        pool: MixPool,
        hands: int,
        rng: np.random.Generator,
        stand_ins: Sequence[Agent] | None = None,
        answer: Answer | None = None,
    ) -> list[Rollout]:
        """The rollout of each game, in order (:class:`PartSource`)."""
        raise NotImplementedError


@dataclass(frozen=True)
class Rollout:
    """The learner's decisions of one rollout (``M`` of them), and what they led to."""

    obs: np.ndarray  # uint8 [M, D]
    legal: np.ndarray  # uint64 [M] legal actions as a bit set
    actions: np.ndarray  # int64 [M]
    logp: np.ndarray  # float32 [M]
    values: np.ndarray  # float32 [M]
    extra: np.ndarray | None  # uint8 [M, (N-1)*C] other seats' hands, for a privileged critic
    trajectory: np.ndarray  # int64 [M] row of the decision's trajectory
    position: np.ndarray  # int64 [M] its index within the trajectory
    rewards: np.ndarray  # float32 [R] scaled payoff of each trajectory (0 for non-learner rows)
    lengths: np.ndarray  # int64 [R] decisions in each trajectory
    payoff_by_entry: dict[str, tuple[float, int]]  # pool entry -> (sum of payoffs, learner hands)
    hands: int  # hands played (games x hands per game)
    num_actions: int
    seconds: dict[str, float]  # where the time went: learner, opponents, game (core + history)
    search: SearchTargets | None = None  # what search found beside it (sources.search)

    @property
    def decisions(self) -> int:
        return int(self.actions.shape[0])


def merge_rollouts(parts: Sequence[Rollout]) -> Rollout:
    """One rollout from those of several batches of games (workers' shares), in order.

    Each part's trajectory rows come after the rows of the parts before it, and every other
    record (``search`` too) is the parts' one after another. The seconds of each kind of work
    are the parts' added up: the work done, not the time waited (one meaning for a mix's games
    and for the workers alike); a kind only some parts did counts 0 in the others.
    """
    if len(parts) == 1:
        return parts[0]
    offsets = np.cumsum([0] + [part.rewards.shape[0] for part in parts[:-1]])
    payoff: dict[str, tuple[float, int]] = {}
    for part in parts:
        for entry, (total, hands) in part.payoff_by_entry.items():
            before = payoff.get(entry, (0.0, 0))
            payoff[entry] = (before[0] + total, before[1] + hands)

    def joined(name: str) -> np.ndarray:
        return np.concatenate([getattr(part, name) for part in parts])

    return Rollout(
        obs=joined("obs"),
        legal=joined("legal"),
        actions=joined("actions"),
        logp=joined("logp"),
        values=joined("values"),
        extra=None if parts[0].extra is None else joined("extra"),
        trajectory=np.concatenate(
            [part.trajectory + offset for part, offset in zip(parts, offsets, strict=True)]
        ),
        position=joined("position"),
        rewards=joined("rewards"),
        lengths=joined("lengths"),
        payoff_by_entry=payoff,
        hands=sum(part.hands for part in parts),
        num_actions=parts[0].num_actions,
        seconds={
            k: sum(part.seconds.get(k, 0.0) for part in parts)
            for k in dict.fromkeys(k for part in parts for k in part.seconds)
        },  # fmt: skip
        search=join_targets([part.search for part in parts]),
    )


def join_targets(parts: Sequence[SearchTargets | None]) -> SearchTargets | None:
    """The search targets of several rollouts one after another (None where none has any)."""
    found = [part for part in parts if part is not None]
    return SearchTargets.join(found) if found else None


def join_games(games: Sequence[MixGame], parts: Sequence[Rollout]) -> Rollout:
    """One rollout of the games' rollouts (``parts``, in the order of ``games``): the records
    one after another, the payoffs by ``{game}_{entry}`` (by entry alone for a game without a
    key), and the seconds of every game added up (:func:`merge_rollouts`: the work done, not
    the time waited)."""
    merged = merge_rollouts(parts)
    payoff = {
        game.keyed(entry, "_"): value
        for game, part in zip(games, parts, strict=True)
        for entry, value in part.payoff_by_entry.items()
    }
    return dataclasses.replace(merged, payoff_by_entry=payoff)


def join_workers(
    games: Sequence[MixGame],
    pieces: Sequence[Sequence[tuple[int, int]]],
    parts: Sequence[Sequence[Rollout]],
) -> Rollout:
    """One rollout of several workers' (``parts[worker]``, one a piece of ``pieces[worker]``:
    ``(game, games)``, as :class:`PartSource.collect_games` gives them): the decisions of each
    game's shares in worker order, then the games in the mix's order (``games``); the search
    targets worker after worker, as each worker found them."""
    by_game: dict[int, list[Rollout]] = {}
    for mine, rollouts in zip(pieces, parts, strict=True):
        for (game, _), rollout in zip(mine, rollouts, strict=True):
            by_game.setdefault(game, []).append(rollout)
    joined = join_games(games, [merge_rollouts(by_game[g]) for g in range(len(games))])
    found = join_targets([join_targets([r.search for r in rollouts]) for rollouts in parts])
    return dataclasses.replace(joined, search=found)
