"""External-sampling Monte Carlo CFR over the batch core, on the rows of a card abstraction.

Each call to :meth:`ExternalSampling.step` deals ``deals`` hands and walks
every one of them at once, level by level, with :func:`spar_env.core.step`
itself (no second copy of the rules). In each hand one seat is the
*traverser* (the seats take turns across hands):

- at the traverser's decisions every legal card is tried (the game is copied
  with :meth:`~spar_env.core.State.take`);
- at everyone else's, one card is drawn from the current strategy, and that
  strategy is added to the average;
- the deal is the chance sample.

Going back up, each tried card's regret grows by its value minus the
decision's value. The current strategy is regret matching over the
abstraction's rows (:mod:`spar_agents.cfr.abstraction`); cards that share a row
split its weight. Both the regrets and the average are weighted by the
batch number (linear CFR), which forgets the early, poor strategies faster.

With a ``model`` (an agent, such as ``heuristic``) and ``model_share`` p, in
a share p of the hands every seat but the traverser plays the model instead
(and adds nothing to the average): a restricted Nash response (Johanson,
Zinkevich and Bowling, 2007, "Computing Robust Counter-Strategies"). The
traverser then learns to beat a mix of the model and of itself, which
exploits the model while staying hard to exploit: p = 0 is plain MCCFR,
and p near 1 nears a best response to the model (p = 1 would leave no
hands to build the average from).

External sampling is the method of Lanctot et al. (2009), "Monte Carlo
Sampling for Regret Minimization in Extensive Games"; linear weighting is
from Brown and Sandholm (2019). With more than two players it has no
equilibrium guarantee, but the same updates apply.
"""

from __future__ import annotations

import numpy as np

from spar_agents.base import Agent
from spar_agents.cfr.abstraction import CardAbstraction, InfosetRows, card_abstraction
from spar_env.core import reset
from spar_env.history import History, step_with_history
from spar_env.rules import Ruleset
from spar_env.situation import Situation


def regret_matching(table: np.ndarray, cards: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """``float64 [G, H]`` each decision's strategy over its card slots (cards -1: unused).

    A card's weight is its row's positive regret (or average weight) divided
    by how many of the decision's cards share the row; a decision with no
    positive weight (or no rows: a forced move) plays its cards uniformly.
    """
    valid = cards >= 0
    share = (rows[:, :, None] == rows[:, None, :]).sum(axis=2)
    weight = np.where(rows >= 0, np.maximum(table[np.maximum(rows, 0)], 0.0) / share, 0.0)
    total = weight.sum(axis=1, keepdims=True)
    uniform = valid / np.maximum(valid.sum(axis=1, keepdims=True), 1)
    return np.where(total > 0, weight / np.where(total > 0, total, 1.0), uniform)


def sample_slots(probs: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """``int64 [G]`` one slot per row of ``probs`` (never a slot of probability 0)."""
    cum = probs.cumsum(axis=1)
    draw = rng.random(probs.shape[0])[:, None] * cum[:, -1:]
    return np.argmax(cum > draw, axis=1)


class ExternalSampling:
    """External-sampling MCCFR with linear weighting, on ``rules`` and its card abstraction.

    Attributes:
        regret: ``float64 [rows]`` cumulative weighted regret of each row.
        strategy: ``float64 [rows]`` cumulative weighted current strategy (the average policy).
        batches: batches of hands walked so far; ``deals_walked`` counts the hands.
        nodes: decisions visited so far (every seat's, forced moves included).
    """

    def __init__(
        self,
        rules: Ruleset,
        *,
        seed: int = 0,
        deals: int = 512,
        abstraction: CardAbstraction | InfosetRows | None = None,
        model: Agent | None = None,
        model_share: float = 0.0,
    ) -> None:
        if deals < 1:
            raise ValueError(f"deals must be at least 1, got {deals}")
        if not 0 <= model_share < 1 or (model_share > 0 and model is None):
            raise ValueError(f"model_share must be in [0, 1), with a model; got {model_share}")
        self.rules = rules
        self.abstraction = abstraction or card_abstraction(rules)
        self.deals = deals
        self.model, self.model_share = model, model_share
        self.regret = np.zeros(self.abstraction.num_rows)
        self.strategy = np.zeros(self.abstraction.num_rows)
        self.rng = np.random.default_rng(seed)
        self.batches = 0
        self.deals_walked = 0
        self.nodes = 0

    def step(self, batches: int = 1) -> None:
        """Walk ``batches`` batches of ``deals`` hands each."""
        for _ in range(batches):
            self._walk()

    def _walk(self) -> None:
        rules, n = self.rules, self.rules.players
        weight = float(self.batches + 1)
        state = reset(rules, self.deals, self.rng)
        history = History(state)
        traverser = (np.arange(self.deals) + self.deals_walked) % n
        modelled = self.rng.random(self.deals) < self.model_share  # the others play the model
        levels = []  # per level: (parent, edge weight, regret row, share, terminal value)
        while state.batch_size:
            situation = Situation(state, history, np.arange(state.batch_size))
            cards, rows = self.abstraction.rows(situation)
            sigma = regret_matching(self.regret, cards, rows)
            valid = cards >= 0
            choice = valid.sum(axis=1) > 1
            mine = situation.seats == traverser
            others = ~mine & choice & ~modelled
            np.add.at(
                self.strategy, rows[others][valid[others]], weight * sigma[others][valid[others]]
            )
            drawn = sample_slots(sigma, self.rng)
            asked = np.flatnonzero(~mine & choice & modelled)
            if asked.size:
                told = self.model.act(Situation(state, history, asked), self.rng).actions
                drawn[asked] = np.argmax(cards[asked] == told[:, None], axis=1)
            tried = valid & (mine[:, None] | (np.arange(valid.shape[1]) == drawn[:, None]))
            parent, slot = np.nonzero(tried)
            child = state.take(parent)
            child_history = history.take(parent)
            actions = cards[parent, slot]
            step_with_history(child, actions, child_history, check=False)
            learn = mine[parent] & choice[parent]
            share = (rows[parent] == rows[parent, slot][:, None]).sum(axis=1)
            done = child.terminated
            value = child.rewards[np.arange(parent.shape[0]), traverser[parent]].astype(np.float64)
            levels.append(
                (
                    parent,
                    np.where(mine[parent], sigma[parent, slot], 1.0),
                    np.where(learn, rows[parent, slot], -1),
                    share,
                    np.where(done, value, np.nan),
                )
            )
            self.nodes += state.batch_size
            state, history = child, child_history
            traverser, modelled = traverser[parent], modelled[parent]
            if done.any():  # in most rulesets every hand ends at the same depth
                live = np.flatnonzero(~done)
                state, history = state.take(live), history.take(live)
                traverser, modelled = traverser[live], modelled[live]
        self._back_up(levels, weight)
        self.batches += 1
        self.deals_walked += self.deals

    def _back_up(self, levels: list, weight: float) -> None:
        """From the leaves up: each decision's value, and the regret of each tried card."""
        below = np.zeros(0)  # values of the live children of the level under this one
        for parent, edge, row, share, terminal in reversed(levels):
            value = terminal.copy()
            live = np.isnan(value)
            value[live] = below
            size = int(parent.max(initial=-1)) + 1
            node = np.bincount(parent, weights=edge * value, minlength=size)
            learn = row >= 0
            np.add.at(
                self.regret,
                row[learn],
                weight * (value[learn] - node[parent[learn]]) / share[learn],
            )
            below = node

    def average(self) -> np.ndarray:
        """``float64 [rows]`` the average strategy's weight of each row (unnormalised)."""
        return self.strategy
