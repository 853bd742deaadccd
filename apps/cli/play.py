"""``spar play``: you against bots at one table, in the terminal.

You sit in one seat (--seat, 0 by default); every other seat is played by an
agent spec (--opponents: one spec for every other seat, or one per other
seat in seat order; by default the first shipped bot that plays the game, in
the order onnx:exit2, onnx:exit4, onnx:spar2, onnx:match, onnx:universal, onnx:spar4, so
onnx:exit2 in 2-player spar, onnx:exit4 in 4-player spar and onnx:universal in the other
games it covers; heuristic in any other game). Without --variant and
--players, the game is the one the first ppo:, onnx: or cfr: opponent was
made for, and a line says so. Before
each of your moves the table shows your hand with the legal cards numbered,
the trick in progress and who leads it, the cards each seat has played
(another seat's face-down cards as backs), the trick number, the scores and
what just happened.

Type a card (6h, 10S, ts, 6♥) or its number; in the weak-hand exchange, k to
keep or e to exchange (a hand with a 10 or better may only keep). A card you
may not play, the score of a hand and a card played face down each say why;
r shows the variant's rules (as spar rules does). At the end of a hand, v
reviews it trick by trick (as spar review does). q, Ctrl-C
or the end of input leave the table and show the final scores; the session
also ends by its own rule (--end, --target, or --set end=...). Your last card
of a hand leaves no choice: it is played for you, and the table says so.

The table speaks English or French: --lang fr, or your locale (LANG=fr_FR.UTF-8);
in French the cards are written R, D, V for K, Q, J and typed with the French
letters (P pique, C cœur, K carreau, T trèfle: 10c is 10 de cœur) or the suit
symbols; a word that could be two cards (qc) is refused, never guessed.
--pace shows each trick just won for some seconds (--pace 1.5) or until Enter
(--pace tap); by default the table goes straight on, and "what happened" tells it.

    spar play                                     # 4-player spar against the shipped bot
    spar play --opponents heuristic --players 3 --target 20 --hint
    spar play --variant sipa --opponents random --set end=hands:2 --record games.jsonl
    spar play --lang fr --pace tap                # in French, each trick until Enter
    spar play --duplicate 42                      # the duplicate challenge of seed 42

A fresh seed carries 128 bits of entropy, as a table's deals do: the cards a seat sees never
narrow it down to one deal. --seed fixes the deals on purpose (the seed shown deals the same
hands again).

With --duplicate SEED, every hand is a board dealt from the seed (deck and dealer, as
spar bench deals them), and the bot in your seat (the opponents' bot, the first one's
when they differ) plays each hand again from the score you had, against the same bots:
after each hand you see both results ("you +3, the bot in your seat +5") and the total.
Two people who play one seed meet the same cards. --duplicate alone takes --seed, or a
fresh seed (shown).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import secrets
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from spar_apps.cli.arguments import add_command, nonempty_path, positive_int_at_most, seed_at_most
from spar_apps.cli.game_choice import rules_from_lineup
from spar_apps.cli.output import check_output_path
from spar_apps.cli.overrides import add_rules_arguments, check_agrees, ruleset_overrides
from spar_env.explain.phrase import Phrase
from spar_env.limits import MAX_SEED, MAX_SESSION_END
from spar_env.rules import Ruleset

if TYPE_CHECKING:  # the agents load on use: `spar --help` imports no agent
    from spar_agents.registry.spec import AgentSpec

Build = Callable[..., Any]  # build(spec, rules=the game's): an agent, each spec built once
FALLBACK = "heuristic"  # the opponents when the shipped bot was not made for the game asked for
PROBABILITY_AGENTS = ("onnx", "ppo")  # agents whose policy can be shown as a hint


def register(subparsers: argparse._SubParsersAction) -> None:
    from spar_agents.shipped import default_bot_specs  # a file listing: no agent is built

    p = add_command(subparsers, "play", "play against bots in the terminal", __doc__)
    add_rules_arguments(p)
    p.add_argument(
        "--opponents",
        nargs="+",
        metavar="AGENT",
        help="agent specs: one for every other seat, or one per other seat in seat order "
        f"(default: the first shipped bot of {', '.join(default_bot_specs())} that plays "
        f"the game, else {FALLBACK})",
    )
    p.add_argument("--seat", type=int, default=0, help="your seat, from 0")
    p.add_argument("--end", metavar="END", help="when the session ends: open, one_hand, hands:K, "
                   "target:T, stones:K (default: the variant's)")  # fmt: skip
    p.add_argument(
        "--target",
        type=positive_int_at_most(MAX_SESSION_END, "points"),
        metavar="T",
        help="play to T points (end=target:T)",
    )
    p.add_argument("--c-notation", action=argparse.BooleanOptionalAction,
                   help="write scores in c-notation (default: the variant's)")  # fmt: skip
    p.add_argument("--direction", choices=("clockwise", "counterclockwise"),
                   help="direction of play (default: the variant's)")  # fmt: skip
    p.add_argument(
        "--hint",
        nargs="?",
        const="",
        metavar="AGENT",
        help="show a bot's probabilities for your move: an onnx or ppo spec, by default the "
        "first such opponent or the shipped bot",
    )
    p.add_argument(
        "--record",
        type=nonempty_path,
        metavar="FILE",
        help="append every finished hand to FILE as a game record (spar replay reads it)",
    )
    p.add_argument("--seed", type=seed_at_most(MAX_DEAL_SEED),
                   help="seed of the deals (default: a fresh one of 128 bits, shown)")  # fmt: skip
    p.add_argument(
        "--lang",
        metavar="LANG",
        help="the table's language: en or fr (default: the locale's, else en)",
    )
    p.add_argument(
        "--pace",
        default="none",
        metavar="PACE",
        help="how long a trick just won stays shown: seconds (0-10), tap (until Enter) or "
        "none (default)",
    )
    p.add_argument(
        "--report",
        action="store_true",
        help="after the session, your mistakes by kind across its hands, and their cost "
        "(every hand reviewed by search)",
    )
    p.add_argument(
        "--duplicate",
        nargs="?",
        const=FRESH,
        type=_duplicate_seed,
        metavar="SEED",
        help="the duplicate challenge: the hands of SEED (default: --seed, else a fresh one), "
        "each played again by the bot in your seat, both results shown",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from rich.console import Console

    from spar_agents.registry.spec import parse_lineup
    from spar_apps.table.duplicate import DuplicateTable
    from spar_apps.table.messages import language, language_of_locale, say
    from spar_apps.table.rules_text import typing_examples
    from spar_apps.terminal import HumanTable, play_session
    from spar_apps.terminal.loop import Pace

    lang = language_of_locale() if args.lang is None else _lang(args.lang, language)
    pace = Pace.parse(args.pace)
    given = None if args.opponents is None else parse_lineup(args.opponents)
    rules, game_note = rules_from_lineup(_with_shortcuts(args), given or [])
    if not 0 <= args.seat < rules.players:
        raise ValueError(f"--seat must be a seat 0..{rules.players - 1}; got {args.seat}")
    if args.record is not None:
        check_output_path(args.record, "--record")
    deal_seed = _deal_seed(args)  # before any agent loads
    console = Console(highlight=False)
    # the bots and the engine's first deal take seconds (the first run after an install
    # compiles the engine: about 8 s of 11 on one core, measured): say so before the wait
    console.print(say("play.loading", lang), style="dim")
    build = _builder(rules)
    specs, note = _opponent_specs(given, rules, args.seat, build)
    bots = {seat: build(spec) for seat, spec in specs.items()}
    hint = None if args.hint is None else _hint(args.hint, specs, rules, build)
    examples = ", ".join(typing_examples(rules, lang))
    if args.duplicate is None:
        table = HumanTable(
            rules,
            args.seat,
            bots,
            np.random.default_rng([deal_seed, 0]),
            np.random.default_rng([deal_seed, 1]),
        )
        intro = say("play.intro", lang, seat=args.seat, lineup=_lineup(specs, lang),
                    seed=deal_seed, examples=examples)  # fmt: skip
    else:
        seat_spec = specs[min(specs)]  # the bot in your seat: the opponents' (the first one's)
        table = DuplicateTable(
            rules, args.seat, bots, build(seat_spec), deal_seed, seat_bot_name=str(seat_spec)
        )
        intro = say("duplicate.intro", lang, seat=args.seat, lineup=_lineup(specs, lang),
                    seed=deal_seed, bot=seat_spec, examples=examples)  # fmt: skip
    if note is not None:
        note = table.voice(lang).text(note)
    for line in (game_note, note):
        if line:
            console.print(line, style="yellow", soft_wrap=True)  # one line: the terminal wraps it
    console.print(intro)
    out = None if args.record is None else args.record.open("a", encoding="utf-8")
    searcher = _searcher(specs, rules, build)
    try:
        play_session(
            table,
            _Terminal(console),
            hint=hint,
            on_record=None if out is None else lambda record: _write(out, record, args.record),
            review=_review(searcher),
            report=_report(searcher) if args.report else None,
            language=lang,
            pace=pace,
        )
    finally:
        if out is not None:
            with contextlib.suppress(OSError):  # each record was flushed; a failed one said so
                out.close()
    if args.record is not None:
        console.print(say("play.records", lang, path=args.record))
    return 0


class _Terminal:
    """The loop's terminal: a rich console for output, its input() for lines."""

    def __init__(self, console: Any) -> None:
        self.console = console

    def show(self, renderable: Any) -> None:
        self.console.print(renderable)
        self.console.print()

    def ask(self, prompt: str) -> str:
        return self.console.input(f"[bold]{prompt}[/bold]")


