"""Reading one game record: its fields, counts and cards, before any card is played.

A record is one JSON object per hand (docs/rules.md, "Game records")::

    {"variant": "spar", "options": {}, "players": 4, "dealer": 3,
     "hands": [["6H", "KH", "9C", "AD", "7S"], ...],
     "plays": ["6H", ...],
     "result": {"winner": 0, "points": 3, "payoffs": [9, -3, -3, -3]}}

with the optional fields ``exchanges`` (per seat ``null`` or the new hand),
``stock`` (the undealt cards, top first), ``face_down`` (indices into
``plays``) and ``seats`` (who sat where, by seat: ``{"person": "Ama"}``, with
``stood_in``, the indices into ``plays`` a bot played for the person while they were
away, or ``{"bot": "heuristic"}``; a table of friends writes it). :func:`parse_record` checks everything that can be checked
without playing (the variant and options, the field types, the counts, the
card texts, cards dealt twice, a stock that an option needs) and turns the
cards into ids of the record's ruleset. Whether each play is legal is checked
by :mod:`spar_env.records.replayer`, which plays the record through the core.
"""

from __future__ import annotations

import json
import reprlib
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from spar_env.limits import LimitError, check_nesting
from spar_env.rules import Ruleset, make_rules

FIELDS = (
    "variant",
    "options",
    "players",
    "dealer",
    "hands",
    "exchanges",
    "stock",
    "plays",
    "face_down",
    "seats",
    "result",
)
REQUIRED = ("variant", "players", "dealer", "hands", "plays")
MAX_DEPTH = 8  # nesting of lists and objects in options and result; they need 2


class RecordError(ValueError):
    """A record that cannot be replayed: the message names the field or play and the rule."""


@dataclass(frozen=True)
class ParsedRecord:
    """A record whose fields, counts and cards are well formed; cards are ids of ``rules``."""

    rules: Ruleset
    dealer: int
    hands: list[list[int]]  # by seat, as dealt
    stock: list[int] | None  # undealt cards, top first; None when the record leaves it out
    plays: list[int]  # every card in the order played
    exchanges: list[list[int] | None]  # by seat: the new hand, or None (kept / no exchange)
    face_down: list[int] | None  # indices into plays, as the record claims them
    result: dict[str, Any] | None  # the result as the record claims it
    seats: list[dict[str, Any]] | None = None  # who sat where (people and bots), if said


def parse_record(record: object) -> ParsedRecord:
    """Check a record's fields, counts and cards; return it with cards as ids.

    Raises:
        RecordError: naming the field (and seat or index) and what is wrong.
    """
    if not isinstance(record, dict):
        raise RecordError(f"a record must be a JSON object; got {_kind(record)}")
    unknown = [key for key in record if key not in FIELDS]
    if unknown:
        raise RecordError(f"unknown field {_show(unknown[0])}; a record has {', '.join(FIELDS)}")
    missing = [key for key in REQUIRED if key not in record]
    if missing:
        raise RecordError(f"the record has no {missing[0]!r} field")
    rules = _rules(record)
    n, h = rules.players, rules.hand_size
    dealer = _whole(record["dealer"], "dealer")
    if not 0 <= dealer < n:
        raise RecordError(f"dealer must be a seat 0..{n - 1}; got {dealer}")

    cards = _CardReader(rules)
    hands = _list(record["hands"], "hands")
    if len(hands) != n:
        raise RecordError(f"hands has {len(hands)} hands; {n} players need one per seat")
    hands = [
        cards.hand(hand, f"hands[{seat}]", f"the hand of seat {seat}")
        for seat, hand in enumerate(hands)
    ]
    stock = _stock(record, rules, cards)
    exchanges = _exchanges(record, rules, cards)

    plays = _list(record["plays"], "plays")
    if len(plays) != n * h:
        raise RecordError(
            f"plays has {len(plays)} cards; a hand of {n} players x {h} tricks has {n * h}"
        )
    plays = [cards.read(text, "plays", k) for k, text in enumerate(plays)]

    face_down = record.get("face_down")
    if face_down is not None:
        face_down = _list(face_down, "face_down")
        for i, index in enumerate(face_down):
            index = _whole(index, f"face_down[{i}]")
            if not 0 <= index < len(plays):
                raise RecordError(f"face_down[{i}] is {index}, not an index into plays")
    seats = _seats(record.get("seats"), n, len(plays))
    result = record.get("result")
    if result is not None:
        if not isinstance(result, dict):
            raise RecordError(f"result must be a JSON object; got {_kind(result)}")
        _check_depth(result, "result")
    return ParsedRecord(rules, dealer, hands, stock, plays, exchanges, face_down, result, seats)


