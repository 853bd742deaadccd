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

from spar_agents.base import Decision, Situation
from spar_agents.ppo.checkpoint import CheckpointError, load_checkpoint
from spar_agents.ppo.checkpoint_names import CHECKPOINT_DIR, list_checkpoints
from spar_agents.ppo.network import ActorCritic
from spar_agents.probability_check import check_answer
from spar_agents.signature import check_signature, game_signature, is_universal, rules_of
from spar_env.limits import MAX_LAYER_WIDTH, MAX_LAYERS, check_at_most
from spar_env.observation.per_game import layout_for
from spar_env.observation.universal import NUM_ACTIONS_V2, OBS_V2_HIGH, UniversalView, view_for
from spar_env.rules import Ruleset

__all__ = [
    "CHECKPOINT_DIR",
    "PPOAgent",
    "check_game",
    "game_signature",
    "latest_checkpoint",
    "model_from",
    "model_shape",
    "policy_probs",
    "sample_actions",
]


def check_game(signature: dict[str, Any], rules: Ruleset, where: str) -> None:
    """Raise :class:`CheckpointError` unless the checkpoint was made for (or covers) ``rules``."""
    why = check_signature(signature, rules, where)
    if why is not None:
        raise CheckpointError(why)


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


def model_shape(spec: Any) -> tuple[tuple[int, ...], int, bool]:
    """``(hidden, privileged, score_inputs)``: the network a checkpoint's ``model`` entry
    names, held to the bounds a config's ``model.hidden`` is held to (:mod:`spar_env.limits`).

    Raises:
        ValueError: for an entry of the wrong kind, or past a bound (naming it).
    """
    if not isinstance(spec, dict):
        raise ValueError("its model entry is not a table")
    hidden, privileged = spec.get("hidden"), spec.get("privileged", 0)
    score_inputs = spec.get("score_inputs", False)
    if not isinstance(hidden, list | tuple) or not hidden:
        raise ValueError("model.hidden: must be a list of layer widths")
    check_at_most("model.hidden", len(hidden), MAX_LAYERS)
    if not all(_is_whole(h) and h >= 1 for h in hidden):
        raise ValueError("model.hidden: must be a list of positive layer widths")
    check_at_most("model.hidden", max(hidden), MAX_LAYER_WIDTH)
    if not (_is_whole(privileged) and privileged >= 0):
        raise ValueError(f"model.privileged: must be a width, 0 or more; got {privileged!r:.40}")
    check_at_most("model.privileged", privileged, MAX_LAYER_WIDTH)
    if not isinstance(score_inputs, bool):
        raise ValueError(f"model.score_inputs: must be true or false; got {score_inputs!r:.40}")
    return tuple(hidden), privileged, score_inputs


def model_from(checkpoint: dict[str, Any]) -> ActorCritic:
    """The network a checkpoint describes, with its weights loaded.

    Its shape is checked (:func:`model_shape`) and laid out on torch's meta device, which
    holds no memory, then matched against the weights the file holds: a network the file
    has no weights for (64 layers 16,384 wide) is refused before any of it is built.

    Raises:
        ValueError: for a model entry past its bounds, or weights that do not fit it.
    """
    hidden, privileged, score_inputs = model_shape(checkpoint["model"])
    if is_universal(checkpoint["game"]):
        high, actions = OBS_V2_HIGH, NUM_ACTIONS_V2
    else:
        rules = rules_of(checkpoint["game"])
        high, actions = layout_for(rules).high, rules.num_actions

    def build() -> ActorCritic:
        return ActorCritic(high, actions, hidden, privileged, score_inputs)

    with torch.device("meta"):
        layout = build().state_dict()
    weights = checkpoint["weights"]
    if not isinstance(weights, dict):
        raise ValueError("its weights are not a table of tensors")
    for key in [*layout, *(k for k in weights if k not in layout)]:
        found, expected = weights.get(key), layout.get(key)
        if expected is None or not isinstance(found, torch.Tensor) or found.shape != expected.shape:
            why = ("not in that network" if expected is None else "missing" if found is None
                   else f"{_shape(found)}, not {tuple(expected.shape)}")  # fmt: skip
            raise ValueError(f"its weights do not fit the network its model entry names "
                             f"({key!r:.60}: {why})")  # fmt: skip
    model = build()
    model.load_state_dict(weights)
    model.eval()
    return model


