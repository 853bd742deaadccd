"""``--set key=value`` overrides of a ruleset: the parsing every subcommand shares.

Values are read by the one grammar of :mod:`spar_env.values` (``true``,
``none``, numbers, ``3,2`` as a tuple, text). For ruleset fields that hold a
tuple (``suits``, ``ranks``, ``deal_pattern``), a single value is taken as a
tuple of one: ``--set deal_pattern=5``.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterable
from dataclasses import fields

from spar_env.rules import PRESETS, Ruleset, make_rules
from spar_env.values import parse_value

DEFAULT_VARIANT = "spar"  # the preset when --variant is not given
_TUPLE_FIELDS = frozenset(f.name for f in fields(Ruleset) if isinstance(f.default, tuple))


def parse_overrides(items: Iterable[str]) -> dict[str, object]:
    """``["key=value", ...]`` as a dict; a later key overrides an earlier one.

    Raises:
        ValueError: for an item without ``=`` or with an empty key, naming the item.
    """
    out: dict[str, object] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"--set takes key=value, such as last_two=bonus; got {item!r}")
        try:
            out[key.strip()] = parse_value(value)
        except ValueError as e:  # a number past int()'s digits
            raise ValueError(f"--set {key.strip()}: {e}") from None
    return out


def ruleset_overrides(items: Iterable[str]) -> dict[str, object]:
    """Overrides for :func:`spar_env.make_rules`; a tuple field's single value becomes a tuple.

    Raises:
        ValueError: for a malformed item, ``variant`` (``--variant`` chooses
            the preset) or a ``hand_size`` that is not a whole number.
    """
    out = parse_overrides(items)
    if "variant" in out:
        raise ValueError(
            f"--set variant={out['variant']}: the preset is chosen with --variant, "
            f"as in --variant {out['variant']}"
        )
    hand_size = out.get("hand_size", 1)
    # make_rules reads hand_size with int() before the ruleset checks it, so check it here.
    if not isinstance(hand_size, int) or isinstance(hand_size, bool) or hand_size < 1:
        raise ValueError(f"--set hand_size must be a positive whole number; got {hand_size!r}")
    for key in _TUPLE_FIELDS & out.keys():
        if not isinstance(out[key], tuple):
            out[key] = (out[key],)
    return out


def add_rules_arguments(parser: argparse.ArgumentParser) -> None:
    """``--variant``, ``--players`` and ``--set``: the ruleset options every subcommand shares."""
    parser.add_argument(
        "--variant", choices=list(PRESETS), metavar="NAME",
        help=f"preset: {', '.join(PRESETS)} (default: {DEFAULT_VARIANT})",
    )  # fmt: skip
    parser.add_argument("--players", type=int, help="number of players (default: the preset's)")
    parser.add_argument(
        "--set",
        dest="overrides",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="change a ruleset field, e.g. last_two=bonus, deal_pattern=3,2, end=stones:30 "
        "(repeatable; values: true/false, none, numbers, comma lists, text)",
    )


def rules_from_args(args: argparse.Namespace) -> Ruleset:
    """The ruleset that ``--variant``, ``--players`` and ``--set`` ask for.

    Raises:
        ValueError: for a malformed override or an impossible ruleset.
    """
    overrides = ruleset_overrides(args.overrides)
    if args.players is not None:
        check_agrees(overrides, "players", args.players, f"--players {args.players}")
        overrides["players"] = args.players
    return make_rules(args.variant or DEFAULT_VARIANT, **overrides)


def check_agrees(overrides: dict[str, object], key: str, value: object, option: str) -> None:
    """Refuse an option (``--players 4``) that a ``--set`` of the same field contradicts
    (``--set players=3``): neither may silently win.

    Raises:
        ValueError: naming both.
    """
    if key in overrides and overrides[key] != value:
        raise ValueError(f"{option} and --set {key}={overrides[key]} disagree; give one of them")
