"""Hostile ONNX bots for the tests: a shipped bot with its metadata rewritten, or a graph of
the bot's inputs and output that fails as it runs."""

from __future__ import annotations

from pathlib import Path

import onnx

from tests.helpers.cli import SHIPPED_BOT

UNIVERSAL_BOT = SHIPPED_BOT.with_name("universal.onnx")


def bot_with(path: Path, source: Path = SHIPPED_BOT, graph=None, **meta: str) -> Path:
    """``source``'s bot (or ``graph`` with its metadata), with ``meta`` written over its
    metadata."""
    model = onnx.load(str(source))
    props = {p.key: p.value for p in model.metadata_props} | meta
    if graph is not None:
        model = onnx.helper.make_model(graph, opset_imports=model.opset_import)
    del model.metadata_props[:]
    for key, value in props.items():
        entry = model.metadata_props.add()
        entry.key, entry.value = key, value
    onnx.save(model, str(path))
    return path


def memory_bomb(obs_size: int, actions: int) -> onnx.GraphProto:
    """A graph of the bot's inputs and output whose ConstantOfShape asks, at run time, for
    a tensor of (batch x 2^20) x (obs_size x 2^20) floats."""
    h, f = onnx.helper, onnx.TensorProto
    nodes = [
        h.make_node("Shape", ["obs"], ["shape"]),
        h.make_node("Mul", ["shape", "huge"], ["big"]),
        h.make_node("ConstantOfShape", ["big"], ["bomb"]),
        h.make_node("ReduceSum", ["bomb"], ["total"], keepdims=0),
        h.make_node("Cast", ["mask"], ["legal"], to=f.FLOAT),
        h.make_node("Add", ["legal", "total"], ["probs"]),
    ]
    return h.make_graph(
        nodes, "bomb",
        [h.make_tensor_value_info("obs", f.UINT8, ["batch", obs_size]),
         h.make_tensor_value_info("mask", f.BOOL, ["batch", actions])],
        [h.make_tensor_value_info("probs", f.FLOAT, ["batch", actions])],
        [h.make_tensor("huge", f.INT64, [2], [1 << 20, 1 << 20])],
    )  # fmt: skip
