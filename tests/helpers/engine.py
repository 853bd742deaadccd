"""Shared test helpers: play batches of hands through the core and replay them in the reference.

``rulesets()`` is a Hypothesis strategy for any preset with any overrides that
still make a playable game.
``play_random_hands`` drives the batch core with uniformly random legal actions
and records, step by step, what the core said (current player, legal set,
revealed card) and did (actions, final rewards). ``check_against_reference``
replays each recorded game through :class:`reference.RefHand` from the same
deck and dealer and asserts that both agree at every step and at the end.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from hypothesis import strategies as st

from helpers.reference import RefHand
from spar_env.core import random_member, reset, step
from spar_env.core.state import State
from spar_env.rules import PRESETS, Ruleset, make_rules
from spar_env.rules.ruleset import DIRECTIONS, FACE_DOWN, LAST_TWO, PAYOFFS

ENDS = ("open", "one_hand", "hands:3", "target:10", "stones:10")
# The core's seat tables grow as 2**N (16 seats already take seconds to build),
# so drawn games stop at 12 seats, well beyond every preset's own range.
MAX_DRAWN_PLAYERS = 12


@st.composite
def deal_patterns(draw: st.DrawFn, hand_size: int) -> tuple[int, ...]:
    """A deal pattern: positive batches that sum to ``hand_size``."""
    pattern: list[int] = []
    while sum(pattern) < hand_size:
        pattern.append(draw(st.integers(1, hand_size - sum(pattern))))
    return tuple(pattern)


@st.composite
def rulesets(draw: st.DrawFn) -> Ruleset:
    """Any preset with any overrides that still make a playable game."""
    variant = draw(st.sampled_from(sorted(PRESETS)))
    base = make_rules(variant)
    over: dict[str, object] = {}
    if "A" in base.ranks and "S" in base.suits:
        over["ace_of_spades"] = draw(st.booleans())
    deck_size = make_rules(variant, **over).deck_size
    over["direction"] = draw(st.sampled_from(DIRECTIONS))
    over["face_down"] = draw(st.sampled_from(FACE_DOWN))
    over["weak_hand_exchange"] = draw(st.booleans())
    over["payoff"] = draw(st.sampled_from(PAYOFFS))
    over["end"] = draw(st.sampled_from(ENDS))
    if base.scoring == "spar":
        over["last_two"] = draw(st.sampled_from(LAST_TWO))
    hand_size = base.hand_size
    if draw(st.booleans()):
        hand_size = draw(st.integers(1, deck_size // 2))
        over["hand_size"] = hand_size
        over["deal_pattern"] = draw(deal_patterns(hand_size))
    players = draw(st.integers(2, min(deck_size // hand_size, MAX_DRAWN_PLAYERS)))
    over["players"] = players
    if hand_size >= 2 and deck_size > players * hand_size:
        over["reveal_stock_bottom"] = draw(st.booleans())
    return make_rules(variant, **over)


@dataclass
class CoreTrace:
    """What happened in one batch of hands, as seen through the core's public fields."""

    state: State  # the final state (every hand over)
    start: State  # a copy of the state before the first action
    live: np.ndarray  # bool [T, B] the game was still running at step t
    current_player: np.ndarray  # int64 [T, B]
    legal: np.ndarray  # uint64 [T, B] the legal-action bit set at step t
    revealed: np.ndarray  # int64 [T, B] the revealed stock card before step t
    actions: np.ndarray  # int64 [T, B]
    final_rewards: np.ndarray  # float32 [B, N] rewards returned by the step that ended the hand


def play_out(
    state: State,
    rng: np.random.Generator,
    before_step: Callable[[State, np.ndarray], None] | None = None,
) -> CoreTrace:
    """Play every running hand of ``state`` to its end with random legal actions (in place).

    ``before_step(state, actions)``, if given, sees the state and the chosen
    actions before each step (to check invariants along the way).
    """
    start = state.take(np.arange(state.batch_size))
    final_rewards = np.zeros_like(state.rewards)
    records: dict[str, list[np.ndarray]] = {
        k: [] for k in ("live", "current_player", "legal", "revealed", "actions")
    }
    limit = state.num_players * (state.tables.hand_size + 1) + 1
    for _ in range(limit):
        live = ~state.terminated
        if not live.any():
            break
        actions = random_member(state.legal, rng)
        records["live"].append(live.copy())
        records["current_player"].append(state.current_player.copy())
        records["legal"].append(state.legal.copy())
        records["revealed"].append(state.revealed.copy())
        records["actions"].append(actions)
        if before_step is not None:
            before_step(state, actions)
        rewards = step(state, actions)
        ended = live & state.terminated
        final_rewards[ended] = rewards[ended]
    assert state.terminated.all(), "a hand did not end within N * (H + 1) steps"
    stacked = {k: np.stack(v) for k, v in records.items()}
    return CoreTrace(state=state, start=start, final_rewards=final_rewards, **stacked)


