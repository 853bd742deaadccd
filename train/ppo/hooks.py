"""A PPO run's hooks: what happens after an update, besides learning.

The loop (:mod:`spar_train.ppo.loop`) collects, updates, decides whether the update is the
run's last (``run.updates``, ``run.max_minutes``) and whether it is evaluated, and logs; then
each hook hears the update (:class:`~spar_train.hooks.Hook`, Stable-Baselines3's callbacks).
The hooks read what the loop decided; none sets a flag another reads. What one reads of
another's work is the run's result so far (the progress report shows the evaluations just
made), so they run in this order:

=========================  ==========================================================
hook                       after an update
=========================  ==========================================================
:class:`Snapshots`         every ``pool.snapshot_every``: the learner joins its pool
:class:`Evaluation`        every ``eval.every``, and after the last update: the greedy
                           policy on fixed deals (and ``eval.exact``'s exploitability)
:class:`RegretEvaluation`  with ``eval.regret_positions``, when :class:`Evaluation` runs:
                           the greedy policy's regret against a search, on positions
                           judged once when the run starts
:class:`Checkpoints`       every ``run.checkpoint_every``, and after the last update
:class:`Iterations`        every ``search.league_every``: the network is kept in
                           ``iterations/`` and joins the run's league (``league/``)
:class:`ProgressReport`    the live figures, to ``report`` (before the run: its device)
=========================  ==========================================================

:func:`standard_hooks` gives them for a run; a caller's own hooks follow them.
"""

from __future__ import annotations

from spar_agents.ppo.device import describe_device
from spar_train.games import OwnGame
from spar_train.hooks import Hook
from spar_train.league import add_entrants
from spar_train.ppo.checkpoint import save_policy, save_run
from spar_train.ppo.evaluation import evaluate_games, judge_run, log_exploitability, log_regret
from spar_train.ppo.parts import Run, Update
from spar_train.progress import Progress, Reporter
from spar_train.regret import Judged

ITERATIONS_DIR = "iterations"  # the run's networks, one file every search.league_every updates
LEAGUE_DIR = "league"  # the league they join


class Snapshots(Hook):
    """Every ``pool.snapshot_every`` updates, a copy of the learner joins the opponent pool."""

    def on_update(self, run: Run, update: Update) -> bool:
        if update.step % run.config.pool.snapshot_every == 0:
            run.pool.add_snapshot(run.model)
        return True


class Evaluation(Hook):
    """After the updates the loop evaluates (every ``eval.every``, and the last), the greedy
    policy against the
    eval opponents (:func:`~spar_train.ppo.evaluation.evaluate_games`), and with ``eval.exact``
    the sampled policy's exact exploitability."""

    def on_update(self, run: Run, update: Update) -> bool:
        config = run.config
        if update.evaluated:
            result = run.result
            result.evaluations = run.budget.timed_evaluation(
                evaluate_games, run.mix, config, run.model, run.writer, update.step
            )
            if config.eval.exact:
                result.exploitability = log_exploitability(run.mix.home, run.model, run.writer,
                                                           update.step)  # fmt: skip
        return True


class RegretEvaluation(Hook):
    """With ``eval.regret_positions``, the greedy policy's regret against a strong search
    (:mod:`spar_train.regret`) after each update the loop evaluates: ``eval/regret``,
    ``eval/regret_ci95``, ``eval/regret_agreement``, by trick and by leading or following.
    The positions and the judge's values are made when the run starts (the same for a resumed
    run: they are fixed by the config); each evaluation asks the network alone for its cards.
    A mix's network is judged on its home game."""

    def __init__(self) -> None:
        self.judged: Judged | None = None

    def on_start(self, run: Run) -> None:
        if run.config.eval.regret_positions:
            self.judged = judge_run(run.config, run.mix.home)

    def on_update(self, run: Run, update: Update) -> bool:
        if self.judged is not None and update.evaluated:
            universal = not isinstance(run.mix, OwnGame)
            log_regret(self.judged, run.model, run.writer, update.step, universal=universal)
        return True


class Checkpoints(Hook):
    """Every ``run.checkpoint_every`` updates and after the last one, a checkpoint."""

    def on_update(self, run: Run, update: Update) -> bool:
        if update.step % run.config.run.checkpoint_every == 0 or update.final:
            run.budget.timed_save(lambda: save_run(run))
        return True


class Iterations(Hook):
    """Every ``search.league_every`` updates, the network as it is is kept in the run's
    ``iterations/`` folder and joins the league in ``league/`` (started with the warm start's
    bot, the network the run began from, where there is one), so that ``spar league play``
    rates the climb. Search in the loop sets it; any PPO run may."""

    def on_start(self, run: Run) -> None:
        actor = run.config.warmstart.actor
        if run.config.search.league_every and actor and not run.resumed:
            spec = f"onnx:{actor}"
            add_entrants(run.run_dir / LEAGUE_DIR, [spec], run.mix.home, run.config.run.seed)

    def on_update(self, run: Run, update: Update) -> bool:
        every = run.config.search.league_every
        if every and update.step % every == 0:
            file = save_policy(run, run.run_dir / ITERATIONS_DIR)
            add_entrants(run.run_dir / LEAGUE_DIR, [f"ppo:{file}"], run.mix.home,
                         run.config.run.seed)  # fmt: skip
        return True


class ProgressReport(Hook):
    """Tells ``report`` where the learner runs (a GPU), then each update's live figures
    (:class:`~spar_train.progress.Progress`: the progress bar of ``spar train``)."""

    def __init__(self, report: Reporter) -> None:
        self.report = report

    def on_start(self, run: Run) -> None:
        place = run.placement
        if place.device.type != "cpu":
            note = (f"the learner runs on {describe_device(place.device)} "
                    f"({place.learner} matrix products)")  # fmt: skip
            self.report(Progress("start", 0, 0, note=note))

    def on_update(self, run: Run, update: Update) -> bool:
        parts = {f"{part}_seconds": s for part, s in update.rollout.seconds.items()}
        figures = {"decisions_per_second": update.decisions_per_second, **parts,
                   "update_seconds": update.seconds["update"]}  # fmt: skip
        if "approx_kl" in update.stats:  # not with search's targets alone (search.ppo = false)
            figures["approx_kl"] = update.stats["approx_kl"]
        if run.result.exploitability is not None:
            figures["exploitability"] = run.result.exploitability
        self.report(Progress("ppo", update.step, run.config.run.updates, figures,
                             run.result.evaluations, update.evaluated))  # fmt: skip
        return True


def standard_hooks(report: Reporter | None) -> list[Hook]:
    """The hooks of a run (module docstring), in order."""
    hooks: list[Hook] = [Snapshots(), Evaluation(), RegretEvaluation(), Checkpoints(), Iterations()]
    if report is not None:
        hooks.append(ProgressReport(report))
    return hooks
