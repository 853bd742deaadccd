"""Start a network's actor from an exported bot: ``warmstart.actor = "universal"``.

An exported bot (:mod:`spar_agents.export`) holds its actor's weights as the
ONNX graph's initializers, under the names of the network's own parameters
(``model.actor.0.weight``, ...). A run that fine-tunes a shipped bot (for
example on the match reward) copies them into its actor, so it starts from
the bot's very policy (a network with ``model.score_inputs`` starts them at zero
weight, so the same policy); the critic, which no bot carries, starts fresh (the
warm start's imitation of the same bot then teaches it the values). The file
is read with :mod:`onnx` alone: nothing is unpickled.
"""

from __future__ import annotations

import os

import numpy as np
import torch
from onnx import load, numpy_helper

from spar_agents.ppo.network import ActorCritic
from spar_agents.ppo.score_inputs import WIDTH as SCORE_WIDTH
from spar_agents.shipped import resolve_bot

PREFIX = "model."  # the exporter wraps the network in a module named model


def load_actor(model: ActorCritic, bot: str | os.PathLike) -> None:
    """Copy ``bot``'s actor weights (a shipped bot's name or an ONNX file) into ``model``.

    Raises:
        ValueError: if the file is not an ONNX bot, or its actor is not of this network's shape.
    """
    path = resolve_bot(str(bot).removeprefix("onnx:"))
    try:
        graph = load(os.fspath(path)).graph
    except Exception as err:  # onnx raises several kinds for a file that is not a model
        raise ValueError(f"warmstart.actor: {bot} is not an ONNX bot ({err})") from None
    found = {
        i.name.removeprefix(PREFIX): numpy_helper.to_array(i)
        for i in graph.initializer
        if i.name.startswith(PREFIX)
    }
    first = found.get("actor.0.weight")
    if model.score_inputs is not None and first is not None and first.shape[1] == model.obs_size:
        # A bot without score inputs: they start unread (zero weights), so the policy is the bot's.
        found["actor.0.weight"] = np.hstack([first, np.zeros((first.shape[0], SCORE_WIDTH))])
    wanted = {k: v for k, v in model.state_dict().items() if k.startswith("actor.")}
    wanted["obs_scale"] = model.obs_scale
    for name, tensor in wanted.items():
        value = found.get(name)
        if value is None or tuple(value.shape) != tuple(tensor.shape):
            shape = None if value is None else tuple(value.shape)
            raise ValueError(
                f"warmstart.actor: {bot} has no {name} of shape {tuple(tensor.shape)} "
                f"(it has {shape}): its network differs from [model] and the game's inputs"
            )
    if not np.allclose(found["obs_scale"], model.obs_scale.numpy()):
        raise ValueError(f"warmstart.actor: {bot} reads another observation (its scales differ)")
    with torch.no_grad():
        for name, tensor in model.state_dict().items():
            if name.startswith("actor."):
                tensor.copy_(torch.from_numpy(np.array(found[name])))
