"""Why each move is open or closed to the seat to act: follow suit, the exchange, face down.

:func:`move_reasons` reads a game of the batch state after the engine has set
its legal moves, and gives every action the seat holds (its cards, and keep
or exchange during the weak-hand exchange) a :class:`MoveReason`: whether
the engine allows it and one sentence that names the rule. Legality is the
engine's own (``state.legal``); this module only says why, so a table can
never disagree with the rules about what may be played.

A reason is a :class:`~spar_env.explain.phrase.Phrase` (a message key and its fields),
said in the reader's language by the tables (``spar_apps.table.messages``). It speaks to
the seat (``you``) and names only what that seat may know: its own cards, the cards face
up in the trick, the stock's size.
"""

from __future__ import annotations

from dataclasses import dataclass

from spar_env.core.state import EXCHANGE, PLAY, State
from spar_env.explain.phrase import Card, Listed, Phrase, Rank, Suit, cards, phrase
from spar_env.rules import Ruleset
from spar_env.rules.ruleset import HIGH_RANKS


@dataclass(frozen=True)
class MoveReason:
    """One action of the seat to act: may it be taken, and why (one sentence)."""

    action: int  # a card id, or the ruleset's keep/exchange action
    legal: bool  # as the engine says
    reason: Phrase  # names the rule that opens or closes it
    face_down: bool = False  # played now, this card would go face down


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


def face_down_reason(rules: Ruleset, follows: bool | None = None) -> Phrase:
    """Why a card went face down. ``follows`` (whether it was of the suit led) is for the
    card's own player; ``None`` gives the reason every seat may know, which under
    ``non_winning`` never says whether the card followed suit."""
    if rules.face_down == "off_suit":
        return phrase("down.off_suit")
    if follows is None:
        return phrase("down.no_lead")
    if follows:
        return phrase("down.no_beat")
    return phrase("down.other_suit")


def high_ranks(rules: Ruleset) -> Listed:
    """The ranks that make a hand strong in the exchange, as this deck has them ("10, J or A")."""
    return Listed(tuple(Rank(r) for r in HIGH_RANKS if r in rules.ranks), "or")


# ----- pieces ------------------------------------------------------------------------
def _cards(rules: Ruleset, bits: int) -> list[int]:
    return [c for c in range(rules.num_card_ids) if bits >> c & 1]


def _card_reason(
    rules: Ruleset, card: int, hand: list[int], legal: int, led: int, best: int
) -> MoveReason:
    is_legal = bool(legal >> card & 1)
    if led < 0:
        return MoveReason(card, is_legal, phrase("reason.lead"))
    suit = Suit(led)
    follows = rules.card_suit_index(card) == led
    of_suit = [c for c in hand if rules.card_suit_index(c) == led]
    if not is_legal:
        return MoveReason(card, False, phrase("reason.follow", suit=suit, cards=cards(of_suit)))
    if follows:
        beats = rules.card_strength(card) > rules.card_strength(best)
        key = "reason.follows_beats" if beats else "reason.follows_short"
        reason = phrase(key, suit=suit, best=Card(best))
        down = rules.face_down == "non_winning" and not beats
    else:
        reason = phrase("reason.off_suit", suit=suit)
        down = rules.face_down != "none"
    if down:
        reason = phrase("reason.goes_down", reason=reason, why=face_down_reason(rules, follows))
    return MoveReason(card, True, reason, face_down=down)


def _exchange_reasons(
    rules: Ruleset, hand: list[int], legal: int, stock_top: int
) -> list[MoveReason]:
    first = phrase("reason.exchange_first")
    out = [MoveReason(c, False, first) for c in hand]
    out.append(MoveReason(rules.keep_action, True, phrase("reason.keep")))
    high = [c for c in hand if rules.is_high_rank(rules.card_rank(c))]
    ranks = high_ranks(rules)
    can = bool(legal >> rules.exchange_action & 1)
    if can:
        reason = phrase("reason.weak", ranks=ranks, n=rules.hand_size)
    elif high:
        reason = phrase("reason.strong", cards=cards(high), ranks=ranks)
    else:  # the engine asks no seat once the stock is short; kept for a complete answer
        reason = phrase("reason.stock_short", n=rules.deck_size - stock_top)
    out.append(MoveReason(rules.exchange_action, can, reason))
    return out
