"""The arithmetic of the PPO update's matrix products: float32, or bfloat16 where the CPU has it.

The update spends most of its time in the networks' matrix products. On a
CPU with native bfloat16 instructions (AVX-512 BF16 or AMX, which oneDNN
uses), running them under :func:`torch.autocast` in bfloat16 roughly halves
the update's time. Only the products and the activations between them are
bfloat16: the weights, their gradients, Adam and every loss term stay
float32 (the update casts the heads' outputs back before the log-softmax).

``"auto"`` picks bfloat16 where the device computes it natively (a CPU with
those instructions, a GPU that supports it) and float32 elsewhere, since
emulated bfloat16 is slower than float32. A run resolves it once, at its
start, on its own machine and device (:mod:`spar_agents.ppo.device`).
"""

from __future__ import annotations

import contextlib
from contextlib import AbstractContextManager
from typing import Literal

import torch

PRECISIONS = ("auto", "float32", "bfloat16")
Precision = Literal["float32", "bfloat16"]


def native_bfloat16() -> bool:
    """Whether this CPU computes bfloat16 matrix products natively (through oneDNN)."""
    return bool(
        torch.backends.mkldnn.is_available() and torch.ops.mkldnn._is_mkldnn_bf16_supported()
    )


def native_on(device: torch.device) -> bool:
    """Whether ``device`` computes bfloat16 matrix products natively."""
    if device.type == "cuda":
        return bool(torch.cuda.is_bf16_supported())
    return device.type == "cpu" and native_bfloat16()


def resolve(name: str, device: torch.device | None = None) -> Precision:
    """``"float32"`` or ``"bfloat16"`` for a setting of :data:`PRECISIONS` on ``device``
    (the CPU when not given)."""
    if name == "auto":
        return "bfloat16" if native_on(device or torch.device("cpu")) else "float32"
    if name in ("float32", "bfloat16"):
        return name  # type: ignore[return-value]
    raise ValueError(f"precision must be one of {', '.join(PRECISIONS)}, got {name!r}")


def arithmetic(precision: Precision, device: torch.device | None = None
               ) -> AbstractContextManager[object]:  # fmt: skip
    """The context the networks' forward passes run in for ``precision`` on ``device``."""
    if precision == "bfloat16":
        return torch.autocast((device or torch.device("cpu")).type, dtype=torch.bfloat16)
    return contextlib.nullcontext()


def input_dtype(precision: Precision) -> torch.dtype:
    """The dtype the update keeps its input features in (half the bytes to shuffle in bfloat16)."""
    return torch.bfloat16 if precision == "bfloat16" else torch.float32
