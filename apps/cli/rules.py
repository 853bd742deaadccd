"""``spar rules``: a variant's rules on one screen, written from its ruleset.

The deck, the deal, the tricks, what goes face down, the scoring with the
variant's own cards, the payoff at the table size asked for, and the match.
Every rank and number comes from the ruleset, so ``--set`` changes show:
``--set last_two=bonus`` explains the bonus, ``--set end=stones:30`` the
stones. At the ``spar play`` table, ``r`` shows the same screen. ``--lang fr`` writes
them in French (the default is the locale's language, else English).

    spar rules                       # Spar for 4 players, first to 10
    spar rules sipa --players 3
    spar rules --set weak_hand_exchange=true --set payoff=points
    spar rules agram --lang fr
"""

from __future__ import annotations

import argparse

from spar_apps.cli.arguments import add_command
from spar_apps.cli.overrides import add_rules_arguments, rules_from_args
from spar_env.rules import PRESETS


def register(subparsers: argparse._SubParsersAction) -> None:
    p = add_command(subparsers, "rules", "a variant's rules on one screen", __doc__)
    p.add_argument(
        "name", nargs="?", choices=list(PRESETS), metavar="VARIANT",
        help=f"the preset: {', '.join(PRESETS)} (or --variant; default: spar)",
    )  # fmt: skip
    add_rules_arguments(p)
    p.add_argument("--lang", metavar="LANG", help="en or fr (default: the locale's, else en)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from rich.console import Console

    from spar_apps.table.messages import language, language_of_locale
    from spar_apps.terminal.screen import rules_screen

    if args.name and args.variant and args.name != args.variant:
        raise ValueError(f"two variants asked for: {args.name} and --variant {args.variant}")
    args.variant = args.variant or args.name
    try:
        lang = language_of_locale() if args.lang is None else language(args.lang)
    except ValueError as e:
        raise ValueError(f"--lang: {e}") from None
    Console(highlight=False).print(rules_screen(rules_from_args(args), lang))
    return 0
