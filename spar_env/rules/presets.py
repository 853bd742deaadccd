"""The registry of named variants (presets) from docs/rules.md, and :func:`make_rules`.

A preset is a set of :class:`~spar_env.rules.ruleset.Ruleset` fields. A user
starts from any preset and changes any field; the result is validated.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any

from spar_env.rules.ruleset import Ruleset

_SPAR_RANKS = ("A", "K", "Q", "J", "10", "9", "8", "7", "6")
_SEVEN_UP_RANKS = ("A", "K", "Q", "J", "10", "9", "8", "7")
_AGRAM_RANKS = ("10", "9", "8", "7", "6", "5", "4", "3", "A")

PRESETS: dict[str, dict[str, Any]] = {
    "spar": dict(ranks=_SPAR_RANKS, hand_size=5, deal_pattern=(3, 2), end="target:10"),
    "spar_classic": dict(
        ranks=_SPAR_RANKS, ace_of_spades=True, hand_size=7, deal_pattern=(1,) * 7, end="open"
    ),
    "essilfy": dict(ranks=_SPAR_RANKS, last_two="sum", end="target:30", c_notation=True),
    "jeu_de_carte": dict(
        ranks=_SEVEN_UP_RANKS, scoring="seven", face_down="off_suit", end="target:24"
    ),
    "sipa": dict(
        ranks=_SEVEN_UP_RANKS,
        direction="counterclockwise",
        scoring="sipa",
        face_down="non_winning",
        end="target:10",
    ),
    "agram": dict(
        ranks=_AGRAM_RANKS,
        hand_size=6,
        deal_pattern=(3, 3),
        direction="counterclockwise",
        scoring="one",
        end="one_hand",
    ),
    "sink_sink": dict(
        ranks=_AGRAM_RANKS,
        hand_size=5,
        deal_pattern=(2, 3),
        direction="counterclockwise",
        scoring="one",
        end="one_hand",
    ),
    "fapfap": dict(
        ranks=_AGRAM_RANKS,
        hand_size=6,
        deal_pattern=(3, 3),
        direction="counterclockwise",
        scoring="fapfap",
        end="open",
    ),
    "agram_mali": dict(
        ranks=("7", "J", "8", "9", "Q", "10", "K", "A"),
        hand_size=6,
        deal_pattern=(3, 3),
        direction="counterclockwise",
        scoring="one",
        end="one_hand",
    ),
    "mini": dict(
        suits=("C", "D", "H"),
        ranks=("A", "K", "7", "6"),
        players=2,
        hand_size=3,
        deal_pattern=(3,),
        first_dealer=1,
        end="one_hand",
    ),
    "micro": dict(
        suits=("C", "D"),
        ranks=("K", "7", "6"),
        players=2,
        hand_size=2,
        deal_pattern=(2,),
        first_dealer=1,
        end="one_hand",
    ),
}

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
