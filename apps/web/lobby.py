"""What a new game may be: the variants, player counts, options and opponents the server offers.

A :class:`Lobby` turns the page's new-game form (a JSON object) into a
ruleset and a bot per seat, or a :class:`FormError` saying which field is
wrong. Opponents come only from the server's list (:attr:`Lobby.opponents`:
the shipped bot, ``heuristic``, ``search`` (the strongest bot), ``pimc`` and
the specs the server was started with), named by id, so a request can never
make the server open a file. The searching bots think at most ``think``
seconds a move: an opponent searches when its agent takes a ``time_limit``
(``search`` and ``pimc``, also as specs the server was started with, such as
``pimc:worlds=3000``, whose limit is capped at ``think``), and its games move
on workers of their own. Agents are built once per (opponent, ruleset), on
whichever worker thread asks first, and shared by the games that use them: an
agent keeps no state between decisions.

A game's ruleset is the form's fields over the server-wide ones
(``--set``); :attr:`Setup.overrides` keeps the server-wide ones it was made
with, so that a game taken up by a server started with other ones keeps its
rules (:meth:`Lobby.setup`).

======================  ===============================================
form field              values
======================  ===============================================
``variant``             a preset name (default ``spar``)
``players``             a player count the preset allows (default: its own)
``opponents``           an id from ``opponents`` (default: the first)
``ace_of_spades``       true / false (default: the preset's)
``last_two``            ``off``, ``sum`` or ``bonus`` (default: the preset's)
``end``                 ``default``, ``target:5``, ``target:10``, ``target:15``
``duplicate``           the duplicate challenge (:mod:`spar_apps.table.duplicate`):
                        a seed (a whole number, or its digits as typed), or
                        true for one drawn by the server; off when absent,
                        null or false
======================  ===============================================

In a duplicate game the bot in the person's seat is the opponents' bot.
"""

from __future__ import annotations

import dataclasses
import math
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from spar_agents.shipped import search_policy_specs
from spar_apps.table.duplicate import SeedError, read_seed
from spar_apps.table.messages import DEFAULT_LANGUAGE, LANGUAGES, Language, say
from spar_apps.table.rules_text import tagline, variant_name
from spar_apps.table.voice import say_phrase
from spar_env.explain.phrase import Phrase, phrase
from spar_env.rules import PRESETS, Ruleset, make_rules
from spar_env.rules.ruleset import LAST_TWO

ENDS = ("default", "target:5", "target:10", "target:15")
FIELDS = ("variant", "players", "opponents", "ace_of_spades", "last_two", "end", "duplicate")
FALLBACK = "heuristic"  # seated when no shipped bot was trained for the game asked for
PROBABILITY_AGENTS = ("onnx", "ppo")  # agents whose policy can be shown as a hint
PLAYER_COUNTS = range(2, 9)
THINK_SECONDS = 2.0  # the most a searching opponent thinks about one move (serve --think)
TIME_LIMIT = "time_limit"  # the parameter of an agent that searches within a time per move


class FormError(ValueError):
    """A new-game form the server will not play; the message names the field. ``said``, when
    given, says it in a table's language (the app answers in the request's)."""

    def __init__(self, message: str, said: Callable[[Language], str] | None = None) -> None:
        super().__init__(message)
        self._said = said

    def say(self, language: Language) -> str:
        return str(self) if self._said is None else self._said(language)


@dataclass(frozen=True)
class Opponent:
    id: str  # what the form sends
    label: Phrase  # what the page shows, in its language
    choices: tuple[str, ...]  # agent specs, the first that plays a game is seated (never sent)
    searching: bool = False  # it searches (seconds a move): its games get workers apart

    @property
    def spec(self) -> str:
        """The preferred agent spec."""
        return self.choices[0]


@dataclass
class Setup:
    """A checked form: the ruleset, the bot of every other seat, and the hint bot (if any)."""

    rules: Ruleset
    bots: dict[int, Any]
    hint: Any | None
    lineup: Phrase  # who the opponents are, for the page
    note: Phrase | None  # why the opponents are not the ones asked for
    searching: bool = False  # the opponents search (seconds a move): they get workers apart
    overrides: dict[str, object] = field(default_factory=dict)  # the server-wide fields used
    hint_spec: str | None = None  # the hint bot's spec (the review's model of the seats)
    spec: str = ""  # the opponents' agent spec (the bot in the person's seat of a duplicate)
    duplicate: bool = False  # the duplicate challenge: the opponents' bot also plays your seat
    duplicate_seed: int | None = None  # its seed; None: the game's own


