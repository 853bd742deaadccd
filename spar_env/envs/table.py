"""A learner against opponents: the batch driver behind the single-agent and vector envs.

In each game of a :class:`LearnerTable` one seat is the learner's; the other
seats are played by opponent policies (:mod:`spar_env.envs.opponents`). After
each learner action the opponents play until it is the learner's turn again or
the episode is over, so the caller only ever sees the learner's decisions.

An illegal learner action either raises ``ValueError`` (``illegal_action=
"raise"``) or, by default (``"terminate"``), ends that game's episode at once
with reward ``illegal_reward`` (default: one point worse than the most a hand
can cost, so a learner never prefers an illegal move to a lost hand).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numba import njit

from spar_env.envs.batch import GameBatch, default_illegal_reward
from spar_env.envs.opponents import (
    AgentBuilder,
    Policy,
    PolicySpec,
    RandomPolicy,
    is_agent,
    resolve_opponents,
)
from spar_env.observation.per_game import Encoder
from spar_env.rules import Ruleset
from spar_env.situation import Situation


class LearnerTable:
    """A batch of games, each with one learner seat and opponents in the others.

    Args:
        rules: the ruleset.
        batch: number of games.
        rng: the only source of randomness (deals, learner seats, opponents).
        episode: ``"hand"`` or ``"session"`` (see :class:`GameBatch`).
        seat: the learner's seat, or ``None`` for a random seat each episode.
        opponents: one spec or callable for every other seat, or ``N - 1`` of
            them for the seats after the learner's in order of play.
        illegal_action: ``"terminate"`` (end the episode with ``illegal_reward``)
            or ``"raise"``.
        illegal_reward: the learner's reward for an illegal action
            (``None``: :func:`~spar_env.envs.batch.default_illegal_reward`).
        agent_builder: builds the opponents given as spec strings (``None``: the
            installed one, :func:`spar_agents.make_agent`; see
            :mod:`spar_env.envs.opponents`).
    """

    def __init__(
        self,
        rules: Ruleset,
        batch: int,
        rng: np.random.Generator,
        *,
        episode: str = "hand",
        seat: int | None = None,
        opponents: PolicySpec | Sequence[PolicySpec] = "random",
        illegal_action: str = "terminate",
        illegal_reward: float | None = None,
        agent_builder: AgentBuilder | None = None,
    ) -> None:
        n = rules.players
        if illegal_action not in ("terminate", "raise"):
            raise ValueError(
                f"illegal_action must be 'terminate' or 'raise'; got {illegal_action!r}"
            )
        self.illegal_action = illegal_action
        self.illegal_reward = (
            default_illegal_reward(rules) if illegal_reward is None else float(illegal_reward)
        )
        self.forfeited = np.zeros(batch, dtype=bool)  # episode ended by an illegal action
        self.moves = 0  # actions played so far, the learner's and the opponents' (for benchmarks)
        if seat is not None and not (isinstance(seat, int | np.integer) and 0 <= seat < n):
            raise ValueError(f"seat must be a seat 0..{n - 1} or None (random); got {seat!r}")
        policies = resolve_opponents(opponents, rules, agent_builder)
        self.games = GameBatch(
            rules, batch, rng, episode, track_history=any(is_agent(p) for p in policies)
        )
        self.seat = seat
        self.learner = np.zeros(batch, dtype=np.int64)
        # Group the seats after the learner's (1..N-1 in order of play) by policy.
        groups: dict[int, tuple[Policy, list[int]]] = {}
        for k, policy in enumerate(policies, start=1):
            groups.setdefault(id(policy), (policy, []))[1].append(k)
        self._groups = [(policy, np.array(ks)) for policy, ks in groups.values()]
        self._trusted = all(isinstance(p, RandomPolicy) for p in policies)
        self._encoder = Encoder(self.games.layout)
        self._opponent_encoder = Encoder(self.games.layout)
        self._moving = np.zeros(batch, dtype=bool)  # scratch: the games that move now
        self._illegal = np.zeros(batch, dtype=bool)  # scratch: the learner's illegal actions
        self._actions = np.zeros(batch, dtype=np.int64)

    @property
    def state(self):
        return self.games.state

    @property
    def rng(self) -> np.random.Generator:
        return self.games.rng

    @property
    def over(self) -> np.ndarray:
        """``bool [B]``: the episode is over (the hand or session ended, or forfeited)."""
        return self.state.terminated | self.forfeited

    def restart(self, games: np.ndarray) -> np.ndarray:
        """New episodes in ``games`` (indices); opponents play up to the learner's turn.

        Returns:
            The learner's rewards ``float32 [B]`` earned meanwhile (zero here, as
            every seat plays before a hand can end).
        """
        self.games.restart(games)
        self.forfeited[games] = False
        n = self.games.rules.players
        if self.seat is None:
            self.learner[games] = self.rng.integers(0, n, len(games))
        else:
            self.learner[games] = self.seat
        return self._play_opponents()

    def act(self, actions: np.ndarray) -> np.ndarray:
        """Play the learner's actions (ignored in games that are over), then the opponents'.

        Returns:
            The learner's rewards ``float32 [B]`` from its action to its next turn.

        Raises:
            ValueError: if an action is illegal, naming the game, seat, card and
                the legal cards.
        """
        actions = np.asarray(actions, dtype=np.int64)
        live, illegal = self._moving, self._illegal
        self.moves += _learners_turn(self.state.terminated, self.forfeited, live)
        if self.illegal_action == "raise":
            rewards, forfeits = self.games.step(actions, check=True), 0
        else:  # an illegal action forfeits the episode instead: that game does not move
            forfeits = _forfeit_illegal(self.state.legal, actions, live, illegal, self.forfeited)
            rewards = self.games.step(actions, live, check=False)
        total = np.zeros(self.games.batch_size, dtype=np.float32)
        _credit(rewards, self.learner, live, total)
        if forfeits:
            total[illegal] = self.illegal_reward
        return total + self._play_opponents()

    def observe(self) -> np.ndarray:
        """The learner's observations ``uint8 [B, D]`` (a buffer overwritten by the next call)."""
        return self._encoder.encode(self.state, self.learner)

    def masks(self) -> np.ndarray:
        """The learner's legal actions ``bool [B, A]`` (all False once the episode is over)."""
        masks = self.games.masks()
        masks[self.forfeited] = False
        return masks

    def _play_opponents(self) -> np.ndarray:
        state, n, moving = self.state, self.games.rules.players, self._moving
        total = np.zeros(self.games.batch_size, dtype=np.float32)
        while True:
            count = _opponents_turn(
                state.terminated, self.forfeited, state.current_player, self.learner, moving
            )
            if count == 0:
                return total
            games = self.games.rows if count == moving.shape[0] else np.flatnonzero(moving)
            actions = self._actions
            if len(self._groups) == 1:
                actions[games] = self._policy_actions(self._groups[0][0], games)
            else:
                seats = state.current_player[games]
                after_learner = (seats - self.learner[games]) * self.games.rules.sign % n
                for policy, ks in self._groups:
                    mine = games[np.isin(after_learner, ks)]
                    if mine.size:
                        actions[mine] = self._policy_actions(policy, mine)
            rewards = self.games.step(actions, moving, check=not self._trusted)
            self.moves += count
            _credit(rewards, self.learner, moving, total)

    def _policy_actions(self, policy: Policy, games: np.ndarray) -> np.ndarray:
        state = self.state
        if isinstance(policy, RandomPolicy):
            return policy.act_on_legal_bits(state.legal[games], self.rng)
        if is_agent(policy):
            history = self.games.history
            assert history is not None  # tracked whenever a seat is played by an agent
            situation = Situation(state, history, games)
            return np.asarray(policy.act(situation, self.rng).actions, dtype=np.int64)
        obs = self._opponent_encoder.encode(state, state.current_player[games], games)
        mask = self.games.masks(games)
        return np.asarray(policy(obs, mask, self.rng), dtype=np.int64).reshape(games.shape[0])


