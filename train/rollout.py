"""Rollouts on the batch core: the learner and its opponents play whole hands in thousands of games.

Every game of the batch plays its hand to the end; then the next hand of its
session is dealt (the winner deals), or a new session once the session is
over, so the session scores the observation shows vary as they do in play.
Each hand's seats are given out by the :class:`~spar_train.opponent_pool.OpponentPool`.

At each step the seat to move in each game belongs to the learner or to an
opponent. The learner's decisions are taken in one forward pass of the
network and recorded: observation, legal actions, action, its
log-probability and the critic's value. A learner seat's decisions in one
hand form one trajectory; the hand's payoff to that seat (times the reward
scale) is its only reward, paid at its last decision. With a ``match_table``
(``ppo.reward = "match"``, :mod:`spar_train.match.reward`) that reward is
instead the change the hand made to the seat's chance to win the match.

The collector's own state (the games between hands) is part of a
checkpoint, so a resumed run goes on with the very same games.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch

from spar_agents.base import Agent, Situation
from spar_agents.ppo.agent import PPOAgent, sample_actions
from spar_agents.ppo.network import ActorCritic
from spar_agents.ppo.precision import Precision
from spar_env import core
from spar_env.core import State, unpack
from spar_env.history import History, step_with_history
from spar_env.observation.per_game import Encoder, layout_for
from spar_env.observation.universal import UniversalView
from spar_env.rules import Ruleset
from spar_train.lockstep import LearnerTurn, Play, PolicyTurn, Turn, play_in_lockstep
from spar_train.match.equity import EquityTable
from spar_train.match.reward import chances_now
from spar_train.opponent_pool import LEARNER, OpponentPool


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

    @property
    def decisions(self) -> int:
        return int(self.actions.shape[0])


def merge_rollouts(parts: Sequence[Rollout]) -> Rollout:
    """One rollout from those of several batches of games (Ray workers'), in order.

    Each part's trajectory rows come after the rows of the parts before it.
    The seconds of each kind of work are the parts' added up: the work done, not the
    time waited (one meaning for a mix's games and for Ray's workers alike).
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
        seconds={k: sum(part.seconds[k] for part in parts) for k in parts[0].seconds},
    )


def collect_in_lockstep(
    model: ActorCritic, plays: Sequence[Play[Rollout]], precision: Precision = "float32"
) -> list[Rollout]:
    """The rollouts of several :meth:`Collector.play` driven together
    (:func:`spar_train.lockstep.play_in_lockstep`), each with its share of the forward passes'
    time in its ``learner`` and ``opponents`` seconds."""
    rollouts, seconds = play_in_lockstep(model, plays, precision)
    return [
        dataclasses.replace(
            r,
            seconds={
                **r.seconds,
                "learner": r.seconds["learner"] + float(learner),
                "opponents": r.seconds["opponents"] + float(opponents),
            },  # fmt: skip
        )
        for r, (learner, opponents) in zip(rollouts, seconds, strict=True)
    ]


def refuse_ray_games(saved: dict) -> None:
    """A ``ValueError`` for the games of a checkpoint played on Ray workers (a
    :class:`~spar_train.distributed.rollout.RayCollector`'s), which a local collector cannot
    go on with."""
    workers = saved.get("workers")
    if workers is not None:
        raise ValueError(
            f"the checkpoint's games were played on {len(workers)} Ray workers "
            f"(ray.enabled = true, ray.workers = {len(workers)}); resume the run with Ray"
        )


def hidden_hands(state: State, games: np.ndarray, seats: np.ndarray) -> np.ndarray:
    """``uint8 [G, (N-1)*C]``: the hands of the other seats, relative to each decider.

    For the privileged critic only (training); a policy never reads it.
    """
    layout = layout_for(state.tables.rules)
    n, c = state.num_players, state.tables.rules.num_card_ids
    others = layout.rel_to_abs[seats][:, 1:]  # [G, N-1] absolute seats after the decider
    bits = state.hands[games[:, None], others]
    return unpack(bits.reshape(-1), c).reshape(games.shape[0], (n - 1) * c).view(np.uint8)


