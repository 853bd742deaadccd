"""The shape of a run config: its typed sections with their defaults, one class each.

Every key of every section is listed here with its default and, where it
needs one, its meaning; :mod:`spar_train.config` reads TOML files into these and
:mod:`spar_train.config_check` checks them. ``[ppo]``'s update settings take their
defaults from :class:`spar_agents.ppo.update.PPOSettings`, their one home.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any, get_type_hints

from spar_agents.ppo.improve import ImproveSettings
from spar_agents.ppo.update import PPOSettings

if TYPE_CHECKING:
    from spar_env.rules import Ruleset

ALGORITHMS = ("ppo", "cfr", "lp", "mccfr")
SOLVERS = ("cfr", "cfr+", "dcfr", "pcfr+")
# The sections each algorithm reads; any other is an error.
SECTIONS_OF = {
    "ppo": ("run", "game", "rollout", "ppo", "model", "pool", "eval", "warmstart", "ray", "search"),
    "cfr": ("run", "game", "solver"),
    "lp": ("run", "game"),
    "mccfr": ("run", "game", "mccfr"),
}


class ConfigError(ValueError):
    """A config that cannot run; the message names the key."""


@dataclass(frozen=True)
class RunSection:
    name: str = "spar4"  # the run folder: runs/<name>
    seed: int = 0  # the seed of every deal, rollout and evaluation
    updates: int = 500  # PPO updates in all (each after one rollout)
    # Stop after this much wall clock (0: no limit), between updates: a search in the loop
    # whose one update would take longer is refused ([search] games)
    max_minutes: float = 15.0
    threads: int = 2  # torch threads
    # Where the learner runs: auto (the first GPU torch sees, else the CPU) | cpu | cuda |
    # cuda:N. Checkpoints are device-free: a run resumes on another device.
    device: str = "auto"
    checkpoint_every: int = 10  # updates between checkpoints (and one at the end)
    keep_checkpoints: int = 3  # the newest ones kept on disk


@dataclass(frozen=True)
class GameSection:
    variant: str = "spar"  # a preset (spar_env.rules.PRESETS)
    players: int = 4  # seats at the table
    options: dict[str, Any] = field(default_factory=dict)  # any ruleset field
    # Many games for one network instead (spar_train.games): tables of variant, players
    # (a count, a list or "all"), options and weight. Absent: the one game above (an empty
    # list is refused: it names no game).
    mix: list[dict[str, Any]] = field(default_factory=list)


@dataclass(frozen=True)
class RolloutSection:
    games: int = 2048  # games played at once on the batch core
    hands: int = 1  # hands each game plays per rollout
    # The arithmetic of the learner's forward passes in rollouts: float32 (the exported
    # bot's), or auto | bfloat16 as ppo.precision (several times faster on a wide network).
    precision: str = "float32"
    # Worker processes that play the games, each a share (spar_train.ppo.wrappers.processes):
    # 0 (none: the learner's process plays them) | N | "auto" (one a core, at most one a game).
    workers: int | str = 0
    # Play the next rollout in the workers (one, if rollout.workers is 0) while the learner
    # updates on this one, with the weights one update older (spar_train.ppo.wrappers.shared).
    overlap: bool = False
    worker_threads: int = 1  # each worker process's torch threads
    # Who runs the networks for the workers' games: "workers" (each its CPU copy) | "learner"
    # (the workers send their turns to the learner's process, which answers every worker's in
    # one batch on its device: for a GPU box; spar_train.ppo.wrappers.served)
    inference: str = "workers"


_UPDATE = PPOSettings()  # the home of the update's defaults (agents/ppo/update.py)


@dataclass(frozen=True)
class PPOSection:
    lr: float = 3e-4  # Adam's learning rate
    lr_schedule: str = "linear"  # linear (to 0 at the last update) | constant
    gamma: float = 1.0  # discount over a hand's decisions (1: none)
    gae_lambda: float = 0.95  # GAE's lambda
    # The update's settings, as in PPOSettings (spar_train.ppo.ppo_settings passes them on):
    epochs: int = _UPDATE.epochs  # passes over each rollout
    minibatch_size: int = _UPDATE.minibatch_size  # decisions per gradient step
    clip: float = _UPDATE.clip  # PPO's ratio clip
    value_clip: float = _UPDATE.value_clip  # 0: no value clipping
    ent_coef: float = _UPDATE.ent_coef  # entropy bonus
    vf_coef: float = _UPDATE.vf_coef  # value loss weight
    max_grad_norm: float = _UPDATE.max_grad_norm  # gradient norm clip
    target_kl: float = _UPDATE.target_kl  # stop an update's epochs past this KL (0: never)
    # The arithmetic of the update's matrix products: auto (bfloat16 where the
    # CPU has it natively, else float32) | float32 | bfloat16
    precision: str = _UPDATE.precision
    # Magnetic mirror descent (spar_agents.ppo.update): alpha of the pull KL(policy || magnet)
    # toward a magnet policy (0: plain PPO), and the magnet's step toward the learner after each
    # update (0: the magnet stays the policy the run started PPO from).
    magnet_coef: float = _UPDATE.magnet_coef
    magnet_rate: float = _UPDATE.magnet_rate
    reward_scale: float = 0.0  # payoffs are multiplied by this (0: 1 / the largest payoff)
    # What a hand pays the learner: "hand" (its payoff, times reward_scale) or "match" (the
    # change of the seat's chance to win the match; target sessions; spar_train.match.reward)
    reward: str = "hand"
    match_model: str = "onnx:universal"  # whose self-play gives the match reward's hand model
    match_deals: int = 1000  # deals (each dealt by every seat) that estimate that model
    # The share of new sessions that start at random scores (each seat's drawn uniformly below
    # the target), so that more hands are played where the score changes the right card.
    match_starts: float = 0.0
    train_forced: bool = False  # also learn from decisions with one legal action


@dataclass(frozen=True)
class ModelSection:
    hidden: list[int] = field(default_factory=lambda: [256, 256])  # widths of the hidden layers
    privileged_critic: bool = True  # the critic also sees the other hands (training only)
    # Also read the points each seat still needs to win a target session, as 0/1 inputs
    # (spar_agents.ppo.score_inputs; a game mix's network only)
    score_inputs: bool = False


@dataclass(frozen=True)
class PoolSection:
    # Share of the games of a rollout by who holds the other seats: "self" (the
    # learner holds every seat), "snapshot" (past snapshots of the learner), or an
    # agent spec ("heuristic", "random", "pimc:worlds=8").
    mix: dict[str, float] = field(
        default_factory=lambda: {"self": 0.5, "snapshot": 0.25, "heuristic": 0.25}
    )
    snapshot_every: int = 10  # updates between snapshots added to the pool
    snapshots: int = 5  # the most recent ones kept


@dataclass(frozen=True)
class EvalSection:
    every: int = 20  # updates between evaluations (and one at the end)
    deals: int = 2000  # duplicate deals against each opponent
    seed: int = 12345  # the same deals at every evaluation
    opponents: list[str] = field(default_factory=lambda: ["random", "heuristic"])  # agent specs
    pimc_every: int = 0  # evaluations between pimc evaluations (0: never)
    pimc_deals: int = 200  # deals of each pimc evaluation (pimc is slow)
    matches: int = 0  # whole matches against each opponent, for eval/match_win_vs_* (0: none)
    # The policy's exact exploitability at each evaluation, for eval/exploitability: games
    # whose whole tree fits (2-player micro, mini; spar_agents.cfr.readback)
    exact: bool = False
    # The regret against a strong search at each evaluation, for eval/regret (spar_train.regret):
    # this many decisions of hands dealt with eval.seed and played by regret_by are valued once,
    # card by card, by the search regret_judge; at each evaluation the greedy policy is asked
    # for its cards there (forward passes alone). 0: off
    regret_positions: int = 0
    # The judge: a search agent's spec, with more worlds than any search it judges and its
    # own seed; its policy models the seats (the strongest at hand)
    regret_judge: str = "search:worlds=128,prior=0,seed=1000"
    regret_by: str = "onnx:path=universal,greedy=false"  # plays the hands the positions come from


@dataclass(frozen=True)
class WarmStartSection:
    actor: str = ""  # an exported bot (shipped name or .onnx) whose actor the network starts from
    imitate: str = "heuristic"  # an agent spec whose decisions the actor imitates first ("": none)
    updates: int = 60  # imitation steps (each a batch of rollout.games hands, the run's games)
    lr: float = 1e-3  # the imitation's learning rate
    epochs: int = 1  # passes over each batch (more: a closer copy of a slow teacher's few hands)


_IMPROVE = ImproveSettings()  # the home of the search update's defaults (agents/ppo/improve.py)


@dataclass(frozen=True)
class SearchSection:
    # Search in the loop (spar_train.ppo.sources.search): each update, search over the current
    # network values every card at the decisions of `games` self-play games, and the network
    # learns search's improved policy and value (spar_agents.ppo.improve). 0: plain PPO.
    # games x rollout.hands x worlds is at most 65,536, and one update's search (estimated
    # from its measured cost on one core, shared among rollout.workers) must fit in
    # run.max_minutes: a run stops between updates, never inside one.
    games: int = 0
    worlds: int = 16  # worlds search values each decision in (the search agent's worlds)
    candidates: int = 4  # worlds sampled per world valued, before the belief resamples them
    # tau of the improved policy pi * exp(Q / tau), in reward units; at least 1e-6 (below it
    # the policy is Q's argmax already, and a subnormal tau makes Q / tau infinite)
    temperature: float = 0.1
    buffer: int = 0  # searched decisions kept and learned from again (0: each update's own)
    policy_coef: float = _IMPROVE.policy_coef  # the improved policy's cross-entropy weight
    value_coef: float = _IMPROVE.value_coef  # the improved value's squared-error weight
    epochs: int = _IMPROVE.epochs  # passes over the kept searched decisions each update
    minibatch_size: int = _IMPROVE.minibatch_size
    ppo: bool = True  # also PPO's update on the rollout (false: search's targets alone)
    # Every this many updates the network is kept in the run's iterations/ folder and joins
    # the run's league (runs/NAME/league), so the climb is a table (0: never)
    league_every: int = 0


@dataclass(frozen=True)
class RaySection:
    enabled: bool = False  # collect the rollouts on Ray actors (also: spar train --ray)
    address: str = ""  # "": start a local Ray; "auto" or "HOST:PORT": join a running cluster
    workers: int = 2  # rollout actors; rollout.games is shared out among them
    cpus_per_worker: int = 1  # CPUs each actor reserves (and its torch threads)
    timeout: float = 30.0  # seconds to wait for a cluster at ray.address before giving up


@dataclass(frozen=True)
class MCCFRSection:
    deals: int = 1024  # hands walked per batch
    batches: int = 100_000  # the most batches (run.max_minutes usually stops the run first)
    model: str = "heuristic"  # an agent spec the others may play instead ("": plain MCCFR)
    model_share: float = 0.5  # share of the hands where they do (a restricted Nash response)
    eval_every: int = 100  # batches between evaluations and saves (and one at the end)
    eval_deals: int = 2000  # duplicate deals against each opponent
    eval_seed: int = 12345  # the same deals at every evaluation
    eval_opponents: list[str] = field(default_factory=lambda: ["random", "heuristic"])  # specs


@dataclass(frozen=True)
class SolverSection:
    algorithm: str = "dcfr"  # cfr | cfr+ | dcfr | pcfr+
    iterations: int = 2000  # solver iterations (at most)
    seconds: float = 0.0  # stop once the solver has run this long (0: no limit)
    target_nash_conv: float = 0.0  # stop once NashConv is below this (0: never)
    eval_every: int = 100  # iterations between exact evaluations (and log points)


@dataclass(frozen=True)
class Config:
    algorithm: str = "ppo"
    run: RunSection = field(default_factory=RunSection)
    game: GameSection = field(default_factory=GameSection)
    rollout: RolloutSection = field(default_factory=RolloutSection)
    ppo: PPOSection = field(default_factory=PPOSection)
    model: ModelSection = field(default_factory=ModelSection)
    pool: PoolSection = field(default_factory=PoolSection)
    eval: EvalSection = field(default_factory=EvalSection)
    warmstart: WarmStartSection = field(default_factory=WarmStartSection)
    ray: RaySection = field(default_factory=RaySection)
    search: SearchSection = field(default_factory=SearchSection)
    solver: SolverSection = field(default_factory=SolverSection)
    mccfr: MCCFRSection = field(default_factory=MCCFRSection)

    def to_dict(self) -> dict[str, Any]:
        """The algorithm and the sections it reads, as plain data."""
        data = dataclasses.asdict(self)
        if not data["game"]["mix"]:  # written only when used: an empty mix is refused on reading
            del data["game"]["mix"]
        return {"algorithm": self.algorithm, **{k: data[k] for k in SECTIONS_OF[self.algorithm]}}

    def replace(self, **sections: Any) -> Config:
        return dataclasses.replace(self, **sections)


SECTIONS: dict[str, type] = {
    f.name: get_type_hints(Config)[f.name] for f in fields(Config) if f.name != "algorithm"
}
SELF_OR_SNAPSHOT = ("self", "snapshot")  # pool.mix entries that are not agent specs
META_KEYS = ("spar_rl_version",)  # written with the config in force; ignored on reading
# Keys that did nothing and were removed, with what to do instead: refused in a config, and
# dropped from a run folder's config.toml (its run never read them).
# Keys that took a new name: a config (or a run folder's config.toml) with the old one means
# the new one.
RENAMED = {"rollout.overlap_threads": "rollout.worker_threads"}
RETIRED = {
    "warmstart.games": "each imitation batch is rollout.games hands, the run's own games; "
    "remove the key",
}


def rules_of(config: Config) -> Ruleset:
    """The ruleset of ``[game]``: every trainer and check reads it from here."""
    from spar_env.rules import make_rules

    g = config.game
    return make_rules(g.variant, players=g.players, **g.options)
