"""Why each move is open or closed to the seat to act: follow suit, the exchange, face down.

:func:`move_reasons` reads a game of the batch state after the engine has set
its legal moves, and gives every action the seat holds (its cards, and keep
or exchange during the weak-hand exchange) a :class:`MoveReason`: whether
the engine allows it and one sentence that names the rule. Legality is the
engine's own (``state.legal``); this module only says why, so a table can
never disagree with the rules about what may be played.

The sentences speak to the seat (``you``) and name only what that seat may
know: its own cards, the cards face up in the trick, the stock's size.
"""

from __future__ import annotations

from dataclasses import dataclass

from spar_env.core.state import EXCHANGE, PLAY, State
from spar_env.rules import Ruleset
from spar_env.rules.ruleset import HIGH_RANKS

SUIT_NAMES = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}


@dataclass(frozen=True)
class MoveReason:
    """One action of the seat to act: may it be taken, and why (one sentence)."""

    action: int  # a card id, or the ruleset's keep/exchange action
    legal: bool  # as the engine says
    reason: str  # names the rule that opens or closes it
    face_down: bool = False  # played now, this card would go face down


def suit_name(rules: Ruleset, suit_index: int) -> str:
    """``diamonds`` for a suit index of the ruleset."""
    return SUIT_NAMES[rules.suits[suit_index]]


def move_reasons(state: State, game: int = 0) -> list[MoveReason]:
    """Every action the seat to act in ``game`` holds, with the rule that opens or closes it.

    Cards come in id order (by suit, then rank high to low); during the
    weak-hand exchange, keep and exchange follow them. A hand that is over
    has no seat to act, and so no reasons.
    """
    seat = int(state.current_player[game])
    if seat < 0:
        return []
    rules = state.tables.rules
    legal = int(state.legal[game])
    hand = _cards(rules, int(state.hands[game, seat]))
    if int(state.phase[game]) == EXCHANGE:
        return _exchange_reasons(rules, hand, legal, int(state.stock_top[game]))
    assert int(state.phase[game]) == PLAY
    led = int(state.led_suit[game]) if int(state.pos[game]) > 0 else -1
    best = int(state.best_card[game]) if led >= 0 else -1
    return [_card_reason(rules, card, hand, legal, led, best) for card in hand]


def face_down_reason(rules: Ruleset, follows: bool | None = None) -> str:
    """Why a card went face down. ``follows`` (whether it was of the suit led) is for the
    card's own player; ``None`` gives the reason every seat may know, which under
    ``non_winning`` never says whether the card followed suit."""
    if rules.face_down == "off_suit":
        return "a card not of the suit led is played face down"
    if follows is None:
        return "a card that does not take the lead of the trick is played face down"
    if follows:
        return "a card that does not beat the best card of the trick is played face down"
    return "a card of another suit never takes the lead, so it is played face down"


def high_ranks(rules: Ruleset) -> str:
    """The ranks that make a hand strong in the exchange, as this deck has them ("10, J or A")."""
    ranks = [r for r in HIGH_RANKS if r in rules.ranks]
    return ", ".join(ranks[:-1]) + " or " + ranks[-1] if len(ranks) > 1 else "".join(ranks)


# ----- pieces ------------------------------------------------------------------------
def _cards(rules: Ruleset, bits: int) -> list[int]:
    return [c for c in range(rules.num_card_ids) if bits >> c & 1]


def _names(rules: Ruleset, cards: list[int]) -> str:
    return ", ".join(rules.card_name(c, unicode=True) for c in cards)


def _card_reason(
    rules: Ruleset, card: int, hand: list[int], legal: int, led: int, best: int
) -> MoveReason:
    is_legal = bool(legal >> card & 1)
    if led < 0:
        return MoveReason(card, is_legal, "you lead this trick: any card may be played")
    suit = suit_name(rules, led)
    follows = rules.card_suit_index(card) == led
    of_suit = [c for c in hand if rules.card_suit_index(c) == led]
    if not is_legal:
        return MoveReason(
            card,
            False,
            f"you must follow suit: {suit} were led and you hold {_names(rules, of_suit)}",
        )
    best_name = rules.card_name(best, unicode=True)
    if follows:
        beats = rules.card_strength(card) > rules.card_strength(best)
        reason = (
            f"it follows {suit}, the suit led, and beats {best_name}"
            if beats
            else f"it follows {suit}, the suit led, but does not beat {best_name}"
        )
        down = rules.face_down == "non_winning" and not beats
    else:
        reason = (
            f"you hold no {suit}, so any card may be played, but a card of another suit "
            "cannot win the trick"
        )
        down = rules.face_down != "none"
    if down:
        reason += f"; it goes face down: {face_down_reason(rules, follows)}"
    return MoveReason(card, True, reason, face_down=down)


def _exchange_reasons(
    rules: Ruleset, hand: list[int], legal: int, stock_top: int
) -> list[MoveReason]:
    first = "keep or exchange your hand first: the weak-hand exchange comes before trick 1"
    out = [MoveReason(c, False, first) for c in hand]
    out.append(MoveReason(rules.keep_action, True, "keep your hand and play it"))
    high = [c for c in hand if rules.is_high_rank(rules.card_rank(c))]
    ranks = high_ranks(rules)
    can = bool(legal >> rules.exchange_action & 1)
    if can:
        reason = (
            f"your hand holds no {ranks}, so it is weak: you may set it aside and take "
            f"the top {rules.hand_size} cards of the stock"
        )
    elif high:
        reason = (
            f"your hand holds {_names(rules, high)}: a hand with a {ranks} is strong, "
            "so it may keep but not exchange"
        )
    else:  # the engine asks no seat once the stock is short; kept for a complete answer
        left = rules.deck_size - stock_top
        reason = f"the stock holds {left} cards, fewer than a hand: nobody may exchange"
    out.append(MoveReason(rules.exchange_action, can, reason))
    return out
