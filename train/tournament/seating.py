"""Seating and deals of the duplicate-deal tournament (:mod:`spar_train.tournament`): who holds
which seat in each rotation, and deal ``i`` of a seed, the same however many are asked for."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from spar_env.core import shuffle_decks, tables_for
from spar_env.rules import Ruleset

DEAL_BLOCK = 1024  # deals drawn from one generator: deal i depends only on (seed, i)


@dataclass(frozen=True)
class Seating:
    """Which agent sits where, in each rotation of one deal."""

    agents: tuple[str, ...]  # distinct specs, in lineup order
    table: np.ndarray  # int64 [R, N] index into agents of the agent at each seat, per rotation

    @property
    def rotations(self) -> int:
        return int(self.table.shape[0])

    @property
    def seats(self) -> np.ndarray:
        """``int64 [A]`` seats each agent holds at the table (the same in every rotation)."""
        return np.bincount(self.table[0], minlength=len(self.agents))


def seating(lineup: Sequence[str], players: int) -> Seating:
    """Seat ``lineup`` at ``players`` seats and list the distinct rotations (module docstring).

    Raises:
        ValueError: for a lineup longer than the table or with fewer than two agents.
    """
    specs = [spec.strip() for spec in lineup]
    if len(specs) > players:
        raise ValueError(
            f"a lineup of {len(specs)} agents does not fit {players} seats; "
            f"give at most {players} agent specs (or raise --players)"
        )
    agents = tuple(dict.fromkeys(specs))
    if len(agents) < 2:
        raise ValueError(f"a tournament needs at least two different agents; got {specs}")
    pattern = np.array([agents.index(specs[s % len(specs)]) for s in range(players)])
    rotations: list[tuple[int, ...]] = []
    for r in range(players):
        row = tuple(np.roll(pattern, r).tolist())
        if row not in rotations:
            rotations.append(row)
    return Seating(agents=agents, table=np.array(rotations, dtype=np.int64))


def draw_deals(rules: Ruleset, seed: int, start: int, count: int) -> tuple[np.ndarray, np.ndarray]:
    """Deals ``start .. start+count-1`` of ``seed``: ``(decks int8 [count, deck], dealers [count])``."""
    t = tables_for(rules)
    decks, dealers = [], []
    for block in range(start // DEAL_BLOCK, (start + count - 1) // DEAL_BLOCK + 1):
        rng = np.random.default_rng([seed, 0, block])
        block_decks = shuffle_decks(t, DEAL_BLOCK, rng)
        if rules.first_dealer is None:
            block_dealers = rng.integers(0, rules.players, DEAL_BLOCK)
        else:
            block_dealers = np.full(DEAL_BLOCK, rules.first_dealer, dtype=np.int64)
        lo = max(start - block * DEAL_BLOCK, 0)
        hi = min(start + count - block * DEAL_BLOCK, DEAL_BLOCK)
        decks.append(block_decks[lo:hi])
        dealers.append(block_dealers[lo:hi])
    return np.concatenate(decks), np.concatenate(dealers).astype(np.int64)
