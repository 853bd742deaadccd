"""The agent that plays a PPO policy from a checkpoint: ``ppo:runs/<name>`` or ``ppo:<file>``.

A checkpoint records the game it was trained for (variant, player count,
options, observation version and size, action count); asked to play another
game, the agent refuses with a message naming both. It reads only the
observation and the legal mask of each decision. By default it plays the
most likely legal card (``greedy``); ``ppo:path=...,greedy=false`` samples
from the policy with the ``rng`` it is given.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np
import torch

from agents.answers import check_answer
from agents.base import Decision, Situation
from agents.ppo.checkpoint import CheckpointError, load_checkpoint
from agents.ppo.checkpoint_names import CHECKPOINT_DIR, list_checkpoints
from agents.ppo.network import ActorCritic
from agents.signature import describe, game_signature, rules_of
from spar_env.observe import layout_for
from spar_env.rules import Ruleset


def check_game(signature: dict[str, Any], rules: Ruleset, where: str) -> None:
    """Raise :class:`CheckpointError` unless the checkpoint was made for ``rules``."""
    wanted = game_signature(rules)
    if signature != wanted:
        raise CheckpointError(
            f"{where} was trained for {describe(signature)}, but this game is {describe(wanted)}"
        )


def latest_checkpoint(path: str | os.PathLike) -> Path:
    """``path`` itself if it is a file, else the newest checkpoint of the run folder ``path``.

    Raises:
        CheckpointError: if there is no such file or run, or the run has no checkpoint yet.
    """
    path = Path(path)
    if path.is_file():
        return path
    if not path.is_dir():
        raise CheckpointError(f"{path}: no such checkpoint file or run folder")
    found = list_checkpoints(path / CHECKPOINT_DIR)
    if not found:
        raise CheckpointError(f"{path}: the run has no checkpoint in {path / CHECKPOINT_DIR}")
    return found[-1]


def model_from(checkpoint: dict[str, Any]) -> ActorCritic:
    """The network a checkpoint describes, with its weights loaded."""
    spec = checkpoint["model"]
    rules = rules_of(checkpoint["game"])
    model = ActorCritic(
        layout_for(rules).high,
        rules.num_actions,
        hidden=tuple(spec["hidden"]),
        privileged=int(spec["privileged"]),
    )
    model.load_state_dict(checkpoint["weights"])
    model.eval()
    return model


class PPOAgent:
    """Plays the actor of a PPO checkpoint (see the module docstring)."""

    def __init__(
        self, rules: Ruleset, model: ActorCritic, greedy: bool = True, where: str = "ppo"
    ) -> None:
        if not isinstance(greedy, bool):
            raise ValueError(f"ppo: greedy must be true or false; got {greedy!r}")
        self.rules = rules
        self.model = model
        self.greedy = greedy
        self.where = where  # names the bot when its answer is not a probability

    @classmethod
    def from_path(cls, rules: Ruleset, path: str | os.PathLike, greedy: bool = True) -> PPOAgent:
        file = latest_checkpoint(path)
        checkpoint = load_checkpoint(file)
        try:
            signature = checkpoint["game"]
            check_game(signature, rules, str(file))
            model = model_from(checkpoint)
        except (KeyError, TypeError, RuntimeError, ValueError) as e:
            reason = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
            raise CheckpointError(f"{file}: not a PPO policy checkpoint ({reason})") from None
        if not all(torch.isfinite(p).all() for p in model.parameters()):
            raise CheckpointError(
                f"{file}: the network's weights are not finite (the run diverged); "
                "use an earlier checkpoint"
            )
        return cls(rules, model, greedy, where=f"ppo:{path}")

    def act(self, situation: Situation, rng: np.random.Generator) -> Decision:
        probs = policy_probs(self.model, situation.obs, situation.mask)
        check_answer(probs, situation.mask, self.where)
        actions = probs.argmax(axis=1) if self.greedy else sample_actions(probs, rng)
        return Decision(actions.astype(np.int64), probs)


def policy_probs(model: ActorCritic, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """``float32 [G, A]``: the masked policy (exactly 0 on illegal actions)."""
    with torch.no_grad():
        mask_t = torch.from_numpy(np.ascontiguousarray(mask))
        logits = model.policy_logits(torch.from_numpy(np.ascontiguousarray(obs)), mask_t)
        probs = torch.softmax(logits, dim=-1).masked_fill(~mask_t, 0.0)
    return probs.numpy()


def sample_actions(probs: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One action per row of ``probs``, drawn with ``rng`` (inverse CDF; never an illegal one)."""
    cdf = np.cumsum(probs, axis=1, dtype=np.float64)
    u = rng.random(probs.shape[0]) * cdf[:, -1]
    actions = (cdf <= u[:, None]).sum(axis=1)
    # Rounding can land past the last legal action: step back to the nearest legal one.
    last_legal = probs.shape[1] - 1 - np.argmax(probs[:, ::-1] > 0, axis=1)
    return np.minimum(actions, last_legal)
