"""Run configs: TOML files of typed sections, checked before any training starts.

A config is a TOML file (see ``configs/``) with the top-level key
``algorithm`` and one table per section below; every key has a default, so a
file names only what it changes. ``algorithm = "ppo"`` (the default) trains
by self-play and reads every section but ``[solver]`` and ``[mccfr]``;
``"cfr"`` solves a small two-player variant exactly with a CFR-family solver
and ``"lp"`` with the sequence-form linear program, and both read ``[run]``,
``[game]`` and (``cfr``) ``[solver]`` only; ``"mccfr"`` trains a sampled-CFR
agent on a game of any size and reads ``[run]``, ``[game]`` and ``[mccfr]``.
``--set section.key=value`` overrides a key after the file is read; the value
is read as TOML (``3e-4``, ``true``, ``[128, 128]``, ``"heuristic"``), and a
bare word is taken as a string.

An unknown section or key, a value of the wrong type, or an impossible value
is a :class:`ConfigError` that names the key, before anything runs. The config
in force is written to ``runs/<name>/config.toml`` with the package version.
"""

from __future__ import annotations

import dataclasses
import math
import tomllib
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, get_args, get_origin, get_type_hints

import tomli_w

ALGORITHMS = ("ppo", "cfr", "lp", "mccfr")
SOLVERS = ("cfr", "cfr+", "dcfr", "pcfr+")
# The sections each algorithm reads; any other is an error.
SECTIONS_OF = {
    "ppo": ("run", "game", "rollout", "ppo", "model", "pool", "eval", "warmstart", "ray"),
    "cfr": ("run", "game", "solver"),
    "lp": ("run", "game"),
    "mccfr": ("run", "game", "mccfr"),
}


class ConfigError(ValueError):
    """A config that cannot run; the message names the key."""


@dataclass(frozen=True)
class RunSection:
    name: str = "spar4"  # the run folder: runs/<name>
    seed: int = 0
    updates: int = 500  # PPO updates in all (each after one rollout)
    max_minutes: float = 15.0  # stop early after this much wall clock (0: no limit)
    threads: int = 2  # torch threads
    checkpoint_every: int = 10  # updates between checkpoints (and one at the end)
    keep_checkpoints: int = 3  # the newest ones kept on disk


@dataclass(frozen=True)
class GameSection:
    variant: str = "spar"
    players: int = 4
    options: dict[str, Any] = field(default_factory=dict)  # any ruleset field


@dataclass(frozen=True)
class RolloutSection:
    games: int = 2048  # games played at once on the batch core
    hands: int = 1  # hands each game plays per rollout


@dataclass(frozen=True)
class PPOSection:
    lr: float = 3e-4
    lr_schedule: str = "linear"  # linear (to 0 at the last update) | constant
    gamma: float = 1.0
    gae_lambda: float = 0.95
    epochs: int = 3
    minibatch_size: int = 8192
    clip: float = 0.2
    value_clip: float = 0.2  # 0: no value clipping
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    target_kl: float = 0.0  # stop an update's epochs past this KL (0: never)
    reward_scale: float = 0.0  # payoffs are multiplied by this (0: 1 / the largest payoff)
    train_forced: bool = False  # also learn from decisions with one legal action


@dataclass(frozen=True)
class ModelSection:
    hidden: list[int] = field(default_factory=lambda: [256, 256])
    privileged_critic: bool = True  # the critic also sees the other hands (training only)


@dataclass(frozen=True)
class PoolSection:
    # Share of the games of a rollout by who holds the other seats: "self" (the
    # learner holds every seat), "snapshot" (past snapshots of the learner), or an
    # agent spec ("heuristic", "random", "pimc:worlds=8").
    mix: dict[str, float] = field(
        default_factory=lambda: {"self": 0.5, "snapshot": 0.25, "heuristic": 0.25}
    )
    snapshot_every: int = 10  # updates between snapshots added to the pool
    snapshots: int = 5  # the most recent ones kept


@dataclass(frozen=True)
class EvalSection:
    every: int = 20  # updates between evaluations (and one at the end)
    deals: int = 2000  # duplicate deals against each opponent
    seed: int = 12345  # the same deals at every evaluation
    opponents: list[str] = field(default_factory=lambda: ["random", "heuristic"])
    pimc_every: int = 0  # evaluations between pimc evaluations (0: never)
    pimc_deals: int = 200


