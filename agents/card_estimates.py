"""What a search knows of each legal card at one decision: its payoff in every believed world.

:meth:`spar_agents.search.SearchAgent.card_estimates` values every legal card of a decision in
the same believed worlds (the search's steps 1 to 4); :class:`CardEstimates` keeps those
values world by world, so that a reader gets more than the means the search plays by:

- :attr:`CardEstimates.mean`: each card's mean payoff, weighted by how many times the belief
  drew each world: exactly what the search chooses from (:meth:`SearchAgent.card_values`);
- :attr:`CardEstimates.stderr`: the standard error of that mean;
- :meth:`CardEstimates.gap`: the difference between two cards and its standard error, paired
  world by world (both cards were valued in the same worlds, so the worlds' luck cancels);
- :attr:`CardEstimates.ends`: with ``leaf=rollout``, how the hand ended after each card in
  each world (who won it, for how many points, and the session's scores after it; who led
  and won the last trick, and the deciding seat's card in it), for a reader that values the
  hand by more than its payoff (a match's chances, ``spar review``'s reasons);
- :func:`joined`: the estimates of one decision from two batches of worlds, as one (a
  reader that needs more worlds draws another batch with another seed).

The standard errors treat the ``W`` draws as independent. The belief's resampling draws some
worlds more than once, and those copies are not independent draws, so the errors are an
approximation, on the small side when few distinct worlds carry the weight.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from spar_env.core import State


@dataclass(frozen=True)
class HandEnds:
    """How the hand ended after each legal card in each world (``-1`` / 0 for illegal cards)."""

    winner: np.ndarray  # int64 [W, C] seat that won the hand
    points: np.ndarray  # int64 [W, C] points it scored
    scores: np.ndarray  # int64 [W, C, N] session points after the hand
    stones: np.ndarray  # int64 [W, C, N] stones held after the hand
    hands_played: np.ndarray  # int64 [W, C] hands finished in the session after it
    session_over: np.ndarray  # bool [W, C] the hand ended the session
    session_winner: np.ndarray  # int64 [W, C] who won the session then, -1 for none
    last_leader: np.ndarray  # int64 [W, C] seat that led the last trick (-1: one-trick hands)
    last_winner: np.ndarray  # int64 [W, C] seat that won the last trick
    last_card: np.ndarray  # int64 [W, C] the deciding seat's card in the last trick

    @staticmethod
    def of(
        games: State, worlds: int, cards: np.ndarray, num_cards: int, last_card: np.ndarray
    ) -> HandEnds:
        """The ends of finished ``games``: world-major, one game per legal card in ``cards``
        (``last_card``: the deciding seat's card in each game's last trick)."""
        n, h = games.num_players, games.trick_winner.shape[1]
        leaders = (games.trick_winner[:, h - 2].astype(np.int64) if h > 1
                   else np.full(games.batch_size, -1))  # fmt: skip
        shape = (worlds, num_cards)

        def spread(values: np.ndarray, fill: int | bool, extra: tuple[int, ...] = ()) -> np.ndarray:
            out = np.full(shape + extra, fill, dtype=values.dtype)
            out[:, cards] = values.reshape((worlds, cards.size) + extra)
            return out

        return HandEnds(
            winner=spread(games.winner, -1),
            points=spread(games.points, 0),
            scores=spread(games.scores, 0, (n,)),
            stones=spread(games.stones, 0, (n,)),
            hands_played=spread(games.hands_played, 0),
            session_over=spread(games.session_over, False),
            session_winner=spread(games.session_winner, -1),
            last_leader=spread(leaders, -1),
            last_winner=spread(games.trick_winner[:, h - 1].astype(np.int64), -1),
            last_card=spread(np.asarray(last_card, dtype=np.int64), -1),
        )


@dataclass(frozen=True)
class CardEstimates:
    """One decision's legal cards, valued in each of the search's believed worlds."""

    values: np.ndarray  # float64 [W, C] payoff to the deciding seat of each card (0 if illegal)
    counts: np.ndarray  # int64 [W] how many times the belief drew each world
    legal: np.ndarray  # bool [C] the deciding seat's legal cards
    ends: HandEnds | None = None  # how each rollout ended (None for leaf=solve)

    @property
    def draws(self) -> int:
        """Worlds drawn, counting each world as often as it was drawn."""
        return int(self.counts.sum())

    @property
    def mean(self) -> np.ndarray:
        """``float64 [C]``: each legal card's mean payoff over the drawn worlds (-inf if illegal)."""
        return np.where(self.legal, self.average(self.values), -np.inf)

    @property
    def stderr(self) -> np.ndarray:
        """``float64 [C]``: the standard error of each legal card's mean (inf if illegal, or
        from a single draw, which says nothing of its spread)."""
        return np.where(self.legal, self.spread(self.values), np.inf)

    def gap(self, better: int, worse: int) -> tuple[float, float]:
        """``(mean, stderr)`` of card ``better``'s payoff less card ``worse``'s, world by world."""
        if not (self.legal[better] and self.legal[worse]):
            raise ValueError(f"cards {better} and {worse} must both be legal")
        difference = self.values[:, better] - self.values[:, worse]
        return float(self.average(difference)), float(self.spread(difference))

    def average(self, per_world: np.ndarray) -> np.ndarray:
        """The mean of ``per_world`` (``[W, ...]``) over the drawn worlds."""
        weights = self.counts.astype(np.float64)
        weights = weights.reshape(weights.shape + (1,) * (per_world.ndim - 1))
        return (per_world * weights).sum(axis=0) / self.draws

    def spread(self, per_world: np.ndarray) -> np.ndarray:
        """The standard error of :meth:`average` (inf from a single draw)."""
        n = self.draws
        if n < 2:
            return np.full(per_world.shape[1:], np.inf)
        weights = self.counts.astype(np.float64)
        weights = weights.reshape(weights.shape + (1,) * (per_world.ndim - 1))
        deviation = per_world - self.average(per_world)
        variance = (weights * deviation**2).sum(axis=0) / (n - 1)
        return np.sqrt(variance / n)


def joined(first: CardEstimates, second: CardEstimates) -> CardEstimates:
    """One decision's estimates from two batches of worlds (drawn apart, valued alike), as if
    one batch had drawn them all: the worlds of both, each with its count."""
    if not np.array_equal(first.legal, second.legal):
        raise ValueError("estimates of different decisions cannot be joined")
    ends = None
    if first.ends is not None and second.ends is not None:
        ends = HandEnds(**{name: np.concatenate([getattr(first.ends, name),
                                                  getattr(second.ends, name)])
                           for name in HandEnds.__dataclass_fields__})  # fmt: skip
    return CardEstimates(
        np.concatenate([first.values, second.values]),
        np.concatenate([first.counts, second.counts]),
        first.legal,
        ends,
    )
