"""The opponent pool: who holds the seats the learner does not, game by game.

Each rollout draws, for every game of the batch, one entry of the mix
(``[pool] mix`` in the config):

- ``self``: the learner holds every seat (plain self-play; all seats train);
- ``snapshot``: the learner holds one seat at random, and one past snapshot
  of the learner (drawn per game among the kept ones) the others;
- an agent spec (``heuristic``, ``random``, ``pimc:worlds=8``): the learner
  holds one seat and that agent the others.

Until the first snapshot is taken, the ``snapshot`` share goes to ``self``.
Snapshots play their policy stochastically, as the learner does in training.
Only the learner's own decisions are learned from (:mod:`spar_train.ppo.sources.batch`).

A run's pool is a :class:`MixPool`: one :class:`OpponentPool` for each game of its mix (a
single game is a mix of one), sharing the snapshot networks (one copy of each snapshot's
weights serves every game).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import torch

from spar_agents import Agent, make_agent
from spar_agents.ppo.agent import PPOAgent
from spar_agents.ppo.network import ActorCritic
from spar_env.rules import Ruleset
from spar_train.games import MixGame

LEARNER = -1  # role of a seat held by the learner
SELF, SNAPSHOT = "self", "snapshot"


class OpponentPool:
    """The mix of opponents and the snapshots kept (module docstring).

    Args:
        rules: the game.
        mix: share of games by entry (``self``, ``snapshot`` or an agent spec).
        keep: how many snapshots to keep (the most recent).
        make_model: builds an empty network of the learner's shape (for snapshots).
        universal: the learner reads observation v2 (a game mix,
            :mod:`spar_train.games`), so its snapshots do too.
    """

    def __init__(
        self,
        rules: Ruleset,
        mix: dict[str, float],
        keep: int,
        make_model: Any,
        universal: bool = False,
    ) -> None:
        self.rules = rules
        self.universal = universal
        self.mix = dict(mix)
        self.keep = keep
        self.make_model = make_model
        self.specs = [k for k in self.mix if k not in (SELF, SNAPSHOT)]
        self.fixed: list[Agent] = [make_agent(spec, rules) for spec in self.specs]
        self.snapshots: list[dict[str, torch.Tensor]] = []  # actor weights, oldest first
        self._snapshot_agents: list[PPOAgent] = []

    @property
    def opponents(self) -> list[Agent]:
        """The agents a role index points to: the fixed agents, then the snapshots."""
        return [*self.fixed, *self._snapshot_agents]

    def add_snapshot(self, model: ActorCritic) -> None:
        """Keep a copy of the learner's current weights as an opponent."""
        self.snapshots = [*self.snapshots, weights_of(model)][-self.keep :]
        self._rebuild()

    def load_snapshots(self, snapshots: list[dict[str, torch.Tensor]]) -> None:
        self.snapshots = list(snapshots)[-self.keep :]
        self._rebuild()

    def _rebuild(self) -> None:
        self.use_snapshots(self.snapshots, snapshot_models(self.make_model, self.snapshots))

    def use_snapshots(
        self, snapshots: list[dict[str, torch.Tensor]], models: list[ActorCritic]
    ) -> None:
        """Play these snapshots with these networks, built from them (shared between games)."""
        self.snapshots = list(snapshots)
        self._snapshot_agents = [
            PPOAgent(self.rules, model, greedy=False, universal=self.universal) for model in models
        ]

    def shares(self) -> dict[str, float]:
        """The mix in force now, normalised (``snapshot`` folded into ``self`` while empty)."""
        shares = dict(self.mix)
        if not self.snapshots and SNAPSHOT in shares:
            shares[SELF] = shares.get(SELF, 0.0) + shares.pop(SNAPSHOT)
        total = sum(shares.values())
        return {k: v / total for k, v in shares.items() if v > 0}

    def assign(self, games: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        """Roles of a new batch of hands.

        Returns:
            ``roles int64 [games, N]`` (:data:`LEARNER` or an index into
            :attr:`opponents`) and ``entry int64 [games]``, the index into
            :meth:`shares` each game was drawn from (for per-opponent figures).
        """
        n = self.rules.players
        shares = self.shares()
        names = list(shares)
        entry = rng.choice(len(names), size=games, p=np.array(list(shares.values())))
        roles = np.full((games, n), LEARNER, dtype=np.int64)
        learner_seat = rng.integers(0, n, games)
        for e, name in enumerate(names):
            if name == SELF:
                continue
            sel = np.flatnonzero(entry == e)
            if name == SNAPSHOT:
                who = len(self.fixed) + rng.integers(0, len(self.snapshots), sel.size)
            else:
                who = np.full(sel.size, self.specs.index(name))
            roles[sel] = who[:, None]
            roles[sel, learner_seat[sel]] = LEARNER
        return roles, entry


class MixPool:
    """One :class:`OpponentPool` per game of a mix, sharing the snapshot networks (module
    docstring); ``pools[i]`` seats the hands of game ``i``.

    Args:
        games: the games (a single game: a mix of one).
        mix: share of games by entry (``self``, ``snapshot`` or an agent spec).
        keep: how many snapshots to keep (the most recent).
        make_model: builds an empty network of the learner's shape (for snapshots).
    """

    def __init__(self, games: Sequence[MixGame], mix: dict[str, float], keep: int,
                 make_model: Callable[[], ActorCritic] | None) -> None:  # fmt: skip
        self.mix = dict(mix)  # the shares, as a wrapper keys its workers' pools
        self.keep = keep
        self.make_model = make_model
        self.pools = [OpponentPool(g.rules, mix, keep, make_model, universal=g.universal)
                      for g in games]  # fmt: skip
        self.snapshots: list[dict[str, torch.Tensor]] = []
        self.networks: list[ActorCritic] = []  # the snapshots' networks, in their order

    def add_snapshot(self, model: ActorCritic) -> None:
        """Keep a copy of the learner's current weights as an opponent in every game."""
        self.load_snapshots([*self.snapshots, weights_of(model)])

    def load_snapshots(self, snapshots: list[dict[str, torch.Tensor]]) -> None:
        """Play these snapshots (the newest ``keep``), one network each, in every game."""
        self.snapshots = list(snapshots)[-self.keep :]
        self.networks = snapshot_models(self.make_model, self.snapshots)
        for pool in self.pools:
            pool.use_snapshots(self.snapshots, self.networks)


def weights_of(model: ActorCritic) -> dict[str, torch.Tensor]:
    """A copy of the network's weights on the CPU: a snapshot, wherever the learner runs."""
    return {k: v.detach().to("cpu", copy=True) for k, v in model.state_dict().items()}


def snapshot_models(make_model, snapshots: list[dict[str, torch.Tensor]]) -> list:
    """One network per snapshot's weights, in eval mode (``make_model()`` builds each, on its
    device)."""
    models = []
    for weights in snapshots:
        model = make_model()
        model.load_state_dict(weights)
        model.eval()
        models.append(model)
    return models