class Collector:
    """Plays hands with the learner and its pool; keeps its games between rollouts.

    With a ``view`` (:class:`~spar_env.observation.universal.UniversalView`), the learner reads
    observation v2 and acts on the v2 action grid, and its records are in those terms,
    so that the rollouts of several games go into one batch (:mod:`spar_train.game_mix`).
    """

    def __init__(
        self,
        rules: Ruleset,
        games: int,
        rng: np.random.Generator,
        view: UniversalView | None = None,
        precision: Precision = "float32",
        match_table: EquityTable | None = None,
        random_starts: float = 0.0,
    ) -> None:
        self.rules = rules
        self.match_table = match_table  # pay each hand's change of match equity instead
        self.random_starts = random_starts  # ppo.match_starts: sessions begun at random scores
        self.precision = precision
        self.state = core.reset(rules, games, rng)
        self._score_starts(np.arange(games), rng)
        self.history = History(self.state)
        self.encoder: Encoder | UniversalView = view or Encoder(layout_for(rules))
        self.view = view
        self.num_actions = rules.num_actions if view is None else view.num_actions
        self.rows = np.arange(games)

    # The games between hands: saved with a checkpoint, for an exact resume.
    def state_dict(self) -> dict[str, torch.Tensor]:
        return {
            f.name: torch.from_numpy(getattr(self.state, f.name).copy())
            for f in dataclasses.fields(self.state)
            if f.name != "tables"
        }

    def load_state_dict(self, saved: dict[str, torch.Tensor]) -> None:
        refuse_ray_games(saved)
        for f in dataclasses.fields(self.state):
            if f.name == "tables":
                continue
            value = saved[f.name].numpy()
            current = getattr(self.state, f.name)
            if value.shape != current.shape or value.dtype != current.dtype:
                raise ValueError(f"saved games: field {f.name} has shape {value.shape}")
            setattr(self.state, f.name, value.copy())
        self.history.clear()

    def close(self) -> None:
        """Nothing to release: the games live here (a Ray collector ends its actors)."""

    def collect(
        self,
        model: ActorCritic,
        pool: OpponentPool,
        hands: int,
        rng: np.random.Generator,
        reward_scale: float,
        teacher: Agent | None = None,
    ) -> Rollout:
        """Play ``hands`` hands in every game (module docstring).

        With a ``teacher``, the learner's seats play the teacher's choices
        instead of the network's (for imitation); the records are the same.
        """
        play = self.play(pool, hands, rng, reward_scale, model.privileged > 0, teacher)
        (rollout,) = collect_in_lockstep(model, [play], self.precision)
        return rollout

    def play(
        self,
        pool: OpponentPool,
        hands: int,
        rng: np.random.Generator,
        reward_scale: float,
        privileged: bool,
        teacher: Agent | None = None,
    ) -> Play[Rollout]:
        """:meth:`collect` as a generator: at each step it yields the turns the networks
        must answer (the learner's, and each snapshot opponent's) and is sent their
        answers, so that :func:`collect_in_lockstep` answers many collectors' turns in one
        forward pass per network (:mod:`spar_train.lockstep`)."""
        state, rules = self.state, self.rules
        b, n = state.batch_size, rules.players
        most = rules.hand_size + (1 if rules.weak_hand_exchange else 0)  # decisions per seat
        shares = list(pool.shares())
        records: list[tuple[np.ndarray | None, ...]] = []
        rewards = np.zeros((hands, b, n), dtype=np.float32)
        lengths = np.zeros((hands, b, n), dtype=np.int64)
        sums = np.zeros(len(shares))
        counts = np.zeros(len(shares), dtype=np.int64)
        opponents = pool.opponents
        clock = {"learner": 0.0, "opponents": 0.0}
        suspended = 0.0  # while the driver answers this and the other collectors' turns
        begin = time.perf_counter()
        table = self.match_table
        for hand in range(hands):
            roles, entry = pool.assign(b, rng)
            payoff = np.zeros((b, n), dtype=np.float64)
            before = None if table is None else chances_now(table, state)
            count = lengths[hand]
            for _ in range(n * most + 1):
                live = ~state.terminated
                if not live.any():
                    break
                seat = np.maximum(state.current_player, 0)
                role = np.where(live, roles[self.rows, seat], -2)
                actions = np.zeros(b, dtype=np.int64)
                mine = np.flatnonzero(role == LEARNER)
                t0 = time.perf_counter()
                learner_turn = None
                if mine.size:
                    s = seat[mine]
                    learner_turn = self._learner_turn(mine, s, privileged)
                turns: list[Turn] = [] if learner_turn is None else [learner_turn]
                t1 = time.perf_counter()
                seated = []  # the opponents to move: (agent, games, situation, network inputs)
                for a, agent in enumerate(opponents):
                    theirs = np.flatnonzero(role == a)
                    if theirs.size:
                        situation = Situation(state, self.history, theirs)
                        inputs = None
                        if isinstance(agent, PPOAgent):  # a network: answered in lockstep
                            inputs = agent.inputs(situation)
                            turns.append(PolicyTurn(agent.model, *inputs))
                        seated.append((agent, theirs, situation, inputs))
                t2 = time.perf_counter()
                answers = iter((yield turns) if turns else [])
                t3 = time.perf_counter()
                if learner_turn is not None:
                    logp_all, values = next(answers)
                    taken, logp = self._choose(learner_turn, logp_all, mine, rng, teacher)
                    actions[mine] = taken if self.view is None else self.view.to_game(taken)
                    trajectory = (hand * b + mine) * n + s
                    records.append((learner_turn.obs, learner_turn.legal, taken, logp, values,
                                    learner_turn.extra, trajectory, count[mine, s].copy()))  # fmt: skip
                    count[mine, s] += 1
                t4 = time.perf_counter()
                for agent, theirs, situation, inputs in seated:
                    if isinstance(agent, PPOAgent) and inputs is not None:
                        decision = agent.decide(next(answers), inputs[1], rng)
                    else:
                        decision = agent.act(situation, rng)
                    actions[theirs] = decision.actions
                t5 = time.perf_counter()
                clock["learner"] += (t1 - t0) + (t4 - t3)
                clock["opponents"] += (t2 - t1) + (t5 - t4)
                suspended += t3 - t2  # the networks' answers: play_in_lockstep's time
                step_with_history(state, actions, self.history)
                payoff += state.rewards
            else:
                raise RuntimeError("hands still running after every seat's last decision")
            learner = roles == LEARNER
            if table is None or before is None:
                gain = payoff * reward_scale
            else:  # the match reward: the change of each seat's chance to win its match
                gain = chances_now(table, state) - before
            rewards[hand] = np.where(learner, gain, 0.0)
            per_game = (payoff * learner).sum(axis=1)
            sums += np.bincount(entry, weights=per_game, minlength=len(shares))
            counts += np.bincount(entry, weights=learner.sum(axis=1), minlength=len(shares)).astype(
                np.int64
            )
            self._deal_next(rng)
        if not records:
            raise RuntimeError("the learner held no seat in this rollout; check [pool] mix")
        fields = ("obs", "legal", "actions", "logp", "values", "extra", "trajectory", "position")
        joined = {
            name: np.concatenate(parts) if parts[0] is not None else None
            for name, parts in zip(fields, zip(*records, strict=True), strict=True)
        }
        return Rollout(
            **joined,  # type: ignore[arg-type]  # only ``extra`` may be None
            rewards=rewards.reshape(-1),
            lengths=lengths.reshape(-1),
            payoff_by_entry={
                name: (float(sums[i]), int(counts[i])) for i, name in enumerate(shares)
            },
            hands=hands * b,
            num_actions=self.num_actions,
            seconds={
                **clock,
                "game": time.perf_counter() - begin - suspended - sum(clock.values()),
            },
        )

    def _learner_turn(self, games: np.ndarray, seats: np.ndarray, privileged: bool) -> LearnerTurn:
        state, view = self.state, self.view
        obs = self.encoder.encode(state, seats, games).copy()
        legal = state.legal[games] if view is None else view.legal(state.legal[games])
        extra = hidden_hands(state, games, seats) if privileged else None
        if extra is not None and view is not None:
            extra = view.hidden(extra)
        return LearnerTurn(obs, legal, unpack(legal, self.num_actions), extra)

    def _choose(
        self,
        turn: LearnerTurn,
        logp_all: np.ndarray,
        games: np.ndarray,
        rng: np.random.Generator,
        teacher: Agent | None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """The actions the learner's seats take (sampled, or the teacher's) and their log-probs."""
        if teacher is None:
            probs = torch.from_numpy(logp_all).exp().numpy()  # torch's exp, as the agents take it
            actions = sample_actions(probs * turn.mask, rng)
        else:
            actions = teacher.act(Situation(self.state, self.history, games), rng).actions
            if self.view is not None:
                actions = self.view.action_of[actions]
        logp = logp_all[np.arange(games.size), actions]
        return actions, logp.astype(np.float32)

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