def _seats(given: object, n: int, plays: int) -> list[dict[str, Any]] | None:
    """The record's ``seats``: by seat ``{"person": name}`` (with ``stood_in``, indices into
    ``plays``) or ``{"bot": spec}``."""
    if given is None:
        return None
    seats = _list(given, "seats")
    if len(seats) != n:
        raise RecordError(f"seats has {len(seats)} entries; {n} players need one per seat")
    for seat, entry in enumerate(seats):
        where = f"seats[{seat}]"
        if not isinstance(entry, dict) or set(entry) not in (
            {"person"},
            {"person", "stood_in"},
            {"bot"},
        ):
            raise RecordError(f'{where} must be {{"person": name}} or {{"bot": spec}}; '
                              f"got {_show(entry)}")  # fmt: skip
        name = entry.get("person", entry.get("bot"))
        if not isinstance(name, str) or len(name) > 100:
            raise RecordError(f"{where}: a name or spec is text of at most 100 characters; "
                              f"got {_show(name)}")  # fmt: skip
        for i, index in enumerate(_list(entry.get("stood_in", []), f"{where}.stood_in")):
            if not 0 <= _whole(index, f"{where}.stood_in[{i}]") < plays:
                raise RecordError(f"{where}.stood_in[{i}] is {index}, not an index into plays")
    return seats


def _rules(record: dict[str, Any]) -> Ruleset:
    variant = record["variant"]
    if not isinstance(variant, str):
        raise RecordError(f"variant must be a preset name; got {_show(variant)}")
    options = record.get("options", {})
    if not isinstance(options, dict):
        raise RecordError(f"options must be a JSON object; got {_kind(options)}")
    _check_depth(options, "options")
    for field in ("players", "num_players", "variant"):
        if field in options:
            raise RecordError(f"options may not set {field}: the record's {field} field does")
    players = _whole(record["players"], "players")
    return _rules_for(variant, players, json.dumps(options, sort_keys=True))


@lru_cache(maxsize=256)
def _rules_for(variant: str, players: int, options_json: str) -> Ruleset:
    """The ruleset of a record (cached: a file of records usually shares one)."""
    try:
        return make_rules(variant, players=players, **json.loads(options_json))
    except (ValueError, TypeError) as e:
        raise RecordError(f"ruleset: {e}") from None


def _stock(record: dict[str, Any], rules: Ruleset, cards: _CardReader) -> list[int] | None:
    if record.get("stock") is None:
        for option in ("weak_hand_exchange", "reveal_stock_bottom"):
            if getattr(rules, option):
                raise RecordError(
                    f"stock is missing: with {option} the record must give the undealt cards, "
                    "top first"
                )
        return None
    stock = _list(record["stock"], "stock")
    if len(stock) != rules.stock_size:
        raise RecordError(
            f"stock has {len(stock)} cards; {rules.players} hands of {rules.hand_size} from "
            f"{rules.deck_size} cards leave {rules.stock_size}"
        )
    return [cards.read(text, "stock", k, "the stock") for k, text in enumerate(stock)]


