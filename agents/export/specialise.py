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

A bot with score inputs (:mod:`spar_agents.ppo.score_inputs`: "seat ``k`` wins
the match with a hand of ``n`` points", computed inside its graph) is made so
too. In one game a seat's presence, the session end and the target are fixed,
so each input is either a constant, folded into ``b'``, or "v1 column of
seat ``k``'s score > target - ``n`` - 0.5", a comparison the game's graph makes
before adding those inputs' weights to the first layer.
"""

from __future__ import annotations

import re

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from spar_agents.export.metadata import MASK_INPUT, OBS_INPUT, PROBS_OUTPUT, BotError
from spar_env.observation.per_game import layout_for
from spar_env.observation.universal import MAX_SEATS, OFFSETS, UniversalView
from spar_env.rules.ruleset import END_KINDS

# The logit of an illegal action, as spar_agents.ppo.network.ILLEGAL_LOGIT, and the hand
# scores of the score inputs, as spar_agents.ppo.score_inputs.POINTS (tests hold them equal):
# not imported from there, since the onnx: agent runs without torch.
ILLEGAL_LOGIT = -1e9
SCORE_POINTS = (1, 2, 3)
SCORE_WIDTH = MAX_SEATS * len(SCORE_POINTS)
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
    width = scale.shape[0]
    if w.shape[1] not in (width, width + SCORE_WIDTH):
        raise BotError(f"{where}: its network reads inputs of its own beside the observation")
    w = w.copy()
    w[:, :width] *= scale.astype(np.float32)[None, :]  # the input scaling, folded in
    out[0] = (w, b)
    return out


def reads_own_inputs(model: onnx.ModelProto) -> bool:
    """Whether an exported actor computes inputs of its own from the observation (score
    inputs, :mod:`spar_agents.ppo.score_inputs`): its first layer is wider than the
    observation (:func:`specialise` folds them into the game's graph too)."""
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


def fold_score_inputs(
    weight: np.ndarray, view: UniversalView, where: str
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The score inputs' share of the first layer in ``view``'s game (module docstring):
    ``(columns [m], thresholds [m], weight [m, out], bias [out])``, where input ``i`` is
    ``v1[:, columns[i]] > thresholds[i]`` and ``bias`` is the constant inputs' share."""
    src, dst = view.column_map
    copied = dict(zip(dst.tolist(), src.tolist(), strict=True))
    constants = view.constants.astype(np.float64)
    target = OFFSETS["session_end"] + END_KINDS.index("target")
    fixed = [target, OFFSETS["end_value"], *(OFFSETS["seat_in_game"] + np.arange(MAX_SEATS))]
    if any(int(c) in copied for c in fixed):
        raise BotError(f"{where}: its score inputs read columns that vary in this game")
    end = constants[OFFSETS["end_value"]]
    columns, thresholds, rows = [], [], []
    bias = np.zeros(weight.shape[0], dtype=np.float64)
    for seat in range(MAX_SEATS):
        if not constants[OFFSETS["seat_in_game"] + seat] * constants[target]:
            continue  # the input is 0: no seat there, or no target to reach
        score = OFFSETS["scores"] + seat
        for n, points in enumerate(SCORE_POINTS):
            column = weight[:, seat * len(SCORE_POINTS) + n]
            if score in copied:
                columns.append(copied[score])
                thresholds.append(end - points - 0.5)  # whole scores: > T - n - 0.5 is >= T - n
                rows.append(column)
            elif constants[score] + points >= end:
                bias += column
    out = np.array(rows, dtype=np.float32).reshape(len(rows), weight.shape[0])
    return (np.array(columns, dtype=np.int64), np.array(thresholds, dtype=np.float32), out,
            bias.astype(np.float32))  # fmt: skip


def specialise(model: onnx.ModelProto, view: UniversalView, where: str) -> onnx.ModelProto:
    """The single-game bot of a universal bot for ``view``'s game (module docstring).

    Raises:
        BotError: if the graph is not an exported actor.
    """
    layers = actor_layers(model, where)
    w_first, b_first = layers[0]
    obs_width = view.constants.shape[0]
    first = fold_first_layer(w_first[:, :obs_width], b_first, view)
    columns = np.zeros(0, dtype=np.int64)
    if w_first.shape[1] > obs_width:  # score inputs
        columns, thresholds, w_score, b_score = fold_score_inputs(
            w_first[:, obs_width:], view, where
        )
        first = (first[0], first[1] + b_score)
    action_of = view.action_of
    w_last, b_last = layers[-1]
    layers = [first, *layers[1:-1], (w_last[action_of], b_last[action_of])]
    width, actions = layout_for(view.rules).size, action_of.shape[0]

    inits, nodes = [], [helper.make_node("Cast", [OBS_INPUT], ["x0"], to=TensorProto.FLOAT)]
    if columns.size:
        inits += [numpy_helper.from_array(columns, "score_columns"),
                  numpy_helper.from_array(thresholds, "score_thresholds"),
                  numpy_helper.from_array(w_score, "score_weight")]  # fmt: skip
        nodes += [
            helper.make_node("Gather", ["x0", "score_columns"], ["scores"], axis=1),
            helper.make_node("Greater", ["scores", "score_thresholds"], ["reached"]),
            helper.make_node("Cast", ["reached"], ["score_inputs"], to=TensorProto.FLOAT),
            helper.make_node("MatMul", ["score_inputs", "score_weight"], ["score_share"]),
        ]
    for k, (w, b) in enumerate(layers):
        inits += [numpy_helper.from_array(w, f"w{k}"), numpy_helper.from_array(b, f"b{k}")]
        out = f"h{k}" if k < len(layers) - 1 else "logits"
        gemm = "g0" if k == 0 and columns.size else out
        nodes.append(helper.make_node("Gemm", [f"x{k}", f"w{k}", f"b{k}"], [gemm], transB=1))
        if gemm != out:  # the first layer adds the score inputs' share
            nodes.append(helper.make_node("Add", [gemm, "score_share"], [out]))
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
