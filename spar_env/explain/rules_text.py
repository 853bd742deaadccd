"""A variant's rules in short sections, written from its ruleset, and the texts that hang on its deck.

:func:`rules_sections` turns a :class:`~spar_env.rules.Ruleset` into what a
player needs at the table: the deck, the deal, the tricks, what goes face
down, the scoring with the variant's own cards, the payoff at this table
size and the match. Every rank, card and number comes from the ruleset, so
the text of Sipa never speaks of a 6 and Agram's never of a king. The full
manual, with the sources' disagreements, is ``docs/rules.md``.
"""

from __future__ import annotations

from spar_env.explain.moves import SUIT_NAMES, high_ranks
from spar_env.rules import Ruleset, c_notation

_COUNTS = {1: "last trick", 2: "last two tricks", 3: "last three tricks"}


def rank_list(rules: Ruleset) -> str:
    """The ranks, high to low: ``"A K Q J 10 9 8 7 6"``."""
    return " ".join(rules.ranks)


def typing_examples(rules: Ruleset) -> list[str]:
    """Three ways to type a card of this deck: ``10h``, ``as``, ``6♥`` (the ranks vary)."""
    high = rules.ranks[0]
    ten = (
        "10" if "10" in rules.ranks and high != "10" else rules.ranks[min(1, len(rules.ranks) - 1)]
    )
    return [
        rules.card_name(rules.card_of(ten, ("H", "D", "C", "S"))).lower(),
        rules.card_name(rules.card_of(high, ("S", "C", "D", "H"))).lower(),
        rules.example_card(unicode=True),
    ]


def tagline(rules: Ruleset) -> str:
    """What decides a hand, in a few words: ``only the last trick counts``."""
    if rules.chain == 1:
        return "only the last trick counts"
    return f"the {_COUNTS.get(rules.chain, f'last {rules.chain} tricks')} count"


def rules_sections(rules: Ruleset) -> list[tuple[str, list[str]]]:
    """The rules of ``rules`` as ``(heading, sentences)``, in the order a hand is played."""
    out = [
        ("The deck", [_deck(rules)]),
        ("The deal", _deal(rules)),
    ]
    if rules.weak_hand_exchange:
        out.append(("The weak-hand exchange", _exchange(rules)))
    out.append(("The tricks", _tricks(rules)))
    out.append(("Scoring", _scoring(rules)))
    out.append(("The payoff", [_payoff(rules)]))
    out.append(("The match", _match(rules)))
    if rules.rank_points:
        out.append(("The skill", [_skill(rules)]))
    return out


# ----- sections ----------------------------------------------------------------------
def _deck(rules: Ruleset) -> str:
    suits = ", ".join(SUIT_NAMES[s] for s in rules.suits)
    text = f"{rules.deck_size} cards: {suits}, each ranked high to low {rank_list(rules)}"
    missing = [rules.card_name(c, unicode=True) for c in range(rules.num_card_ids)]
    missing = [m for c, m in enumerate(missing) if c not in rules.deck]
    if missing:
        text += f", without {', '.join(missing)}"
    return text + "."


def _deal(rules: Ruleset) -> list[str]:
    pattern = rules.deal_pattern
    if set(pattern) == {1}:
        rounds = "one at a time"
    elif len(pattern) == 1:
        rounds = "all at once"
    else:
        rounds = " then ".join(str(k) for k in pattern) + " at a time"
    lines = [
        f"{rules.players} players get {rules.hand_size} cards each, {rounds}, "
        f"starting with the seat after the dealer; play goes {rules.direction}."
    ]
    if rules.stock_size:
        lines.append(f"The other {rules.stock_size} cards stay face down as the stock.")
    if rules.reveal_stock_bottom and rules.stock_size:
        lines.append(
            f"When trick {rules.hand_size - 1} begins, the stock's bottom card is turned "
            "face up: nobody holds it."
        )
    return lines


def _exchange(rules: Ruleset) -> list[str]:
    ranks = high_ranks(rules)
    return [
        f"Before trick 1 each seat in turn keeps its hand or, if it holds no {ranks}, "
        f"may set it aside and take the top {rules.hand_size} cards of the stock.",
        "The round ends as soon as the stock holds fewer cards than a hand.",
    ]


