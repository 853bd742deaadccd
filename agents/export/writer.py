"""Export a PPO checkpoint's actor to ONNX: observation and legal mask in, masked probabilities out.

Only the actor is exported (the critic, privileged or not, is for training).
The graph computes exactly what :func:`spar_agents.ppo.agent.policy_probs` does:
the actor's logits, illegal actions set to
:data:`~spar_agents.ppo.network.ILLEGAL_LOGIT`, a softmax, and the illegal
actions' probabilities set to exactly 0. Its inputs, output and metadata are
described in :mod:`spar_agents.export.metadata`.

The export uses torch's TorchScript-based exporter (``dynamo=False``): the
torch.export-based one needs onnxscript, and this small MLP gains nothing
from it.
"""

from __future__ import annotations

import io
import json
import os
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import torch
from torch import nn

from spar_agents.export.metadata import (
    MASK_INPUT,
    MAX_DEPTH,
    OBS_INPUT,
    PROBS_OUTPUT,
    bot_metadata,
)
from spar_agents.ppo.agent import latest_checkpoint, model_from, policy_probs
from spar_agents.ppo.checkpoint import CheckpointError, load_checkpoint
from spar_agents.ppo.network import ActorCritic
from spar_agents.signature import is_universal, rules_of
from spar_env.limits import MAX_CONFIG_BYTES, check_at_most, check_nesting
from spar_env.rules import Ruleset

OPSET = 17
BATCH_AXIS = "batch"


class MaskedPolicy(nn.Module):
    """The actor of an :class:`ActorCritic` as ``(obs uint8, mask bool) -> probs``."""

    def __init__(self, model: ActorCritic) -> None:
        super().__init__()
        self.model = model

    def forward(self, obs: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        probs = torch.softmax(self.model.policy_logits(obs, mask), dim=-1)
        return probs.masked_fill(~mask, 0.0)


@dataclass(frozen=True)
class Exported:
    """An exported bot, not yet written: its bytes and where it came from."""

    data: bytes  # the ONNX model, metadata included
    rules: Ruleset
    model: ActorCritic  # the torch network it was exported from
    checkpoint: Path
    run: dict[str, Any]  # name, update, checkpoint
    signature: dict[str, Any] = field(default_factory=dict)  # the checkpoint's game signature

    @property
    def universal(self) -> bool:
        """Whether the bot reads observation v2 and covers several games."""
        return is_universal(self.signature)


def export_checkpoint(path: str | os.PathLike) -> Exported:
    """The ONNX bot of a run folder's latest checkpoint, or of a checkpoint file.

    Raises:
        CheckpointError: if there is no checkpoint, or it is not a PPO policy's.
    """
    file = latest_checkpoint(path)
    checkpoint = load_checkpoint(file)
    try:
        signature = dict(checkpoint["game"])
        rules = rules_of(signature)
        model = model_from(checkpoint)
        config = dict(checkpoint.get("config", {}))
        # The config goes into the bot's metadata as JSON: held to a config's bounds first.
        check_nesting(config, MAX_DEPTH, "its config")
        check_at_most("its config (bytes of JSON)", len(json.dumps(config)), MAX_CONFIG_BYTES)
        counters = dict(checkpoint.get("counters", {}))
    except (KeyError, TypeError, ValueError, RuntimeError) as e:
        raise CheckpointError(f"{file}: not a PPO policy checkpoint ({e})") from None
    section = config.get("run")
    run = {
        "name": (section if isinstance(section, dict) else {}).get("name", file.parent.parent.name),
        "update": counters.get("update"),
        "checkpoint": file.name,
    }
    data = onnx_bytes(model, rules, bot_metadata(rules, run, config, signature))
    return Exported(data, rules, model, file, run, signature)


def onnx_bytes(model: ActorCritic, rules: Ruleset, metadata: dict[str, str]) -> bytes:
    """The ONNX model of ``model``'s masked policy for ``rules``, with ``metadata``."""
    obs = torch.zeros((2, model.obs_size), dtype=torch.uint8)
    mask = torch.ones((2, model.num_actions), dtype=torch.bool)
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the TorchScript exporter's deprecation notice
        torch.onnx.export(
            MaskedPolicy(model).eval(),
            (obs, mask),
            buffer,  # type: ignore[arg-type]  # a file object works; torch's hint names paths only
            dynamo=False,
            opset_version=OPSET,
            input_names=[OBS_INPUT, MASK_INPUT],
            output_names=[PROBS_OUTPUT],
            dynamic_axes={name: {0: BATCH_AXIS} for name in (OBS_INPUT, MASK_INPUT, PROBS_OUTPUT)},
        )
    proto = onnx.load_from_string(buffer.getvalue())
    game = (
        f"{len(json.loads(metadata['games']))} games"
        if "games" in metadata
        else f"{rules.variant}, {rules.players} players"
    )
    proto.doc_string = (
        f"spar-rl bot for {game}: "
        f"{OBS_INPUT} uint8 [batch, {model.obs_size}], {MASK_INPUT} bool "
        f"[batch, {model.num_actions}] -> {PROBS_OUTPUT} float32 [batch, {model.num_actions}], "
        "0 on illegal actions"
    )
    for key, value in metadata.items():
        entry = proto.metadata_props.add()
        entry.key, entry.value = key, value
    onnx.checker.check_model(proto, full_check=True)
    return proto.SerializeToString()


def largest_difference(exported: Exported, obs: np.ndarray, mask: np.ndarray) -> float:
    """The largest absolute difference between the ONNX bot's and torch's probabilities."""
    from spar_agents.export.bot import load_session, run_session

    session = load_session(exported.data, "the exported bot")
    ours = run_session(session, obs, mask)
    theirs = policy_probs(exported.model, obs, mask)
    return float(np.abs(ours - theirs).max())