@dataclass(frozen=True)
class WarmStartSection:
    imitate: str = "heuristic"  # an agent spec whose decisions the actor imitates first ("": none)
    updates: int = 60  # imitation steps
    games: int = 2048  # games per batch of imitated decisions
    lr: float = 1e-3


@dataclass(frozen=True)
class RaySection:
    enabled: bool = False  # collect the rollouts on Ray actors (also: spar train --ray)
    address: str = ""  # "": start a local Ray; "auto" or "HOST:PORT": join a running cluster
    workers: int = 2  # rollout actors; rollout.games is shared out among them
    cpus_per_worker: int = 1  # CPUs each actor reserves (and its torch threads)
    timeout: float = 30.0  # seconds to wait for a cluster at ray.address before giving up


@dataclass(frozen=True)
class MCCFRSection:
    deals: int = 1024  # hands walked per batch
    batches: int = 100_000  # the most batches (run.max_minutes usually stops the run first)
    model: str = "heuristic"  # an agent spec the others may play instead ("": plain MCCFR)
    model_share: float = 0.5  # share of the hands where they do (a restricted Nash response)
    eval_every: int = 100  # batches between evaluations and saves (and one at the end)
    eval_deals: int = 2000  # duplicate deals against each opponent
    eval_seed: int = 12345  # the same deals at every evaluation
    eval_opponents: list[str] = field(default_factory=lambda: ["random", "heuristic"])


@dataclass(frozen=True)
class SolverSection:
    algorithm: str = "dcfr"  # cfr | cfr+ | dcfr | pcfr+
    iterations: int = 2000
    seconds: float = 0.0  # stop once the solver has run this long (0: no limit)
    target_nash_conv: float = 0.0  # stop once NashConv is below this (0: never)
    eval_every: int = 100  # iterations between exact evaluations (and log points)


@dataclass(frozen=True)
class Config:
    algorithm: str = "ppo"
    run: RunSection = field(default_factory=RunSection)
    game: GameSection = field(default_factory=GameSection)
    rollout: RolloutSection = field(default_factory=RolloutSection)
    ppo: PPOSection = field(default_factory=PPOSection)
    model: ModelSection = field(default_factory=ModelSection)
    pool: PoolSection = field(default_factory=PoolSection)
    eval: EvalSection = field(default_factory=EvalSection)
    warmstart: WarmStartSection = field(default_factory=WarmStartSection)
    ray: RaySection = field(default_factory=RaySection)
    solver: SolverSection = field(default_factory=SolverSection)
    mccfr: MCCFRSection = field(default_factory=MCCFRSection)

    def to_dict(self) -> dict[str, Any]:
        """The algorithm and the sections it reads, as plain data."""
        data = dataclasses.asdict(self)
        return {"algorithm": self.algorithm, **{k: data[k] for k in SECTIONS_OF[self.algorithm]}}

    def replace(self, **sections: Any) -> Config:
        return dataclasses.replace(self, **sections)


SECTIONS: dict[str, type] = {
    f.name: get_type_hints(Config)[f.name] for f in fields(Config) if f.name != "algorithm"
}
SELF_OR_SNAPSHOT = ("self", "snapshot")  # pool.mix entries that are not agent specs
META_KEYS = ("spar_rl_version",)  # written with the config in force; ignored on reading


# ----- reading ---------------------------------------------------------------------
DEFAULT_CONFIG = "ppo_spar4.toml"


def default_config_path() -> Path | None:
    """``configs/ppo_spar4.toml`` of the source tree, or ``None`` (the built-in defaults,
    which are the same, as a test checks) when the package is installed without it."""
    path = Path(__file__).resolve().parents[1] / "configs" / DEFAULT_CONFIG
    return path if path.is_file() else None


def load_config(path: str | Path | None, overrides: list[str] = ()) -> Config:
    """The config of a TOML file (``None``: the defaults) with ``--set`` overrides, checked.

    Raises:
        ConfigError: naming the file, the key and what is wrong.
    """
    data: dict[str, Any] = {}
    if path is not None:
        path = Path(path)
        try:
            data = tomllib.loads(read_config_text(path))
        except FileNotFoundError:
            raise ConfigError(f"{path}: no such config file") from None
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
            raise ConfigError(f"{path}: not a valid TOML file: {e}") from None
    for item in overrides:
        apply_override(data, item)
    return from_dict(data)


