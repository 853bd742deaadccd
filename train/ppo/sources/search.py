"""Search in the loop: a source whose rollouts also carry what search found over the network.

:class:`SearchSource` is a source like any other (a
:class:`~spar_train.ppo.sources.base.PartSource`): it plays its inner source's games for PPO
as ever, then searched games of its own, and gives beside the rollout (``Rollout.search``)
the targets of the searched decisions (:class:`~spar_agents.ppo.improve.SearchTargets`):

1. its searched games, ``search.games`` games of the run's mix (or the share of them a worker
   plays), play ``rollout.hands`` hands in self-play, every seat the current network, sampling
   its policy (the positions the network itself reaches). They are one more
   :class:`~spar_train.ppo.sources.mix.MixSource` (:class:`SearchedGames`), its learner's
   seats played by a labeler for each game (:class:`SearchLabeler`, a stand-in:
   :class:`~spar_train.ppo.sources.batch.Hand`);
2. at every decision with more than one legal card, the labeler asks the ``search`` agent
   (:mod:`spar_agents.search`) for every legal card's value, with the current network as
   its model of every seat: its belief over the hidden cards and its rollouts. Its settings
   are ``search.worlds`` and ``search.candidates``; its seed changes every update, drawn from
   the source's generator;
3. :func:`~spar_agents.ppo.improve.targets_of` turns the values into the improved policy and
   value, in the game's reward units (each game's own reward scale).

Like any source it can be handed to rollout workers (``rollout.workers``, ``rollout.overlap``,
Ray: :mod:`spar_train.ppo.wrappers`): each worker then plays a :class:`SearchSource` of its
share of the run's games and of the searched games, with its own generator, and the workers'
rollouts join, their targets worker after worker
(:func:`~spar_train.ppo.sources.base.join_workers`): the searches run on every core, and a
seed and a worker count still fix the run. With the overlap the searched games of a rollout
played ahead are searched over the network one update older, as its rollout is played.

In the learner's process, :class:`SearchBuffer` keeps the last ``search.buffer`` searched
decisions of the rollouts it collects (and saves them with a checkpoint), so an update learns
from more than the few decisions search afforded since the last one.

After the next update the network is newer, so the next rollout's search is over the newer
network: the loop of expert iteration. The warm start's imitation collects with a teacher of
its own and gets no search.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

import numpy as np
import torch

from spar_agents.base import Agent, Decision, Situation
from spar_agents.ppo.agent import PPOAgent, policy_probs, sample_actions
from spar_agents.ppo.improve import SearchTargets, targets_of
from spar_agents.ppo.network import ActorCritic
from spar_agents.search import SearchAgent, policy_of
from spar_env.core import unpack
from spar_env.core.bits import popcount
from spar_train.games import GameMix, MixGame, reward_scale
from spar_train.ppo.sources.base import (
    ModelMaker,
    PartSource,
    PlayedWhenAsked,
    Rollout,
    RolloutSource,
    SourceMaker,
)
from spar_train.ppo.sources.batch import hidden_hands
from spar_train.ppo.sources.lockstep import Answer
from spar_train.ppo.sources.mix import MixSource, Piece, refuse_workers_games
from spar_train.ppo.sources.pools import SELF, MixPool
from spar_train.sections import Config, SearchSection

SEED_BOUND = 2**31  # each update's search seed is drawn below this


class SearchLabeler:
    """Plays the learner's seats of one game as the network does, and has search value the
    cards at each decision with a choice (module docstring, step 2)."""

    def __init__(self, game: MixGame, model: ActorCritic, settings: SearchSection,
                 seed: int, scale: float) -> None:  # fmt: skip
        self.game = game
        self.model = model
        self.temperature = settings.temperature
        self.scale = scale
        model_of_seats = policy_of(
            PPOAgent(game.rules, model, universal=game.universal), "the learner"
        )
        self.search = SearchAgent(game.rules, model_of_seats, worlds=settings.worlds,
                                  candidates=settings.candidates, prior=0.0, seed=seed)  # fmt: skip
        self.found: list[SearchTargets] = []

    def act(self, situation: Situation, rng: np.random.Generator) -> Decision:
        state, games, view = situation.state, situation.games, self.game.view
        seats = state.current_player[games]
        obs = view.encode(state, seats, games).copy()
        mask = unpack(view.legal(state.legal[games]), view.num_actions)
        probs = policy_probs(self.model, obs, mask)
        actions = view.to_game(sample_actions(probs, rng))
        chosen = np.flatnonzero(popcount(state.legal[games]) > 1)
        if chosen.size:
            self.found.append(self._searched(situation, chosen, obs, mask, probs))
        return Decision(actions)  # the network's probabilities are of its own actions

    def _searched(self, situation: Situation, rows: np.ndarray, obs: np.ndarray,
                  mask: np.ndarray, prior: np.ndarray) -> SearchTargets:  # fmt: skip
        """The targets at the decisions ``rows`` of ``situation``."""
        state, view = situation.state, self.game.view
        games = situation.games[rows]
        cards = self.search.card_values(Situation(state, situation.history, games))
        c = cards.shape[1]
        values = np.zeros((rows.size, view.num_actions))
        values[:, view.action_of[:c]] = np.where(np.isfinite(cards), cards, 0.0) * self.scale
        probs, value, gain = targets_of(prior[rows], values, mask[rows], self.temperature)
        extra = None
        if self.model.privileged:
            extra = view.hidden(hidden_hands(state, games, state.current_player[games]))
        return SearchTargets(obs[rows], mask[rows], probs, value, gain, extra)


class SearchedGames:
    """The searched self-play games (module docstring, steps 1 to 3): a
    :class:`~spar_train.ppo.sources.mix.MixSource` of ``search.games`` games of the run's mix
    (or of a worker's part of them), each learner seat the network and a labeler.

    Args:
        games: the searched games.
        config: the run's config (``[search]``, the reward scales).
    """

    def __init__(self, games: MixSource, config: Config) -> None:
        self.games = games
        self.settings = config.search
        self.scales = [reward_scale(config, game.rules) for game in games.games]
        self.own_pool = games.pool({SELF: 1.0}, 0, None)

    def play(self, model: ActorCritic, hands: int, rng: np.random.Generator
             ) -> SearchTargets | None:  # fmt: skip
        """``hands`` hands of every searched game with the network as it is now; what search
        found at their decisions (None if no decision had a choice)."""
        seed = int(rng.integers(SEED_BOUND))
        labelers = [SearchLabeler(game, model, self.settings, seed, scale)
                    for game, scale in zip(self.games.games, self.scales, strict=True)]  # fmt: skip
        self.games.collect_games(model, self.own_pool, hands, rng, stand_ins=labelers)
        found = [part for labeler in labelers for part in labeler.found]
        return SearchTargets.join(found) if found else None

    def state_dict(self) -> dict[str, torch.Tensor]:
        return self.games.state_dict()

    def load_state_dict(self, saved: dict[str, Any]) -> None:
        self.games.load_state_dict(saved)


def searched_games(
    mix: GameMix, config: Config, pieces: Sequence[Piece] | None = None
) -> Callable[[np.random.Generator], SearchedGames]:
    """What builds the searched games from a generator (picklable: a rollout worker builds its
    own): ``search.games`` games of ``mix``, or the ``pieces`` of them a worker plays."""
    return partial(_searched_games, mix, config, pieces)


def _searched_games(mix: GameMix, config: Config, pieces: Sequence[Piece] | None,
                    rng: np.random.Generator) -> SearchedGames:  # fmt: skip
    searched = dataclasses.replace(config.rollout, games=config.search.games)
    own = config.replace(rollout=searched)
    return SearchedGames(MixSource(mix, own, rng, pieces=pieces), config)


class SearchSource(PlayedWhenAsked):
    """A source's games, then searched games, their targets beside the rollout (module
    docstring).

    Args:
        inner: the source of the run's games (or of a worker's share of them).
        searched: the searched games.
    """

    def __init__(self, inner: PartSource, searched: SearchedGames) -> None:
        self.inner = inner
        self.searched = searched
        self.games = inner.games
        self.precision = inner.precision

    def collect_games(
        self,
        model: ActorCritic,
        pool: MixPool,
        hands: int,
        rng: np.random.Generator,
        stand_ins: Sequence[Agent] | None = None,
        answer: Answer | None = None,
    ) -> list[Rollout]:
        """The inner source's rollouts, the first with what search found (and its seconds,
        ``search``); with ``stand_ins`` (the warm start's imitation) no search."""
        parts = self.inner.collect_games(model, pool, hands, rng, stand_ins, answer)
        if stand_ins is not None:
            return parts
        began = time.perf_counter()
        found = self.searched.play(model, hands, rng)  # over this process's copy of the network
        first = parts[0]
        seconds = {**first.seconds, "search": time.perf_counter() - began}
        return [dataclasses.replace(first, search=found, seconds=seconds), *parts[1:]]

    def state_dict(self) -> dict[str, Any]:
        return {"inner": self.inner.state_dict(), "search_games": self.searched.state_dict()}

    def load_state_dict(self, saved: dict[str, Any]) -> None:
        refuse_workers_games(saved)
        if "inner" not in saved or "search_games" not in saved:
            raise ValueError("saved games: no searched games (the checkpoint is of a run "
                             "without search.games)")  # fmt: skip
        self.searched.load_state_dict(saved["search_games"])
        self.inner.load_state_dict(saved["inner"])

    def close(self) -> None:
        self.inner.close()


def search_source(
    inner: SourceMaker, mix: GameMix, config: Config, pieces: Sequence[Piece] | None = None
) -> SourceMaker:
    """What builds a :class:`SearchSource` from a generator (picklable: a worker builds its
    own): ``inner``'s games, then ``search.games`` games of ``mix`` (or their ``pieces``)."""
    return partial(_search_source, inner, searched_games(mix, config, pieces))


def _search_source(inner: SourceMaker, searched: Callable[[np.random.Generator], SearchedGames],
                   rng: np.random.Generator) -> SearchSource:  # fmt: skip
    source = inner(rng)  # the run's games draw their deals first, then the searched games
    return SearchSource(source, searched(rng))


class SearchBuffer:
    """A source's rollouts, each with the newest ``search.buffer`` searched decisions that its
    rollouts carried (module docstring), at least the last rollout's; kept with a checkpoint.

    Args:
        inner: the run's source (a :class:`SearchSource`, or workers that play them).
        settings: the run's ``[search]``.
    """

    def __init__(self, inner: RolloutSource, settings: SearchSection) -> None:
        self.inner = inner
        self.settings = settings
        self.buffer: SearchTargets | None = None

    def pool(self, shares: dict[str, float], keep: int, make_model: ModelMaker | None) -> MixPool:
        return self.inner.pool(shares, keep, make_model)

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
        rollout = self.inner.collect(model, pool, hands, rng, teacher, ahead=ahead)
        if teacher is not None:  # the warm start's imitation: no search
            return rollout
        if rollout.search is not None:
            self._keep(rollout.search)
        return dataclasses.replace(rollout, search=self.buffer)

    def _keep(self, found: SearchTargets) -> None:
        """The newest ``search.buffer`` searched decisions (at least this update's)."""
        keep = max(self.settings.buffer, found.size)
        joined = found if self.buffer is None else SearchTargets.join([self.buffer, found])
        self.buffer = joined.take(slice(max(joined.size - keep, 0), None))

    def state_dict(self) -> dict[str, Any]:
        """The inner source's state, and the buffer beside it (``search_buffer``)."""
        saved = dict(self.inner.state_dict())
        if self.buffer is not None:
            saved["search_buffer"] = {
                f.name: torch.from_numpy(np.ascontiguousarray(getattr(self.buffer, f.name)))
                for f in dataclasses.fields(self.buffer)
                if getattr(self.buffer, f.name) is not None
            }
        return saved

    def load_state_dict(self, saved: dict[str, Any]) -> None:
        saved = one_search_form(saved)
        kept = saved.get("search_buffer")
        self.inner.load_state_dict({k: v for k, v in saved.items() if k != "search_buffer"})
        self.buffer = None
        if kept is not None:
            arrays = {name: value.numpy().copy() for name, value in kept.items()}
            needed = ("obs", "mask", "probs", "values", "gain")
            if not all(name in arrays for name in needed):
                raise ValueError(f"saved search buffer: it lacks one of {', '.join(needed)}")
            self.buffer = SearchTargets(
                arrays["obs"],
                arrays["mask"],
                arrays["probs"],
                arrays["values"],
                arrays["gain"],
                arrays.get("extra"),
            )

    def close(self) -> None:
        self.inner.close()


def one_search_form(saved: dict[str, Any]) -> dict[str, Any]:
    """The games of a search run's checkpoint in today's form; its workers' games (and those of
    any other run) as they are.

    Before search was a source like any other, a run's workers kept their searched games
    beside their games (``{"games", "rng", "searched"}``) and the source kept the workers under
    ``inner``; today each worker's games are its :class:`SearchSource`'s (``{"inner",
    "search_games"}``), and the workers are at the top, beside the buffer.

    Raises:
        ValueError: for a checkpoint whose run's games were played by workers but its searched
            games in the learner's process, as spar-rl did before its workers searched.
    """
    inner = saved.get("inner")
    if not isinstance(inner, dict) or not ("workers" in inner or "overlap" in inner):
        return saved
    if "search_games" in saved:
        raise ValueError("saved games: the run's games were played by rollout workers but its "
                         "searched games in the learner's process, as spar-rl did before its "
                         "workers searched; such a run cannot go on exactly: start it again "
                         "(its checkpoints still play, as ppo: agents)")  # fmt: skip
    workers = [
        {"games": {"inner": w["games"], "search_games": w["searched"]}, "rng": w["rng"]}
        if "searched" in w else w
        for w in inner.get("workers", [])
    ]  # fmt: skip
    lifted = {**{k: v for k, v in saved.items() if k != "inner"}, **inner}
    return {**lifted, "workers": workers} if "workers" in inner else lifted