def _shape(x: object) -> object:
    return tuple(x.shape) if isinstance(x, torch.Tensor) else type(x).__name__


def _is_whole(x: object) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


class PPOAgent:
    """Plays the actor of a PPO checkpoint (see the module docstring).

    With ``universal``, the network reads observation v2 and answers on the v2 action
    grid (:mod:`spar_env.observation.universal`); its answers are mapped back to this game's actions.
    """

    def __init__(
        self,
        rules: Ruleset,
        model: ActorCritic,
        greedy: bool = True,
        where: str = "ppo",
        universal: bool = False,
    ) -> None:
        if not isinstance(greedy, bool):
            raise ValueError(f"ppo: greedy must be true or false; got {greedy!r}")
        self.rules = rules
        self.model = model
        self.greedy = greedy
        self.where = where  # names the bot when its answer is not a probability
        self.view: UniversalView | None = view_for(rules) if universal else None

    @classmethod
    def from_path(cls, rules: Ruleset, path: str | os.PathLike, greedy: bool = True) -> PPOAgent:
        file = latest_checkpoint(path)
        checkpoint = load_checkpoint(file)
        signature = checkpoint.get("game") if isinstance(checkpoint, dict) else None
        if isinstance(signature, dict):  # another game: say so (a broken file is said below)
            try:
                why = check_signature(signature, rules, str(file))
            except (KeyError, TypeError, ValueError):
                why = None
            if why is not None:
                raise CheckpointError(why)
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
        return cls(rules, model, greedy, where=f"ppo:{path}", universal=is_universal(signature))

    def act(self, situation: Situation, rng: np.random.Generator) -> Decision:
        obs, mask = self.inputs(situation)
        return self.decide(policy_probs(self.model, obs, mask), mask, rng)

    def inputs(self, situation: Situation) -> tuple[np.ndarray, np.ndarray]:
        """What the network reads of a situation: observations and legal masks (observation
        v2 and the v2 grid for a universal agent)."""
        if self.view is None:
            return situation.obs, situation.mask
        return self.view.inputs(situation)

    def decide(self, probs: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> Decision:
        """The decision from the network's policy ``probs`` over :meth:`inputs` (a collector
        may compute it for many games at once: :mod:`spar_train.ppo.sources.lockstep`)."""
        check_answer(probs, mask, self.where)
        actions = probs.argmax(axis=1) if self.greedy else sample_actions(probs, rng)
        if self.view is not None:
            return Decision(self.view.to_game(actions), self.view.game_probs(probs))
        return Decision(actions.astype(np.int64), probs)


def policy_probs(model: ActorCritic, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """``float32 [G, A]``: the masked policy (exactly 0 on illegal actions)."""
    with torch.no_grad():
        mask_t = model.inputs_here(np.ascontiguousarray(mask))
        logits = model.policy_logits(model.inputs_here(np.ascontiguousarray(obs)), mask_t)
        probs = torch.softmax(logits, dim=-1).masked_fill(~mask_t, 0.0)
    return probs.cpu().numpy()


def sample_actions(probs: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One action per row of ``probs``, drawn with ``rng`` (inverse CDF; never an illegal one)."""
    cdf = np.cumsum(probs, axis=1, dtype=np.float64)
    u = rng.random(probs.shape[0]) * cdf[:, -1]
    actions = (cdf <= u[:, None]).sum(axis=1)
    # Rounding can land past the last legal action: step back to the nearest legal one.
    last_legal = probs.shape[1] - 1 - np.argmax(probs[:, ::-1] > 0, axis=1)
    return np.minimum(actions, last_legal)