class Lobby:
    """The server's offer, and the agents it has built.

    Args:
        shipped: the agent specs of the shipped bots, in order of preference (the
            ``shipped`` opponent is the first that plays the game asked for).
        extra: agent specs the server was started with (offered first).
        overrides: ruleset fields set for every game (``--set`` of ``spar serve``).
        make_agent: builds an agent from a spec and a ruleset (the agent registry).
    """

    def __init__(
        self,
        shipped: str | Sequence[str],
        extra: Sequence[str] = (),
        overrides: dict[str, object] | None = None,
        make_agent: Callable[[str, Ruleset], Any] | None = None,
        think: float = THINK_SECONDS,
    ) -> None:
        if not (think > 0 and math.isfinite(think)):
            raise ValueError(f"the searching bots' time per move must be positive seconds; "
                             f"got {think!r}")  # fmt: skip
        if make_agent is None:
            from spar_agents import make_agent as registry_make_agent

            make_agent = registry_make_agent
        self._make_agent = make_agent
        self.shipped = [shipped] if isinstance(shipped, str) else list(shipped)
        self.overrides = dict(overrides or {})
        by_spec: dict[str, Opponent] = {}
        shipped_bot, search = [], []
        seconds = f"{think:g}"
        if self.shipped:  # search plays with a shipped bot's policy: without one, no search
            shipped_bot = [Opponent("shipped", phrase("opponent.shipped"), tuple(self.shipped))]
            policies = tuple(f"search:policy={s},time_limit={think!r}"
                             for s in search_policy_specs(self.shipped))  # fmt: skip
            label = phrase("opponent.search", seconds=seconds)
            search = [Opponent("search", label, policies, True)]
        for opponent in (
            *(_offered(spec, think) for spec in extra),
            *shipped_bot,
            Opponent("heuristic", phrase("opponent.heuristic"), ("heuristic",)),
            *search,
            Opponent(
                "pimc",
                phrase("opponent.pimc", seconds=seconds),
                (f"pimc:time_limit={think!r}",),
                True,
            ),  # fmt: skip
        ):
            by_spec.setdefault(opponent.spec, opponent)  # a spec offered twice is offered once
        self.opponents = {o.id: o for o in by_spec.values()}
        self._agents: dict[tuple[str, Ruleset], Any] = {}
        self._building = threading.Lock()  # games are made on worker threads
        self.variants = {v: self._player_counts(v) for v in PRESETS}
        self._offers = {lang: self._make_offer(lang) for lang in LANGUAGES}

    def offer(self, language: Language = DEFAULT_LANGUAGE) -> dict[str, Any]:
        """What the new-game form may choose from (sent to the page), named in ``language``:
        each variant's readable name (``title``) and one line about it (``about``)."""
        return self._offers[language]

    def _make_offer(self, lang: Language) -> dict[str, Any]:
        return {
            "variants": [
                {
                    "name": v,
                    "title": variant_name(v, lang),
                    "about": say(f"variant.{v}.about", lang),
                    "players": counts,
                    "default_players": _default_players(v, counts),
                    "tagline": tagline(make_rules(v), lang),
                }
                for v, counts in self.variants.items()
                if counts
            ],
            "opponents": [
                {"id": o.id, "label": say_phrase(o.label, lang)} for o in self.opponents.values()
            ],
            "last_two": [
                {"id": x, "label": say(f"page.last_two.{x or 'default'}", lang)}
                for x in ("", *LAST_TWO)
            ],
            "ends": [{"id": e, "label": _end_label(e, lang)} for e in ENDS],
        }

    def rules(self, form: object, language: Language = DEFAULT_LANGUAGE) -> dict[str, Any]:
        """The rules of the game a form asks for, to read before it starts.

        Raises:
            FormError: as :meth:`setup` does, for a form it would refuse.
        """
        from spar_apps.web.rules_view import form_of_query, rules_view

        try:
            asked = form_of_query(form)
        except ValueError as e:  # a count of more digits than any table
            raise FormError(str(e)) from None
        return rules_view(self.ruleset(asked), language)

    def searching(self, form: object) -> bool:
        """Whether a form asks for a searching opponent (read before the game is made; the
        default opponent is the first offered)."""
        if not isinstance(form, dict):
            return False
        wanted = form.get("opponents", next(iter(self.opponents)))
        opponent = self.opponents.get(wanted) if isinstance(wanted, str) else None
        return opponent is not None and opponent.searching

    def setup(self, form: object, overrides: object = None) -> Setup:
        """The game a form asks for, over the server-wide fields: this server's, or
        ``overrides``, those a saved game was made with (:attr:`Setup.overrides`).

        Raises:
            FormError: for an unknown field, a value of the wrong type or not offered,
                or an impossible ruleset (the ruleset's own message).
        """
        if overrides is None:
            overrides = self.overrides
        rules = self.ruleset(form, overrides)
        assert isinstance(form, dict) and isinstance(overrides, dict)  # ruleset checked them
        opponent = self.opponents[
            _choice(form, "opponents", list(self.opponents), next(iter(self.opponents)))
        ]
        duplicate, seed = _duplicate(form.get("duplicate"))
        return dataclasses.replace(
            self._seat(rules, opponent),
            overrides=dict(overrides),
            duplicate=duplicate,
            duplicate_seed=seed,
        )

    def ruleset(self, form: object, overrides: object = None) -> Ruleset:
        """The ruleset a form asks for, over the server-wide fields (see :meth:`setup`).

        Raises:
            FormError: for an unknown field, a value of the wrong type or not offered,
                or an impossible ruleset (the ruleset's own message).
        """
        if not isinstance(form, dict):
            raise FormError('a new game is a JSON object such as {"variant": "spar", "players": 4}')
        unknown = sorted(set(form) - set(FIELDS))
        if unknown:
            raise FormError(f"unknown field {unknown[0]!r}; the fields are {', '.join(FIELDS)}")
        if overrides is None:
            overrides = self.overrides
        if not isinstance(overrides, dict) or not all(isinstance(k, str) for k in overrides):
            raise FormError(f"the server-wide fields must be an object; got {overrides!r}")
        variant = _choice(form, "variant", list(self.variants), "spar")
        fields: dict[str, object] = dict(overrides)
        if form.get("players") is not None:
            fields["players"] = _integer(form, "players")
        if form.get("ace_of_spades") is not None:
            if not isinstance(form["ace_of_spades"], bool):
                raise FormError(
                    f"ace_of_spades must be true or false; got {form['ace_of_spades']!r}"
                )
            fields["ace_of_spades"] = form["ace_of_spades"]
        if form.get("last_two") is not None:
            fields["last_two"] = _choice(form, "last_two", list(LAST_TWO), "off")
        end = _choice(form, "end", list(ENDS), "default")
        if end != "default":
            fields["end"] = end
        try:
            return make_rules(variant, **fields)
        except (TypeError, ValueError) as e:  # TypeError: a field no ruleset has
            raise FormError(str(e)) from None

    def _seat(self, rules: Ruleset, opponent: Opponent) -> Setup:
        from spar_apps.table.texts import fallback_note

        note = None
        spec = self._choice(opponent, rules)
        if opponent.id == "shipped":  # the first shipped bot trained for this game
            if spec is None:
                note = fallback_note(rules, FALLBACK)
                opponent = self.opponents[FALLBACK]
            else:
                label = phrase("opponent.shipped_spec", spec=spec)
                opponent = dataclasses.replace(opponent, label=label, choices=(spec,))
        elif spec is not None:  # e.g. search with the policy of the first shipped bot that plays
            opponent = dataclasses.replace(opponent, choices=(spec,))
        try:  # when none of its choices plays the game, the first one's refusal says why
            agent = self._agent(opponent.spec, rules)
        except ValueError as e:
            raise FormError(f"opponents {opponent.id}: {e}") from None
        bots = {s: agent for s in range(1, rules.players)}
        hint, hint_spec = self._hint(rules, opponent)
        return Setup(rules, bots, hint, opponent.label, note, opponent.searching,
                     hint_spec=hint_spec, spec=opponent.spec)  # fmt: skip

    def _choice(self, opponent: Opponent, rules: Ruleset) -> str | None:
        """The first of the opponent's specs whose agent plays ``rules``, else ``None``."""
        from spar_agents.registry.for_game import first_that_plays

        return first_that_plays(opponent.choices, rules, self._agent)

    def _hint(self, rules: Ruleset, opponent: Opponent) -> tuple[Any | None, str | None]:
        """A bot with probabilities for the game, and its spec: the opponent if it has them,
        else the shipped bot."""
        from spar_agents.registry import parse_spec

        for spec in (opponent.spec, *self.shipped):
            if parse_spec(spec)[0] in PROBABILITY_AGENTS:
                try:
                    return self._agent(spec, rules), spec
                except ValueError:
                    continue
        return None, None

    def _agent(self, spec: str, rules: Ruleset) -> Any:
        key = (spec, rules)
        with self._building:  # built once, whichever game asks first
            if key not in self._agents:
                self._agents[key] = self._make_agent(spec, rules)
            return self._agents[key]

    def warm(self) -> None:
        """Build the searching opponents for the default game and let each decide once, so
        that their compiled kernels are ready before a player's first move waits on them."""
        from spar_apps.table import HumanTable

        rules = make_rules("spar", **self.overrides)
        for opponent in self.opponents.values():
            if not opponent.searching:
                continue
            spec = self._choice(opponent, rules)
            if spec is None:
                continue  # the game cannot have it: nothing to warm
            agent = self._agent(spec, rules)
            rng = np.random.default_rng(0)
            table = HumanTable(rules, 0, {s: agent for s in range(1, rules.players)}, rng, rng)
            agent.act(table.situation(), rng)  # whichever seat is to move

    def _player_counts(self, variant: str) -> list[int]:
        counts = []
        for n in PLAYER_COUNTS:
            try:
                make_rules(variant, **{**self.overrides, "players": n})
            except ValueError:
                continue
            counts.append(n)
        return counts


