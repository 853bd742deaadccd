"""Checking a run config: every impossible value is a :class:`ConfigError` naming its key,
raised before anything runs (:func:`spar_train.config.load_config` checks every config it reads).
"""

from __future__ import annotations

import os
from typing import Any

from spar_agents.ppo.precision import PRECISIONS
from spar_env.limits import MAX_SEARCH_WORLDS, MAX_WORLDS, LimitError, check_at_most
from spar_train.sections import SOLVERS, Config, ConfigError, rules_of

# Search in the loop, measured on one thread of the two-core test machine (search.worlds = 16,
# search.candidates = 4): 40 ms a searched game of 2-player spar, 170 ms of 4-player, so
# about 0.65 ms a game, world and seat squared (a seat's decisions times the seats each plays
# out). It estimates how long one update searches, which must fit in run.max_minutes.
SEARCH_SECONDS_PER_WORLD_SEAT2 = 0.65e-3
# The least search.temperature: below it the improved policy is the argmax of Q already (two
# values 1e-4 reward units apart weigh exp(-100) to 1), and a subnormal one (1e-320) makes
# Q / tau infinite, so that the first update diverged.
MIN_TEMPERATURE = 1e-6


def _require(ok: bool, key: str, what: str, value: Any) -> None:
    if not ok:
        raise ConfigError(f"{key}: must be {what}; got {value!r}")


def _require_spec(key: str, spec: str, alternative: str = "") -> None:
    """A registered agent spec at ``key``, or a :class:`ConfigError` listing the agents."""
    from spar_agents.registry import AGENTS, parse_spec

    names = ", ".join(sorted(AGENTS))
    _require(parse_spec(spec)[0] in AGENTS, key, f"an agent spec ({names}){alternative}", spec)


def check(c: Config) -> None:
    """Raise :class:`ConfigError` for impossible values, naming the key."""
    from spar_train.preflight import check_bounds

    r = c.run
    _require(
        bool(r.name) and "/" not in r.name and r.name not in (".", "..") and r.name.isprintable(),
        "run.name",
        "a folder name (no '/', no control characters)",
        r.name,
    )
    _require(r.seed >= 0, "run.seed", "a non-negative integer", r.seed)
    # 0 updates: a run that only imitates (a distillation of warmstart.imitate into a network)
    only_imitates = bool(c.warmstart.imitate) and c.warmstart.updates >= 1
    _require(r.updates >= (0 if only_imitates else 1), "run.updates",
             "at least 1 (0 only for a run that only imitates: warmstart.imitate and "
             "warmstart.updates set)", r.updates)  # fmt: skip
    _require(r.max_minutes >= 0, "run.max_minutes", "0 (no limit) or more", r.max_minutes)
    _require(r.threads >= 1, "run.threads", "at least 1", r.threads)
    _require(r.checkpoint_every >= 1, "run.checkpoint_every", "at least 1", r.checkpoint_every)
    _require(r.keep_checkpoints >= 1, "run.keep_checkpoints", "at least 1", r.keep_checkpoints)
    check_bounds(c)
    try:
        rules_of(c)
    except TypeError as e:
        raise ConfigError(f"game.options: {e}") from None
    except ValueError as e:
        raise ConfigError(f"game: {e}") from None
    if c.game.mix:
        _check_mix(c)
    if c.algorithm == "mccfr":
        _check_mccfr(c)
        return
    if c.algorithm != "ppo":
        _check_solver(c)
        return
    _check_device(c.run.device)
    _check_rollout(c)
    _check_ppo(c)
    _check_model_and_pool(c)
    _check_eval(c)
    _check_warmstart(c)
    _check_ray(c)
    _check_search(c)


