"""The registry of named variants (presets) from docs/rules.md, and :func:`make_rules`.

A preset is a set of :class:`~spar_env.rules.ruleset.Ruleset` fields
(:data:`PRESETS`, in :mod:`spar_env.rules.preset_table`). A user starts from
any preset and changes any field; the result is validated.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any

from spar_env.rules.preset_table import PRESETS
from spar_env.rules.ruleset import Ruleset

__all__ = ["PRESETS", "make_rules"]

_FIELDS = tuple(f.name for f in fields(Ruleset) if f.name != "variant")


def make_rules(variant: str = "spar", **overrides: Any) -> Ruleset:
    """Build a validated ruleset from a preset name plus field overrides.

    Args:
        variant: a preset name, one of :data:`PRESETS`.
        **overrides: any :class:`Ruleset` field, for example ``players=3``,
            ``last_two="bonus"``, ``end="stones:30"``. ``num_players`` is
            accepted as a synonym of ``players``. If ``hand_size`` is changed
            and ``deal_pattern`` is not, cards are dealt one at a time.

    Raises:
        ValueError: for an unknown preset or field, or a combination that
            cannot be played; the message names the field, value and limit.

    Example:
        >>> make_rules("essilfy", players=3, last_two="bonus").chain
        2
    """
    if variant not in PRESETS:
        raise ValueError(f"unknown variant {variant!r}; choose one of {', '.join(PRESETS)}")
    if "num_players" in overrides:
        overrides["players"] = overrides.pop("num_players")
    unknown = sorted(set(overrides) - set(_FIELDS))
    if unknown:
        raise ValueError(
            f"unknown option {unknown[0]!r} for {variant}; options are {', '.join(_FIELDS)}"
        )
    spec = {**PRESETS[variant], **overrides}
    if "hand_size" in overrides and "deal_pattern" not in overrides:
        spec["deal_pattern"] = (1,) * int(overrides["hand_size"])
    return Ruleset(variant=variant, **spec)
