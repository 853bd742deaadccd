"""The tables of a sampled-CFR run as a file, and the agent that plays their average strategy.

A run of :class:`spar_agents.cfr.mccfr.ExternalSampling` is saved whole, so that it
can be played (``cfr:<path>``) and resumed:

File format (``.npz``, no pickles; ``np.load(..., allow_pickle=False)``):

============  ==================  ============================================
array         dtype / shape       meaning
============  ==================  ============================================
``regret``    float64 [rows]      cumulative weighted regret of each row
``strategy``  float64 [rows]      cumulative weighted strategy (the average)
``meta``      uint8 [bytes]       UTF-8 JSON: format, abstraction version,
                                  variant, players, options, batches, deals
                                  walked, and a SHA-256 of the arrays
============  ==================  ============================================
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from spar_agents.base import Decision, Situation
from spar_agents.cfr.abstraction import VERSION, card_abstraction
from spar_agents.cfr.mccfr import ExternalSampling, regret_matching, sample_slots
from spar_agents.cfr.policy import read_npz, rules_in_header, write_npz
from spar_env.rules import Ruleset

FORMAT = "spar-mccfr-tables/1"


@dataclass(frozen=True, eq=False)
class SampledPolicy:
    rules: Ruleset
    regret: np.ndarray  # float64 [rows]
    strategy: np.ndarray  # float64 [rows]
    info: dict[str, Any] = field(default_factory=dict)  # batches, deals walked, seed, ...

    @classmethod
    def of(cls, solver: ExternalSampling, **info: Any) -> SampledPolicy:
        counts = {
            "batches": solver.batches,
            "deals_walked": solver.deals_walked,
            "nodes": solver.nodes,
            "rng": solver.rng.bit_generator.state,  # to resume on the same hands
        }
        return cls(solver.rules, solver.regret, solver.strategy, {**counts, **info})

    def _checksum(self) -> str:
        h = hashlib.sha256(np.ascontiguousarray(self.regret).tobytes())
        h.update(np.ascontiguousarray(self.strategy).tobytes())
        return h.hexdigest()

    def save(self, path: str | os.PathLike) -> Path:
        """Write the tables atomically (a temporary file in the same folder, then a rename)."""
        path = Path(path)
        meta = {
            "format": FORMAT,
            "abstraction": VERSION,
            "variant": self.rules.variant,
            "players": self.rules.players,
            "options": self.rules.options(),
            "sha256": self._checksum(),
            **self.info,
        }
        return write_npz(path, meta, regret=self.regret, strategy=self.strategy)

    def restore(self, solver: ExternalSampling) -> None:
        """Put the saved tables and counts back into a fresh solver of the same rules."""
        if solver.rules != self.rules:
            raise ValueError(
                f"these tables are for {self.rules.variant}, not {solver.rules.variant}"
            )
        try:
            counts = [int(self.info.get(k, 0)) for k in ("batches", "deals_walked", "nodes")]
            if "rng" in self.info:
                solver.rng.bit_generator.state = self.info["rng"]
        except (TypeError, ValueError, KeyError) as e:
            raise ValueError(f"these tables' counters cannot be resumed from ({e})") from None
        solver.regret[:] = self.regret
        solver.strategy[:] = self.strategy
        solver.batches, solver.deals_walked, solver.nodes = counts


def read_meta(path: str | os.PathLike) -> dict[str, Any]:
    """The JSON header of a policy file of either kind (``format`` tells which)."""
    return read_npz(path)[1]


def load_sampled(path: str | os.PathLike, rules: Ruleset | None = None) -> SampledPolicy:
    """Load and check the tables of a sampled-CFR run.

    Raises:
        ValueError: the file is truncated, altered, of another format or
            abstraction version, or for another ruleset than ``rules``.
    """
    arrays, meta = read_npz(path)
    if meta.get("format") != FORMAT:
        raise ValueError(f"{path}: format {meta.get('format')!r}, expected {FORMAT!r}")
    if type(meta.get("abstraction")) is not int or meta["abstraction"] != VERSION:  # true == 1
        raise ValueError(
            f"{path}: made with abstraction version {meta.get('abstraction')}, "
            f"this code reads version {VERSION}"
        )
    file_rules = rules_in_header(path, meta)
    if rules is not None and file_rules != rules:
        raise ValueError(
            f"{path}: tables for {meta['variant']} with {meta['players']} players "
            f"and options {meta['options']}, not {rules.variant} with {rules.players}"
        )
    if set(arrays) != {"regret", "strategy"}:
        raise ValueError(f"{path}: not a sampled-CFR file (arrays {sorted(arrays)})")
    regret, strategy = arrays["regret"], arrays["strategy"]
    rows = card_abstraction(file_rules).num_rows
    for name, a in (("regret", regret), ("strategy", strategy)):
        if a.dtype != np.float64 or a.shape != (rows,):
            raise ValueError(f"{path}: {name} is {a.dtype} {a.shape}, expected float64 ({rows},)")
    info = {
        k: v
        for k, v in meta.items()
        if k not in ("format", "abstraction", "variant", "players", "options", "sha256")
    }
    policy = SampledPolicy(file_rules, regret, strategy, info)
    if policy._checksum() != meta.get("sha256"):
        raise ValueError(f"{path}: checksum mismatch: the arrays were altered")
    return policy


class SampledCFRAgent:
    """Plays a sampled-CFR run's strategy (spec ``cfr:<path>`` of such a file).

    By default it plays the *current* strategy (regret matching on the final
    regrets), as Pluribus's blueprint does past its first betting round
    (Brown and Sandholm, 2019): on an abstraction the average lags behind
    it (``benchmarks/README.md`` has the figures). ``average=True`` plays the
    average strategy; ``greedy=True`` plays the most likely card.
    """

    def __init__(self, policy: SampledPolicy, greedy: bool = False, average: bool = False) -> None:
        self.policy = policy
        self.abstraction = card_abstraction(policy.rules)
        self.greedy = greedy
        self.table = policy.strategy if average else policy.regret

    def act(self, situation: Situation, rng: np.random.Generator) -> Decision:
        if situation.rules != self.policy.rules:
            raise ValueError(
                f"these tables are for {self.policy.rules.variant}, not {situation.rules.variant}"
            )
        cards, rows = self.abstraction.rows(situation)
        sigma = regret_matching(self.table, cards, rows)
        slot = np.argmax(sigma, axis=1) if self.greedy else sample_slots(sigma, rng)
        g = np.arange(situation.size)
        probs = np.zeros((situation.size, situation.rules.num_actions), dtype=np.float32)
        np.add.at(probs, (g[:, None], np.maximum(cards, 0)), np.where(cards >= 0, sigma, 0))
        return Decision(actions=cards[g, slot], probs=probs)
