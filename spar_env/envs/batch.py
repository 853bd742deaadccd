"""Episodes over the batch core: one hand, or a whole session, per episode.

Every environment adapter (AEC, single-agent, vector, self-play) drives the
core through a :class:`GameBatch`. It adds three things to the core and no
rules: what an episode is (``"hand"``: one hand; ``"session"``: hands follow
one another, the winner dealing, until the session ends), stepping only some
games of the batch, and the conversion of the env keyword arguments into a
ruleset.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from spar_env import core
from spar_env.core import State
from spar_env.core.bits import unpack_into
from spar_env.history import History, step_with_history
from spar_env.observation.per_game import ObservationLayout, layout_for, max_hand_points
from spar_env.rules import Ruleset, make_rules

EPISODES = ("hand", "session")


def env_rules(variant: str, num_players: int | None, options: dict[str, Any]) -> Ruleset:
    """The ruleset of an env: a preset, a player count (``None``: the preset's) and options."""
    if num_players is not None:
        options = {**options, "players": num_players}
    return make_rules(variant, **options)


def default_illegal_reward(rules: Ruleset) -> float:
    """The default penalty of an illegal move: one point worse than the worst hand."""
    return -float(max_hand_points(rules) + 1)


class GameBatch:
    """A batch of games whose episodes are hands or sessions.

    Args:
        rules: the ruleset every game follows.
        batch: number of games.
        rng: the only source of randomness (deals and first dealers).
        episode: ``"hand"`` (an episode ends with the hand) or ``"session"``
            (hands are dealt in turn, the winner dealing, until the ruleset's
            end of session; each hand pays its rewards when it ends).

    The core never resets a game: a game whose episode is over keeps
    ``state.terminated`` set and ignores actions until :meth:`restart`.
    """

    def __init__(
        self,
        rules: Ruleset,
        batch: int,
        rng: np.random.Generator,
        episode: str = "hand",
        *,
        track_history: bool = False,
    ) -> None:
        if episode not in EPISODES:
            raise ValueError(f"episode must be one of {', '.join(EPISODES)}; got {episode!r}")
        if episode == "session" and rules.end_kind == "open":
            raise ValueError(
                f"episode='session' needs a session that ends, but {rules.variant} has "
                "end='open'; pass end='target:10', 'stones:30', 'hands:5' or 'one_hand'"
            )
        self.rules = rules
        self.rng = rng
        self.episode = episode
        self.layout: ObservationLayout = layout_for(rules)
        self.state: State = core.reset(rules, batch, rng)
        self.rows = np.arange(batch)
        # The plays of each hand, for agents that reason about them (agent opponents).
        self.history: History | None = History(self.state) if track_history else None

    @property
    def batch_size(self) -> int:
        return self.state.batch_size

    @property
    def num_actions(self) -> int:
        return self.rules.num_actions

    def restart(self, games: np.ndarray | slice = slice(None)) -> None:
        """Start new episodes (new sessions, scores cleared) in ``games``."""
        core.start_sessions(self.state, games, self.rng)
        if self.history is not None:
            self.history.clear(games)

    def step(
        self, actions: np.ndarray, games: np.ndarray | None = None, *, check: bool = True
    ) -> np.ndarray:
        """Play one action in each live game (or only in the ``games`` mask).

        In session episodes, a hand that ends without ending its session is
        followed at once by the next hand, so that ``state.terminated`` means
        "the episode is over" in both kinds of episode.

        Returns:
            The payoffs of this step, a new ``float32 [B, N]`` array.

        Raises:
            ValueError: on an illegal action when ``check`` is on (from the core).
        """
        state = self.state
        before = state.terminated.copy() if self.episode == "session" else None
        rewards = step_with_history(state, actions, self.history, moving=games, check=check).copy()
        if before is not None:  # a session episode
            ended = state.terminated & ~before & ~state.session_over
            if ended.any():
                core.next_hand(state, np.flatnonzero(ended), self.rng)
                if self.history is not None:
                    self.history.clear(np.flatnonzero(ended))
        return rewards

    def masks(self, games: np.ndarray | None = None) -> np.ndarray:
        """Legal actions of the seat to move, ``bool [G, num_actions]`` (all False once over)."""
        legal = self.state.legal if games is None else self.state.legal[games]
        return unpack_into(legal, np.empty((legal.shape[0], self.num_actions), dtype=bool))
