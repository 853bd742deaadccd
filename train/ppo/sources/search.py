"""Search in the loop: a source whose rollouts also carry what search found over the network.

:class:`SearchSource` wraps the run's source (:mod:`spar_train.ppo.sources.mix`, or a
wrapper of it). Each :meth:`~SearchSource.collect` gives the inner source's rollout, for PPO
as ever, and beside it (``Rollout.search``) the targets of searched decisions
(:class:`~spar_agents.ppo.improve.SearchTargets`):

1. a second game batch of its own, ``search.games`` games of the run's mix, plays
   ``rollout.hands`` hands in self-play, every seat the current network, sampling its policy
   (the positions the network itself reaches). It is one more
   :class:`~spar_train.ppo.sources.mix.MixSource`, played with a teacher: each game's
   :class:`SearchLabeler`;
2. at every decision with more than one legal card, the labeler asks the ``search`` agent
   (:mod:`spar_agents.search`) for every legal card's value, with the current network as
   its model of every seat: its belief over the hidden cards and its rollouts. Its settings
   are ``search.worlds`` and ``search.candidates``; its seed changes every update, drawn from
   the run's generator;
3. :func:`~spar_agents.ppo.improve.targets_of` turns the values into the improved policy and
   value, in the game's reward units (each game's own reward scale);
4. the last ``search.buffer`` searched decisions are kept (and saved with a checkpoint), so an
   update learns from more than the few decisions search afforded since the last one.

After the next update the network is newer, so the next rollout's search is over the newer
network: the loop of expert iteration. The warm start's imitation collects with a teacher of
its own and gets no search.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence
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
from spar_train.ppo.games import GameMix, MixGame, reward_scale
from spar_train.ppo.sources.base import ModelMaker, Rollout, RolloutSource
from spar_train.ppo.sources.batch import hidden_hands
from spar_train.ppo.sources.mix import MixSource
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


class SearchSource:
    """The run's source, with search's targets beside each rollout (module docstring).

    Args:
        inner: the run's own source.
        mix: the run's games.
        config: the run's config (``[search]``, the reward scales).
        rng: draws the first deals of the searched games.
    """

    def __init__(self, inner: RolloutSource, mix: GameMix, config: Config,
                 rng: np.random.Generator) -> None:  # fmt: skip
        self.inner = inner
        self.settings = config.search
        searched = dataclasses.replace(config.rollout, games=config.search.games)
        self.selfplay = MixSource(mix, config.replace(rollout=searched), rng)
        self.scales = [reward_scale(config, game.rules) for game in mix.games]
        self.own_pool = self.selfplay.pool({SELF: 1.0}, 0, None)
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
        began = time.perf_counter()
        seed = int(rng.integers(SEED_BOUND))
        labelers = [SearchLabeler(game, model, self.settings, seed, scale)
                    for game, scale in zip(self.selfplay.games, self.scales, strict=True)]  # fmt: skip
        self.selfplay.collect(model, self.own_pool, hands, rng, labelers)
        found = [part for labeler in labelers for part in labeler.found]
        if found:
            self._keep(SearchTargets.join(found))
        seconds = {**rollout.seconds, "search": time.perf_counter() - began}
        return dataclasses.replace(rollout, search=self.buffer, seconds=seconds)

    def _keep(self, found: SearchTargets) -> None:
        """The newest ``search.buffer`` searched decisions (at least this update's)."""
        keep = max(self.settings.buffer, found.size)
        joined = found if self.buffer is None else SearchTargets.join([self.buffer, found])
        self.buffer = joined.take(slice(max(joined.size - keep, 0), None))

    def state_dict(self) -> dict[str, Any]:
        saved: dict[str, Any] = {"inner": self.inner.state_dict(),
                                 "search_games": self.selfplay.state_dict()}  # fmt: skip
        if self.buffer is not None:
            saved["search_buffer"] = {
                f.name: torch.from_numpy(np.ascontiguousarray(getattr(self.buffer, f.name)))
                for f in dataclasses.fields(self.buffer)
                if getattr(self.buffer, f.name) is not None
            }
        return saved

    def load_state_dict(self, saved: dict[str, Any]) -> None:
        if "search_games" not in saved:
            raise ValueError("saved games: no searched games (the checkpoint is of a run "
                             "without search.games)")  # fmt: skip
        self.inner.load_state_dict(saved["inner"])
        self.selfplay.load_state_dict(saved["search_games"])
        kept = saved.get("search_buffer")
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
