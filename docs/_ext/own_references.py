"""Cross-references to our own names where they are re-exported or written short.

A docstring may name ``spar_env.make_rules`` (a re-export) or ``Situation`` (a name its
module imports); the API reference documents each object once, where it is defined. When
Sphinx cannot resolve such a reference, this finds the object the name means (imported
from the reference's own module context), and resolves the reference to where it is
defined. Names that are not ours are left to Sphinx.
"""

from __future__ import annotations

import importlib
import inspect
from typing import Any

OWN = ("spar_env", "spar_agents", "spar_train", "spar_apps")


def setup(app) -> dict[str, object]:
    app.connect("missing-reference", resolve)
    return {"parallel_read_safe": True}


def resolve(app, env, node, contnode) -> Any:
    if node.get("refdomain") != "py":
        return None
    target = node["reftarget"].lstrip("~.")
    found = _lookup(target, node.get("py:module"), node.get("py:class"))
    if found is None:
        return None
    where = f"{found.__module__}.{found.__qualname__}"
    if where == target or not where.startswith(OWN):
        return None
    domain = env.get_domain("py")
    for kind in ("class", "func", "data", "obj"):
        ref = domain.resolve_xref(env, node["refdoc"], app.builder, kind, where, node, contnode)
        if ref is not None:
            return ref
    return None


def _lookup(target: str, module: str | None, klass: str | None) -> Any:
    """The object ``target`` names: a dotted path, or a name seen from ``module`` (and its class)."""
    candidates = [target]
    if module:
        if klass:
            candidates.append(f"{module}.{klass}.{target}")
        candidates.append(f"{module}.{target}")
    for path in candidates:
        obj = _import(path)
        if obj is not None and getattr(obj, "__module__", None) and hasattr(obj, "__qualname__"):
            return obj
    return None


def _import(path: str) -> Any:
    parts = path.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj: Any = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        try:
            for name in parts[cut:]:
                obj = (
                    inspect.getattr_static(obj, name)
                    if inspect.isclass(obj)
                    else getattr(obj, name)
                )
        except AttributeError:
            return None
        return obj
    return None
