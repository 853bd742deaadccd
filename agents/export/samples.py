"""Real decisions to check and time a bot on: observations and masks from random self-play.

No torch: the speed benchmark and the parity test share it with the export.
"""

from __future__ import annotations

import numpy as np

from spar_env.envs import SelfPlay
from spar_env.observation.universal import view_for
from spar_env.rules import Ruleset

BATCH = 1024  # games played together


def self_play_observations(
    rules: Ruleset, count: int, seed: int = 0, v2: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """``count`` decisions of random self-play: ``(obs uint8 [count, D], mask bool [count, A])``.

    Every decision of the seat to move is kept, from the exchange (where it
    is on) to the last trick, over as many hands as it takes. With ``v2``, the
    observations and masks are those of observation v2 (:mod:`spar_env.observation.universal`).
    """
    games = SelfPlay(
        rules.variant, rules.players, batch_size=min(count, BATCH), seed=seed, **rules.options()
    )
    rng = np.random.default_rng(seed)
    obs, masks, taken = [], [], 0
    while taken < count:
        mask = games.action_mask
        if v2:
            view = view_for(rules)
            obs.append(view.encode(games.state, games.current_player))
            masks.append(view.mask(games.state.legal))
        else:
            obs.append(games.observation)
            masks.append(mask)
        taken += mask.shape[0]
        noise = np.where(mask, rng.random(mask.shape), -1.0)  # a uniformly random legal action
        games.step(noise.argmax(axis=1))
    return np.concatenate(obs)[:count], np.concatenate(masks)[:count]