def _check_rollout(c: Config) -> None:
    _require(c.rollout.games >= 1, "rollout.games", "at least 1", c.rollout.games)
    _require(c.rollout.hands >= 1, "rollout.hands", "at least 1", c.rollout.hands)
    _require(c.rollout.worker_threads >= 1, "rollout.worker_threads", "at least 1",
             c.rollout.worker_threads)  # fmt: skip
    _check_workers(c)
    if c.rollout.overlap:
        _require(not c.ray.enabled, "rollout.overlap", "false with ray.enabled (the overlap "
                 "plays in local worker processes; Ray's actors play in step with the learner)",
                 True)  # fmt: skip
    _check_inference(c)


def _check_inference(c: Config) -> None:
    """``rollout.inference``: "learner" asks for worker processes, and no overlap (the learner
    cannot answer their turns while it updates)."""
    inference = c.rollout.inference
    _require(inference in ("workers", "learner"), "rollout.inference", '"workers" or "learner"',
             inference)  # fmt: skip
    if inference == "workers":
        return
    _require(c.rollout.workers != 0, "rollout.workers", 'a number or "auto" with '
             'rollout.inference = "learner" (it answers the turns of worker processes)',
             c.rollout.workers)  # fmt: skip
    _require(not c.rollout.overlap, "rollout.overlap", 'false with rollout.inference = '
             '"learner" (the learner cannot answer the workers\' turns while it updates)',
             True)  # fmt: skip


def _check_workers(c: Config) -> None:
    """``rollout.workers``: a count from 0, or "auto"; at most one a game (of a mix: in
    :func:`_check_mix`), and none beside Ray (``ray.workers`` counts those)."""
    workers = c.rollout.workers
    if isinstance(workers, str):
        _require(workers == "auto", "rollout.workers", 'a whole number or "auto"', workers)
        return
    _require(workers >= 0, "rollout.workers", "at least 0", workers)
    if workers == 0:
        return
    _require(not c.ray.enabled, "rollout.workers", "0 with ray.enabled (ray.workers sets "
             "the workers on Ray)", workers)  # fmt: skip
    _require(workers <= c.rollout.games, "rollout.workers", "at most rollout.games, a game "
             "for each worker", workers)  # fmt: skip


def _check_ppo(c: Config) -> None:
    p = c.ppo
    _require(p.lr > 0, "ppo.lr", "positive", p.lr)
    _require(
        p.lr_schedule in ("linear", "constant"),
        "ppo.lr_schedule",
        "linear or constant",
        p.lr_schedule,
    )
    _require(0 < p.gamma <= 1, "ppo.gamma", "in (0, 1]", p.gamma)
    _require(0 <= p.gae_lambda <= 1, "ppo.gae_lambda", "in [0, 1]", p.gae_lambda)
    _require(p.epochs >= 1, "ppo.epochs", "at least 1", p.epochs)
    _require(p.minibatch_size >= 2, "ppo.minibatch_size", "at least 2", p.minibatch_size)
    _require(0 < p.clip < 1, "ppo.clip", "in (0, 1)", p.clip)
    _require(0 <= p.magnet_rate <= 1, "ppo.magnet_rate", "in [0, 1]", p.magnet_rate)
    if c.eval.exact:
        _check_exact(c)
    for name in ("value_clip", "ent_coef", "vf_coef", "target_kl", "reward_scale", "magnet_coef"):
        _require(getattr(p, name) >= 0, f"ppo.{name}", "0 or more", getattr(p, name))
    _require(p.max_grad_norm > 0, "ppo.max_grad_norm", "positive", p.max_grad_norm)
    _check_match_reward(c)
    for key, value in (("ppo.precision", p.precision), ("rollout.precision", c.rollout.precision)):
        _require(value in PRECISIONS, key, f"one of {', '.join(PRECISIONS)}", value)


