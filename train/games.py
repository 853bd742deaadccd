"""The games a run trains on: a weighted mix of games, of which a single game is a mix of one.

``[game] mix`` names a weighted distribution over games. Each entry is a table ``{variant,
players, options, weight}``; ``players`` is a count, a list of counts or ``"all"`` (every
count from 2 the deck allows, up to 7), and each (variant, player count) it names is one
game of weight ``weight``. For example::

    [game]
    mix = [
      { variant = "spar", players = "all", weight = 2.0 },
      { variant = "sipa", players = [3, 4], weight = 1.0 },
      { variant = "spar", players = 4, options = { ace_of_spades = true }, weight = 0.5 },
    ]

An entry's missing ``variant`` and ``players`` are those of ``[game]``, and ``[game]
options`` lie under each entry's own ``options``: the single game's keys are the mix's
defaults, never a game beside it.

:func:`game_mix` reads ``[game]`` once into a :class:`GameMix`, the one value the rest of
the run reads its games from. Without ``game.mix`` it is the one game of ``[game]``, a mix of
one (:class:`OwnGame`) whose network reads the game's own observation (v1) and acts on its
own actions: the run of a single game is the run of a mix, through the same rollout source
(:mod:`spar_train.ppo.sources.mix`), pool and checkpoint. What differs is what the network
is bound to, and so what the mix answers:

================  ==========================================  ==================================
                  :class:`OwnGame` (no ``game.mix``)          :class:`GameMix` (``game.mix``)
================  ==========================================  ==================================
each game reads   its own observation (:class:`OwnView`)      observation v2, the v2 action grid
game keys         none: records, curves and saved games        the game's :attr:`MixGame.name`
                  as a run of the game alone                   (``spar4/...``, ``eval/spar4/...``)
signature         the game's (``game_signature``)             every game's (``universal_signature``)
home game         the game                                    4-player ``spar`` where the mix
                                                              holds it, else its first game
evaluation        ``eval/payoff_vs_<opponent>`` and skills    each game, then the mean over games
a resume          must be of the same game                    must be of the same mix
================  ==========================================  ==================================

The *home game* is the game the run plays when none is named (``spar bench ppo:runs/NAME``,
the hint at the end of the run). One rollout covers every game at once: ``rollout.games`` is
shared out among the games in proportion to their weights (:func:`shares`: at least one
each). Rewards are normalised per game by the game's payoff scale (:func:`reward_scale`:
``1 / (the most one hand can score x (N - 1))``), so that every game's rewards lie in
``[-1, 1]`` and a 6-point Sipa hand does not drown a 1-point Agram one.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from spar_agents.ppo.agent import check_game
from spar_agents.ppo.checkpoint import CheckpointError
from spar_agents.ppo.network import ActorCritic
from spar_agents.signature import describe, game_signature, universal_signature
from spar_agents.signature import rules_of as signature_rules
from spar_env.core import State
from spar_env.observation.per_game import Encoder, layout_for, max_hand_points
from spar_env.observation.universal import (
    HIDDEN_V2,
    MAX_SEATS,
    NUM_ACTIONS_V2,
    OBS_V2_HIGH,
    UniversalView,
    check_v2,
    view_for,
)
from spar_env.rules import Ruleset, make_rules
from spar_train.sections import Config, ConfigError, rules_of

MIX_KEYS = ("variant", "players", "options", "weight")
MAX_WEIGHT = 1e6  # a game's weight against another's: far past any useful ratio, and finite


class OwnView:
    """A game's own observation (v1) and actions, read through the interface of a
    :class:`~spar_env.observation.universal.UniversalView`: what the learner of a single
    game reads, so that the rollouts of every run are played by the same code."""

    def __init__(self, rules: Ruleset) -> None:
        self.encoder = Encoder(layout_for(rules))
        self.num_actions = rules.num_actions
        self.action_of = np.arange(rules.num_actions, dtype=np.int64)  # each action is its own

    def encode(self, state: State, seats: np.ndarray, games: np.ndarray) -> np.ndarray:
        """The seats' v1 observations (a view of the encoder's buffer: copy it to keep it)."""
        return self.encoder.encode(state, seats, games)

    def legal(self, bits: np.ndarray) -> np.ndarray:
        """The legal actions as they are."""
        return bits

    def hidden(self, hands: np.ndarray) -> np.ndarray:
        """The other seats' hands as they are."""
        return hands

    def to_game(self, actions: np.ndarray) -> np.ndarray:
        """The actions as they are."""
        return actions


View = OwnView | UniversalView  # what the learner reads of one game, and how it acts there


@dataclass(frozen=True)
class MixGame:
    """One game of a run: its rules, its weight, what the learner reads of it, and its key."""

    rules: Ruleset
    weight: float
    view: View
    key: str  # the game's prefix in saved games, curves and payoffs ("": a game alone)

    @property
    def name(self) -> str:
        """``spar4``, ``spar4_ace_of_spades_true``: a TensorBoard-friendly name."""
        return game_name(self.rules)

    def keyed(self, name: str, sep: str) -> str:
        """``name`` under this game's key: ``spar4/name`` (``sep`` ``/``), or ``name`` alone."""
        return f"{self.key}{sep}{name}" if self.key else name

    @property
    def universal(self) -> bool:
        """Whether the learner reads observation v2 here (a snapshot of it must too)."""
        return isinstance(self.view, UniversalView)

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        """A game travels (to a worker) as its rules: its view is built again where it lands,
        with caches of its own (Ray's object store would hand them over read-only)."""
        return _mix_game, (self.rules, self.weight, type(self.view), self.key)


