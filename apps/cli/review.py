"""``spar review FILE.jsonl``: where a seat's play in a recorded hand differed from the bot's,
and what it cost.

Reads game records (one a line, as spar record, spar play --record and the web
table's download write them; - reads stdin) and reviews one seat's decisions in
each hand, trick by trick: the card played, the bot's probabilities, each
legal card's value from search (its mean payoff over the worlds it believes,
with a standard error), the best card, and a mistake where the card played is
worth clearly less than the best (by more than 0.25 points and 2 standard
errors), with its cost and the reasons the position gives. The record alone is
read: a record made anywhere is reviewed alike. With --scores (the session's
scores when the hand was dealt) it also gives each card's chance to win the
match, were all seats equal players. The same record and --seed give the same
review. Over several records of one game, a session report follows: the mistakes
of every hand by kind, with what each kind cost, and the total. Exit status: 0, 1
for a record that is broken or breaks a rule (one line names the line and why), 2
for bad arguments or a file that cannot be read.

    spar review games.jsonl                       # seat 0 of every hand of the file
    spar review games.jsonl --hand 2 --seat 1 --lang fr
    spar review games.jsonl --scores 7,9,0,2 --json
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from spar_apps.cli.arguments import add_command, positive_int_at_most, seed, whole_numbers
from spar_env.limits import MAX_DEALS, MAX_SCORE, MAX_SESSION_END, MAX_WORLDS

MAX_SEATS = 64  # seats are the bits of a 64-bit set


def register(subparsers: argparse._SubParsersAction) -> None:
    from spar_apps.table.messages import LANGUAGES

    p = add_command(
        subparsers, "review", "review a seat's decisions in recorded hands, by search", __doc__
    )
    p.add_argument("file", help="a .jsonl file of game records, or - for stdin")
    p.add_argument("--seat", type=_seat, default=0, help="the seat whose decisions are reviewed")
    p.add_argument("--hand", type=positive_int_at_most(MAX_DEALS, "records"), metavar="K",
                   help="review only the K-th record of the file (default: every one)")  # fmt: skip
    p.add_argument(
        "--bot",
        metavar="AGENT",
        help="the onnx or ppo bot that models every seat in the search (default: the first "
        "shipped bot that plays the record's game, as spar play seats it)",
    )
    p.add_argument("--worlds", type=positive_int_at_most(MAX_WORLDS, "worlds"), default=64,
                   help="worlds the search values each decision in")  # fmt: skip
    p.add_argument("--seed", type=seed, default=0, help="seed of the search's worlds")
    p.add_argument("--scores", metavar="S0,S1,...",
                   help="every seat's session score when the hand was dealt: adds the match "
                   "chances")  # fmt: skip
    p.add_argument("--played", type=_played, default=0, metavar="H",
                   help="hands played before it, with --scores in a hands:K session")  # fmt: skip
    p.add_argument("--lang", choices=LANGUAGES, help="the language (default: the locale's)")
    p.add_argument("--json", action="store_true", help="print each review as one JSON line")
    p.set_defaults(func=run)


def _seat(text: str) -> int:
    """An argparse type: a seat number, from 0."""
    return _whole_below(text, MAX_SEATS, "a seat")


def _played(text: str) -> int:
    """An argparse type: hands played before the hand, from 0."""
    return _whole_below(text, MAX_SESSION_END + 1, "hands played")


def _whole_below(text: str, limit: int, what: str) -> int:
    try:
        value = int(text)
    except ValueError:
        shown = text if len(text) <= 20 else f"{text[:20]}..."
        raise argparse.ArgumentTypeError(f"{what} is a whole number; got {shown!r}") from None
    if not 0 <= value < limit:
        raise argparse.ArgumentTypeError(f"{what} is a whole number from 0 to {limit - 1}; "
                                         f"got {value if abs(value) < 10**12 else 'more'}")  # fmt: skip
    return value


def run(args: argparse.Namespace) -> int:
    from spar_apps.cli.replay import bounded_lines
    from spar_apps.table.messages import language_of_locale
    from spar_env.limits import LimitError

    language = args.lang or language_of_locale()
    if args.file == "-":
        stream, name = getattr(sys.stdin, "buffer", sys.stdin), "stdin"
    else:
        try:  # only opening may fail as "cannot read"
            stream, name = open(args.file, "rb"), args.file  # noqa: SIM115
        except OSError as e:
            print(f"spar review: error: cannot read {args.file}: {e.strerror}", file=sys.stderr)
            return 2
    try:
        return _review_lines(bounded_lines(stream), name, args, language)
    except LimitError as e:  # a line longer than any record
        print(f"spar review: error: {name}: {e}", file=sys.stderr)
        return 1
    finally:
        if args.file != "-":
            stream.close()


def _review_lines(lines, name: str, args: argparse.Namespace, language: str) -> int:
    """Review the chosen records of ``lines``; the first broken one stops with one line."""
    from rich.console import Console

    from spar_env.records import RecordError

    console = Console(highlight=False)
    searches: dict[Any, Any] = {}
    reviews: list[Any] = []  # every hand reviewed, for the session report
    count = 0
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        count += 1
        if args.hand is not None and count != args.hand:
            continue
        try:
            record = _record(line)
            texts = _review(record, args, language, searches, reviews)
        except RecordError as e:
            print(f"spar review: error: {name} line {number}: {e}", file=sys.stderr)
            return 1
        _show(console, texts, f"{name}:{number}", args.json)
        if args.hand is not None:
            return 0
    if args.hand is not None:
        raise ValueError(f"--hand {args.hand}: {name} holds {count} record(s)")
    if count == 0:
        print(f"spar review: error: {name} holds no record", file=sys.stderr)
        return 1
    if not args.json:
        _show_report(console, reviews, language)
    return 0


def _show_report(console, reviews: list[Any], language: str) -> None:
    """The session report, after two hands or more of one game."""
    from spar_apps.table.review_report import report_texts, session_report
    from spar_apps.terminal.review_screen import report_view

    if len(reviews) < 2 or len({r.rules for r in reviews}) != 1:
        return
    texts = report_texts(session_report(reviews), language)  # type: ignore[arg-type]
    console.print(report_view(texts))


def _record(line: bytes | str) -> object:
    """One line's JSON value (a record is checked by the review itself)."""
    from spar_env.records import RecordError

    try:
        text = line.decode("utf-8") if isinstance(line, bytes) else line
        return json.loads(text.removeprefix("\ufeff"))
    except UnicodeDecodeError as e:
        raise RecordError(f"not UTF-8: byte {e.start + 1}") from None
    except RecursionError:
        raise RecordError("not a record: the JSON is nested too deeply") from None
    except ValueError as e:
        raise RecordError(f"not JSON: {e}") from None


