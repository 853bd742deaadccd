"""What a run needs, checked before its folder exists: sizes within bounds, every agent buildable.

:func:`check_bounds` (part of :func:`spar_train.config.check`) refuses sizes past
the limits of :mod:`spar_env.limits`. :func:`check_agents` builds every agent
a config names (the eval opponents, the regret's judge and player, the warm start's teacher, the pool's
opponents, the match reward's model, the sampled-CFR model and opponents)
for the config's game, so a missing ``ppo:`` file or a bot for another game is found before any
training, not at the first evaluation. Both raise
:class:`~spar_train.config.ConfigError` naming the key.
"""

from __future__ import annotations

from typing import Any

from spar_env.limits import (
    MAX_COEF,
    MAX_DEALS,
    MAX_EPOCHS,
    MAX_GAMES,
    MAX_LAYER_WIDTH,
    MAX_LAYERS,
    MAX_LR,
    MAX_MINUTES,
    MAX_SECONDS,
    MAX_SEED,
    MAX_SNAPSHOTS,
    MAX_STEPS,
    MAX_THREADS,
    MAX_WORKERS,
    MAX_WORLDS,
    LimitError,
    check_at_most,
)
from spar_train.sections import SECTIONS_OF, SELF_OR_SNAPSHOT, Config, ConfigError

# The most each numeric key may be (its least is checked with its meaning, in
# spar_train.config_check); a key of a section its algorithm reads is checked here. Every
# numeric key has one, or a range closed on both sides (tests/test_fuzz_inputs.py).
LIMITS: dict[str, float] = {
    "run.seed": MAX_SEED,
    "run.updates": MAX_STEPS,
    "run.max_minutes": MAX_MINUTES,
    "run.threads": MAX_THREADS,
    "run.checkpoint_every": MAX_STEPS,
    "run.keep_checkpoints": MAX_STEPS,
    "rollout.games": MAX_GAMES,
    "rollout.worker_threads": MAX_THREADS,
    "rollout.workers": MAX_THREADS,
    "ppo.lr": MAX_LR,
    "ppo.epochs": MAX_EPOCHS,
    "ppo.minibatch_size": MAX_GAMES,
    **{f"ppo.{k}": MAX_COEF for k in ("value_clip", "ent_coef", "vf_coef", "max_grad_norm",
                                        "target_kl", "magnet_coef", "reward_scale")},
    "ppo.match_deals": MAX_DEALS,
    "pool.snapshot_every": MAX_STEPS,
    "pool.snapshots": MAX_SNAPSHOTS,
    "eval.every": MAX_STEPS,
    "eval.deals": MAX_DEALS,
    "eval.seed": MAX_SEED,
    "eval.pimc_every": MAX_STEPS,
    "eval.pimc_deals": MAX_DEALS,
    "eval.matches": MAX_DEALS,
    "eval.regret_positions": MAX_GAMES,
    "warmstart.updates": MAX_STEPS,
    "warmstart.lr": MAX_LR,
    "warmstart.epochs": MAX_EPOCHS,
    "ray.workers": MAX_WORKERS,
    "ray.cpus_per_worker": MAX_THREADS,
    "ray.timeout": MAX_SECONDS,
    "search.games": MAX_GAMES,
    "search.worlds": MAX_WORLDS,
    "search.candidates": MAX_WORLDS,
    "search.temperature": MAX_COEF,
    "search.buffer": MAX_GAMES,
    "search.policy_coef": MAX_COEF,
    "search.value_coef": MAX_COEF,
    "search.epochs": MAX_EPOCHS,
    "search.minibatch_size": MAX_GAMES,
    "search.league_every": MAX_STEPS,
    "solver.iterations": MAX_STEPS,
    "solver.seconds": 60 * MAX_MINUTES,
    "solver.target_nash_conv": MAX_COEF,
    "solver.eval_every": MAX_STEPS,
    "mccfr.deals": MAX_GAMES,
    "mccfr.batches": MAX_STEPS,
    "mccfr.eval_every": MAX_STEPS,
    "mccfr.eval_deals": MAX_DEALS,
    "mccfr.eval_seed": MAX_SEED,
}  # fmt: skip


def check_bounds(c: Config) -> None:
    """Raise :class:`ConfigError` for a value past its limit (``LIMITS``, and the sizes that
    several keys make together), naming the key and the limit."""
    read = SECTIONS_OF[c.algorithm]
    bounds: list[tuple[str, float, float]] = [
        (key, getattr(getattr(c, key.split(".")[0]), key.split(".")[1]), limit)
        for key, limit in LIMITS.items()
        if key.split(".")[0] in read
    ]
    if c.algorithm == "ppo":
        bounds += [
            ("model.hidden", len(c.model.hidden), MAX_LAYERS),
            ("model.hidden", max(c.model.hidden, default=0), MAX_LAYER_WIDTH),
            ("rollout.games x rollout.hands", c.rollout.games * c.rollout.hands, MAX_GAMES),
            *((f"pool.mix.{who}", share, MAX_COEF) for who, share in c.pool.mix.items()),
        ]
    for key, value, limit in bounds:
        if isinstance(value, str):  # a word such as "auto", checked with its meaning
            continue
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
    if e.regret_positions:
        specs["eval.regret_judge"] = e.regret_judge
        specs["eval.regret_by"] = e.regret_by
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