def _check_model_and_pool(c: Config) -> None:
    from spar_agents.registry import AGENTS, parse_spec

    _require(
        len(c.model.hidden) >= 1 and all(h >= 1 for h in c.model.hidden),
        "model.hidden",
        "a list of positive layer widths",
        c.model.hidden,
    )
    _require(not c.model.score_inputs or bool(c.game.mix), "model.score_inputs",
             "false unless game.mix is set (they read observation v2)", True)  # fmt: skip
    mix = c.pool.mix
    _require(bool(mix), "pool.mix", "a table of shares", mix)
    for who, share in mix.items():
        _require(share >= 0, f"pool.mix.{who}", "0 or more", share)
        name, _ = parse_spec(who) if who not in ("self", "snapshot") else (who, {})
        if who not in ("self", "snapshot") and name not in AGENTS:
            raise ConfigError(
                f"pool.mix.{who}: unknown opponent; use self, snapshot or an agent spec "
                f"({', '.join(sorted(AGENTS))})"
            )
    _require(sum(mix.values()) > 0, "pool.mix", "shares that add up to more than 0", mix)
    _require(c.pool.snapshot_every >= 1, "pool.snapshot_every", "at least 1", c.pool.snapshot_every)
    _require(c.pool.snapshots >= 1, "pool.snapshots", "at least 1", c.pool.snapshots)


def _check_eval(c: Config) -> None:
    e = c.eval
    _require(e.every >= 1, "eval.every", "at least 1", e.every)
    _require(e.deals >= 2, "eval.deals", "at least 2 (for an interval)", e.deals)
    _require(e.seed >= 0, "eval.seed", "a non-negative integer", e.seed)
    _require(e.pimc_every >= 0, "eval.pimc_every", "0 (never) or more", e.pimc_every)
    _require(e.pimc_deals >= 2, "eval.pimc_deals", "at least 2", e.pimc_deals)
    _require(e.matches >= 0, "eval.matches", "0 (none) or more", e.matches)
    for i, spec in enumerate(e.opponents):
        _require_spec(f"eval.opponents[{i}]", spec)
    _check_regret(c)


def _check_regret(c: Config) -> None:
    """``eval.regret_positions``: 0 (off) or a count; the judge a search, on a game search
    takes (no weak-hand exchange), and the player any agent."""
    from spar_agents.registry import parse_spec

    e = c.eval
    _require(e.regret_positions >= 0, "eval.regret_positions", "0 (off) or more",
             e.regret_positions)  # fmt: skip
    # the specs are checked when unused too: never a trap for the run that turns it on
    _require(parse_spec(e.regret_judge)[0] == "search", "eval.regret_judge",
             "a search agent's spec (search:...)", e.regret_judge)  # fmt: skip
    _require_spec("eval.regret_by", e.regret_by)
    if e.regret_positions and not c.game.mix:
        _require(not rules_of(c).weak_hand_exchange, "eval.regret_positions",
                 "0 in a game with the weak-hand exchange (search values no exchange)",
                 e.regret_positions)  # fmt: skip


def _check_warmstart(c: Config) -> None:
    w = c.warmstart
    if w.actor:
        _require(_is_bot(w.actor), "warmstart.actor", "a shipped bot's name or an .onnx file",
                 w.actor)  # fmt: skip
    if w.imitate:
        _require_spec("warmstart.imitate", w.imitate, " or empty")
    _require(w.updates >= 0, "warmstart.updates", "0 or more", w.updates)
    _require(w.lr > 0, "warmstart.lr", "positive", w.lr)
    _require(w.epochs >= 1, "warmstart.epochs", "at least 1", w.epochs)


def _is_bot(actor: str) -> bool:
    """Whether ``actor`` names a shipped bot or an existing file (a name the system cannot
    even look up, too long or with a NUL, names none)."""
    from spar_agents.shipped import resolve_bot

    try:
        return resolve_bot(actor.removeprefix("onnx:")).is_file()
    except (OSError, ValueError):
        return False