@njit(cache=True)
def _learners_turn(terminated, forfeited, live):
    """``live[g]``: game ``g``'s episode goes on (so the learner moves). Returns how many."""
    count = 0
    for g in range(live.shape[0]):
        live[g] = not (terminated[g] or forfeited[g])
        count += live[g]
    return count


@njit(cache=True)
def _forfeit_illegal(legal, actions, live, illegal, forfeited):
    """Live games whose action is illegal (``illegal[g]``) are forfeited and stop moving.

    Returns how many.
    """
    count = 0
    for g in range(live.shape[0]):
        a = actions[g]
        illegal[g] = live[g] and not (0 <= a < 64 and (legal[g] >> np.uint64(a)) & np.uint64(1))
        if illegal[g]:
            live[g], forfeited[g] = False, True
            count += 1
    return count


@njit(cache=True)
def _opponents_turn(terminated, forfeited, current_player, learner, moving):
    """``moving[g]``: an opponent is to move in game ``g``. Returns how many."""
    count = 0
    for g in range(moving.shape[0]):
        moving[g] = not (terminated[g] or forfeited[g]) and current_player[g] != learner[g]
        count += moving[g]
    return count


@njit(cache=True)
def _credit(rewards, learner, moved, total):
    """Add the learner's payoff of this step to ``total`` in the games that moved."""
    for g in range(moved.shape[0]):
        if moved[g]:
            total[g] += rewards[g, learner[g]]
