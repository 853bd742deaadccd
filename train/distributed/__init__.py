"""Scale-out on Ray: joining a cluster, and the duplicate-deal bench as tasks.

Ray is an optional extra (``pip install -e ".[ray]"``); only this package and the PPO run's
Ray wrapper import it, each only when it is used, so everything else works without it.

- this module: joining (or starting) a Ray cluster, for the bench, the league and training;
- :mod:`spar_train.distributed.bench`: ``spar bench ... --ray``. Each batch of
  deals is one Ray task; the figures are those of a local run.
- ``spar train CONFIG --ray`` (or ``[ray] enabled = true``): the PPO run's rollout source on
  Ray actors (:mod:`spar_train.ppo.wrappers.on_ray`); the learner is the one of a local run.

Every node of a cluster needs this package (the same code as the driver) and
its dependencies installed; ``docs/scaling.md`` says how far this goes.
"""

from __future__ import annotations

import re
import socket
import time
from types import ModuleType

DEFAULT_TIMEOUT = 30.0  # seconds to wait for a cluster that does not answer
RETRY_SECONDS = 0.5
ADDRESS = re.compile(r"auto|local|(ray://)?[\w.\-]+:\d+")  # what ray.init(address=...) takes


def require_ray() -> ModuleType:
    """The ``ray`` module, or a ``ValueError`` that says how to install it."""
    try:
        import ray
    except ImportError:
        from spar_env.extras import install_hint

        raise ValueError(
            f"Ray is not installed; install the ray extra: {install_hint('ray')}"
        ) from None
    return ray


def check_address(address: str) -> str:
    """``address`` if Ray can take it: ``""`` (start a local Ray), ``auto``, ``HOST:PORT``
    or ``ray://HOST:PORT``; else a ``ValueError``."""
    if address and not ADDRESS.fullmatch(address):
        raise ValueError(
            f"not a Ray address: {address!r}; give auto, HOST:PORT or ray://HOST:PORT, "
            "or nothing for a local Ray"
        )
    return address


def connect(address: str = "", timeout: float | None = None) -> ModuleType:
    """Join the Ray cluster at ``address`` (``""``: start a local Ray), unless already joined.

    A ``HOST:PORT`` where nothing answers is given up after ``timeout``
    seconds (default ``DEFAULT_TIMEOUT``; ``ray.init`` alone would retry for
    ever), with a ``ValueError`` naming the address. Returns the ``ray`` module.
    """
    ray = require_ray()
    if ray.is_initialized():
        return ray
    if check_address(address) in ("", "local"):
        ray.init(include_dashboard=False)  # the dashboard needs ray[default]
    else:
        if address != "auto":
            wait_for(address, DEFAULT_TIMEOUT if timeout is None else timeout)
        ray.init(address=address)
    return ray


def wait_for(address: str, timeout: float) -> None:
    """Return once ``HOST:PORT`` (or ``ray://HOST:PORT``) takes a TCP connection; raise a
    ``ValueError`` naming it if none is taken within ``timeout`` seconds."""
    host, _, port = address.removeprefix("ray://").rpartition(":")
    deadline = time.monotonic() + timeout
    while True:
        left = deadline - time.monotonic()
        try:
            with socket.create_connection((host, int(port)), timeout=max(min(left, 5.0), 0.1)):
                return
        except OSError as e:
            reason = e.strerror or type(e).__name__
        if time.monotonic() + RETRY_SECONDS > deadline:
            raise ValueError(
                f"no Ray cluster answers at {address} ({reason}, for {timeout:g} s); is it "
                "up? (--ray-timeout or ray.timeout sets how long to wait)"
            )
        time.sleep(RETRY_SECONDS)


def cluster_cpus() -> int:
    """The CPUs of the cluster joined."""
    return int(require_ray().cluster_resources().get("CPU", 0))