def _review(
    record: object, args: argparse.Namespace, language: str, searches: dict, reviews: list
) -> dict[str, Any]:
    """One record's review as :func:`~spar_apps.table.review_text.review_texts` gives it."""
    from spar_apps.table.review import MatchState, review_hand
    from spar_apps.table.review_text import review_texts
    from spar_env.records import parse_record

    rules = parse_record(record).rules
    if rules not in searches:
        searches[rules] = _search(rules, args)
    search, spec = searches[rules]
    match = None
    if args.scores is not None:
        match = MatchState(_scores(args.scores, rules.players), hands_played=args.played)
    review = review_hand(record, args.seat, search, match)
    reviews.append(review)
    return review_texts(review, language, spec)  # type: ignore[arg-type]


def _search(rules, args: argparse.Namespace):
    """The review's search for a game, and the spec of its bot."""
    from spar_agents import make_agent
    from spar_agents.registry.for_game import first_that_plays
    from spar_agents.registry.spec import AgentSpec
    from spar_agents.shipped import default_bot_specs
    from spar_agents.signature import describe_game, game_key
    from spar_apps.table.review import reviewer

    spec = args.bot or first_that_plays(default_bot_specs(), rules)
    if spec is None:
        raise ValueError(f"no shipped bot plays {describe_game(game_key(rules))}; "
                         "name one: --bot onnx:FILE")  # fmt: skip
    if AgentSpec(spec).name not in ("onnx", "ppo"):
        raise ValueError(f"--bot {spec}: the review needs an onnx or ppo bot (its policy)")
    bot = make_agent(spec, rules)
    return reviewer(rules, bot, spec, seed=args.seed, worlds=args.worlds), spec


def _scores(text: str, players: int) -> tuple[int, ...]:
    scores = tuple(whole_numbers(text, "--scores", MAX_SCORE))
    if len(scores) != players:
        raise ValueError(f"--scores: {players} scores of at least 0, one per seat; got "
                         f"{len(scores)}")  # fmt: skip
    return scores


def _show(console, texts: dict[str, Any], where: str, as_json: bool) -> None:
    """One review: a JSON line, or the terminal's screens one after another."""
    if as_json:
        print(json.dumps({"record": where, **texts}, ensure_ascii=False), flush=True)
        return
    from rich.text import Text

    from spar_apps.terminal.review_screen import review_head, trick_view

    console.print(Text(where, style="dim"), soft_wrap=True)  # a path: never cut
    console.print(review_head(texts))
    for index in range(len(texts["tricks"])):
        console.print(trick_view(texts, index))
    console.print()
