"""Strict JSON out: what the toolkit prints or writes as JSON is JSON, NaN and infinities as null.

Python's :mod:`json` writes ``float("nan")`` as the bare word ``NaN`` (and infinities as
``Infinity``), which no strict reader takes: ``jq``, JavaScript's ``JSON.parse``, Go's and
Rust's decoders all refuse the file. A figure that does not exist (the interval of one
match, a mean of no deals) is ``null`` here instead. Every ``--json`` of the command line
and every JSON file of a run is written by :func:`dumps` or :func:`dump`, which also take
NumPy's scalars and arrays; they never write a non-finite number (``allow_nan=False``).

    >>> dumps({"share": 0.5, "ci95": float("nan"), "hands": [1, float("inf")]})
    '{"share": 0.5, "ci95": null, "hands": [1, null]}'
"""

from __future__ import annotations

import json
import math
from typing import IO, Any

import numpy as np

__all__ = ["dump", "dumps", "finite"]


def finite(value: Any) -> Any:
    """``value`` as plain JSON data: every NaN or infinity as ``None``, NumPy scalars and
    arrays as Python numbers and lists, tuples as lists."""
    if isinstance(value, np.ndarray):
        value = value.tolist()
    elif isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {key: finite(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [finite(item) for item in value]
    return value


def dumps(value: Any, **kwargs: Any) -> str:
    """:func:`json.dumps` of :func:`finite` ``(value)``: strict JSON."""
    return json.dumps(finite(value), allow_nan=False, **kwargs)


def dump(value: Any, fp: IO[str], **kwargs: Any) -> None:
    """:func:`json.dump` of :func:`finite` ``(value)`` into ``fp``: strict JSON."""
    json.dump(finite(value), fp, allow_nan=False, **kwargs)