def _tricks(rules: Ruleset) -> list[str]:
    lines = [
        "The seat after the dealer leads trick 1 with any card.",
        "Each seat in turn must follow the suit led if it can; a seat that cannot plays any card.",
        f"The highest card of the suit led wins (high to low: {rank_list(rules)}); a card of "
        "another suit never wins. The winner leads the next trick.",
    ]
    if rules.face_down == "off_suit":
        lines.append("A card not of the suit led is played face down: only its player sees it.")
    elif rules.face_down == "non_winning":
        lines.append(
            "A card that does not beat the best card of the trick so far is played face down: "
            "only its player sees it. The card winning a trick is always face up."
        )
    return lines


def _scoring(rules: Ruleset) -> list[str]:
    points = rules.rank_points
    who = "The seat that wins the last trick wins the hand"
    if not points:
        return [f"{who}, for 1 point: {tagline(rules)}, and no card scores more."]
    per_card = ", ".join(f"{v} with a {r}" for r, v in sorted(points.items(), key=lambda x: -x[1]))
    lines = [f"{who}: {per_card}, 1 with any other card."]
    if rules.chain > 1 and rules.last_two == "off":
        (rank, value), *_ = sorted(points.items(), key=lambda x: -x[1])
        runs = ", ".join(f"{k * value} for the last {k}" for k in range(2, rules.chain + 1))
        lines.append(
            f"The {_COUNTS.get(rules.chain)} can add up: when the winner took each of them with "
            f"a {rank}, {runs}."
        )
    elif rules.last_two != "off":
        six, seven = _pair(rules)
        if rules.last_two == "sum":
            lines.append(
                f"When the winner also took the trick before with a scoring card, both count: "
                f"a {seven} then a {six} make {points[seven] + points[six]}."
            )
        else:
            lines.append(
                f"When the winner also took the trick before with a scoring card, the pair "
                f"comes on top of the last trick's own points: a {seven} then a {six} make "
                f"{points[seven] + 2 * points[six]}."
            )
    return lines


def _pair(rules: Ruleset) -> tuple[str, str]:
    """The highest- and the lowest-valued scoring ranks (a 6 and a 7 in Spar)."""
    ranked = sorted(rules.rank_points, key=rules.rank_points.__getitem__)
    return ranked[-1], ranked[0]


def _payoff(rules: Ruleset) -> str:
    if rules.payoff == "points":
        return "The winner scores the hand's points; the others score nothing."
    n, top = rules.players, max(rules.rank_points.values(), default=1)
    others = "the other seat" if n == 2 else "each other seat"
    return (
        f"Every other seat pays the winner the hand's points: at {n} players a hand of {top} "
        f"pays the winner +{top * (n - 1)} and {others} -{top}."
    )


def _match(rules: Ruleset) -> list[str]:
    kind, value = rules.end_kind, rules.end_value

    def score(points: int) -> str:
        return c_notation(points) if rules.c_notation else str(points)

    deals = "The winner of a hand deals the next one."
    if kind == "target":
        note = (
            " (scores are written in c-notation: c9 is 9, c12 2 is 14)" if rules.c_notation else ""
        )
        target = score(int(value or 0))
        return [f"The first seat to {target} points (not payoffs) wins the match{note}.", deals]
    if kind == "hands":
        return [f"After {value} hands the seat with the most points wins.", deals]
    if kind == "stones":
        return [
            f"A pool of {value} stones: each hand's winner takes as many as its points. Once the "
            "pool is empty the seat with the most stones wins; tied seats play tie-break hands.",
            deals,
        ]
    if kind == "one_hand":
        return ["One hand decides the game."]
    return ["An open session: play as many hands as you like.", deals]


def _skill(rules: Ruleset) -> str:
    low = max(rules.rank_points, key=rules.ranks.index)  # the lowest scoring rank
    return (
        f"A {low} wins a trick only when it is led and nobody can follow its suit. Keep it "
        f"for the last trick, win trick {rules.hand_size - 1} so that you lead the last one, "
        "and strip the others of its suit before then."
    )