def read_config_text(path: Path) -> str:
    """A config file's text, refused past ``MAX_CONFIG_BYTES`` (``/dev/zero`` never ends)."""
    from spar_env.limits import MAX_CONFIG_BYTES, LimitError, read_bounded

    try:
        return read_bounded(path, MAX_CONFIG_BYTES, "config").decode("utf-8")
    except LimitError as e:
        raise ConfigError(str(e)) from None


def apply_override(data: dict[str, Any], item: str) -> None:
    """Set ``section.key=value`` in raw config data (the value read as TOML)."""
    key, sep, text = item.partition("=")
    key = key.strip()
    if not sep or not key:
        raise ConfigError(f"--set {item!r}: expected section.key=value (for example ppo.lr=3e-4)")
    try:
        value = tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        value = text.strip()  # a bare word: a string
    *parents, last = key.split(".")
    node = data
    for p in parents:
        child = node.setdefault(p, {})
        if not isinstance(child, dict):
            raise ConfigError(f"--set {key}: {p} is not a section")
        node = child
    node[last] = value


def from_dict(data: dict[str, Any]) -> Config:
    """A checked :class:`Config` from plain data (as read from TOML)."""
    data = {k: v for k, v in data.items() if k not in META_KEYS}
    algorithm = data.pop("algorithm", "ppo")
    if algorithm not in ALGORITHMS:
        raise ConfigError(f"algorithm: must be one of {', '.join(ALGORITHMS)}; got {algorithm!r}")
    sections = {}
    allowed = SECTIONS_OF[algorithm]
    for name, value in data.items():
        if name not in SECTIONS:
            raise ConfigError(
                f"{name}: unknown section; sections: {', '.join(SECTIONS)} (and algorithm)"
            )
        if name not in allowed:
            raise ConfigError(
                f"{name}: algorithm {algorithm!r} has no [{name}] section; "
                f"its sections: {', '.join(allowed)}"
            )
        if not isinstance(value, dict):
            raise ConfigError(f"{name}: must be a table ([{name}]), got {value!r}")
        sections[name] = _section(name, SECTIONS[name], value)
    config = Config(algorithm=algorithm, **sections)
    check(config)
    return config


def _section(name: str, cls: type, values: dict[str, Any]) -> Any:
    hints = get_type_hints(cls)
    known = [f.name for f in fields(cls)]
    out = {}
    for key, value in values.items():
        if key not in known:
            raise ConfigError(f"{name}.{key}: unknown key; keys of [{name}]: {', '.join(known)}")
        out[key] = _typed(f"{name}.{key}", hints[key], value)
    return cls(**out)


def _typed(key: str, hint: Any, value: Any) -> Any:
    """``value`` as ``hint`` (int, float, str, bool, list[...], dict[str, ...]) or an error."""
    origin = get_origin(hint)
    if hint is bool:
        if isinstance(value, bool):
            return value
        raise ConfigError(f"{key}: expected true or false, got {value!r}")
    if hint is int:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        raise ConfigError(f"{key}: expected a whole number, got {value!r}")
    if hint is float:
        if isinstance(value, int | float) and not isinstance(value, bool):
            if not math.isfinite(value):
                raise ConfigError(f"{key}: expected a finite number, got {value!r}")
            return float(value)
        raise ConfigError(f"{key}: expected a number, got {value!r}")
    if hint is str:
        if isinstance(value, str):
            return value
        raise ConfigError(f"{key}: expected a string, got {value!r}")
    if origin is list:
        if not isinstance(value, list):
            raise ConfigError(f"{key}: expected a list, got {value!r}")
        (item,) = get_args(hint)
        return [_typed(f"{key}[{i}]", item, v) for i, v in enumerate(value)]
    if origin is dict:
        if not isinstance(value, dict):
            raise ConfigError(f"{key}: expected a table of key = value, got {value!r}")
        _, item = get_args(hint)
        return {k: v if item is Any else _typed(f"{key}.{k}", item, v) for k, v in value.items()}
    raise TypeError(f"unsupported config type {hint!r}")  # a bug here, not in the file