def _exchanges(
    record: dict[str, Any], rules: Ruleset, cards: _CardReader
) -> list[list[int] | None]:
    n = rules.players
    given = record.get("exchanges")
    if given is None:
        if rules.weak_hand_exchange:
            raise RecordError(
                "exchanges is missing: with weak_hand_exchange the record must give, per seat, "
                "null or the new hand"
            )
        return [None] * n
    given = _list(given, "exchanges")
    if len(given) != n:
        raise RecordError(f"exchanges has {len(given)} entries; {n} players need one per seat")
    out: list[list[int] | None] = []
    for seat, hand in enumerate(given):
        if hand is None:
            out.append(None)
            continue
        if not rules.weak_hand_exchange:
            raise RecordError(
                f"exchanges[{seat}] gives a new hand, but this ruleset has no weak_hand_exchange"
            )
        out.append(_CardReader(rules).hand(hand, f"exchanges[{seat}]", f"seat {seat}'s new hand"))
    return out


def _whole(value: object, where: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise RecordError(f"{where} must be a whole number; got {_show(value)}")
    return value


def _list(value: object, where: str) -> list[Any]:
    if not isinstance(value, list):
        raise RecordError(f"{where} must be a list; got {_show(value)}")
    return value


def _check_depth(value: dict[str, Any], where: str) -> None:
    """Refuse an object nested deeper than MAX_DEPTH, before anything recurses into it.

    Other fields need no such check: every value in them is read by a type
    check whose message shows it with :func:`_show`, which stops at a few levels.
    """
    try:
        check_nesting(value, MAX_DEPTH, where)
    except LimitError as e:
        raise RecordError(str(e)) from None


def _kind(value: object) -> str:
    """The JSON name of a value's type, as the record's author wrote it."""
    if value is None or isinstance(value, bool):
        return json.dumps(value)
    names = {str: "a string", int: "a number", float: "a number", list: "a list", dict: "an object"}
    return names.get(type(value), type(value).__name__)


_SHORT = reprlib.Repr()
_SHORT.maxstring = _SHORT.maxother = 40


def _show(value: object) -> str:
    """A value for a message: its repr, cut short when long."""
    return _SHORT.repr(value)


class _CardReader:
    """Reads card texts of one ruleset and refuses a card that was already read."""

    def __init__(self, rules: Ruleset) -> None:
        self.rules = rules
        self.ids = _card_ids(rules)
        self.seen: dict[int, str] = {}  # card id -> where it was read

    def read(self, text: object, field: str, index: int, owner: str | None = None) -> int:
        """The id of ``field[index]``; with ``owner``, the card must not have been read before."""
        if not isinstance(text, str):
            raise RecordError(f"{field}[{index}] must be a card such as '6H'; got {_show(text)}")
        cid = self.ids.get(text)
        if cid is None:
            try:
                cid = self.rules.card_id(text)
            except ValueError as e:
                raise RecordError(f"{field}[{index}]: {e}") from None
        if owner is not None:
            if cid in self.seen:
                name, before = self.rules.card_name(cid), self.seen[cid]
                raise RecordError(
                    f"{field}[{index}]: duplicated card: {name} is in {before} and in {owner}"
                    if before != owner
                    else f"{field}[{index}]: duplicated card: {name} is twice in {owner}"
                )
            self.seen[cid] = owner
        return cid

    def hand(self, hand: object, field: str, owner: str) -> list[int]:
        """The ids of one hand of exactly ``hand_size`` distinct cards."""
        hand = _list(hand, field)
        size = self.rules.hand_size
        if len(hand) != size:
            raise RecordError(
                f"{field} has {len(hand)} cards; {self.rules.variant} deals {size} to each seat"
            )
        return [self.read(text, field, k, owner) for k, text in enumerate(hand)]


@lru_cache(maxsize=64)
def _card_ids(rules: Ruleset) -> dict[str, int]:
    """Card text as written in records (``'10H'``) -> id; other spellings go through card_id."""
    return {rules.card_name(cid): cid for cid in rules.deck}
