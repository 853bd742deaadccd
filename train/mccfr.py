"""Train a sampled-CFR agent on a full-size game: the run around :class:`ExternalSampling`.

    result = run_mccfr(load_config("configs/mccfr_spar2.toml"), "runs")

The solver walks batches of hands (:mod:`spar_agents.cfr.mccfr`) until
``[mccfr].batches`` or ``run.max_minutes`` of wall clock. Every
``eval_every`` batches its average strategy plays duplicate deals against
fixed opponents (:func:`spar_train.evaluate.evaluate`, the same deals each time),
and the tables are saved atomically to ``runs/<name>/policy.npz``: an agent
(``cfr:runs/<name>/policy.npz``) and the state to resume from
(``spar train --resume runs/<name>``), random generator included, so a
resumed run walks the same hands as an unbroken one. TensorBoard tags:

===============================  ==============================================
tag                              meaning
===============================  ==============================================
``cfr/iterations_per_second``    hands walked per second over the last stretch
``cfr/nodes_per_second``         decisions visited per second
``cfr/rows_visited``             rows of the abstraction the average has reached
``eval/<opponent>/mean_payoff``  the average strategy's payoff per hand
``eval/<opponent>/ci95``         half-width of its 95% interval
===============================  ==============================================

The horizontal axis is the number of hands walked.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from spar_agents.cfr.mccfr import ExternalSampling
from spar_agents.cfr.sampled_policy import SampledCFRAgent, SampledPolicy, load_sampled
from spar_agents.registry import make_agent
from spar_env.atomic import atomic_output
from spar_env.rules import Ruleset
from spar_train.budget import Budget
from spar_train.config import CONFIG_FILE, rules_of
from spar_train.evaluate import evaluate
from spar_train.progress import Progress, Reporter
from spar_train.run_dir import run_folder

POLICY_FILE = "policy.npz"


@dataclass
class MCCFRResult:
    rules: Ruleset
    run_dir: Path
    policy_path: Path
    batches: int
    deals_walked: int
    seconds: float  # wall clock of this session of the run (evaluations included)
    solve_seconds: float  # of which the solver
    evaluations: dict[str, dict[str, float]] = field(default_factory=dict)  # the last ones


def has_tables(run_dir: Path) -> bool:
    """Whether a sampled-CFR run folder holds tables to resume from."""
    return (run_dir / POLICY_FILE).is_file()


def run_mccfr(
    config: Any,
    runs_dir: str | Path = "runs",
    *,
    resume: bool = False,
    report: Reporter | None = None,
) -> MCCFRResult:
    """The ``spar train`` run of an ``algorithm = "mccfr"`` config (module docstring).

    ``report`` hears a :class:`~spar_train.progress.Progress` after every evaluation.
    The model and opponents are built before the folder is made (and locked,
    :mod:`spar_train.run_dir`); a resumed run without tables starts from the beginning.

    Raises:
        ConfigError: a new run whose folder exists already, one in use, or an agent the
            config names that cannot be built.
    """
    from spar_train.preflight import check_agents

    budget = Budget.of(config.run.max_minutes)  # the whole run (spar_train.budget)
    check_agents(config)
    run_dir = Path(runs_dir) / config.run.name
    with run_folder(run_dir, resume=resume, has_checkpoint=has_tables) as fresh:
        return _run(config, run_dir, resume=not fresh, report=report, budget=budget)


def _run(
    config: Any, run_dir: Path, *, resume: bool, report: Reporter | None, budget: Budget
) -> MCCFRResult:
    """The run inside its locked folder (:func:`run_mccfr`)."""
    from torch.utils.tensorboard import SummaryWriter  # torch only for the log

    from spar_env import __version__
    from spar_train.config import ConfigError, dump_config

    m = config.mccfr
    rules = rules_of(config)
    policy_path = run_dir / POLICY_FILE
    model = make_agent(m.model, rules) if m.model else None
    solver = ExternalSampling(
        rules, seed=config.run.seed, deals=m.deals, model=model, model_share=m.model_share
    )
    if resume:
        if not policy_path.is_file():
            raise ConfigError(f"--resume {run_dir}: no {POLICY_FILE} there to go on from")
        try:
            load_sampled(policy_path, rules).restore(solver)
        except ValueError as e:
            raise ConfigError(f"--resume {run_dir}: {e}") from None
    else:
        with atomic_output(run_dir / CONFIG_FILE) as f:
            f.write(dump_config(config, __version__))

    def save() -> None:
        SampledPolicy.of(solver, seed=config.run.seed).save(policy_path)

    writer = SummaryWriter(str(run_dir))
    solve_s, evaluations, eval_s = 0.0, {}, 0.0  # eval_s: the last evaluation's seconds
    mark = (time.perf_counter(), solver.deals_walked, solver.nodes)
    try:
        while solver.batches < m.batches and budget.left() > 0:
            t = time.perf_counter()
            solver.step(1)
            solve_s += (batch_s := time.perf_counter() - t)
            # the last batch: the next one and the final evaluation would not fit
            last = solver.batches >= m.batches or not budget.fits(batch_s + eval_s)
            if solver.batches % m.eval_every and not last:
                continue
            now, deals, nodes = time.perf_counter(), solver.deals_walked, solver.nodes
            step = solver.deals_walked
            writer.add_scalar(
                "cfr/iterations_per_second", (deals - mark[1]) / (now - mark[0]), step
            )
            writer.add_scalar("cfr/nodes_per_second", (nodes - mark[2]) / (now - mark[0]), step)
            writer.add_scalar("cfr/rows_visited", int((solver.strategy > 0).sum()), step)
            agent = SampledCFRAgent(SampledPolicy.of(solver))
            found = evaluate(agent, rules, m.eval_opponents, m.eval_deals, m.eval_seed)
            eval_s = time.perf_counter() - now
            evaluations = {
                spec: {"mean_payoff": r.mean_payoff, "ci95": r.ci95} for spec, r in found.items()
            }
            for spec, figures in evaluations.items():
                writer.add_scalar(f"eval/{spec}/mean_payoff", figures["mean_payoff"], step)
                writer.add_scalar(f"eval/{spec}/ci95", figures["ci95"], step)
            writer.flush()
            save()
            if report is not None:
                rate = (deals - mark[1]) / (now - mark[0])
                figures = {"deals": solver.deals_walked, "deals_per_second": rate}
                report(Progress("mccfr", solver.batches, m.batches, figures, evaluations, True))
            mark = (time.perf_counter(), solver.deals_walked, solver.nodes)
            if last:
                break
    finally:
        save()  # an interrupted run keeps every batch it finished
        writer.close()
    return MCCFRResult(
        rules=rules,
        run_dir=run_dir,
        policy_path=policy_path,
        batches=solver.batches,
        deals_walked=solver.deals_walked,
        seconds=budget.elapsed(),
        solve_seconds=solve_s,
        evaluations=evaluations,
    )