def play_random_hands(rules: Ruleset, batch: int, rng: np.random.Generator) -> CoreTrace:
    """Deal ``batch`` first hands of ``rules`` and play them out with random legal actions."""
    return play_out(reset(rules, batch, rng), rng)


def bits(value: int | np.integer) -> set[int]:
    """The members of a bit set."""
    value = int(value)
    return {i for i in range(value.bit_length()) if value >> i & 1}


def seats_of(active: int | np.integer) -> list[int]:
    return sorted(bits(active))


def describe_game(trace: CoreTrace, game: int, upto: int | None = None) -> str:
    """A failing game in card notation, enough to script it again."""
    rules = trace.state.tables.rules
    name = lambda a: rules.card_name(a) if a < rules.num_card_ids else str(a)  # noqa: E731
    played = [
        name(int(trace.actions[t, game]))
        for t in range(trace.actions.shape[0] if upto is None else upto + 1)
        if trace.live[t, game]
    ]
    deck = [rules.card_name(int(c)) for c in trace.start.deck[game]]
    return (
        f"rules={rules!r}\ndealer={int(trace.start.dealer[game])} "
        f"seats_in={seats_of(trace.start.active[game])}\ndeck={deck}\nactions={played}"
    )


def check_against_reference(trace: CoreTrace) -> int:
    """Replay the games of ``trace`` in the reference; assert agreement. Returns the game count.

    Games that did not play in ``trace`` (their hand was already over) are skipped.
    """
    state, start = trace.state, trace.start
    rules = state.tables.rules
    played = np.flatnonzero(trace.live.any(axis=0))
    for g in played:
        ref = RefHand(
            rules,
            [int(c) for c in start.deck[g]],
            int(start.dealer[g]),
            seats_of(start.active[g]),
        )
        for t in range(trace.actions.shape[0]):
            if not trace.live[t, g]:
                break
            revealed = -1 if ref.revealed is None else ref.revealed
            agree = {
                "the hand is still running": not ref.done,
                "current player": int(trace.current_player[t, g]) == ref.current_player,
                "legal actions": bits(trace.legal[t, g]) == set(ref.legal_actions()),
                "revealed card": int(trace.revealed[t, g]) == revealed,
            }
            for what, ok in agree.items():
                if not ok:
                    raise AssertionError(
                        f"{what}: core and reference differ at step {t} of game {g}; "
                        f"reference legal {ref.legal_actions()}, core {sorted(bits(trace.legal[t, g]))}"
                        f"\n{describe_game(trace, g, t)}"
                    )
            ref.apply(int(trace.actions[t, g]))
        problems = final_disagreements(state, g, ref, trace.final_rewards[g])
        if problems:
            raise AssertionError(f"{'; '.join(problems)}\n{describe_game(trace, g)}")
    return int(played.size)


def final_disagreements(state: State, g: int, ref: RefHand, rewards: np.ndarray) -> list[str]:
    """How the core's finished hand ``g`` differs from the finished reference hand (empty: none)."""
    if not ref.done:
        return ["the reference hand is not over"]
    revealed = -1 if ref.revealed is None else ref.revealed
    deck = state.deck[g].tolist()
    checks = {
        "winner": (int(state.winner[g]), ref.winner),
        "points": (int(state.points[g]), ref.points),
        "payoffs": (rewards.tolist(), ref.payoffs),
        "revealed card": (int(state.revealed[g]), revealed),
        "trick winners": (state.trick_winner[g].tolist(), ref.trick_winners),
        "trick cards": (state.trick_card[g].tolist(), ref.trick_winning_cards),
        "exchanged flags": (state.exchanged[g].tolist(), ref.exchanged),
        "stock": (deck[int(state.stock_top[g]) :], ref.stock),
    }
    played_up = state.played_up
    for seat in range(state.num_players):
        down = ref.cards_played(seat, face_down=True)
        checks[f"dealt to seat {seat}"] = (bits(state.dealt[g, seat]), set(ref.dealt[seat]))
        checks[f"face-down cards of seat {seat}"] = (bits(state.played_down[g, seat]), down)
        checks[f"face-down count of seat {seat}"] = (int(state.down_count[g, seat]), len(down))
        checks[f"face-up cards of seat {seat}"] = (
            bits(played_up[g, seat]),
            ref.cards_played(seat, face_down=False),
        )
        checks[f"hand set aside by seat {seat}"] = (
            bits(state.discarded[g, seat]),
            set(ref.set_aside[seat] or []),
        )
    return [
        f"{what}: core {core} != reference {want}"
        for what, (core, want) in checks.items()
        if core != want
    ]


def with_stock_options(variant: str, **options: object) -> Ruleset:
    """``variant`` with the weak-hand exchange and the stock reveal on, at the most players
    (4, 3 or 2) whose deal leaves a stock, plus ``options``."""
    from spar_env.rules import make_rules

    base = make_rules(variant)
    players = next(n for n in (4, 3, 2) if n * base.hand_size < base.deck_size)
    return make_rules(
        variant, players=players, weak_hand_exchange=True, reveal_stock_bottom=True, **options
    )