def _with_shortcuts(args: argparse.Namespace) -> argparse.Namespace:
    """``--end``, ``--target``, ``--c-notation`` and ``--direction`` as ``--set`` overrides
    (a ``--set`` of the same field that says otherwise is refused, not silently overruled)."""
    if args.end is not None and args.target is not None:
        raise ValueError(f"give --end or --target, not both (--target {args.target} is "
                         f"--end target:{args.target})")  # fmt: skip
    shortcuts: list[tuple[str, object, str]] = []  # field, value, the option that gave it
    if args.end is not None:
        shortcuts.append(("end", args.end, f"--end {args.end}"))
    if args.target is not None:
        shortcuts.append(("end", f"target:{args.target}", f"--target {args.target}"))
    if args.c_notation is not None:
        no = "" if args.c_notation else "no-"
        shortcuts.append(("c_notation", args.c_notation, f"--{no}c-notation"))
    if args.direction is not None:
        shortcuts.append(("direction", args.direction, f"--direction {args.direction}"))
    given = ruleset_overrides(args.overrides)
    for key, value, option in shortcuts:
        check_agrees(given, key, value, option)
    extra = [f"{key}={str(v).lower() if isinstance(v, bool) else v}" for key, v, _ in shortcuts]
    return argparse.Namespace(**{**vars(args), "overrides": [*args.overrides, *extra]})


