"""The masked actor-critic: a policy over legal cards and a value of the seat's payoff.

The actor and the critic are separate MLPs. The actor reads one seat's
observation (:mod:`spar_env.observation.per_game`) and nothing else, so a trained policy
can never depend on a hidden card. The critic reads the same observation and,
when ``privileged`` is on, the hands of every other seat as well (relative
to the observer), as in PerfectDou's perfect-information distillation: it is
used only to train, never to play.

Illegal actions get the logit :data:`ILLEGAL_LOGIT`, a large finite number,
so that a row whose mask is all False (a game whose episode just ended)
gives finite log-probabilities instead of NaNs; its entropy, taken over legal
actions only, is 0.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch
from torch import nn

from spar_agents.ppo.score_inputs import WIDTH as SCORE_WIDTH
from spar_agents.ppo.score_inputs import ScoreInputs
from spar_env.observation.universal import OBS_V2_SIZE

ILLEGAL_LOGIT = -1e9


def mlp(inputs: int, hidden: Sequence[int], outputs: int, out_gain: float) -> nn.Sequential:
    """Tanh MLP with orthogonal initialisation (the usual PPO recipe)."""
    layers: list[nn.Module] = []
    width = inputs
    for h in hidden:
        linear = nn.Linear(width, h)
        nn.init.orthogonal_(linear.weight, gain=np.sqrt(2))
        nn.init.zeros_(linear.bias)
        layers += [linear, nn.Tanh()]
        width = h
    head = nn.Linear(width, outputs)
    nn.init.orthogonal_(head.weight, gain=out_gain)
    nn.init.zeros_(head.bias)
    layers.append(head)
    return nn.Sequential(*layers)


def masked_logits(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """``logits`` with every illegal action (``mask`` False) set to :data:`ILLEGAL_LOGIT`."""
    return logits.masked_fill(~mask, ILLEGAL_LOGIT)


def legal_entropy(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Entropy of the masked policy, over legal actions only: ``float [G]``."""
    return entropy_of(torch.log_softmax(logits, dim=-1), ~mask)


def entropy_of(logp: torch.Tensor, illegal: torch.Tensor) -> torch.Tensor:
    """:func:`legal_entropy` from the log-softmax ``logp`` and the mask's complement."""
    return -(logp.exp() * logp).masked_fill(illegal, 0.0).sum(-1)


class ActorCritic(nn.Module):
    """Separate actor and critic MLPs over observation vectors.

    Args:
        obs_high: ``[D]`` the upper bound of each observation entry; inputs are
            divided by it, so every feature lies in ``[0, 1]``.
        num_actions: size of the action space (cards, plus KEEP/EXCHANGE).
        hidden: widths of the hidden layers of each network.
        privileged: width of the critic's extra input (0: none).
        score_inputs: also read the points each seat still needs
            (:mod:`spar_agents.ppo.score_inputs`; observation v2 only).
    """

    obs_scale: torch.Tensor

    def __init__(
        self,
        obs_high: np.ndarray,
        num_actions: int,
        hidden: Sequence[int] = (256, 256),
        privileged: int = 0,
        score_inputs: bool = False,
    ) -> None:
        super().__init__()
        scale = 1.0 / np.maximum(np.asarray(obs_high, dtype=np.float32), 1.0)
        self.register_buffer("obs_scale", torch.as_tensor(scale))
        self.obs_size = int(scale.shape[0])
        self.num_actions = int(num_actions)
        self.privileged = int(privileged)
        self.score_inputs = ScoreInputs() if score_inputs else None
        if score_inputs and self.obs_size != OBS_V2_SIZE:
            raise ValueError("score inputs read observation v2 (a game mix's network)")
        self.actor_width = self.obs_size + (SCORE_WIDTH if score_inputs else 0)
        self.actor = mlp(self.actor_width, hidden, self.num_actions, out_gain=0.01)
        self.critic = mlp(self.actor_width + self.privileged, hidden, 1, out_gain=1.0)

    @property
    def device(self) -> torch.device:
        """Where the network's weights are (:mod:`spar_agents.ppo.device`)."""
        return self.obs_scale.device

    def inputs_here(self, array: np.ndarray) -> torch.Tensor:
        """``array`` as a tensor on the network's device (shared with it on the CPU)."""
        return torch.from_numpy(array).to(self.device)

    def features(self, obs: torch.Tensor) -> torch.Tensor:
        """``float [G, actor_width]``: the scaled observation, then any score inputs."""
        x = obs.to(torch.float32) * self.obs_scale
        if self.score_inputs is None:
            return x
        return torch.cat([x, self.score_inputs(obs)], dim=-1)

    def critic_input(self, obs: torch.Tensor, extra: torch.Tensor | None = None) -> torch.Tensor:
        """``float [G, W + E]``: the features, then the privileged extra input if any.

        Its first ``W`` (:attr:`actor_width`) columns are the actor's input, so a learner converts the
        observations once and feeds both networks from this one tensor.
        """
        x = self.features(obs)
        if not self.privileged:
            return x
        if extra is None:
            raise ValueError("this critic is privileged: pass the other seats' hands")
        return torch.cat([x, extra.to(torch.float32)], dim=-1)

    def policy_logits(self, obs: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """Masked logits ``[G, A]`` from the observation alone."""
        return masked_logits(self.actor(self.features(obs)), mask)

    def value(self, obs: torch.Tensor, extra: torch.Tensor | None = None) -> torch.Tensor:
        """The critic's estimate of the seat's (scaled) payoff, ``[G]``."""
        return self.critic(self.critic_input(obs, extra)).squeeze(-1)

    def logits_and_value(
        self, inputs: torch.Tensor, illegal: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Both heads from :meth:`critic_input`'s tensor: masked logits ``[G, A]``
        (``illegal`` is the mask's complement) and values ``[G]``."""
        logits = self.actor(inputs[:, : self.actor_width]).masked_fill(illegal, ILLEGAL_LOGIT)
        return logits, self.critic(inputs).squeeze(-1)