def _mix_game(rules: Ruleset, weight: float, view: type[View], key: str) -> MixGame:
    return MixGame(rules, weight, view(rules), key)


@dataclass(frozen=True)
class GameMix:
    """The games of a ``game.mix`` (module docstring): one network on observation v2."""

    games: tuple[MixGame, ...]

    @classmethod
    def of(cls, config: Config) -> GameMix:
        """The mix ``config``'s ``game.mix`` names.

        Raises:
            ConfigError: naming the entry and key of an impossible game or weight.
        """
        listed = _listed_games(config)
        return cls(tuple(MixGame(r, w, view_for(r), game_name(r)) for r, w in listed))

    @property
    def signature(self) -> dict[str, Any]:
        """What the network is bound to: every game, observation v2, the v2 actions."""
        return universal_signature(g.rules for g in self.games)

    @property
    def home(self) -> Ruleset:
        """The game the run plays when none is named (module docstring)."""
        return signature_rules(self.signature)

    @property
    def inputs(self) -> tuple[np.ndarray, int, int]:
        """What the network reads: each input's largest value, the actions, the hidden width."""
        return OBS_V2_HIGH, NUM_ACTIONS_V2, HIDDEN_V2

    def shares(self, total: int) -> list[int]:
        """``total`` games shared out among the games by weight (:func:`shares`)."""
        return shares(total, [g.weight for g in self.games])

    def check_checkpoint(self, saved: dict[str, Any], config: Config) -> None:
        """Raise :class:`~spar_agents.ppo.checkpoint.CheckpointError` unless the checkpoint
        ``saved`` was trained on this mix: a resumed run keeps its games."""
        changed = mix_change(saved.get("config", {}), config)
        if changed or saved["game"] != self.signature:
            raise CheckpointError(
                f"the checkpoint was trained on the mix of {describe(saved['game'])}, and the "
                f"run's config.toml has changed it ({changed or 'other games'}): a resumed run "
                "keeps its games; start a new run for another mix"
            )


@dataclass(frozen=True)
class OwnGame(GameMix):
    """The one game of ``[game]`` (no ``game.mix``): a mix of one game that the network reads
    in the game's own terms, under no key (module docstring)."""

    @classmethod
    def of(cls, config: Config) -> OwnGame:
        rules = rules_of(config)
        return cls((MixGame(rules, 1.0, OwnView(rules), ""),))

    @property
    def signature(self) -> dict[str, Any]:
        """What the network is bound to: the game, its observation and its actions."""
        return game_signature(self.home)

    @property
    def home(self) -> Ruleset:
        """The game itself."""
        return self.games[0].rules

    @property
    def inputs(self) -> tuple[np.ndarray, int, int]:
        rules = self.home
        return layout_for(rules).high, rules.num_actions, (rules.players - 1) * rules.num_card_ids

    def check_checkpoint(self, saved: dict[str, Any], config: Config) -> None:
        """Raise :class:`~spar_agents.ppo.checkpoint.CheckpointError` unless the checkpoint
        ``saved`` was trained for this game."""
        check_game(saved["game"], self.home, "the checkpoint")


def game_mix(config: Config) -> GameMix:
    """The games of a run config, read once: those of ``game.mix``, or the one game of
    ``[game]`` (module docstring). The one place a run reads which of the two it is.

    Raises:
        ConfigError: naming the entry and key of an impossible game or weight.
    """
    return GameMix.of(config) if config.game.mix else OwnGame.of(config)


def mix_games(config: Config) -> list[MixGame]:
    """The games of a run config, in order (:func:`game_mix`)."""
    return list(game_mix(config).games)


def game_name(rules: Ruleset) -> str:
    """``spar4``, ``spar4_ace_of_spades_true``: a TensorBoard-friendly name of a game."""
    opts = "".join(f"_{k}_{_text(v)}" for k, v in sorted(rules.options().items()))
    raw = f"{rules.variant}{rules.players}{opts}"
    return "".join(ch if ch.isalnum() else "_" for ch in raw)


def reward_scale(config: Config, rules: Ruleset) -> float:
    """Payoffs times this lie in [-1, 1]: 1 / the largest payoff one seat can receive."""
    if config.ppo.reward_scale > 0:
        return config.ppo.reward_scale
    return 1.0 / (max_hand_points(rules) * max(rules.players - 1, 1))


def build_model(config: Config, mix: GameMix, device: torch.device | None = None) -> ActorCritic:
    """The network of ``[model]`` for the games of ``mix``, on ``device`` when given
    (initialised on the CPU first, so its weights are the same for a seed wherever it runs)."""
    high, actions, hidden_width = mix.inputs
    privileged = hidden_width if config.model.privileged_critic else 0
    model = ActorCritic(high, actions, tuple(config.model.hidden), privileged,
                        score_inputs=config.model.score_inputs)  # fmt: skip
    return model if device is None else model.to(device)


def _listed_games(config: Config) -> list[tuple[Ruleset, float]]:
    """The games of ``game.mix`` and their weights, in order (entry by entry, player counts
    ascending).

    Raises:
        ConfigError: naming the entry and key of an impossible game or weight.
    """
    out: list[tuple[Ruleset, float]] = []
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
            out.append((rules, float(weight)))
    names = [game_name(rules) for rules, _ in out]
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


def _text(value: object) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)
