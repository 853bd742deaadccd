"""Many games in one PPO run: ``[game] mix`` names a weighted distribution over games.

Each entry of ``game.mix`` is a table ``{variant, players, options, weight}``;
``players`` is a count, a list of counts or ``"all"`` (every count from 2 the
deck allows, up to 7), and each (variant, player count) it names is one game
of weight ``weight``. For example::

    [game]
    mix = [
      { variant = "spar", players = "all", weight = 2.0 },
      { variant = "sipa", players = [3, 4], weight = 1.0 },
      { variant = "spar", players = 4, options = { ace_of_spades = true }, weight = 0.5 },
    ]

An entry's missing ``variant`` and ``players`` are those of ``[game]``, and
``[game] options`` lie under each entry's own ``options``: the single game's
keys are the mix's defaults, never a game beside it. A mix run's games are
the mix's alone, and so is its identity: its checkpoints record the mix
(:func:`mix_signature`), a resume is checked against it, and the game it plays
when none is named (``spar bench ppo:runs/NAME``, the hint at the end of the
run) is :func:`home_game`: 4-player ``spar`` where the mix holds it, else the
mix's first game.

One rollout covers every game at once: ``rollout.games`` is shared out among
the games in proportion to their weights (at least one each), each share
played by its own batch-core :class:`~spar_train.rollout.Collector` that records in
observation v2 and the v2 action grid (:mod:`spar_env.observation.universal`), so the
records of every game concatenate into one PPO batch for the one network
(:func:`join_games`). On Ray (``ray.enabled``) each game is played whole by one
worker, whose :class:`MixCollector` holds its games alone, and the learner joins the
games in the mix's order (:mod:`spar_train.distributed.rollout`); each worker draws
from its own generator, so such a run is not the local one.

Rewards are normalised per game by the game's payoff scale: each game's
payoffs are multiplied by ``1 / (the most one hand can score x (N - 1))``
(:func:`spar_train.model.reward_scale`), so that every game's rewards lie in
``[-1, 1]`` and a 6-point Sipa hand does not drown a 1-point Agram one.
The opponent pool is one per game with shared snapshot networks (one copy of
each snapshot's weights serves every game). Evaluation plays each game
against each ``eval.opponents`` entry (``eval.deals`` duplicate deals per
game) and logs ``eval/<game>/payoff_vs_<opponent>``.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from spar_agents import Agent, make_agent
from spar_agents.ppo.agent import PPOAgent
from spar_agents.ppo.network import ActorCritic
from spar_agents.ppo.precision import resolve
from spar_agents.signature import rules_of as signature_rules
from spar_agents.signature import universal_signature
from spar_env.observation.universal import MAX_SEATS, check_v2, view_for
from spar_env.rules import Ruleset, make_rules
from spar_train.match.reward import match_table_of
from spar_train.opponent_pool import SELF, OpponentPool, snapshot_models, weights_of
from spar_train.rollout import (
    Collector,
    Rollout,
    collect_in_lockstep,
    merge_rollouts,
    refuse_ray_games,
)
from spar_train.sections import Config, ConfigError

MIX_KEYS = ("variant", "players", "options", "weight")
MAX_WEIGHT = 1e6  # a game's weight against another's: far past any useful ratio, and finite


@dataclass(frozen=True)
class MixGame:
    """One game of a mix and its weight."""

    rules: Ruleset
    weight: float

    @property
    def name(self) -> str:
        """``spar4``, ``spar4_ace_of_spades_true``: a TensorBoard-friendly name."""
        r = self.rules
        opts = "".join(f"_{k}_{_text(v)}" for k, v in sorted(r.options().items()))
        raw = f"{r.variant}{r.players}{opts}"
        return "".join(ch if ch.isalnum() else "_" for ch in raw)


def is_mix(config: Config) -> bool:
    """Whether the config trains one network on a mix of games (``game.mix`` is set)."""
    return bool(config.game.mix)


def mix_games(config: Config) -> list[MixGame]:
    """The games of ``game.mix``, in order (entry by entry, player counts ascending).

    Raises:
        ConfigError: naming the entry and key of an impossible game or weight.
    """
    out: list[MixGame] = []
    for i, entry in enumerate(config.game.mix):
        key = f"game.mix[{i}]"
        if not isinstance(entry, dict):
            raise ConfigError(f"{key}: must be a table {{variant, players, options, weight}}")
        unknown = sorted(set(entry) - set(MIX_KEYS))
        if unknown:
            raise ConfigError(f"{key}.{unknown[0]}: unknown key; keys: {', '.join(MIX_KEYS)}")
        weight = entry.get("weight", 1.0)
        if (isinstance(weight, bool) or not isinstance(weight, int | float) or not weight > 0
                or not math.isfinite(weight) or weight > MAX_WEIGHT):  # fmt: skip
            raise ConfigError(
                f"{key}.weight: must be a positive number of at most {MAX_WEIGHT:g}; got {weight!r}"
            )
        own = entry.get("options", {})
        if not isinstance(own, dict):
            raise ConfigError(f"{key}.options: must be a table of ruleset fields; got {own!r}")
        for beside in ("variant", "players"):
            if beside in own:
                raise ConfigError(f"{key}.options.{beside}: give {beside} beside options, "
                                  f"as {key}.{beside}, not inside them")  # fmt: skip
        options = {**config.game.options, **own}  # [game] options, under the entry's own
        variant = entry.get("variant", config.game.variant)
        for players in _player_counts(key, variant, entry.get("players", config.game.players),
                                      options):  # fmt: skip
            try:
                rules = make_rules(variant, players=players, **options)
                check_v2(rules)
            except (TypeError, ValueError) as e:
                raise ConfigError(f"{key}: {e}") from None
            out.append(MixGame(rules, float(weight)))
    names = [g.name for g in out]
    for name in names:
        if names.count(name) > 1:
            raise ConfigError(f"game.mix: the game {name} is listed twice")
    return out


def _player_counts(key: str, variant: str, players: Any, options: dict[str, Any]) -> list[int]:
    if players == "all":
        try:
            most = make_rules(variant, **{**options, "players": 2}).max_players
        except (TypeError, ValueError) as e:
            raise ConfigError(f"{key}: {e}") from None
        return list(range(2, min(most, MAX_SEATS) + 1))
    counts = players if isinstance(players, list) else [players]
    if not counts or not all(isinstance(p, int) and not isinstance(p, bool) for p in counts):
        raise ConfigError(
            f'{key}.players: must be a player count, a list of them or "all"; got {players!r}'
        )
    return sorted(set(counts))


def shares(total: int, weights: Sequence[float]) -> list[int]:
    """``total`` games shared out in proportion to ``weights`` (largest remainder, one at least).

    Raises:
        ConfigError: if there are fewer games than entries.
    """
    if total < len(weights):
        raise ConfigError(
            f"rollout.games: must be at least the {len(weights)} games of game.mix; got {total}"
        )
    w = np.asarray(weights, dtype=np.float64)
    spare = total - len(weights)
    exact = spare * w / w.sum()
    counts = np.floor(exact).astype(np.int64)
    order = np.argsort(-(exact - counts), kind="stable")
    counts[order[: spare - int(counts.sum())]] += 1
    return (counts + 1).tolist()


def mix_signature(config: Config) -> dict[str, Any]:
    """What the network of a mix is bound to: every game, observation v2, the v2 actions."""
    return universal_signature(g.rules for g in mix_games(config))


def home_game(config: Config) -> Ruleset:
    """The game a mix run plays when none is named: the one its checkpoints' ``ppo:`` agent
    plays (4-player ``spar`` where the mix holds it, else the mix's first game)."""
    return signature_rules(mix_signature(config))


def mix_change(saved: dict[str, Any], config: Config) -> str | None:
    """What changed in ``game.mix`` since a checkpoint's config (``saved``), or ``None``."""
    before = list(saved.get("game", {}).get("mix", []))
    after = list(config.game.mix)
    if before == after:
        return None
    changes = []
    for i in range(max(len(before), len(after))):
        old = before[i] if i < len(before) else None
        new = after[i] if i < len(after) else None
        if old != new:
            changes.append(f"game.mix[{i}] was {_entry(old)}, is now {_entry(new)}")
    return "; ".join(changes)


def _entry(entry: dict[str, Any] | None) -> str:
    if entry is None:
        return "absent"
    return "{" + ", ".join(f"{k} = {v!r}" for k, v in entry.items()) + "}"


class MixPool:
    """One :class:`~spar_train.opponent_pool.OpponentPool` per game, sharing the snapshot networks."""

    def __init__(self, games: Sequence[MixGame], mix: dict[str, float], keep: int,
                 make_model: Any) -> None:  # fmt: skip
        self.mix = dict(mix)  # the shares, as a Ray collector keys its workers' pools
        self.keep = keep
        self.make_model = make_model
        self.pools = [OpponentPool(g.rules, mix, keep, make_model, universal=True) for g in games]
        self.snapshots: list[dict[str, torch.Tensor]] = []

    def add_snapshot(self, model: ActorCritic) -> None:
        self.load_snapshots([*self.snapshots, weights_of(model)])

    def load_snapshots(self, snapshots: list[dict[str, torch.Tensor]]) -> None:
        self.snapshots = list(snapshots)[-self.keep :]
        models = snapshot_models(self.make_model, self.snapshots)
        for pool in self.pools:
            pool.use_snapshots(self.snapshots, models)


class MixRollouts:
    """What a collector of a mix offers the run besides rollouts: the mix's games (``games``),
    their pools and their teachers. :class:`MixCollector` plays the games here; the Ray
    collector (:class:`~spar_train.distributed.rollout.RayMixCollector`) on actors."""

    games: list[MixGame]

    @property
    def rules(self) -> Ruleset:
        """The first game (what a ruleset-keyed caller sees)."""
        return self.games[0].rules

    def make_pool(self, config: Config, make_model: Any) -> MixPool:
        return MixPool(self.games, config.pool.mix, config.pool.snapshots, make_model)

    def self_pool(self) -> MixPool:
        """Every seat the learner's, in every game (the warm start)."""
        return MixPool(self.games, {SELF: 1.0}, 1, None)

    def make_teacher(self, spec: str) -> list[Agent]:
        """The agent ``spec`` for each game (the warm start's teacher)."""
        return [make_agent(spec, g.rules) for g in self.games]


class MixCollector(MixRollouts):
    """Plays every game of a mix; its rollout is the concatenation of every game's.

    With ``games`` (indices into :func:`mix_games`, ascending), it plays only those games,
    each with its share of the whole mix's ``rollout.games``: a Ray worker's part of the mix.
    """

    def __init__(
        self,
        config: Config,
        rng: np.random.Generator,
        games: Sequence[int] | None = None,
        device: torch.device | None = None,
    ) -> None:
        every = mix_games(config)
        counts = shares(config.rollout.games, [g.weight for g in every])
        picked = range(len(every)) if games is None else games
        self.games = [every[i] for i in picked]
        self.precision = resolve(config.rollout.precision, device)  # where the learner answers
        self.collectors = [
            Collector(
                every[i].rules,
                counts[i],
                rng,
                view=view_for(every[i].rules),
                match_table=match_table_of(config, every[i].rules),
                random_starts=config.ppo.match_starts,
            )  # fmt: skip
            for i in picked
        ]
        self.scales = [_scale(config, g.rules) for g in self.games]

    def collect(
        self,
        model: ActorCritic,
        pool: MixPool,
        hands: int,
        rng: np.random.Generator,
        reward_scale: float = 0.0,  # unused: each game has its own scale
        teacher: list[Agent] | None = None,
    ) -> Rollout:
        """``hands`` hands in every game of every share, one rollout (module docstring)."""
        del reward_scale
        return join_games(self.games, self.collect_games(model, pool, hands, rng, teacher))

    def collect_games(
        self,
        model: ActorCritic,
        pool: MixPool,
        hands: int,
        rng: np.random.Generator,
        teacher: list[Agent] | None = None,
    ) -> list[Rollout]:
        """The rollout of each game, in order (:meth:`collect` joins them).

        The games play in lockstep: each step's decisions of every game are answered by
        one forward pass per network, the learner's and each snapshot's
        (:mod:`spar_train.lockstep`).
        """
        plays = [
            collector.play(
                pool.pools[i],
                hands,
                rng,
                self.scales[i],
                model.privileged > 0,
                teacher=None if teacher is None else teacher[i],
            )  # fmt: skip
            for i, collector in enumerate(self.collectors)
        ]
        return collect_in_lockstep(model, plays, self.precision)

    def state_dict(self) -> dict[str, torch.Tensor]:
        return {
            f"{self.games[i].name}/{key}": value
            for i, collector in enumerate(self.collectors)
            for key, value in collector.state_dict().items()
        }

    def load_state_dict(self, saved: dict[str, torch.Tensor]) -> None:
        refuse_ray_games(saved)
        for game, collector in zip(self.games, self.collectors, strict=True):
            prefix = f"{game.name}/"
            mine = {k[len(prefix) :]: v for k, v in saved.items() if k.startswith(prefix)}
            if not mine:
                raise ValueError(f"saved games: none of {game.name}")
            collector.load_state_dict(mine)

    def close(self) -> None:
        """Nothing to release."""


def join_games(games: Sequence[MixGame], parts: Sequence[Rollout]) -> Rollout:
    """One rollout of the games' rollouts (``parts``, in the order of ``games``): the records
    one after another, the payoffs by ``{game}_{entry}``, and the seconds of every game added
    up (:func:`~spar_train.rollout.merge_rollouts`: the work done, not the time waited)."""
    merged = merge_rollouts(parts)
    payoff = {
        f"{game.name}_{entry}": value
        for game, part in zip(games, parts, strict=True)
        for entry, value in part.payoff_by_entry.items()
    }
    return _replace(merged, payoff_by_entry=payoff)


def _scale(config: Config, rules: Ruleset) -> float:
    from spar_train.model import reward_scale

    return reward_scale(config, rules)


def _replace(rollout: Rollout, **changes: Any) -> Rollout:
    import dataclasses

    return dataclasses.replace(rollout, **changes)


def evaluate_mix(
    config: Config, model: ActorCritic, writer: Any, step: int
) -> dict[str, dict[str, float]]:
    """Every game against every ``eval.opponents`` entry; logs ``eval/<game>/payoff_vs_<tag>``.

    Returns, by opponent, the mean over games of the mean payoff with its 95% interval, the
    number of games whose 95% interval lies above 0 (``games_above``) and the number of games.
    """
    from spar_train.evaluate import evaluate, log_match_evaluations, tag_of

    out: dict[str, dict[str, float]] = {}
    begin = time.perf_counter()
    e = config.eval
    for spec in e.opponents:
        tag = tag_of(spec)
        means, cis, above = [], [], 0
        for game in mix_games(config):
            agent = PPOAgent(game.rules, model, greedy=True, universal=True)
            (result,) = evaluate(agent, game.rules, [spec], e.deals, e.seed).values()
            writer.add_scalar(f"eval/{game.name}/payoff_vs_{tag}", result.mean_payoff, step)
            writer.add_scalar(f"eval/{game.name}/payoff_vs_{tag}_ci95", result.ci95, step)
            means.append(result.mean_payoff)
            cis.append(result.ci95)
            above += int(result.mean_payoff - result.ci95 > 0)
        writer.add_scalar(f"eval/payoff_vs_{tag}", float(np.mean(means)), step)
        writer.add_scalar(f"eval/games_above_0_vs_{tag}", above, step)
        # The interval of the mean over games, from each game's (independent deals).
        ci95 = float(np.sqrt(np.sum(np.square(cis)))) / len(cis)
        out[spec] = {"mean_payoff": float(np.mean(means)), "ci95": ci95, "games_above": above,
                     "games": len(means)}  # fmt: skip
    for game in mix_games(config):  # whole matches, where eval.matches asks for them
        agent = PPOAgent(game.rules, model, greedy=True, universal=True)
        log_match_evaluations(config, agent, game.rules, writer, step, prefix=f"{game.name}/")
    writer.add_scalar("time/eval_seconds", time.perf_counter() - begin, step)
    writer.flush()
    return out


def _text(value: object) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)
