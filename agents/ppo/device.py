"""Where the learner's tensors live: ``run.device`` (``auto``, ``cpu``, ``cuda``, ``cuda:N``).

The learner (its network, the update, its forward passes in rollouts, the warm
start and the evaluations) runs on one torch device. The games, the opponents
that are not networks and every record stay in NumPy on the CPU, and what a
run writes is device-free: checkpoints hold CPU tensors (:func:`to_cpu`) and
are read with ``map_location="cpu"``, so a run started on a GPU resumes on a
CPU and the other way round, and the exported bot is the same ONNX file.

``auto`` takes the first CUDA device when torch sees one, else the CPU. On the
CPU nothing moves: ``tensor.to(cpu)`` is the tensor itself, so a CPU run is
bit for bit what it was before devices existed.
"""

from __future__ import annotations

import re
from typing import Any, TypeVar

import torch

DEVICES = ("auto", "cpu", "cuda", "cuda:N")  # what run.device takes
_CUDA = re.compile(r"cuda(?::(\d+))?")
T = TypeVar("T")


def check_device_name(name: str) -> None:
    """A ``ValueError`` unless ``name`` is one of :data:`DEVICES` (machine aside)."""
    if name in ("auto", "cpu") or _CUDA.fullmatch(name):
        return
    raise ValueError(f"must be auto, cpu, cuda or cuda:N (N a GPU's index); got {name!r}")


def resolve_device(name: str) -> torch.device:
    """The device ``name`` means on this machine.

    Raises:
        ValueError: for a name :func:`check_device_name` refuses, or a GPU this
            machine does not have (saying what torch sees).
    """
    check_device_name(name)
    if name == "cpu":
        return torch.device("cpu")
    count = torch.cuda.device_count() if torch.cuda.is_available() else 0
    if name == "auto":
        return torch.device("cuda", 0) if count else torch.device("cpu")
    match = _CUDA.fullmatch(name)
    assert match is not None  # checked above
    index = int(match.group(1) or 0)
    if count == 0:
        build = "a CPU-only build" if torch.version.cuda is None else f"CUDA {torch.version.cuda}"
        raise ValueError(
            f"{name}: torch sees no CUDA device (torch {torch.__version__}, {build}); "
            "use auto or cpu"
        )
    if index >= count:
        raise ValueError(f"{name}: this machine has {count} CUDA device(s), cuda:0 to "
                         f"cuda:{count - 1}")  # fmt: skip
    return torch.device("cuda", index)


def describe_device(device: torch.device) -> str:
    """``cuda:0 (NVIDIA H200)`` or ``cpu``: the device as a run's first line names it."""
    if device.type == "cuda":
        return f"{device} ({torch.cuda.get_device_name(device)})"
    return str(device)


def to_cpu(value: T) -> T:
    """``value`` with every tensor in it (in dicts, lists and tuples) on the CPU.

    A CPU tensor is returned as it is, so a CPU run's checkpoints are unchanged.
    """
    return _to_cpu(value)


def _to_cpu(value: Any) -> Any:
    if isinstance(value, torch.Tensor):
        return value.cpu()
    if isinstance(value, dict):
        return {k: _to_cpu(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(_to_cpu(v) for v in value)
    return value
