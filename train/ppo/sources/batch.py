"""One game's batch of games on the batch core: the learner and its opponents play whole hands.

Every game of the batch plays its hand to the end; then the next hand of its session is dealt
(the winner deals), or a new session once the session is over, so the session scores the
observation shows vary as they do in play. Each hand's seats are given out by the game's
:class:`~spar_train.ppo.sources.pools.OpponentPool`.

:meth:`GameBatch.play` plays a rollout's hands in named steps, as
:func:`spar_train.tournament.hands.play_batch` plays the bench's:

- :meth:`~GameBatch._play_hand`: the pool seats the hand, the steps run until every game's
  hand is over, and :class:`Records` takes each learner seat's reward; what every step of
  the hand reads is one :class:`Hand`;
- :meth:`~GameBatch._step`: the seat to move in each game belongs to the learner or to an
  opponent; the turns the networks must answer are yielded (the learner's, and each snapshot
  opponent's: :mod:`spar_train.ppo.sources.lockstep` answers many games' turns in one forward
  pass per network), then the learner's seats act (:meth:`~GameBatch._learner_acts`) and the
  other opponents decide (:meth:`~GameBatch._opponents_act`), and one core step moves them all;
- :meth:`~GameBatch._gain`: what a hand pays each seat: its payoff times the game's reward
  scale, or with a ``match_table`` (``ppo.reward = "match"``, :mod:`spar_train.match.reward`)
  the change the hand made to the seat's chance to win the match.

The learner's decisions are recorded as it reads them (its game's own observation, or
observation v2 and the v2 action grid for a mix: the batch's ``view``), with the legal actions,
the action, its log-probability and the critic's value. A learner seat's decisions in one hand
form one trajectory, whose only reward is paid at its last decision. The batch's own state
(the games between hands) is part of a checkpoint, so a resumed run goes on with the very
same games.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Generator
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np
import torch

from spar_agents.base import Agent, Situation
from spar_agents.ppo.agent import PPOAgent, sample_actions
from spar_env import core
from spar_env.core import State, unpack
from spar_env.history import History, step_with_history
from spar_env.observation.per_game import layout_for
from spar_env.rules import Ruleset
from spar_train.games import View
from spar_train.match.equity import EquityTable
from spar_train.match.reward import chances_now
from spar_train.ppo.sources.base import Rollout
from spar_train.ppo.sources.lockstep import LearnerTurn, Play, PolicyTurn, Turn
from spar_train.ppo.sources.pools import LEARNER, OpponentPool

FIELDS = ("obs", "legal", "actions", "logp", "values", "extra", "trajectory", "position")
R = TypeVar("R")
Seated = tuple[Agent, np.ndarray, Situation, Any]  # an opponent to move: games, situation, inputs
# Part of a play: yields the turns of a step, is sent their answers, returns ``R``.
Steps = Generator[list[Turn], list[Any], R]


def hidden_hands(state: State, games: np.ndarray, seats: np.ndarray) -> np.ndarray:
    """``uint8 [G, (N-1)*C]``: the hands of the other seats, relative to each decider.

    For the privileged critic only (training); a policy never reads it.
    """
    layout = layout_for(state.tables.rules)
    n, c = state.num_players, state.tables.rules.num_card_ids
    others = layout.rel_to_abs[seats][:, 1:]  # [G, N-1] absolute seats after the decider
    bits = state.hands[games[:, None], others]
    return unpack(bits.reshape(-1), c).reshape(games.shape[0], (n - 1) * c).view(np.uint8)


class Records:
    """What one rollout of a batch leaves: the learner's decisions, each trajectory's reward and
    length, the learner's payoffs by pool entry, and where the time went."""

    def __init__(self, hands: int, games: int, players: int, entries: list[str]) -> None:
        self.entries = entries  # the pool's shares in force, by name
        self.decisions: list[tuple[np.ndarray | None, ...]] = []  # one tuple of FIELDS a step
        self.rewards = np.zeros((hands, games, players), dtype=np.float32)
        self.lengths = np.zeros((hands, games, players), dtype=np.int64)
        self.sums = np.zeros(len(entries))
        self.counts = np.zeros(len(entries), dtype=np.int64)
        self.clock = {"learner": 0.0, "opponents": 0.0}
        self.suspended = 0.0  # while the driver answers this and the other batches' turns
        self.begin = time.perf_counter()

    def add(self, hand: int, games: np.ndarray, seats: np.ndarray, turn: LearnerTurn,
            taken: np.ndarray, logp: np.ndarray, values: np.ndarray) -> None:  # fmt: skip
        """The learner's decisions at ``seats`` of ``games`` in one step of ``hand``."""
        players = self.rewards.shape[2]
        trajectory = (hand * self.rewards.shape[1] + games) * players + seats
        count = self.lengths[hand]
        self.decisions.append((turn.obs, turn.legal, taken, logp, values, turn.extra, trajectory,
                               count[games, seats].copy()))  # fmt: skip
        count[games, seats] += 1

    def end_hand(self, hand: int, learner: np.ndarray, gain: np.ndarray, payoff: np.ndarray,
                 entry: np.ndarray) -> None:  # fmt: skip
        """A hand is over: each learner seat's reward, and the learner's payoff by pool entry."""
        self.rewards[hand] = np.where(learner, gain, 0.0)
        per_game = (payoff * learner).sum(axis=1)
        n = len(self.entries)
        self.sums += np.bincount(entry, weights=per_game, minlength=n)
        self.counts += np.bincount(entry, weights=learner.sum(axis=1), minlength=n).astype(np.int64)

    def rollout(self, hands: int, num_actions: int) -> Rollout:
        """The rollout these records make (``hands``: games times hands each)."""
        if not self.decisions:
            raise RuntimeError("the learner held no seat in this rollout; check [pool] mix")
        joined = {
            name: np.concatenate(parts) if parts[0] is not None else None
            for name, parts in zip(FIELDS, zip(*self.decisions, strict=True), strict=True)
        }
        elapsed = time.perf_counter() - self.begin - self.suspended - sum(self.clock.values())
        return Rollout(
            **joined,  # type: ignore[arg-type]  # only ``extra`` may be None
            rewards=self.rewards.reshape(-1),
            lengths=self.lengths.reshape(-1),
            payoff_by_entry={
                name: (float(self.sums[i]), int(self.counts[i]))
                for i, name in enumerate(self.entries)
            },
            hands=hands,
            num_actions=num_actions,
            seconds={**self.clock, "game": elapsed},
        )


