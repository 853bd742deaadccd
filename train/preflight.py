"""What a run needs, checked before its folder exists: sizes within bounds, every agent buildable.

:func:`check_bounds` (part of :func:`spar_train.config.check`) refuses sizes past
the limits of :mod:`spar_env.limits`. :func:`check_agents` builds every agent
a config names (the eval opponents, the warm start's teacher, the pool's
opponents, the match reward's model, the sampled-CFR model and opponents)
for the config's game, so a missing ``ppo:`` file or a bot for another game is found before any
training, not at the first evaluation. Both raise
:class:`~spar_train.config.ConfigError` naming the key.
"""

from __future__ import annotations

from typing import Any

from spar_env.limits import (
    MAX_DEALS,
    MAX_GAMES,
    MAX_LAYER_WIDTH,
    MAX_LAYERS,
    MAX_THREADS,
    MAX_WORKERS,
    LimitError,
    check_at_most,
)
from spar_train.sections import SELF_OR_SNAPSHOT, Config, ConfigError

MAX_RAY_TIMEOUT = 3600.0  # seconds: ray.timeout


def check_bounds(c: Config) -> None:
    """Raise :class:`ConfigError` for a size past its limit, naming the key and the limit."""
    bounds: list[tuple[str, float, float]] = [("run.threads", c.run.threads, MAX_THREADS)]
    if c.algorithm == "ppo":
        bounds += [
            ("model.hidden", len(c.model.hidden), MAX_LAYERS),
            ("model.hidden", max(c.model.hidden, default=0), MAX_LAYER_WIDTH),
            ("rollout.games", c.rollout.games, MAX_GAMES),
            ("rollout.games x rollout.hands", c.rollout.games * c.rollout.hands, MAX_GAMES),
            ("ppo.minibatch_size", c.ppo.minibatch_size, MAX_GAMES),
            ("eval.deals", c.eval.deals, MAX_DEALS),
            ("eval.pimc_deals", c.eval.pimc_deals, MAX_DEALS),
            ("ray.workers", c.ray.workers, MAX_WORKERS),
            ("ray.cpus_per_worker", c.ray.cpus_per_worker, MAX_THREADS),
            ("ray.timeout", c.ray.timeout, MAX_RAY_TIMEOUT),
        ]
    if c.algorithm == "mccfr":
        bounds += [
            ("mccfr.deals", c.mccfr.deals, MAX_GAMES),
            ("mccfr.eval_deals", c.mccfr.eval_deals, MAX_DEALS),
        ]
    for key, value, limit in bounds:
        try:
            check_at_most(key, value, limit)
        except LimitError as e:
            raise ConfigError(str(e)) from None


def agent_specs(c: Config) -> dict[str, str]:
    """Every agent spec the run will build, by the key that names it."""
    if c.algorithm == "mccfr":
        m = c.mccfr
        specs = {f"mccfr.eval_opponents[{i}]": s for i, s in enumerate(m.eval_opponents)}
        return {**({"mccfr.model": m.model} if m.model else {}), **specs}
    if c.algorithm != "ppo":
        return {}
    e, w = c.eval, c.warmstart
    specs = {f"eval.opponents[{i}]": s for i, s in enumerate(e.opponents)}
    if e.pimc_every:
        specs["eval.pimc_every"] = "pimc"
    if w.imitate and w.updates:
        specs["warmstart.imitate"] = w.imitate
    specs.update({f"pool.mix.{k}": k for k in c.pool.mix if k not in SELF_OR_SNAPSHOT})
    if c.ppo.reward == "match":
        specs["ppo.match_model"] = c.ppo.match_model
    return specs


def check_agents(c: Config) -> None:
    """Build every agent the run names for its game (files opened and checked), or raise
    :class:`ConfigError` naming the key and why."""
    from spar_agents.registry import make_agent
    from spar_env.rules import make_rules

    rules = make_rules(c.game.variant, players=c.game.players, **c.game.options)
    built: dict[str, Any] = {}
    for key, spec in agent_specs(c).items():
        if spec in built:
            continue
        try:
            built[spec] = make_agent(spec, rules)
        except (ValueError, OSError) as err:  # CheckpointError, BotError, a missing file ...
            raise ConfigError(f"{key}: {spec}: {_one_line(err)}") from None


def _one_line(err: Exception) -> str:
    if isinstance(err, OSError) and err.strerror:
        return f"{err.filename}: {err.strerror}" if err.filename else err.strerror
    return " ".join(str(err).split())
