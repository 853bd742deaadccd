"""A variant's rules in short sections, written from its ruleset in the reader's language, and
the texts that hang on its deck (the ranks, typing examples, the tagline).

:func:`rules_sections` turns a :class:`~spar_env.rules.Ruleset` into what a player needs
at the table: the deck, the deal, the tricks, what goes face down, the scoring with the
variant's own cards, the payoff at this table size and the match. Every rank, card and
number comes from the ruleset, so the text of Sipa never speaks of a 6 and Agram's never of
a king. The full manual, with the sources' disagreements, is ``docs/rules.md``.
"""

from __future__ import annotations

from spar_apps.table.messages import DEFAULT_LANGUAGE, Language, say
from spar_apps.table.voice import Voice
from spar_env.explain import high_ranks
from spar_env.explain.phrase import Listed, Points, Rank, phrase
from spar_env.rules import Ruleset


def rank_list(rules: Ruleset, language: Language = DEFAULT_LANGUAGE) -> str:
    """The ranks, high to low: ``"A K Q J 10 9 8 7 6"`` (``A R D V 10 ...`` in French)."""
    return " ".join(Voice(rules, language).rank(r) for r in rules.ranks)


def variant_name(rules_or_variant: Ruleset | str, language: Language = DEFAULT_LANGUAGE) -> str:
    """The variant's readable name: ``Agram (Mali)`` for ``agram_mali``."""
    variant = getattr(rules_or_variant, "variant", rules_or_variant)
    return say(f"variant.{variant}", language)


def typing_examples(rules: Ruleset, language: Language = DEFAULT_LANGUAGE) -> list[str]:
    """Three ways to type a card of this deck: ``10h``, ``ad``, ``6♥`` (the ranks vary; in
    French ``10c``, ``ak``: the suits' French letters)."""
    high = rules.ranks[0]
    ten = (
        "10" if "10" in rules.ranks and high != "10" else rules.ranks[min(1, len(rules.ranks) - 1)]
    )
    voice = Voice(rules, language)
    return [
        voice.code(rules.card_of(ten, ("H", "D", "C", "S"))),
        voice.code(rules.card_of(high, ("D", "S", "C", "H"))),
        voice.card(rules.card_id(rules.example_card())),
    ]


def tagline(rules: Ruleset, language: Language = DEFAULT_LANGUAGE) -> str:
    """What decides a hand, in a few words: ``only the last trick counts``."""
    voice = Voice(rules, language)
    if rules.chain <= 3:
        return voice.say(f"tagline.{rules.chain}")
    return voice.say("tagline.n", n=rules.chain)


def rules_sections(
    rules: Ruleset, language: Language = DEFAULT_LANGUAGE
) -> list[tuple[str, list[str]]]:
    """The rules of ``rules`` as ``(heading, sentences)``, in the order a hand is played."""
    v = Voice(rules, language)
    out = [("deck", [_deck(v)]), ("deal", _deal(v))]
    if rules.weak_hand_exchange:
        out.append(("exchange", _exchange(v)))
    out += [("tricks", _tricks(v)), ("scoring", _scoring(v))]
    out += [("payoff", [_payoff(v)]), ("match", _match(v))]
    if rules.rank_points:
        out.append(("skill", [_skill(v)]))
    return [(v.say(f"rules.h.{key}"), lines) for key, lines in out]


# ----- sections ----------------------------------------------------------------------
def _deck(v: Voice) -> str:
    rules = v.rules
    suits = ", ".join(v.say(f"suit.{s}") for s in rules.suits)
    missing = [v.card(c) for c in range(rules.num_card_ids) if c not in rules.deck]
    fields = {"n": rules.deck_size, "suits": suits, "ranks": rank_list(rules, v.language)}
    if missing:
        return v.say("rules.deck_without", missing=", ".join(missing), **fields)
    return v.say("rules.deck", **fields)


