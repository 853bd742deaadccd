"""How a bot's play changes with the score: the share of decisions it takes differently, and
one worked example.

    python benchmarks/score_decisions.py --bot onnx:spar_match --deals 2000 \\
        --scores 0,0,0,0 --other 9,0,0,0 [--json]

Plays ``--deals`` hands of 4-player spar, every seat the bot, twice over: once
with the session scores ``--scores`` and once with ``--other`` (the same cards,
the same plays: the second table follows the first table's moves). At every
decision with a choice, it asks the bot what it would play at each score, and
counts the decisions where the two answers differ. The scores are those of the
absolute seats; the bot sees them from its own seat. It prints the share, and
the decision that differs most (the largest change of the bot's probabilities),
with the hand, the trick so far, the bot's probabilities at both scores and the
game record of the whole hand as played at ``--scores`` (``spar replay`` checks
it; the decision is ``plays[play_index]``).
"""

from __future__ import annotations

import argparse
import json

import numpy as np

from spar_agents import make_agent
from spar_env.core import reset
from spar_env.core.bits import popcount
from spar_env.history import History, step_with_history
from spar_env.records import replay
from spar_env.records.recorder import RecordWriter
from spar_env.rules import make_rules
from spar_env.situation import Situation
from spar_train.tournament import draw_deals


def compare(spec: str, deals: int, scores: list[int], other: list[int], seed: int) -> dict:
    rules = make_rules("spar", players=len(scores))
    bot = make_agent(spec, rules)
    decks, dealers = draw_deals(rules, seed, 0, deals)
    tables = []
    for given in (scores, other):
        state = reset(rules, deals, np.random.default_rng(seed), decks=decks, dealers=dealers)
        state.scores[:] = given  # what the observation shows; the play is the same
        tables.append((state, History(state)))
    rng = np.random.default_rng(seed)
    choices = differ = 0
    moved = 0.0  # the total variation between the two policies, summed over those decisions
    example, widest = None, 0.0
    payoffs = np.zeros((deals, rules.players))
    (first, first_history), (second, second_history) = tables
    while not first.terminated.all():
        games = np.flatnonzero(~first.terminated)
        a = bot.act(Situation(first, first_history, games), rng)
        b = bot.act(Situation(second, second_history, games), rng)
        choice = popcount(first.legal[games]) > 1
        changed = choice & (a.actions != b.actions)
        shift = 0.5 * np.abs(a.probs - b.probs).sum(axis=1)
        choices += int(choice.sum())
        differ += int(changed.sum())
        moved += float(shift[choice].sum())
        if changed.any() and shift[changed].max() > widest:
            k = int(np.flatnonzero(changed)[np.argmax(shift[changed])])
            widest = float(shift[k])
            example = _describe(rules, first, first_history, int(games[k]), a, b, k)
        actions = np.zeros(deals, dtype=np.int64)
        actions[games] = a.actions
        payoffs += step_with_history(first, actions, first_history)
        step_with_history(second, actions, second_history)
    if example is not None:
        example["policy_shift"] = round(widest, 3)
        example["record"] = _record(rules, first, first_history, example["game"], payoffs)
    return {
        "bot": spec,
        "deals": deals,
        "scores": scores,
        "other": other,
        "decisions_with_a_choice": choices,
        "decided_otherwise": differ,
        "share": differ / max(choices, 1),
        "mean_policy_shift": moved / max(choices, 1),
        "example": example,
    }


def _describe(rules, state, history, game: int, a, b, k: int) -> dict:
    seat = int(state.current_player[game])
    held = int(state.hands[game, seat])
    hand = [rules.card_name(c, unicode=True) for c in range(rules.num_card_ids) if held >> c & 1]
    plays = [
        f"seat {int(history.seats[game, i])} {rules.card_name(int(history.cards[game, i]), True)}"
        for i in range(int(history.count[game]))
    ]

    def top(probs):
        order = np.argsort(-probs[k])[:3]
        return {rules.card_name(int(c), unicode=True): round(float(probs[k, c]), 3)
                for c in order if probs[k, c] > 0}  # fmt: skip

    return {
        "game": game,
        "play_index": int(history.count[game]),
        "seat": seat,
        "dealer": int(state.dealer[game]),
        "trick": int(state.trick[game]) + 1,
        "hand": hand,
        "plays_so_far": plays,
        "at_scores": {"plays": rules.card_name(int(a.actions[k]), True), "probs": top(a.probs)},
        "at_other": {"plays": rules.card_name(int(b.actions[k]), True), "probs": top(b.probs)},
    }


def _record(rules, state, history, game: int, payoffs: np.ndarray) -> dict:
    """The game record of one finished hand, checked by replaying it."""
    plays = history.cards[game, : history.count[game]]
    down = history.down[game, : history.count[game]]
    out = RecordWriter(rules, with_stock=False).record(
        state, game, plays, down, np.rint(payoffs[game]).astype(np.int64)
    )
    replay(out)  # raises if the record and the rules disagree
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.partition("\n\n")[0])
    parser.add_argument("--bot", default="onnx:universal")
    parser.add_argument("--deals", type=int, default=2000)
    parser.add_argument("--scores", default="0,0,0,0")
    parser.add_argument("--other", default="9,0,0,0")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    scores = [int(x) for x in args.scores.split(",")]
    other = [int(x) for x in args.other.split(",")]
    out = compare(args.bot, args.deals, scores, other, args.seed)
    print(json.dumps(out, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