def _check_match_reward(c: Config) -> None:
    """``ppo.reward``: "hand", or "match" for games that end at a target, in one process."""
    from spar_train.games import mix_games
    from spar_train.match.reward import REWARDS, why_no_match_reward

    p = c.ppo
    _require(p.reward in REWARDS, "ppo.reward", " or ".join(REWARDS), p.reward)
    _require(0 <= p.match_starts <= 1, "ppo.match_starts", "a share from 0 to 1", p.match_starts)
    _require_spec("ppo.match_model", p.match_model)  # checked when unused too: never a trap
    _require(p.match_deals >= 1, "ppo.match_deals", "at least 1", p.match_deals)
    if p.reward != "match":
        _require(p.match_starts == 0, "ppo.match_starts", "0 unless ppo.reward = match",
                 p.match_starts)  # fmt: skip
        return
    _require(not c.ray.enabled, "ray.enabled", "false with ppo.reward = match", True)
    for game in mix_games(c):
        why = why_no_match_reward(game.rules)
        if why is not None:
            raise ConfigError(f"ppo.reward: match needs {why} ({game.name})")


def _check_exact(c: Config) -> None:
    """``eval.exact`` reads the policy back into the game's whole tree: a small 2-player game."""
    from spar_agents.cfr.readback import check_exact

    _require(not c.game.mix, "eval.exact", "false with a game.mix (one tree a game)", True)
    try:
        check_exact(rules_of(c))
    except ValueError as e:
        raise ConfigError(f"eval.exact: {e}") from None


def _check_device(name: str) -> None:
    """``run.device`` must name a device this machine has (a resumed run may change it)."""
    from spar_agents.ppo.device import resolve_device

    try:
        resolve_device(name)
    except ValueError as e:
        raise ConfigError(f"run.device: {e}") from None


def _check_mix(c: Config) -> None:
    """A ``game.mix`` is for PPO; every game in it must be playable, and on Ray each worker
    needs a game of its own (a game is played whole by one worker)."""
    from spar_train.games import mix_games, shares

    _require(c.algorithm == "ppo", "game.mix", "used with algorithm ppo only", c.algorithm)
    games = mix_games(c)
    shares(c.rollout.games, [g.weight for g in games])
    if c.ray.enabled:
        _require(
            c.ray.workers <= len(games),
            "ray.workers",
            f"at most the {len(games)} games of game.mix (each worker plays whole games)",
            c.ray.workers,
        )
    workers = c.rollout.workers
    if isinstance(workers, int):
        _require(workers <= len(games), "rollout.workers",
                 f"at most the {len(games)} games of game.mix (each worker plays whole games)",
                 workers)  # fmt: skip


def _check_ray(c: Config) -> None:
    from spar_train.distributed import check_address

    r = c.ray
    try:
        check_address(r.address)
    except ValueError as e:
        raise ConfigError(f"ray.address: {e}") from None
    _require(r.workers >= 1, "ray.workers", "at least 1", r.workers)
    _require(r.cpus_per_worker >= 1, "ray.cpus_per_worker", "at least 1", r.cpus_per_worker)
    _require(r.timeout > 0, "ray.timeout", "positive (seconds)", r.timeout)
    if r.enabled:
        _require(
            c.rollout.games >= r.workers,
            "rollout.games",
            f"at least ray.workers ({r.workers}), a game for each worker",
            c.rollout.games,
        )


def _check_mccfr(c: Config) -> None:
    from spar_agents.cfr.abstraction import card_abstraction

    try:
        card_abstraction(rules_of(c))
    except ValueError as e:
        raise ConfigError(f"game.options: {e}") from None
    m = c.mccfr
    for name in ("deals", "batches", "eval_every"):
        _require(getattr(m, name) >= 1, f"mccfr.{name}", "at least 1", getattr(m, name))
    _require(0 <= m.model_share < 1, "mccfr.model_share", "in [0, 1)", m.model_share)
    if m.model:
        _require_spec("mccfr.model", m.model, " or empty")
    else:
        _require(m.model_share == 0, "mccfr.model_share", "0 without a model", m.model_share)
    _require(m.eval_deals >= 2, "mccfr.eval_deals", "at least 2 (for an interval)", m.eval_deals)
    _require(m.eval_seed >= 0, "mccfr.eval_seed", "a non-negative integer", m.eval_seed)
    for i, spec in enumerate(m.eval_opponents):
        _require_spec(f"mccfr.eval_opponents[{i}]", spec)


