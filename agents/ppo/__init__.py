"""PPO: the masked actor-critic, its loss and update, safe checkpoints, and the agent that plays it.

The run around the learner (rollouts, opponent pool, configs, logging) is in
:mod:`spar_train.ppo`; this package holds what a trained policy needs to play and
what one update needs to learn.
"""

from spar_agents.ppo.agent import PPOAgent
from spar_agents.ppo.network import ActorCritic, masked_logits

__all__ = ["ActorCritic", "PPOAgent", "masked_logits"]
