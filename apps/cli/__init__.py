"""The ``spar`` command line: one entry point, one module per subcommand.

Each subcommand lives in ``apps/cli/<name>.py`` and exposes
``register(subparsers)``, which adds its parser and ``set_defaults(func=run)``,
and ``run(args) -> int``, which returns the exit status. Exit statuses: 0 for
success, 1 when the command ran but found a problem (a broken record) or could
not write all its output (a closed stdout, a full disk), 2 for bad arguments, 130 when
stopped by Ctrl-C or a kill (SIGTERM), with one line saying so. Every error is one line on
stderr.

    spar record --variant sipa --players 3 --hands 1000 --seed 0 > games.jsonl
    spar replay games.jsonl
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sys
import threading
from collections.abc import Iterator
from types import ModuleType

from spar_apps.cli import (
    bench,
    equity,
    exploit,
    export,
    league,
    play,
    record,
    replay,
    review,
    rules,
    serve,
    speed,
    train,
)
from spar_apps.cli.arguments import Parser
from spar_env import __version__
from spar_env.extras import missing_module_message
from spar_env.printable import printable

SUBCOMMANDS: tuple[ModuleType, ...] = (
    train, bench, equity, league, exploit, play, serve, rules, export, record, replay, review,
    speed,
)  # fmt: skip
RULES_PAGE = "docs/rules.md"  # in the spar-rl repository

EPILOG = f"""\
The rules of Spar and of every variant (and the game-record format) are in
{RULES_PAGE} of the spar-rl repository. Run spar COMMAND --help for a command's
options."""


def build_parser() -> argparse.ArgumentParser:
    """The ``spar`` parser with every subcommand registered."""
    parser = Parser(
        prog="spar",
        description="Spar and its West African relatives: engine, records and agents.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"spar {__version__}")
    subparsers = parser.add_subparsers(title="commands", metavar="COMMAND", dest="command")
    for module in SUBCOMMANDS:
        module.register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run ``spar`` with ``argv`` (default: the process arguments); return the exit status."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:  # --help, --version and usage errors
        return e.code if isinstance(e.code, int) else 0 if e.code is None else 2
    func = getattr(args, "func", None)
    if func is None:
        parser.print_help()
        return 0
    try:
        with _kill_as_ctrl_c():
            return func(args)
    except KeyboardInterrupt:  # Ctrl-C or a kill, in a command with no stop line of its own
        print(f"spar {args.command}: stopped", file=sys.stderr)
        return 130
    except ValueError as e:  # bad options found past argparse: one line, no traceback
        return _error(args.command, e, 2)
    except ModuleNotFoundError as e:  # an optional dependency: name the extra that brings it
        return _error(args.command, missing_module_message(e), 1)
    except BrokenPipeError:  # e.g. `spar record ... | head`: the reader left; stop quietly
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # so that the exit's flush does not fail again
        return 1
    except OSError as e:  # a file that could not be read or written during the run
        return _error(args.command, f"{e.filename}: {e.strerror}" if e.filename else e, 1)


@contextlib.contextmanager
def _kill_as_ctrl_c() -> Iterator[None]:
    """While a command runs, a kill (SIGTERM) stops it as Ctrl-C does: with the command's
    one stop line (``spar train: stopped; resume ...``) and its clean-up (a run's worker
    processes), not silently. Only in the main thread, where signals are handled."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    before = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, before)


def _error(command: str, message: object, status: int) -> int:
    """Print ``spar COMMAND: error: message`` as one line; return ``status``.

    A message may quote a file we were handed (a league's entrant, a bot's metadata), so
    its control characters are escaped (:func:`spar_env.printable.printable`)."""
    text = printable(" ".join(str(message).split()))
    print(f"spar {command}: error: {text}", file=sys.stderr)
    return status
