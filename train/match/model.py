"""A model of one hand's outcome, the input of the match equity (:mod:`spar_train.match.equity`).

A match is many hands, and who wins it depends on little more than who wins
each hand, with how many points, and who deals (the winner deals the next
hand, and the seats after the dealer lead first). :class:`HandModel` holds
that as one table: ``probs[d, w, p - 1]``, the chance that when seat ``d``
deals, seat ``w`` wins the hand scoring ``p`` points. Hands are taken as
independent of the score: true of every agent that plays the hand for its own
payoff, an approximation for one that reads the score.

:func:`estimate_hand_model` fills the table from play: every deal of a seed
is played once with each seat dealing (duplicate deals), by the lineup seated
in order (repeated round the table when shorter). A lineup of one agent gives
a symmetric model, averaged over the dealers, since only the seat's place
after the dealer then matters.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from spar_env.rules import Ruleset


@dataclass(frozen=True)
class HandModel:
    """``probs[d, w, p - 1]``: when seat ``d`` deals, the chance seat ``w`` wins scoring ``p``."""

    probs: np.ndarray  # float64 [N, N, P]
    hands: int = 0  # hands the estimate was made from (0: given, not estimated)

    def __post_init__(self) -> None:
        p = np.asarray(self.probs, dtype=np.float64)
        if p.ndim != 3 or p.shape[0] != p.shape[1] or p.shape[0] < 2 or p.shape[2] < 1:
            raise ValueError(
                f"a hand model is [dealer, winner, points] for 2+ seats; got {p.shape}"
            )
        if (p < 0).any() or not np.allclose(p.sum(axis=(1, 2)), 1.0, atol=1e-9):
            raise ValueError("each dealer's row of a hand model must be chances that sum to 1")
        object.__setattr__(self, "probs", p)

    @property
    def players(self) -> int:
        return int(self.probs.shape[0])

    @property
    def max_points(self) -> int:
        return int(self.probs.shape[2])

    @classmethod
    def symmetric(cls, after_dealer: np.ndarray, hands: int = 0) -> HandModel:
        """The model of equal seats: ``after_dealer[k, p - 1]`` is the chance that the seat
        ``k`` places after the dealer (0: the dealer) wins scoring ``p``."""
        q = np.asarray(after_dealer, dtype=np.float64)
        n = q.shape[0]
        probs = np.stack([np.roll(q, d, axis=0) for d in range(n)])
        return cls(probs, hands)

    def symmetrised(self) -> HandModel:
        """The model averaged over the dealers, seat by place after the dealer."""
        n = self.players
        q = np.mean([np.roll(self.probs[d], -d, axis=0) for d in range(n)], axis=0)
        return HandModel.symmetric(q, self.hands)

    def win_chances(self) -> np.ndarray:
        """``float64 [N, N]``: when ``d`` deals, the chance ``w`` wins the hand."""
        return self.probs.sum(axis=2)

    def to_dict(self) -> dict[str, Any]:
        return {"players": self.players, "hands": self.hands, "probs": self.probs.tolist()}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> HandModel:
        """The model of :meth:`to_dict`. Raises ``ValueError`` for a malformed one."""
        try:
            return cls(np.array(data["probs"], dtype=np.float64), int(data.get("hands", 0)))
        except (KeyError, TypeError) as err:
            raise ValueError(f"not a hand model: {err}") from err


def require_match_end(rules: Ruleset) -> None:
    """Raise ``ValueError`` for an open session: hands follow one another, but nobody wins."""
    if rules.end_kind == "open":
        raise ValueError(
            f"{rules.variant} is an open session, so no one wins a match: "
            "give it an end (e.g. --set end=target:10, stones:K or hands:K)"
        )


def most_hands(rules: Ruleset) -> int | None:
    """The most hands a session of ``rules`` can last (``None`` for an open session).

    Every hand scores at least 1 point for its winner, so a match to ``target:T`` is over
    within ``N * (T - 1) + 1`` hands, ``stones:K`` within ``K`` hands and the one tie-break
    hand that follows an empty pool, ``hands:K`` after ``K``.
    """
    kind, value = rules.end_kind, rules.end_value or 0
    if kind == "open":
        return None
    return {"one_hand": 1, "target": rules.players * (value - 1) + 1, "stones": value + 1,
            "hands": value}[kind]  # fmt: skip


def lineup_seats(lineup: Sequence[str], players: int) -> list[str]:
    """The spec at each seat: the lineup in order, repeated round the table."""
    specs = [spec.strip() for spec in lineup]
    if not specs or len(specs) > players:
        raise ValueError(f"give 1 to {players} agent specs for {players} seats; got {len(specs)}")
    return [specs[s % len(specs)] for s in range(players)]


def estimate_hand_model(
    lineup: Sequence[str], rules: Ruleset, deals: int, seed: int = 0, *, chunk: int = 4096
) -> HandModel:
    """The hand model of ``lineup`` seated in order, from ``deals`` deals each dealt by every seat.

    Raises:
        ValueError: for a bad lineup or spec, or fewer than one deal.
    """
    from spar_agents import make_agent
    from spar_train.tournament import draw_deals, play_batch

    if deals < 1:
        raise ValueError(f"deals must be at least 1; got {deals}")
    n = rules.players
    seats = lineup_seats(lineup, n)
    specs = list(dict.fromkeys(seats))
    agents = [make_agent(spec, rules) for spec in specs]
    at = np.array([specs.index(s) for s in seats])
    counts = np.zeros((n, n, 1))
    for index, start in enumerate(range(0, deals, chunk)):
        count = min(chunk, deals - start)
        decks, _ = draw_deals(rules, seed, start, count)
        dealers = np.tile(np.arange(n), count)  # game k * N + d: deal k dealt by seat d
        outcome = play_batch(
            rules,
            agents,
            np.tile(at, (count * n, 1)),
            np.repeat(decks, n, axis=0),
            dealers,
            np.random.default_rng([seed, 4, index]),
        )
        top = int(outcome.points.max())
        if top > counts.shape[2]:
            counts = np.pad(counts, ((0, 0), (0, 0), (0, top - counts.shape[2])))
        np.add.at(counts, (dealers, outcome.winner, outcome.points - 1), 1)
    model = HandModel(counts / counts.sum(axis=(1, 2), keepdims=True), hands=deals * n)
    return model.symmetrised() if len(specs) == 1 else model
