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
is read by the one grammar of :mod:`spar_env.values`: as TOML (``3e-4``,
``true``, ``[128, 128]``, ``"heuristic"``), else ``none``, a comma list
(``128,128``, as a list) or a bare word (a string).

An unknown section or key, a value of the wrong type, or an impossible value
is a :class:`ConfigError` that names the key, before anything runs. The config
in force is written to ``runs/<name>/config.toml`` with the package version.

The sections and their defaults are in :mod:`spar_train.sections`, the checks in
:mod:`spar_train.config_check`; this module reads and writes configs, and
re-exports both. It also finds the ready-made configs the package ships (the package data
``spar_train.configs``, the folder ``configs/``) by name: :func:`config_names`,
:func:`config_path`, :func:`resolve_config` (a path that exists wins over a shipped name, so
``spar train configs/ppo_tiny.toml`` keeps working from a checkout).
"""

from __future__ import annotations

import math
import os
import tomllib
from collections.abc import Sequence
from dataclasses import fields
from pathlib import Path
from typing import Any, get_args, get_origin, get_type_hints

import tomli_w

from spar_agents.shipped import resolve_shipped, shipped_file, shipped_names
from spar_env.values import parse_value
from spar_train.config_check import check
from spar_train.sections import (
    ALGORITHMS,
    META_KEYS,
    RENAMED,
    RETIRED,
    SECTIONS,
    SECTIONS_OF,
    SELF_OR_SNAPSHOT,
    SOLVERS,
    Config,
    ConfigError,
    EvalSection,
    GameSection,
    MCCFRSection,
    ModelSection,
    PoolSection,
    PPOSection,
    RaySection,
    RolloutSection,
    RunSection,
    SolverSection,
    WarmStartSection,
    rules_of,
)

__all__ = [
    "ALGORITHMS",
    "CONFIG_FILE",
    "SECTIONS",
    "SECTIONS_OF",
    "SELF_OR_SNAPSHOT",
    "SOLVERS",
    "Config",
    "ConfigError",
    "EvalSection",
    "GameSection",
    "MCCFRSection",
    "ModelSection",
    "PPOSection",
    "PoolSection",
    "RaySection",
    "RolloutSection",
    "RunSection",
    "SolverSection",
    "WarmStartSection",
    "apply_override",
    "check",
    "config_names",
    "config_path",
    "config_summary",
    "default_config_path",
    "dump_config",
    "from_dict",
    "load_config",
    "refuse_untrusted",
    "resolve_config",
    "resume_config",
    "rules_of",
]

# ----- the shipped configs -----------------------------------------------------------
CONFIGS_PACKAGE = "spar_train.configs"  # the folder configs/, as package data
CONFIG_SUFFIX = ".toml"
DEFAULT_CONFIG = "ppo_spar4"  # the run of a bare `spar train`
CONFIG_FILE = "config.toml"  # the config in force, in every run folder
CONFIG_LEVELS = 8  # the deepest a config nests (a game.mix entry's options' list: 6)


def config_names() -> list[str]:
    """The names of the shipped configs, sorted: ``["cfr_micro", ..., "ppo_tiny"]``."""
    return shipped_names(CONFIGS_PACKAGE, CONFIG_SUFFIX)


def config_path(name: str = DEFAULT_CONFIG) -> Path:
    """The TOML file of the shipped config ``name`` (with or without ``.toml``).

    Raises:
        ValueError: if no config of that name is shipped, naming the ones that are.
    """
    return shipped_file(CONFIGS_PACKAGE, CONFIG_SUFFIX, name, "config")


def config_summary(name: str) -> str:
    """The first sentence of a shipped config's opening comment: what the config is for."""
    lines = config_path(name).read_text(encoding="utf-8").splitlines()
    comment = []
    for line in lines:
        if not line.startswith("#"):
            break
        comment.append(line.lstrip("#").strip())
    text = " ".join(comment)
    end = text.find(". ")
    return text if end < 0 else text[: end + 1]