def _default_spec(rules: Ruleset, build: Build | None = None) -> tuple[str, Phrase | None]:
    """The first shipped bot that plays ``rules`` (:func:`spar_agents.shipped.default_bots`),
    else :data:`FALLBACK` and a note saying why; ``build`` keeps the agents it tries."""
    from spar_agents.registry.for_game import first_that_plays
    from spar_agents.shipped import default_bot_specs
    from spar_apps.table.texts import fallback_note

    spec = first_that_plays(default_bot_specs(), rules, build)
    if spec is not None:
        return spec, None
    return FALLBACK, fallback_note(rules, FALLBACK)


def _opponent_specs(
    given: list[AgentSpec] | None, rules: Ruleset, seat: int, build: Build
) -> tuple[dict[int, AgentSpec], str | None]:
    """The spec of every other seat, by seat, and a note if the default had to change."""
    from spar_agents.registry.spec import AgentSpec

    others = [s for s in range(rules.players) if s != seat]
    note = None
    if given is None:
        spec, note = _default_spec(rules, build)
        given = [AgentSpec(spec)]
    if len(given) not in (1, len(others)):
        raise ValueError(
            f"--opponents takes one spec for every other seat or {len(others)} specs "
            f"(one per other seat); got {len(given)}"
        )
    specs = given * len(others) if len(given) == 1 else given
    return dict(zip(others, specs, strict=True)), note