def _offered(spec: str, think: float) -> Opponent:
    """The opponent of a spec the server was started with: one that searches (its agent takes
    a ``time_limit``) thinks at most ``think`` seconds a move, and moves on workers apart."""
    from spar_agents.registry import agent_names, agent_parameters, parse_spec

    name, params = parse_spec(spec)
    if name not in agent_names() or TIME_LIMIT not in agent_parameters(name):
        return Opponent(spec, phrase("opponent.spec", spec=spec), (spec,))
    given = params.get(TIME_LIMIT)
    if isinstance(given, int | float) and not isinstance(given, bool) and 0 < given <= think:
        label = phrase("opponent.spec_limited", spec=spec, seconds=f"{given:g}")
        return Opponent(spec, label, (spec,), True)
    rest = [item for item in spec.strip().partition(":")[2].split(",")
            if item.strip() and item.partition("=")[0].strip() != TIME_LIMIT]  # fmt: skip
    capped = f"{name}:{','.join([*rest, f'{TIME_LIMIT}={think!r}'])}"
    label = phrase("opponent.spec_limited", spec=spec, seconds=f"{think:g}")
    return Opponent(spec, label, (capped,), True)


def _end_label(end: str, language: Language) -> str:
    if end == "default":
        return say("page.end.default", language)
    return say("page.end.target", language, n=end.partition(":")[2])


def _duplicate(value: object) -> tuple[bool, int | None]:
    """The form's ``duplicate``: off (absent, null, false), on with a seed drawn by the server
    (true, or nothing typed), or on with the seed given."""
    if value is None or value is False:
        return False, None
    if value is True or (isinstance(value, str) and not value.strip()):
        return True, None
    try:
        return True, read_seed(value)
    except SeedError as e:
        raise FormError(str(e), e.say) from None


def _default_players(variant: str, counts: list[int]) -> int:
    preset = PRESETS[variant].get("players", make_rules(variant).players)
    return preset if preset in counts else counts[0]


def _choice(form: dict[str, Any], key: str, allowed: list[str], default: str) -> str:
    value = form.get(key)
    if value is None:
        return default
    if not isinstance(value, str) or value not in allowed:
        raise FormError(f"{key} must be one of {', '.join(allowed)}; got {value!r}")
    return value


def _integer(form: dict[str, Any], key: str) -> int:
    value = form[key]
    if not isinstance(value, int) or isinstance(value, bool):
        raise FormError(f"{key} must be a whole number; got {value!r}")
    return value
