"""An agent spec, parsed once: its name, its parameters and, for a learned agent, its game.

A spec is a name, then optionally ``:`` and ``key=value`` pairs separated by commas
(``pimc:worlds=32,seed=1``; values are read by :mod:`spar_env.values`, as in ``--set``: ints,
floats, bools, text). A parameter without ``=`` is a path: ``ppo:runs/a`` is
``{"path": "runs/a"}``.

An :class:`AgentSpec` reads its text once, when first needed, into the name and parameters
that the registry builds from (:func:`spar_agents.registry.make_agent` takes a spec's text or
its value). A ``ppo:``, ``onnx:`` or ``cfr:`` spec names a file that records the game it was
made for (the variant, the player count and the options); :attr:`AgentSpec.game` reads it the
first time it is asked for, from the file's header alone: no ONNX session is made (a PPO
checkpoint is loaded as data, its network not built). ``spar bench`` and ``spar play`` take
their game from the first such agent of a lineup when no game option is given
(:func:`lineup_game`).
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from spar_env.rules import Ruleset, make_rules
from spar_env.values import parse_value

LEARNED = ("ppo", "onnx", "cfr")  # the agents whose spec names a file that names a game


@dataclass(frozen=True, eq=False)
class AgentSpec:
    """A spec as typed (``text``), read into the agent's ``name`` and ``params`` once, when
    first needed (so a bad spec is refused where a command first uses it, as the text was)."""

    text: str  # as given: a lineup reports its agents by it

    @classmethod
    def of(cls, spec: str | AgentSpec) -> AgentSpec:
        """``spec`` itself if it is a spec already, else its text as one."""
        return spec if isinstance(spec, AgentSpec) else cls(spec)

    def __str__(self) -> str:
        return self.text

    @property
    def name(self) -> str:
        """The agent's registered name (``pimc``)."""
        return self._read[0]

    @property
    def params(self) -> Mapping[str, Any]:
        """The factory's keyword arguments, read-only (``{"worlds": 32}``)."""
        return self._read[1]

    @functools.cached_property
    def _read(self) -> tuple[str, Mapping[str, Any]]:
        """The text read once (module docstring).

        Raises:
            ValueError: for nothing after ``:`` or an item that is not ``key=value``.
        """
        text = self.text
        name, colon, rest = text.strip().partition(":")
        params: dict[str, Any] = {}
        if colon and not rest.strip():
            raise ValueError(
                f"agent spec {text!r}: nothing after ':'; write {name} alone or {name}:key=value,..."
            )
        if rest and "=" not in rest:
            params["path"] = rest
        elif rest:
            for item in rest.split(","):
                key, sep, value = item.partition("=")
                if not sep or not key.strip():
                    raise ValueError(f"agent spec {text!r}: expected key=value, got {item!r}")
                params[key.strip()] = parse_value(value)
        return name, MappingProxyType(params)

    @functools.cached_property
    def game(self) -> Ruleset | None:
        """The game the file of a ``ppo:``, ``onnx:`` or ``cfr:`` spec was made for, else
        ``None``; read once, when first asked for.

        Raises:
            ValueError: if the file is missing or unreadable, naming it.
        """
        path = self.params.get("path")
        if self.name not in LEARNED or path is None:
            return None
        return _READERS[self.name](str(path))


def parse_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """``"pimc:worlds=32,seed=1"`` -> ``("pimc", {"worlds": 32, "seed": 1})`` (an
    :class:`AgentSpec` read now, as a pair).

    Raises:
        ValueError: for nothing after ``:`` or an item that is not ``key=value``.
    """
    parsed = AgentSpec(spec)
    return parsed.name, dict(parsed.params)


def parse_lineup(specs: Iterable[str]) -> list[AgentSpec]:
    """A lineup's specs, a text given twice being one value (read once, when first needed)."""
    texts = list(specs)
    values = {text: AgentSpec(text) for text in dict.fromkeys(texts)}
    return [values[text] for text in texts]


def game_count(spec: str | AgentSpec) -> int:
    """How many games the file of a learned agent's spec was made for (a universal bot's many;
    1 for any other)."""
    parsed = AgentSpec.of(spec)
    if parsed.name != "onnx" or parsed.params.get("path") is None:
        return 1
    from spar_agents.export.bot import bot_game_count

    return bot_game_count(str(parsed.params["path"]))


def spec_rules(spec: str | AgentSpec) -> Ruleset | None:
    """The game the file of a learned agent's spec was made for, else ``None``
    (:attr:`AgentSpec.game`)."""
    return AgentSpec.of(spec).game


def lineup_game(specs: Iterable[str | AgentSpec]) -> tuple[str, Ruleset] | None:
    """The first learned agent of a lineup (its text) and its game, or ``None`` if it has none."""
    for spec in specs:
        parsed = AgentSpec.of(spec)
        if parsed.game is not None:
            return parsed.text, parsed.game
    return None


def _ppo(path: str | os.PathLike) -> Ruleset:
    from spar_agents.ppo.agent import latest_checkpoint
    from spar_agents.ppo.checkpoint import CheckpointError, load_checkpoint
    from spar_agents.signature import rules_of

    file = latest_checkpoint(path)
    checkpoint = load_checkpoint(file)
    try:
        return rules_of(checkpoint["game"])
    except (KeyError, TypeError, ValueError, RecursionError) as e:  # a game no spar-rl plays
        raise CheckpointError(f"{file}: not a PPO policy checkpoint ({e})") from None


def _onnx(path: str | os.PathLike) -> Ruleset:
    from spar_agents.export.bot import bot_rules

    return bot_rules(path)


def _cfr(path: str | os.PathLike) -> Ruleset:
    from spar_agents.cfr.sampled_policy import read_meta

    meta = read_meta(path)
    try:
        return make_rules(meta["variant"], players=meta["players"], **meta["options"])
    except (KeyError, TypeError) as e:
        raise ValueError(f"{path}: not a CFR policy file (no game in its header: {e})") from None


_READERS: dict[str, Callable[[str], Ruleset]] = {"ppo": _ppo, "onnx": _onnx, "cfr": _cfr}