# ----- checking --------------------------------------------------------------------
def _require(ok: bool, key: str, what: str, value: Any) -> None:
    if not ok:
        raise ConfigError(f"{key}: must be {what}; got {value!r}")


def _require_spec(key: str, spec: str, alternative: str = "") -> None:
    """A registered agent spec at ``key``, or a :class:`ConfigError` listing the agents."""
    from agents.registry import AGENTS, parse_spec

    names = ", ".join(sorted(AGENTS))
    _require(parse_spec(spec)[0] in AGENTS, key, f"an agent spec ({names}){alternative}", spec)


def check(c: Config) -> None:
    """Raise :class:`ConfigError` for impossible values, naming the key."""
    import agents.builtin  # noqa: F401  (registers the built-in agents)
    from agents.registry import AGENTS, parse_spec
    from spar_env.rules import make_rules
    from train.preflight import check_bounds

    r = c.run
    _require(
        bool(r.name) and "/" not in r.name and r.name not in (".", ".."),
        "run.name",
        "a folder name (no '/')",
        r.name,
    )
    _require(r.seed >= 0, "run.seed", "a non-negative integer", r.seed)
    _require(r.updates >= 1, "run.updates", "at least 1", r.updates)
    _require(r.max_minutes >= 0, "run.max_minutes", "0 (no limit) or more", r.max_minutes)
    _require(r.threads >= 1, "run.threads", "at least 1", r.threads)
    _require(r.checkpoint_every >= 1, "run.checkpoint_every", "at least 1", r.checkpoint_every)
    _require(r.keep_checkpoints >= 1, "run.keep_checkpoints", "at least 1", r.keep_checkpoints)
    check_bounds(c)
    try:
        make_rules(c.game.variant, players=c.game.players, **c.game.options)
    except TypeError as e:
        raise ConfigError(f"game.options: {e}") from None
    except ValueError as e:
        raise ConfigError(f"game: {e}") from None
    if c.algorithm == "mccfr":
        _check_mccfr(c)
        return
    if c.algorithm != "ppo":
        _check_solver(c)
        return
    _require(c.rollout.games >= 1, "rollout.games", "at least 1", c.rollout.games)
    _require(c.rollout.hands >= 1, "rollout.hands", "at least 1", c.rollout.hands)
    p = c.ppo
    _require(p.lr > 0, "ppo.lr", "positive", p.lr)
    _require(
        p.lr_schedule in ("linear", "constant"),
        "ppo.lr_schedule",
        "linear or constant",
        p.lr_schedule,
    )
    _require(0 < p.gamma <= 1, "ppo.gamma", "in (0, 1]", p.gamma)
    _require(0 <= p.gae_lambda <= 1, "ppo.gae_lambda", "in [0, 1]", p.gae_lambda)
    _require(p.epochs >= 1, "ppo.epochs", "at least 1", p.epochs)
    _require(p.minibatch_size >= 2, "ppo.minibatch_size", "at least 2", p.minibatch_size)
    _require(0 < p.clip < 1, "ppo.clip", "in (0, 1)", p.clip)
    for name in ("value_clip", "ent_coef", "vf_coef", "target_kl", "reward_scale"):
        _require(getattr(p, name) >= 0, f"ppo.{name}", "0 or more", getattr(p, name))
    _require(p.max_grad_norm > 0, "ppo.max_grad_norm", "positive", p.max_grad_norm)
    _require(
        len(c.model.hidden) >= 1 and all(h >= 1 for h in c.model.hidden),
        "model.hidden",
        "a list of positive layer widths",
        c.model.hidden,
    )
    mix = c.pool.mix
    _require(bool(mix), "pool.mix", "a table of shares", mix)
    for who, share in mix.items():
        _require(share >= 0, f"pool.mix.{who}", "0 or more", share)
        name, _ = parse_spec(who) if who not in ("self", "snapshot") else (who, {})
        if who not in ("self", "snapshot") and name not in AGENTS:
            raise ConfigError(
                f"pool.mix.{who}: unknown opponent; use self, snapshot or an agent spec "
                f"({', '.join(sorted(AGENTS))})"
            )
    _require(sum(mix.values()) > 0, "pool.mix", "shares that add up to more than 0", mix)
    _require(c.pool.snapshot_every >= 1, "pool.snapshot_every", "at least 1", c.pool.snapshot_every)
    _require(c.pool.snapshots >= 1, "pool.snapshots", "at least 1", c.pool.snapshots)
    e = c.eval
    _require(e.every >= 1, "eval.every", "at least 1", e.every)
    _require(e.deals >= 2, "eval.deals", "at least 2 (for an interval)", e.deals)
    _require(e.seed >= 0, "eval.seed", "a non-negative integer", e.seed)
    _require(e.pimc_every >= 0, "eval.pimc_every", "0 (never) or more", e.pimc_every)
    _require(e.pimc_deals >= 2, "eval.pimc_deals", "at least 2", e.pimc_deals)
    for i, spec in enumerate(e.opponents):
        _require_spec(f"eval.opponents[{i}]", spec)
    w = c.warmstart
    if w.imitate:
        _require_spec("warmstart.imitate", w.imitate, " or empty")
    _require(w.updates >= 0, "warmstart.updates", "0 or more", w.updates)
    _require(w.games >= 1, "warmstart.games", "at least 1", w.games)
    _require(w.lr > 0, "warmstart.lr", "positive", w.lr)
    _check_ray(c)


