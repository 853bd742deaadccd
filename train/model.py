"""The network and the reward scale a config asks for: what the learner and every collector
(local or on Ray actors) build alike from ``[model]``, ``[ppo]`` and the rules."""

from __future__ import annotations

import torch

from spar_agents.ppo.network import ActorCritic
from spar_env.observation.per_game import layout_for, max_hand_points
from spar_env.rules import Ruleset
from spar_train.sections import Config


def reward_scale(config: Config, rules: Ruleset) -> float:
    """Payoffs times this lie in [-1, 1]: 1 / the largest payoff one seat can receive."""
    if config.ppo.reward_scale > 0:
        return config.ppo.reward_scale
    return 1.0 / (max_hand_points(rules) * max(rules.players - 1, 1))


def build_model(config: Config, rules: Ruleset, device: torch.device | None = None) -> ActorCritic:
    """The network of ``[model]``: for ``rules``, or on observation v2 for a ``game.mix``;
    on ``device`` when given (initialised on the CPU first, so its weights are the same
    for a seed wherever it runs)."""
    if config.game.mix:
        from spar_env.observation.universal import HIDDEN_V2, NUM_ACTIONS_V2, OBS_V2_HIGH

        extra = HIDDEN_V2 if config.model.privileged_critic else 0
        model = ActorCritic(OBS_V2_HIGH, NUM_ACTIONS_V2, tuple(config.model.hidden), extra,
                            score_inputs=config.model.score_inputs)  # fmt: skip
    else:
        hidden = tuple(config.model.hidden)
        privileged = (
            (rules.players - 1) * rules.num_card_ids if config.model.privileged_critic else 0
        )
        model = ActorCritic(layout_for(rules).high, rules.num_actions, hidden, privileged)
    return model if device is None else model.to(device)
