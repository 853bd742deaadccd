"""How much a match-reward run's critic reads the score: the spread of its values over hands.

    python benchmarks/critic_score_spread.py runs/spar_match [--deals 4000] [--json]

With ``ppo.reward = "match"`` the critic predicts the change a hand makes to the seat's
chance of winning the match. Its mean is about 0 at every score (the chance is a
martingale), but its spread over hands is not: at 0-0-0-0 of 4-player spar to 10 a hand
moves a seat's chance by a few points, and at 9-9-9-9 it decides the match (+0.75 or
-0.25). A critic that reads the score gives values that spread much more widely at the
critical scores. The script deals the same ``--deals`` hands at several scores and
prints the standard deviation of the critic's value at the first decision, by the score
of the seat to move, beside the spread of the true stakes: the standard deviation of the
change of the mover's chance between winning and losing the hand for 1 point, from the
run's own equity table.
"""

from __future__ import annotations

import argparse
import json

import numpy as np
import torch

from spar_agents.ppo.agent import PPOAgent
from spar_env.core import reset
from spar_env.observation.universal import view_for
from spar_env.rules import make_rules
from spar_train.match.equity import EquityTable
from spar_train.match.reward import match_reward_table
from spar_train.ppo.sources.batch import hidden_hands
from spar_train.tournament import draw_deals

SCORES = ([0, 0, 0, 0], [5, 0, 0, 0], [9, 0, 0, 0], [9, 9, 9, 9])


def spread(run: str, deals: int, seed: int) -> list[dict]:
    rules = make_rules("spar", players=4, end="target:10")
    model = PPOAgent.from_path(rules, run).model
    view = view_for(rules)
    table = match_reward_table(rules, "onnx:universal", 500, seed)
    decks, dealers = draw_deals(rules, seed, 0, deals)
    games = np.arange(deals)
    rows = []
    for scores in SCORES:
        state = reset(rules, deals, np.random.default_rng(seed), decks=decks, dealers=dealers)
        state.scores[:] = scores
        seats = np.maximum(state.current_player, 0)
        obs = torch.from_numpy(view.encode(state, seats, games).copy())
        extra = None
        if model.privileged:
            extra = torch.from_numpy(view.hidden(hidden_hands(state, games, seats)))
        with torch.no_grad():
            values = model.value(obs, extra).numpy()
        mine = state.scores[games, seats]
        for score in sorted(set(mine.tolist())):
            at = mine == score
            rows.append({
                "scores": scores,
                "mover_score": score,
                "hands": int(at.sum()),
                "value_std": float(values[at].std()),
                "stake": _stake(table, scores, int(seats[at][0])),
            })  # fmt: skip
    return rows


def _stake(table: EquityTable, scores: list[int], seat: int) -> float:
    """The mover's chance after winning the hand for 1 point, less after another seat does."""
    chances = []
    for winner in range(len(scores)):
        after = np.array(scores)
        after[winner] = min(after[winner] + 1, table.target)
        if after[winner] >= table.target:
            chances.append(float(winner == seat))
        else:  # the winner deals the next hand
            chances.append(float(table.lookup(after[None], np.array([winner]))[0, seat]))
    others = [c for w, c in enumerate(chances) if w != seat]
    return chances[seat] - float(np.mean(others))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.partition("\n\n")[0])
    parser.add_argument("run", help="a PPO run folder trained with ppo.reward = match")
    parser.add_argument("--deals", type=int, default=4000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rows = spread(args.run, args.deals, args.seed)
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    print(
        f"{'scores':>12}  {'mover at':>8}  {'hands':>6}  {'value std':>9}  {'stake of 1 point':>16}"
    )
    for r in rows:
        scores = "-".join(map(str, r["scores"]))
        print(f"{scores:>12}  {r['mover_score']:>8}  {r['hands']:>6}  {r['value_std']:>9.4f}  "
              f"{r['stake']:>16.3f}")  # fmt: skip


if __name__ == "__main__":
    main()