def _check_ray(c: Config) -> None:
    from train.distributed import check_address

    r = c.ray
    try:
        check_address(r.address)
    except ValueError as e:
        raise ConfigError(f"ray.address: {e}") from None
    _require(r.workers >= 1, "ray.workers", "at least 1", r.workers)
    _require(r.cpus_per_worker >= 1, "ray.cpus_per_worker", "at least 1", r.cpus_per_worker)
    _require(r.timeout > 0, "ray.timeout", "positive (seconds)", r.timeout)
    if r.enabled:
        _require(
            c.rollout.games >= r.workers,
            "rollout.games",
            f"at least ray.workers ({r.workers}), a game for each worker",
            c.rollout.games,
        )


def _check_mccfr(c: Config) -> None:
    from agents.cfr.abstraction import card_abstraction
    from spar_env.rules import make_rules

    try:
        card_abstraction(make_rules(c.game.variant, players=c.game.players, **c.game.options))
    except ValueError as e:
        raise ConfigError(f"game.options: {e}") from None
    m = c.mccfr
    for name in ("deals", "batches", "eval_every"):
        _require(getattr(m, name) >= 1, f"mccfr.{name}", "at least 1", getattr(m, name))
    _require(0 <= m.model_share < 1, "mccfr.model_share", "in [0, 1)", m.model_share)
    if m.model:
        _require_spec("mccfr.model", m.model, " or empty")
    else:
        _require(m.model_share == 0, "mccfr.model_share", "0 without a model", m.model_share)
    _require(m.eval_deals >= 2, "mccfr.eval_deals", "at least 2 (for an interval)", m.eval_deals)
    _require(m.eval_seed >= 0, "mccfr.eval_seed", "a non-negative integer", m.eval_seed)
    for i, spec in enumerate(m.eval_opponents):
        _require_spec(f"mccfr.eval_opponents[{i}]", spec)


def _check_solver(c: Config) -> None:
    _require(
        c.game.players == 2,
        "game.players",
        "2 (the exact solvers are for two players)",
        c.game.players,
    )
    v = c.solver
    _require(v.algorithm in SOLVERS, "solver.algorithm", " or ".join(SOLVERS), v.algorithm)
    _require(v.iterations >= 1, "solver.iterations", "at least 1", v.iterations)
    _require(v.seconds >= 0, "solver.seconds", "0 (no limit) or more", v.seconds)
    _require(
        v.target_nash_conv >= 0, "solver.target_nash_conv", "0 (never) or more", v.target_nash_conv
    )
    _require(v.eval_every >= 1, "solver.eval_every", "at least 1", v.eval_every)


# ----- writing ---------------------------------------------------------------------
def dump_config(config: Config, version: str) -> str:
    """The config in force as TOML, with the package version."""
    return tomli_w.dumps({"spar_rl_version": version, **config.to_dict()})