def resolve_config(given: str | os.PathLike) -> Path:
    """``given`` if it is a file, else the shipped config it names (``ppo_tiny``).

    A path that is neither stays as given, so that the loader reports it missing.
    """
    return resolve_shipped(given, config_names(), config_path, CONFIG_SUFFIX)


def default_config_path() -> Path | None:
    """The shipped ``configs/ppo_spar4.toml`` (package data), or ``None`` (the built-in
    defaults, which are the same, as a test checks) if it is missing."""
    return config_path(DEFAULT_CONFIG) if DEFAULT_CONFIG in config_names() else None


# ----- reading ---------------------------------------------------------------------


def load_config(
    path: str | Path | None, overrides: Sequence[str] = (), *, trust_code: bool = False
) -> Config:
    """The config of a TOML file (``None``: the defaults) with ``--set`` overrides, checked.

    A config file may have been handed to us: an agent it names that would run code
    (``py:``), or a Ray cluster it would join (``ray.address``), is refused unless
    ``trust_code`` or an override names that code or address too (:func:`refuse_untrusted`).

    Raises:
        ConfigError: naming the file, the key and what is wrong.
    """
    data: dict[str, Any] = {}
    if path is not None:
        path = Path(path)
        try:
            data = read_config_data(path)
        except FileNotFoundError:
            raise ConfigError(f"{path}: no such config file") from None
    for item in overrides:
        apply_override(data, item)
    game = data.get("game")
    if isinstance(game, dict) and game.get("mix") == []:
        # An empty mix would silently train the one default game: say so instead.
        raise ConfigError(
            "game.mix: an empty mix names no game; remove the key to train the one game "
            "of game.variant and game.players, or list the games to mix"
        )
    config = from_dict(data)
    if path is not None and not trust_code:
        refuse_untrusted(config, path, "run it with --trust-code", overrides,
                         ", or give the address yourself: --ray ADDRESS")  # fmt: skip
    return config


def read_config_data(path: Path) -> dict[str, Any]:
    """A config file's tables, refused in one :class:`ConfigError` naming the file: past
    ``MAX_CONFIG_BYTES`` (``/dev/zero`` never ends), not UTF-8 TOML (an integer of 5,000
    digits included), or nested deeper than any config (TOML's reader recurses)."""
    from spar_env.limits import MAX_CONFIG_BYTES, LimitError, check_nesting, read_bounded

    try:
        data = tomllib.loads(read_bounded(path, MAX_CONFIG_BYTES, "config").decode("utf-8"))
        check_nesting(data, CONFIG_LEVELS, f"{path}")
    except LimitError as e:
        raise ConfigError(str(e)) from None
    except RecursionError:
        raise ConfigError(f"{path} is nested more than {CONFIG_LEVELS} levels deep") from None
    except (ValueError, UnicodeDecodeError) as e:  # TOMLDecodeError is a ValueError
        raise ConfigError(f"{path}: not a valid TOML file: {e}") from None
    return data


def apply_override(data: dict[str, Any], item: str) -> None:
    """Set ``section.key=value`` in raw config data (the value read by :mod:`spar_env.values`)."""
    key, sep, text = item.partition("=")
    key = key.strip()
    if not sep or not key:
        raise ConfigError(f"--set {item!r}: expected section.key=value (for example ppo.lr=3e-4)")
    try:
        value = parse_value(text)
    except ValueError as e:  # a number past int()'s digits
        raise ConfigError(f"--set {key}: {e}") from None
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
        renamed = RENAMED.get(f"{name}.{key}")
        if renamed is not None:
            key = renamed.partition(".")[2]
            if key in values:
                raise ConfigError(f"{renamed}: given twice, also under its old name")
        if f"{name}.{key}" in RETIRED:
            raise ConfigError(f"{name}.{key}: retired, it never did anything: "
                              f"{RETIRED[f'{name}.{key}']}")  # fmt: skip
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
    if hint == int | str:  # a count, or a word such as "auto" (its check names the words)
        if isinstance(value, int | str) and not isinstance(value, bool):
            return value
        raise ConfigError(f"{key}: expected a whole number or a word, got {value!r}")
    if origin is list:
        if isinstance(value, tuple):  # a comma list of --set (128,128)
            value = list(value)
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


