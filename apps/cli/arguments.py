"""What every subcommand's parser shares: one-line errors, plain help, argument types.

Usage errors print one line (``spar record: error: argument --seed: ...``)
instead of argparse's usage block, so that every bad argument reads the same
whether argparse or a command finds it. Help descriptions come from module
docstrings, written for Sphinx; :func:`plain_text` strips their markup.
"""

from __future__ import annotations

import argparse
import math
import re
from collections.abc import Callable
from pathlib import Path
from typing import NoReturn

from spar_env.limits import MAX_MINUTES, MAX_SECONDS, MAX_SEED


class Parser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose usage errors are one line on stderr, exit status 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Keeps the description's line breaks and shows each option's default, when it has one."""

    def _get_help_string(self, action: argparse.Action) -> str:
        help = action.help or ""
        default = action.default
        if "default" in help or not _worth_showing(default):
            return help
        shown = " ".join(map(str, default)) if isinstance(default, list) else default
        return f"{help} (default: {shown})"


def _worth_showing(default: object) -> bool:
    """No default, an unset flag or an empty list say nothing (``0`` does)."""
    return not (
        default is None or default is False or default is argparse.SUPPRESS or default == []
    )


def add_command(
    subparsers: argparse._SubParsersAction,
    name: str,
    help: str,
    doc: str,
    *,
    epilog: str | None = None,
) -> argparse.ArgumentParser:
    """A subcommand's parser, described by its module docstring after the first paragraph."""
    return subparsers.add_parser(
        name,
        help=help,
        description=plain_text(doc.partition("\n\n")[2]).strip("\n").rstrip(),
        epilog=epilog,
        formatter_class=HelpFormatter,
    )


_ROLE = re.compile(r":[a-z]+:`~?([^`<]*?)(?:\s*<[^>]*>)?`")  # :func:`~a.b`, :mod:`text <a>`


def plain_text(doc: str) -> str:
    """A docstring as plain text: Sphinx roles, double backquotes and ``::`` removed."""
    text = _ROLE.sub(_role_text, doc).replace("``", "")
    return text.replace("::\n", ":\n")


def _role_text(match: re.Match[str]) -> str:
    """What a role shows: its text, or the last name of a ``~`` target."""
    target = match.group(1)
    return target.rsplit(".", 1)[-1] if match.group(0).count("~") else target


def nonempty_path(text: str) -> Path:
    """An argparse type: a file or folder, never the empty text (which ``Path`` reads as the
    current folder, so ``spar league add "$LEAGUE" ...`` with the variable unset would
    start a league there)."""
    if not text:
        raise argparse.ArgumentTypeError("must not be empty (. is the current folder)")
    return Path(text)


