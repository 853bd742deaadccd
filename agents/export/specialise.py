"""A universal bot made into one game's own bot, once, when it is loaded for that game.

A universal bot reads observation v2 (1,212 entries) and answers on the v2
action grid (50 actions), so that one network plays every game of the
family. In any one game most of that input is fixed: the seats and cards the
game lacks are 0 and the rules block is constant, and v2 is the game's own
observation v1 with its columns moved (:mod:`spar_env.observation.universal`). So the
first layer, ``W (s * v2) + b``, is the same function as ``W' v1 + b'`` where

- ``W'[:, i]`` adds up ``W[:, j] * s[j]`` over the v2 columns ``j`` that
  v1 column ``i`` is copied to, and
- ``b' = b + W (s * constants)``, the constant columns' share;

and the last layer keeps only the rows of the game's own actions. The
result, :func:`specialise`, is an ONNX bot of the shape of a single-game bot:
``obs uint8 [batch, D1]`` (the game's v1 observation), ``mask bool [batch, A]``
(its own actions) and ``probs``, the same policy up to float rounding (the
tests hold it to 1e-5), for less than half the arithmetic (4-player ``spar``:
172,000 multiply-adds a decision instead of 389,000).
"""

from __future__ import annotations

import re

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from spar_agents.export.metadata import MASK_INPUT, OBS_INPUT, PROBS_OUTPUT, BotError
from spar_env.observation.per_game import layout_for
from spar_env.observation.universal import UniversalView

# The logit of an illegal action, as spar_agents.ppo.network.ILLEGAL_LOGIT (a test holds them equal):
# not imported from there, since the onnx: agent runs without torch.
ILLEGAL_LOGIT = -1e9
_LAYER = re.compile(r"model\.actor\.(\d+)\.(weight|bias)")


def actor_layers(model: onnx.ModelProto, where: str) -> list[tuple[np.ndarray, np.ndarray]]:
    """``(weight [out, in], bias [out])`` of each linear layer of an exported actor, in order.

    Raises:
        BotError: if the graph is not an exported actor (:mod:`spar_agents.export.writer`).
    """
    found: dict[int, dict[str, np.ndarray]] = {}
    scale = None
    for tensor in model.graph.initializer:
        if tensor.name == "model.obs_scale":
            scale = numpy_helper.to_array(tensor)
        elif m := _LAYER.fullmatch(tensor.name):
            found.setdefault(int(m[1]), {})[m[2]] = numpy_helper.to_array(tensor)
    layers = [found[k] for k in sorted(found)]
    if scale is None or not layers or any(set(layer) != {"weight", "bias"} for layer in layers):
        raise BotError(f"{where}: not the graph of an exported actor")
    out = [
        (layer["weight"].astype(np.float32), layer["bias"].astype(np.float32)) for layer in layers
    ]
    w, b = out[0]
    if w.shape[1] != scale.shape[0]:
        raise BotError(f"{where}: its network reads inputs of its own beside the observation")
    out[0] = (w * scale.astype(np.float32)[None, :], b)  # the input scaling, folded in
    return out


def reads_own_inputs(model: onnx.ModelProto) -> bool:
    """Whether an exported actor computes inputs of its own from the observation (score
    inputs, :mod:`spar_agents.ppo.score_inputs`): its first layer is wider than the
    observation, and :func:`specialise` cannot fold it, so the bot plays through v2."""
    sizes = {t.name: list(t.dims) for t in model.graph.initializer}
    scale, first = sizes.get("model.obs_scale"), sizes.get("model.actor.0.weight")
    return scale is not None and first is not None and first[1] != scale[0]


def fold_first_layer(
    weight: np.ndarray, bias: np.ndarray, view: UniversalView
) -> tuple[np.ndarray, np.ndarray]:
    """The first layer of a v2 network (input scaling folded in) on the game's v1 observation."""
    src, dst = view.column_map
    folded = np.zeros((weight.shape[0], layout_for(view.rules).size), dtype=np.float64)
    np.add.at(folded.T, src, weight.T[dst].astype(np.float64))
    constants = view.constants.astype(np.float64)
    constants[dst] = 0.0  # every copied column is overwritten by the game's own entry
    return folded.astype(np.float32), (bias + weight @ constants).astype(np.float32)


def specialise(model: onnx.ModelProto, view: UniversalView, where: str) -> onnx.ModelProto:
    """The single-game bot of a universal bot for ``view``'s game (module docstring).

    Raises:
        BotError: if the graph is not an exported actor.
    """
    layers = actor_layers(model, where)
    first = fold_first_layer(*layers[0], view)
    action_of = view.action_of
    w_last, b_last = layers[-1]
    layers = [first, *layers[1:-1], (w_last[action_of], b_last[action_of])]
    width, actions = layout_for(view.rules).size, action_of.shape[0]

    inits, nodes = [], [helper.make_node("Cast", [OBS_INPUT], ["x0"], to=TensorProto.FLOAT)]
    for k, (w, b) in enumerate(layers):
        inits += [numpy_helper.from_array(w, f"w{k}"), numpy_helper.from_array(b, f"b{k}")]
        out = f"h{k}" if k < len(layers) - 1 else "logits"
        nodes.append(helper.make_node("Gemm", [f"x{k}", f"w{k}", f"b{k}"], [out], transB=1))
        if k < len(layers) - 1:
            nodes.append(helper.make_node("Tanh", [out], [f"x{k + 1}"]))
    inits += [
        numpy_helper.from_array(np.array(ILLEGAL_LOGIT, dtype=np.float32), "illegal"),
        numpy_helper.from_array(np.array(0.0, dtype=np.float32), "zero"),
    ]
    nodes += [
        helper.make_node("Where", [MASK_INPUT, "logits", "illegal"], ["masked"]),
        helper.make_node("Softmax", ["masked"], ["soft"], axis=-1),
        helper.make_node("Where", [MASK_INPUT, "soft", "zero"], [PROBS_OUTPUT]),
    ]
    graph = helper.make_graph(
        nodes,
        f"{view.rules.variant}{view.rules.players} of a universal bot",
        [
            helper.make_tensor_value_info(OBS_INPUT, TensorProto.UINT8, ["batch", width]),
            helper.make_tensor_value_info(MASK_INPUT, TensorProto.BOOL, ["batch", actions]),
        ],
        [helper.make_tensor_value_info(PROBS_OUTPUT, TensorProto.FLOAT, ["batch", actions])],
        inits,
    )
    out = helper.make_model(graph, opset_imports=list(model.opset_import))
    out.ir_version = model.ir_version
    return out