RESUME_KEYS = ("run.updates", "run.max_minutes", "mccfr.batches", "run.device")


def resume_config(
    run_dir: str | Path,
    overrides: Sequence[str] = (),
    *,
    trust_code: bool = False,
    ray: str | None = None,
) -> Config:
    """The config a run was started with, from its ``config.toml``; ``overrides`` may change
    only how long it runs (``run.updates``, ``run.max_minutes``, ``mccfr.batches``) and where
    (``run.device``: checkpoints are device-free); ``ray``, an address the user typed
    (``--ray ADDRESS``), which cluster it joins.

    A run folder may have been handed to us: an agent of its config that would run code
    (``py:``), or a Ray cluster it would join, is refused unless ``trust_code``
    (:func:`refuse_untrusted`; an address typed as ``ray`` is the user's own).
    """
    path = Path(run_dir) / CONFIG_FILE
    if not path.is_file():
        raise ConfigError(f"--resume {run_dir}: no {CONFIG_FILE} there; is it a run folder?")
    data = read_config_data(path)
    drop_retired(data)  # written by an older version: its run never read them
    for item in overrides:
        key = item.partition("=")[0].strip()
        if key not in RESUME_KEYS:
            raise ConfigError(
                f"--set {key}: a resumed run keeps its config; only "
                f"{', '.join(RESUME_KEYS[:-1])} and {RESUME_KEYS[-1]} may change"
            )
        apply_override(data, item)
    typed = [f"ray.address={ray!r}"] if ray else []  # the cluster the user names instead
    for item in typed:
        apply_override(data, item)
    config = from_dict(data)
    if not trust_code:
        refuse_untrusted(config, path, "resume with --trust-code", typed)
    return config


def refuse_untrusted(
    config: Config,
    path: Path,
    how_to_trust: str,
    typed: Sequence[str] = (),
    how_to_type: str = "",
) -> None:
    """Refuse a config read from the file ``path`` whose agents would run code (``py:``) or
    that would join a Ray cluster (``ray.address``, whether or not ``ray.enabled``: ``--ray``
    alone joins it), but for the code and the address the user ``typed`` on the command line
    too, as ``--set`` strings (:mod:`spar_agents.registry.trust`); ``how_to_type`` says how
    to type an address, where one can.

    Raises:
        ConfigError: naming the file, the key, the spec or address and ``how_to_trust``.
    """
    from spar_agents.registry.trust import Untrusted, refuse_address, refuse_code
    from spar_train.preflight import agent_specs

    try:
        refuse_code(agent_specs(config), str(path), how_to_trust, typed)
        refuse_address({"ray.address": config.ray.address}, str(path),
                       f"{how_to_trust}{how_to_type}", _typed_addresses(typed))  # fmt: skip
    except Untrusted as e:
        raise ConfigError(str(e)) from None


def _typed_addresses(typed: Sequence[str]) -> list[str]:
    """The Ray address the ``--set`` strings ``typed`` give, if any (the last one given)."""
    data: dict[str, Any] = {}
    for item in typed:
        if item.partition("=")[0].strip() == "ray.address":
            apply_override(data, item)
    address = data.get("ray", {}).get("address")
    return [address] if isinstance(address, str) else []


def drop_retired(data: dict[str, Any]) -> None:
    """Remove the retired keys (``RETIRED``) from a run folder's config data, in place."""
    for key in RETIRED:
        section, _, name = key.partition(".")
        table = data.get(section)
        if isinstance(table, dict):
            table.pop(name, None)


# ----- writing ---------------------------------------------------------------------
def dump_config(config: Config, version: str) -> str:
    """The config in force as TOML, with the package version."""
    return tomli_w.dumps({"spar_rl_version": version, **config.to_dict()})