def _lang(name: str, language: Callable[[str], Any]) -> Any:
    """``--lang``'s language, or a one-line error naming the languages there are."""
    try:
        return language(name)
    except ValueError as e:
        raise ValueError(f"--lang: {e}") from None


def _lineup(specs: dict[int, AgentSpec], lang: Any = "en") -> str:
    """``seats 1, 2, 3: the shipped bot (onnx:universal)``: the seats of each spec."""
    from spar_apps.table.messages import say
    from spar_apps.table.texts import joined

    by_spec: dict[str, list[int]] = {}
    for seat, spec in specs.items():
        by_spec.setdefault(str(spec), []).append(seat)
    from spar_agents.shipped import default_bots

    shipped = [f"onnx:{name}" for name in default_bots()]
    parts = []
    for spec, seats in by_spec.items():
        label = say("opponent.shipped_spec", lang, spec=spec) if spec in shipped else spec
        numbers = ", ".join(map(str, seats))
        parts.append(say("play.seats", lang, n=len(seats), seats=numbers, label=label))
    return joined(parts, lang)


def _builder(rules: Ruleset) -> Build:
    """The registry's ``make_agent`` for ``rules``, each spec built once: the seats that name
    one spec share its agent, the shipped bot tried for the game is the one seated, and a
    hint by an opponent's spec asks that opponent."""
    from spar_agents import make_agent

    built: dict[tuple[str, Ruleset], Any] = {}

    def build(spec: str | AgentSpec, game: Ruleset = rules) -> Any:
        key = (str(spec), game)
        if key not in built:
            built[key] = make_agent(spec, game)
        return built[key]

    return build


def _hint(
    spec: str,
    opponents: Mapping[int, str | AgentSpec],
    rules: Ruleset,
    build: Build | None = None,
):
    """The hint function: a bot's probabilities for the person's move (its agent from
    ``build``, which may have built it already as an opponent)."""
    agent, _ = _hint_bot(spec, opponents, rules, build)
    rng = np.random.default_rng(0)

    def hint(table) -> np.ndarray:
        return agent.act(table.situation(), rng).probs[0]

    return hint


def _hint_bot(
    spec: str,
    opponents: Mapping[int, str | AgentSpec],
    rules: Ruleset,
    build: Build | None = None,
) -> tuple[Any, str]:
    """The bot whose probabilities a hint (and a review) shows, and its spec: ``spec``, or
    the first onnx or ppo opponent, else the shipped bot that plays this game."""
    from spar_agents.registry.spec import AgentSpec

    build = build or _builder(rules)
    if not spec:
        hinted = next(
            (s for s in map(AgentSpec.of, opponents.values()) if s.name in PROBABILITY_AGENTS),
            AgentSpec(_default_spec(rules, build)[0]),  # the shipped bot that plays this game
        )
        if hinted.name not in PROBABILITY_AGENTS:
            raise ValueError("--hint: no shipped bot plays this game; name one: --hint onnx:FILE")
    else:
        hinted = AgentSpec(spec)
        if hinted.name not in PROBABILITY_AGENTS:
            raise ValueError(f"--hint {spec}: a hint needs an onnx or ppo bot (its policy)")
    return build(hinted), str(hinted)