def positive_int(text: str) -> int:
    """An argparse type: a whole number of at least 1."""
    value = _whole(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1; got {value}")
    return value


def positive_int_at_most(limit: int, what: str) -> Callable[[str], int]:
    """An argparse type: a whole number from 1 to ``limit`` (one of :mod:`spar_env.limits`)."""

    def parse(text: str) -> int:
        digits = text.strip().lstrip("+").lstrip("0")
        if digits.isdecimal() and len(digits) > len(str(limit)):  # before int() meets 4,300
            raise argparse.ArgumentTypeError(
                f"at most {limit:,} {what} (a limit of spar-rl); got a {len(digits):,}-digit number"
            )
        value = positive_int(text)
        if value > limit:
            raise argparse.ArgumentTypeError(
                f"at most {limit:,} {what} (a limit of spar-rl); got {value:,}"
            )
        return value

    return parse


def seed(text: str) -> int:
    """An argparse type: a whole number from 0 (NumPy refuses negative seeds) to
    ``MAX_SEED`` (torch's generator takes 64 bits)."""
    value = _whole(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be a whole number of at least 0; got {value}")
    if value > MAX_SEED:
        raise argparse.ArgumentTypeError(
            f"at most {MAX_SEED:,} (a limit of spar-rl); got {_shown(text)}"
        )
    return value


def seed_at_most(most: int) -> Callable[[str], int]:
    """An argparse type: a seed from 0 to ``most``, for a seed that only deals (no torch
    generator reads it, so it may be wider than :func:`seed`'s 64 bits)."""

    def parse(text: str) -> int:
        value = _whole(text)
        if not 0 <= value <= most:
            raise argparse.ArgumentTypeError(
                f"must be a whole number from 0 to {most:,}; got {_shown(text)}"
            )
        return value

    return parse


def positive_duration(unit: str, most: float) -> Callable[[str], float]:
    """An argparse type: a finite number of ``unit`` (seconds, minutes) above 0 (``nan`` and
    ``inf`` would never end) and at most ``most`` (one of :mod:`spar_env.limits`); its
    messages name the unit."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be a number of {unit}; got {text!r}") from None
        if not (math.isfinite(value) and value > 0):
            raise argparse.ArgumentTypeError(
                f"must be a finite number of {unit} above 0; got {text}"
            )
        if value > most:
            raise argparse.ArgumentTypeError(
                f"at most {most:,} {unit} (a limit of spar-rl); got {value:g}"
            )
        return value

    return parse


positive_seconds = positive_duration("seconds", MAX_SECONDS)
positive_minutes = positive_duration("minutes", MAX_MINUTES)


def add_ray_option(parser: argparse.ArgumentParser, what: str) -> None:
    """``--ray [ADDRESS]``: do ``what`` on Ray; ``args.ray`` is None without the option,
    ``""`` for a local Ray, else the address."""
    parser.add_argument(
        "--ray",
        nargs="?",
        const="",
        type=ray_address,
        metavar="ADDRESS",
        help=f"{what} on Ray: join the cluster at ADDRESS (auto, HOST:PORT or ray://HOST:PORT), "
        'or start a local Ray when none is given (needs pip install -e ".[ray]")',
    )
    parser.add_argument(
        "--ray-timeout",
        type=positive_seconds,
        metavar="SECONDS",
        help="give up on a cluster at ADDRESS that does not answer after this long "
        "(default: 30; spar train: ray.timeout)",
    )


def add_trust_code_option(
    parser: argparse.ArgumentParser, where: str, cluster: bool = False
) -> None:
    """``--trust-code``: build the ``py:`` agents that ``where`` names, and (``cluster``) join
    the Ray cluster it names (a file handed to us is never trusted to run code or dial out
    otherwise: :mod:`spar_agents.registry.trust`)."""
    joins = ", and join the Ray cluster it names (ray.address)" if cluster else ""
    parser.add_argument(
        "--trust-code",
        action="store_true",
        help=f"build the py: agents {where} names, which import and run Python code{joins} "
        "(without it they are refused: a file you were sent never runs code)",
    )


def ray_address(text: str) -> str:
    """An argparse type: an address Ray can join."""
    from spar_train.distributed import check_address

    try:
        return check_address(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(
            f"{e} (an option after --ray is taken as its address)"
        ) from None


def whole_numbers(text: str, what: str, most: int) -> list[int]:
    """``text``, whole numbers from 0 to ``most`` separated by commas (``7,9,0,2``), as a
    list; else a ``ValueError`` that names ``what`` (a number past ``most``, even one too long
    for ``int()``, included).
    """
    values = []
    for part in text.split(","):
        digits = part.strip().lstrip("+").lstrip("0")
        too_long = digits.isdecimal() and len(digits) > len(str(most))  # before int() refuses
        try:
            value = most + 1 if too_long else int(part)
        except ValueError:
            raise ValueError(f"{what}: whole numbers separated by commas; got "
                             f"{_shown(text)!r}") from None  # fmt: skip
        if not 0 <= value <= most:
            raise ValueError(f"{what}: whole numbers from 0 to {most:,}; got {_shown(part)}")
        values.append(value)
    return values


def _whole(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        shown = _shown(text)
        if text.strip().lstrip("+-").isdecimal():  # past Python's 4,300 digits
            raise argparse.ArgumentTypeError(f"{shown} is far too large") from None
        raise argparse.ArgumentTypeError(f"must be a whole number; got {shown!r}") from None


def _shown(text: str) -> str:
    """``text`` as a message shows it: whole when short, else its start and its length."""
    return text if len(text) <= 40 else f"{text[:20]}... ({len(text)} characters)"