def _check_solver(c: Config) -> None:
    _require(
        c.game.players == 2,
        "game.players",
        "2 (the exact solvers are for two players)",
        c.game.players,
    )
    v = c.solver
    _require(v.algorithm in SOLVERS, "solver.algorithm", " or ".join(SOLVERS), v.algorithm)
    _require(v.iterations >= 1, "solver.iterations", "at least 1", v.iterations)
    _require(v.seconds >= 0, "solver.seconds", "0 (no limit) or more", v.seconds)
    _require(
        v.target_nash_conv >= 0, "solver.target_nash_conv", "0 (never) or more", v.target_nash_conv
    )
    _require(v.eval_every >= 1, "solver.eval_every", "at least 1", v.eval_every)


def _check_search(c: Config) -> None:
    """``[search]``: search in the loop (spar_train.ppo.sources.search)."""
    s = c.search
    _require(s.games >= 0, "search.games", "0 (no search) or more", s.games)
    _require(s.worlds >= 1, "search.worlds", "at least 1", s.worlds)
    _require(s.candidates >= 1, "search.candidates", "at least 1", s.candidates)
    _require(s.temperature >= MIN_TEMPERATURE, "search.temperature",
             f"above 0: at least {MIN_TEMPERATURE:g} (below it the improved policy is Q's "
             "argmax already)",
             s.temperature)  # fmt: skip
    _require(s.worlds * s.candidates <= MAX_WORLDS, "search.worlds x search.candidates",
             f"at most {MAX_WORLDS:,} worlds sampled per decision (a limit of spar-rl)",
             s.worlds * s.candidates)  # fmt: skip
    _require(s.buffer >= 0, "search.buffer", "0 or more", s.buffer)
    _require(s.policy_coef >= 0, "search.policy_coef", "0 or more", s.policy_coef)
    _require(s.value_coef >= 0, "search.value_coef", "0 or more", s.value_coef)
    _require(s.epochs >= 1, "search.epochs", "at least 1", s.epochs)
    _require(s.minibatch_size >= 1, "search.minibatch_size", "at least 1", s.minibatch_size)
    _require(s.league_every >= 0, "search.league_every", "0 (never) or more", s.league_every)
    if s.games == 0:
        return
    _require(c.ppo.reward == "hand", "ppo.reward",
             '"hand" with search.games (search values a card by the hand\'s payoff)',
             c.ppo.reward)  # fmt: skip
    from spar_agents.search import check_rules
    from spar_train.games import mix_games

    for game in mix_games(c):
        try:
            check_rules(game.rules)
        except ValueError as e:
            raise ConfigError(f"search.games: {game.name}: {e}") from None
    _check_search_time(c, max(game.rules.players for game in mix_games(c)))


def _check_search_time(c: Config, players: int) -> None:
    """One update's search stays within ``MAX_SEARCH_WORLDS``, and within ``run.max_minutes``
    by the measured one-thread estimate (``SEARCH_SECONDS_PER_WORLD_SEAT2``, shared among the
    rollout's worker processes): a run stops between updates, never in one."""
    s, r = c.search, c.run
    worlds = s.games * c.rollout.hands * s.worlds
    try:
        check_at_most("search.games x rollout.hands x search.worlds", worlds, MAX_SEARCH_WORLDS)
    except LimitError as e:
        raise ConfigError(f"{e}: the worlds one update searches") from None
    if r.max_minutes == 0:
        return
    workers = c.rollout.workers
    share = max(1, os.cpu_count() or 1) if workers == "auto" else max(1, int(workers))
    seconds = worlds * players**2 * SEARCH_SECONDS_PER_WORLD_SEAT2 / min(share, s.games)
    _require(seconds <= 60 * r.max_minutes, "run.max_minutes",
             f"enough for one update's search, about {seconds / 60:.2g} minutes on one core a "
             f"worker ({s.games:,} searched games of {players} players, {s.worlds} worlds; a "
             "run stops between updates); raise it or search fewer games", r.max_minutes)  # fmt: skip