def _searcher(opponents: Mapping[int, str | AgentSpec], rules: Ruleset, build: Build):
    """The review's search, ``search`` with the hint's bot as the model of every seat, and
    that bot's spec, built on first use (``language``: of its refusal); None for a ruleset
    search does not take (the weak-hand exchange)."""
    from spar_agents.search import check_rules
    from spar_apps.table.messages import say
    from spar_apps.table.review import reviewer

    try:
        check_rules(rules)
    except ValueError:
        return None
    built: list[tuple[Any, str]] = []

    def search(language):
        if not built:
            try:
                bot, spec = _hint_bot("", opponents, rules, build)
            except ValueError:
                raise ValueError(say("review.unavailable", language)) from None
            built.append((reviewer(rules, bot, spec), spec))
        return built[0]

    return search


def _review(searcher):
    """The review of the hand just played (the ``v`` key); None without a search."""
    from spar_apps.table.messages import say
    from spar_apps.table.review import review_table_hand
    from spar_apps.table.review_text import review_texts

    if searcher is None:
        return None

    def review(table, language):
        search, spec = searcher(language)
        try:
            reviewed = review_table_hand(table, search)
        except ValueError:  # a tie-break hand, which has no record
            raise ValueError(say("review.tie_break", language)) from None
        return review_texts(reviewed, language, spec)

    return review


def _report(searcher):
    """The session report of the hands played (``--report``); None without a search."""
    from spar_apps.table.review import review_hand
    from spar_apps.table.review_report import report_texts, session_report

    if searcher is None:
        return None

    def report(table, records, language):
        search, _ = searcher(language)
        reviews = [review_hand(record, table.seat, search) for record in records]
        return report_texts(session_report(reviews), language)

    return report


FRESH = -1  # --duplicate without a seed: --seed's, else a fresh one
SEED_BITS = 128  # a fresh seed's entropy (SeedSequence's): no one recomputes it from the cards
MAX_DEAL_SEED = (1 << SEED_BITS) - 1


def _duplicate_seed(text: str) -> int:
    """An argparse type: ``--duplicate``'s seed (:func:`spar_apps.table.duplicate.read_seed`)."""
    from spar_apps.table.duplicate import SeedError, read_seed

    try:
        return read_seed(text)
    except SeedError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _deal_seed(args: argparse.Namespace) -> int:
    """The seed of the deals: ``--duplicate SEED``'s or ``--seed``'s (which must agree when
    both are given), else a fresh one."""
    given = {s for s in (args.seed, args.duplicate) if s is not None and s != FRESH}
    if len(given) > 1:
        raise ValueError(f"--seed {args.seed} and --duplicate {args.duplicate} name two seeds; "
                         "give one (--duplicate SEED alone is enough)")  # fmt: skip
    if args.duplicate is None:
        return given.pop() if given else secrets.randbits(SEED_BITS)
    # A duplicate challenge's seed is one to share, and deals as spar bench does (64 bits).
    chosen = given.pop() if given else secrets.randbelow(MAX_SEED + 1)
    if chosen > MAX_SEED:
        raise ValueError(f"--seed: a duplicate challenge's seed is at most {MAX_SEED:,}; "
                         f"got {chosen:,}")  # fmt: skip
    return chosen


def _write(out, record: dict[str, Any], path: Path) -> None:
    """Append a hand's record to ``path`` (open as ``out``); a write that fails (a full disk)
    is an ``OSError`` naming the file, which ends the session in one line."""
    try:
        out.write(json.dumps(record) + "\n")
        out.flush()
    except OSError as e:
        raise OSError(e.errno, f"cannot write the record of the hand just played ({e.strerror});"
                      " the records of the hands before it are there", str(path)) from None  # fmt: skip