def _deal(v: Voice) -> list[str]:
    rules = v.rules
    pattern = rules.deal_pattern
    if set(pattern) == {1}:
        rounds = v.say("rules.one_at_a_time")
    elif len(pattern) == 1:
        rounds = v.say("rules.all_at_once")
    else:
        counts = [str(k) for k in pattern]
        joined = v.say("rules.then", head=" ".join(counts[:-1]), last=counts[-1])
        rounds = v.say("rules.pattern", pattern=joined)
    direction = v.say(f"direction.{rules.direction}")
    lines = [
        v.say("rules.deal", players=rules.players, n=rules.hand_size, rounds=rounds,
              direction=direction)
    ]  # fmt: skip
    if rules.stock_size:
        lines.append(v.say("rules.stock", n=rules.stock_size))
    if rules.reveal_stock_bottom and rules.stock_size:
        lines.append(v.say("rules.reveal", trick=rules.hand_size - 1))
    return lines


def _exchange(v: Voice) -> list[str]:
    ranks = high_ranks(v.rules)
    return [
        v.say("rules.exchange", ranks=ranks, n=v.rules.hand_size),
        v.say("rules.exchange_end"),
    ]


def _tricks(v: Voice) -> list[str]:
    rules = v.rules
    lines = [
        v.say("rules.lead"),
        v.say("rules.follow"),
        v.say("rules.wins", ranks=rank_list(rules, v.language)),
    ]
    if rules.face_down == "off_suit":
        lines.append(v.say("rules.down_off_suit"))
    elif rules.face_down == "non_winning":
        lines.append(v.say("rules.down_non_winning"))
    return lines


def _last(v: Voice, count: int) -> str:
    return v.say(f"rules.last.{count}") if count in (2, 3) else v.say("rules.last.n", n=count)


def _scoring(v: Voice) -> list[str]:
    rules = v.rules
    points = rules.rank_points
    if not points:
        return [v.say("rules.score_one", tagline=tagline(rules, v.language))]
    by_value = sorted(points.items(), key=lambda x: -x[1])
    per_card = Listed(tuple(phrase("rules.with", value=p, rank=Rank(r)) for r, p in by_value))
    lines = [v.say("rules.score", per_card=per_card)]
    if rules.chain > 1 and rules.last_two == "off":
        rank, value = by_value[0]
        runs = Listed(
            tuple(phrase("rules.run", points=k * value, n=k) for k in range(2, rules.chain + 1))
        )
        lines.append(v.say("rules.chain", last=_last(v, rules.chain), rank=Rank(rank), runs=runs))
    elif rules.last_two != "off":
        six, seven = _pair(rules)
        extra = points[six] if rules.last_two == "sum" else 2 * points[six]
        lines.append(
            v.say(f"rules.{rules.last_two}", seven=Rank(seven), six=Rank(six),
                  total=points[seven] + extra)
        )  # fmt: skip
    return lines


def _pair(rules: Ruleset) -> tuple[str, str]:
    """The highest- and the lowest-valued scoring ranks (a 6 and a 7 in Spar)."""
    ranked = sorted(rules.rank_points, key=rules.rank_points.__getitem__)
    return ranked[-1], ranked[0]


def _payoff(v: Voice) -> str:
    rules = v.rules
    if rules.payoff == "points":
        return v.say("rules.payoff_points")
    n, top = rules.players, max(rules.rank_points.values(), default=1)
    others = v.say("rules.the_other" if n == 2 else "rules.each_other")
    return v.say("rules.payoff_stakes", n=n, top=top, total=top * (n - 1), others=others)


def _match(v: Voice) -> list[str]:
    rules = v.rules
    kind, value = rules.end_kind, rules.end_value
    deals = v.say("rules.deals")
    if kind == "target":
        key = "rules.target_c" if rules.c_notation else "rules.target"
        return [v.say(key, target=Points(int(value or 0))), deals]
    if kind == "hands":
        return [v.say("rules.hands", n=value), deals]
    if kind == "stones":
        return [v.say("rules.stones", n=value), deals]
    if kind == "one_hand":
        return [v.say("rules.one_hand")]
    return [v.say("rules.open"), deals]


def _skill(v: Voice) -> str:
    rules = v.rules
    low = max(rules.rank_points, key=rules.ranks.index)  # the lowest scoring rank
    return v.say("rules.skill", low=Rank(low), trick=rules.hand_size - 1)