@dataclass(frozen=True)
class Hand:
    """One hand in every game of a batch, as each of its steps reads it."""

    number: int  # the hand's index in this rollout
    roles: np.ndarray  # int [G, N]: who holds each seat (LEARNER, or an opponent's index)
    opponents: list[Agent]  # the pool's opponents, by index
    rng: np.random.Generator  # draws the learner's actions (and the opponents')
    privileged: bool  # record the other seats' hands, for a privileged critic
    # Plays the learner's seats instead of sampling the network's answer, its choices recorded
    # with the network's log-probabilities: imitation's teacher, or search's labeler.
    stand_in: Agent | None
    records: Records  # what the rollout keeps


class GameBatch:
    """One game's batch of games, played with the learner and its pool; it keeps its games
    between rollouts (module docstring).

    Args:
        rules: the game.
        games: how many games the batch plays at once.
        rng: draws the first deals (and the random starts).
        view: what the learner reads of the game and how it acts there
            (:class:`~spar_train.games.OwnView`, or a universal view in a mix).
        reward_scale: the game's payoffs times this are the learner's rewards.
        match_table: pay each hand's change of match equity instead (``ppo.reward = "match"``).
        random_starts: ``ppo.match_starts``, the share of sessions begun at random scores.
    """

    def __init__(
        self,
        rules: Ruleset,
        games: int,
        rng: np.random.Generator,
        view: View,
        reward_scale: float,
        match_table: EquityTable | None = None,
        random_starts: float = 0.0,
    ) -> None:
        self.rules = rules
        self.view = view
        self.reward_scale = reward_scale
        self.match_table = match_table
        self.random_starts = random_starts
        self.state = core.reset(rules, games, rng)
        self._score_starts(np.arange(games), rng)
        self.history = History(self.state)
        self.num_actions = view.num_actions
        self.rows = np.arange(games)
        # Decisions a seat may take in one hand: its cards, and the weak-hand exchange.
        self.most = rules.hand_size + (1 if rules.weak_hand_exchange else 0)

    # The games between hands: saved with a checkpoint, for an exact resume.
    def state_dict(self) -> dict[str, torch.Tensor]:
        return {
            f.name: torch.from_numpy(getattr(self.state, f.name).copy())
            for f in dataclasses.fields(self.state)
            if f.name != "tables"
        }

    def load_state_dict(self, saved: dict[str, torch.Tensor]) -> None:
        for f in dataclasses.fields(self.state):
            if f.name == "tables":
                continue
            value = saved[f.name].numpy()
            current = getattr(self.state, f.name)
            if value.shape != current.shape or value.dtype != current.dtype:
                raise ValueError(f"saved games: field {f.name} has shape {value.shape}")
            setattr(self.state, f.name, value.copy())
        self.history.clear()

    def play(
        self,
        pool: OpponentPool,
        hands: int,
        rng: np.random.Generator,
        privileged: bool,
        stand_in: Agent | None = None,
    ) -> Play[Rollout]:
        """Play ``hands`` hands in every game, as a generator: at each step it yields the
        turns the networks must answer (the learner's, and each snapshot opponent's) and is
        sent their answers, so that
        :func:`~spar_train.ppo.sources.mix.collect_in_lockstep` answers many batches' turns
        in one forward pass per network. With a ``stand_in`` (:class:`Hand`), the learner's
        seats play its choices instead of the network's; the records are the same.
        ``privileged``: record the other seats' hands for a privileged critic.
        """
        records = Records(hands, self.state.batch_size, self.rules.players, list(pool.shares()))
        for number in range(hands):
            yield from self._play_hand(number, pool, rng, privileged, stand_in, records)
            self._deal_next(rng)
        return records.rollout(hands * self.state.batch_size, self.num_actions)

    def _play_hand(self, number: int, pool: OpponentPool, rng: np.random.Generator,
                   privileged: bool, stand_in: Agent | None,
                   records: Records) -> Steps[None]:  # fmt: skip
        """One hand in every game, seated by the pool, to its end; its rewards recorded."""
        state, n = self.state, self.rules.players
        roles, entry = pool.assign(state.batch_size, rng)
        hand = Hand(number, roles, pool.opponents, rng, privileged, stand_in, records)
        before = None if self.match_table is None else chances_now(self.match_table, state)
        payoff = np.zeros((state.batch_size, n), dtype=np.float64)
        for _ in range(n * self.most + 1):
            if not (~state.terminated).any():
                break
            actions = yield from self._step(hand)
            step_with_history(state, actions, self.history)
            payoff += state.rewards
        else:
            raise RuntimeError("hands still running after every seat's last decision")
        records.end_hand(number, roles == LEARNER, self._gain(payoff, before), payoff, entry)

    def _step(self, hand: Hand) -> Steps[np.ndarray]:
        """Every live game's decision at this step (module docstring); returns the actions."""
        state, records = self.state, hand.records
        seat = np.maximum(state.current_player, 0)
        role = np.where(~state.terminated, hand.roles[self.rows, seat], -2)
        actions = np.zeros(state.batch_size, dtype=np.int64)
        mine = np.flatnonzero(role == LEARNER)
        t0 = time.perf_counter()
        learner = self._learner_turn(mine, seat[mine], hand.privileged) if mine.size else None
        t1 = time.perf_counter()
        seated, policies = self._opponents_to_move(role, hand.opponents)
        turns: list[Turn] = [] if learner is None else [learner]
        turns += policies
        t2 = time.perf_counter()
        answers = iter((yield turns) if turns else [])
        t3 = time.perf_counter()
        if learner is not None:
            self._learner_acts(hand, learner, next(answers), mine, seat[mine], actions)
        t4 = time.perf_counter()
        self._opponents_act(seated, answers, hand.rng, actions)
        t5 = time.perf_counter()
        records.clock["learner"] += (t1 - t0) + (t4 - t3)
        records.clock["opponents"] += (t2 - t1) + (t5 - t4)
        records.suspended += t3 - t2  # the networks' answers: play_in_lockstep's time
        return actions

    def _learner_turn(self, games: np.ndarray, seats: np.ndarray, privileged: bool) -> LearnerTurn:
        """What the learner's network reads at ``seats`` of ``games``."""
        state, view = self.state, self.view
        obs = view.encode(state, seats, games).copy()
        legal = view.legal(state.legal[games])
        extra = None if not privileged else view.hidden(hidden_hands(state, games, seats))
        return LearnerTurn(obs, legal, unpack(legal, self.num_actions), extra)

    def _opponents_to_move(
        self, role: np.ndarray, opponents: list[Agent]
    ) -> tuple[list[Seated], list[PolicyTurn]]:
        """Each opponent to move, with its games, its situation and, for a network (a snapshot:
        answered in lockstep), the inputs its turn asks about; and those networks' turns."""
        seated: list[Seated] = []
        turns: list[PolicyTurn] = []
        for a, agent in enumerate(opponents):
            theirs = np.flatnonzero(role == a)
            if theirs.size:
                situation = Situation(self.state, self.history, theirs)
                inputs = None
                if isinstance(agent, PPOAgent):
                    inputs = agent.inputs(situation)
                    turns.append(PolicyTurn(agent.model, *inputs))
                seated.append((agent, theirs, situation, inputs))
        return seated, turns

    def _learner_acts(self, hand: Hand, turn: LearnerTurn,
                      answer: tuple[np.ndarray, np.ndarray], games: np.ndarray, seats: np.ndarray,
                      actions: np.ndarray) -> None:  # fmt: skip
        """The learner's seats act on the network's answer (or the stand-in's choice), recorded."""
        logp_all, values = answer
        taken, logp = self._choose(turn, logp_all, games, hand.rng, hand.stand_in)
        actions[games] = self.view.to_game(taken)
        hand.records.add(hand.number, games, seats, turn, taken, logp, values)

    def _opponents_act(self, seated: list[Seated], answers: Any, rng: np.random.Generator,
                       actions: np.ndarray) -> None:  # fmt: skip
        """Each opponent decides its games: a snapshot from its network's answer, any other
        agent by itself."""
        for agent, theirs, situation, inputs in seated:
            if isinstance(agent, PPOAgent) and inputs is not None:
                decision = agent.decide(next(answers), inputs[1], rng)
            else:
                decision = agent.act(situation, rng)
            actions[theirs] = decision.actions

    def _choose(
        self,
        turn: LearnerTurn,
        logp_all: np.ndarray,
        games: np.ndarray,
        rng: np.random.Generator,
        stand_in: Agent | None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """The actions the learner's seats take (sampled, or the stand-in's) and their
        log-probs."""
        if stand_in is None:
            probs = torch.from_numpy(logp_all).exp().numpy()  # torch's exp, as the agents take it
            actions = sample_actions(probs * turn.mask, rng)
        else:
            actions = stand_in.act(Situation(self.state, self.history, games), rng).actions
            actions = self.view.action_of[actions]
        logp = logp_all[np.arange(games.size), actions]
        return actions, logp.astype(np.float32)

    def _gain(self, payoff: np.ndarray, before: np.ndarray | None) -> np.ndarray:
        """What the hand just over pays each seat (module docstring)."""
        if self.match_table is None or before is None:
            return payoff * self.reward_scale
        return chances_now(self.match_table, self.state) - before  # the change of match chances

    def _deal_next(self, rng: np.random.Generator) -> None:
        """The next hand everywhere: the winner deals, or a new session once one is over."""
        state = self.state
        over = state.session_over.copy()  # start_sessions clears it
        if over.any():
            core.start_sessions(state, np.flatnonzero(over), rng)
            self._score_starts(np.flatnonzero(over), rng)
        if (~over).any():
            core.next_hand(state, np.flatnonzero(~over), rng)
        self.history.clear()

    def _score_starts(self, games: np.ndarray, rng: np.random.Generator) -> None:
        """Start a ``random_starts`` share of the new sessions in ``games`` at random scores,
        each seat's uniform below the target (the scores alone: the deal does not read them)."""
        if self.random_starts <= 0:
            return  # no draws, so the default runs keep their streams
        target = self.rules.end_value or 0
        picked = games[rng.random(games.size) < self.random_starts]
        self.state.scores[picked] = rng.integers(0, target, (picked.size, self.rules.players))
