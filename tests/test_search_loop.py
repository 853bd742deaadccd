"""Search in the loop: the improved targets by hand, the update toward them, search's values
batched over decisions, a tiny run's tags, exact resume and league, and the exact
exploitability on micro going down."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
import torch
from helpers.stop import StopAfter
from test_worlds import random_situation

from spar_agents import make_agent
from spar_agents.belief import public_facts
from spar_agents.ppo.checkpoint import load_checkpoint
from spar_agents.ppo.improve import (
    FLOOR,
    ImproveSettings,
    SearchTargets,
    improve_update,
    improved_policy,
    targets_of,
)
from spar_agents.ppo.network import ActorCritic
from spar_agents.search import SearchAgent, policy_of
from spar_agents.worlds import seat_views
from spar_env import make_rules
from spar_train.config import ConfigError, check, load_config
from spar_train.curves import read_scalars
from spar_train.league import play_league
from spar_train.ppo.loop import train
from spar_train.ppo.sources.search import one_search_form

ROOT = Path(__file__).resolve().parents[1]
TINY = ROOT / "configs" / "ppo_tiny.toml"
SEARCHED = ["search.games=4", "search.worlds=4", "search.candidates=2", "search.buffer=64"]
MICRO = ['game.variant="micro"', "eval.exact=true", 'eval.opponents=["random"]',
         "eval.deals=20", 'warmstart.imitate=""', "pool.mix={ self = 1.0 }"]  # fmt: skip


def climb_script():
    """``benchmarks/search_loop_climb.py`` as a module."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("climb", ROOT / "benchmarks" /
                                                  "search_loop_climb.py")  # fmt: skip
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_improved_policy_and_value_of_a_hand_made_decision() -> None:
    """Three legal cards (the fourth action illegal), worked by hand with tau = 1:
    pi' is proportional to 0.5 e^1, 0.25 e^0 and FLOOR e^2 (the network never plays the third,
    so it keeps the floor's prior)."""
    prior = np.array([[0.5, 0.5, 0.0, 0.0]])
    values = np.array([[1.0, 0.0, 2.0, 99.0]])  # the illegal action's value is never read
    mask = np.array([[True, True, True, False]])
    weights = np.array([0.5 * math.e, 0.5, FLOOR * math.e**2])
    want = weights / weights.sum()
    probs, value, gain = targets_of(prior, values, mask, 1.0)
    np.testing.assert_allclose(probs[0], [*want, 0.0], rtol=1e-6)
    assert value[0] == pytest.approx(want @ [1.0, 0.0, 2.0], rel=1e-6)
    assert gain[0] == pytest.approx(value[0] - 0.5, rel=1e-6)  # the network's own: 0.5*1 + 0.5*0
    cold = improved_policy(prior, values, mask, 0.01)
    assert cold[0].argmax() == 2 and cold[0, 2] > 0.99  # a small tau follows search's best card
    hot = improved_policy(prior, values, mask, 1e6)
    np.testing.assert_allclose(hot[0, :2], [0.5 / (1 + FLOOR), 0.5 / (1 + FLOOR)], rtol=1e-4)
    with pytest.raises(ValueError, match="temperature must be above 0"):
        improved_policy(prior, values, mask, 0.0)
    with pytest.raises(ValueError, match="no legal action"):
        improved_policy(prior, values, np.zeros_like(mask), 1.0)


def test_the_update_moves_the_network_toward_the_targets() -> None:
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    model = ActorCritic(np.ones(12), 5, (32,))
    kinds = rng.integers(0, 8, 256)  # eight positions, each with its own targets
    obs = rng.integers(0, 2, (8, 12)).astype(np.uint8)[kinds]
    mask = (rng.random((8, 5)) < 0.7)[kinds]
    mask[:, 0] = True
    wanted = improved_policy(np.full((256, 5), 0.2), rng.normal(size=(8, 5))[kinds], mask, 0.3)
    values = rng.normal(size=8).astype(np.float32)[kinds]
    targets = SearchTargets(obs, mask, wanted, values, np.zeros(256, np.float32), None)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    settings = ImproveSettings(epochs=4, minibatch_size=64)
    first = improve_update(model, optimizer, targets, settings, rng)
    for _ in range(10):
        last = improve_update(model, optimizer, targets, settings, rng)
    assert last["search_kl"] < 0.5 * first["search_kl"]
    assert last["search_value_loss"] < first["search_value_loss"]
    assert first["search_decisions"] == 256


@pytest.mark.parametrize("players", [2, 4])
def test_search_values_many_decisions_at_once_as_one_at_a_time(players: int) -> None:
    """:meth:`SearchAgent.card_values` rolls every decision's worlds out in one batch; each
    decision's values are those of :meth:`SearchAgent.search_values` on its own."""
    rules = make_rules("spar", players=players)
    policy = policy_of(make_agent("onnx:universal", rules), "onnx:universal")
    agent = SearchAgent(rules, policy, worlds=8, candidates=2, prior=0.0, seed=3)
    situation = random_situation(rules, 12, np.random.default_rng(players))
    together = agent.card_values(situation)
    for i, view in enumerate(seat_views(situation)):
        alone = agent.search_values(view, public_facts(situation.state, int(situation.games[i])))
        np.testing.assert_allclose(together[i], alone, atol=1e-9)
        assert np.isfinite(together[i]).sum() == bin(int(situation.legal[i])).count("1")


def test_a_tiny_run_logs_search_resumes_exactly_and_its_iterations_join_its_league(
    tmp_path: Path,
) -> None:
    sets = [*SEARCHED, "search.league_every=2", "run.updates=4", "run.checkpoint_every=1",
            'warmstart.actor="universal"', 'game.mix=[{ variant = "spar", players = 2 }]',
            "model.hidden=[256, 256]", "eval.every=4"]  # fmt: skip
    config = load_config(TINY, sets)
    whole = train(config, tmp_path / "a")
    tags = read_scalars(whole.run_dir)
    for tag in ("losses/search_kl", "losses/search_policy_loss", "losses/search_value_loss",
                "losses/search_gain", "losses/search_agreement", "time/search_seconds"):  # fmt: skip
        assert list(tags[tag][0]) == [1, 2, 3, 4], tag
    assert tags["losses/search_decisions"][1][-1] == 64  # the buffer, full
    league = json.loads((whole.run_dir / "league" / "league.json").read_text())
    iterations = [f"ppo:{whole.run_dir}/iterations/update_00000{k}.pt" for k in (2, 4)]
    assert league["entrants"] == ["onnx:universal", *iterations]
    make_agent(iterations[-1], make_rules("spar", players=2))  # each one a playable agent
    play_league(whole.run_dir / "league", 60, match_deals=20)
    curve = climb_script().main([str(whole.run_dir / "league"), "--out", str(tmp_path / "c.png")])
    assert [point[0] for point in curve[str(whole.run_dir / "league")]] == [0, 2, 4]
    assert (tmp_path / "c.png").stat().st_size > 0

    train(config, tmp_path / "b", hooks=[StopAfter(3)])
    resumed = train(config, tmp_path / "b", resume=True)
    a = load_checkpoint(whole.run_dir / "checkpoints" / "update_000004.pt")
    b = load_checkpoint(resumed.run_dir / "checkpoints" / "update_000004.pt")
    for key, tensor in a["weights"].items():
        assert torch.equal(tensor, b["weights"][key]), key
    for key, tensor in a["games"]["search_buffer"].items():
        assert torch.equal(tensor, b["games"]["search_buffer"][key]), key


def test_on_rollout_workers_each_searches_its_share_and_a_seed_still_fixes_the_run(
    tmp_path: Path,
) -> None:
    """With rollout.workers the searched games are shared out with the run's: each worker
    searches its share beside its rollout, the learner keeps what they found, and a seed and
    a worker count give the same checkpoints, stopped and resumed or not."""
    sets = [*SEARCHED, "rollout.workers=2", "rollout.games=64", "run.updates=3",
            "run.checkpoint_every=1", "eval.every=3", "eval.deals=20",
            "warmstart.updates=1"]  # fmt: skip
    config = load_config(TINY, sets)
    whole = train(config, tmp_path / "a")
    tags = read_scalars(whole.run_dir)
    for tag in ("losses/search_agreement", "time/search_seconds", "time/workers_seconds"):
        assert list(tags[tag][0]) == [1, 2, 3], tag
    assert tags["losses/search_decisions"][1][-1] == 64  # the buffer filled from both workers
    a = load_checkpoint(whole.run_dir / "checkpoints" / "update_000003.pt")
    workers = a["games"]["workers"]
    assert len(workers) == 2 and all("search_games" in w["games"] for w in workers)  # two each
    assert "search_games" not in a["games"]  # none in the learner's process

    train(config, tmp_path / "b", hooks=[StopAfter(2)])
    resumed = train(config, tmp_path / "b", resume=True)
    b = load_checkpoint(resumed.run_dir / "checkpoints" / "update_000003.pt")
    for key, tensor in a["weights"].items():
        assert torch.equal(tensor, b["weights"][key]), key
    for key, tensor in a["games"]["search_buffer"].items():
        assert torch.equal(tensor, b["games"]["search_buffer"][key]), key
    with pytest.raises(ValueError, match="played by 2 rollout workers; resume the run with them"):
        train(load_config(TINY, [*sets, "rollout.workers=0"]), tmp_path / "b", resume=True)


def test_search_s_targets_alone_report_their_progress(tmp_path: Path) -> None:
    """With search.ppo = false no PPO update runs, so an update has no approx_kl: the progress
    report (spar train's bar) shows the rest. It once stopped the run after its first update
    (KeyError: 'approx_kl')."""
    from spar_train.progress import Progress

    heard: list[Progress] = []
    config = load_config(TINY, [*SEARCHED, "search.ppo=false", "run.updates=2", "eval.every=2",
                                "rollout.games=16", "eval.deals=10", "warmstart.updates=0"])  # fmt: skip
    train(config, tmp_path, report=heard.append)
    updates = [event for event in heard if event.phase == "ppo"]
    assert [event.step for event in updates] == [1, 2]
    assert "approx_kl" not in updates[0].figures and "search_seconds" in updates[0].figures
    assert [event.evaluated for event in updates] == [False, True]


@pytest.mark.parametrize("inner", [{"workers": [], "pending": None}, {"overlap": {}}])
def test_searched_games_of_the_learners_process_are_refused_on_workers(inner) -> None:
    """A checkpoint of an older version, whose workers played only the run's games and whose
    learner searched, is told it cannot go on."""
    with pytest.raises(ValueError, match="as spar-rl did before its workers searched; .* start "
                                         "it again"):  # fmt: skip
        one_search_form({"inner": inner, "search_games": {}})


def test_a_workers_checkpoint_of_before_search_was_a_source_goes_on() -> None:
    """The games of a search run's workers as spar-rl kept them before search was a source
    like any other (each worker's searched games beside its games) are read in today's form."""
    old = {"inner": {"workers": [{"games": {"h": 1}, "rng": 2, "searched": {"h": 3}},
                                 {"games": {"h": 4}, "rng": 5}], "pending": None},
           "search_buffer": {"obs": 6}}  # fmt: skip
    assert one_search_form(old) == {
        "workers": [{"games": {"inner": {"h": 1}, "search_games": {"h": 3}}, "rng": 2},
                    {"games": {"h": 4}, "rng": 5}],
        "pending": None,
        "search_buffer": {"obs": 6},
    }  # fmt: skip
    assert one_search_form({"inner": {"h": 1}, "search_games": {}}) == {
        "inner": {"h": 1},
        "search_games": {},
    }  # a run without workers: as it was


def test_on_micro_the_loop_s_exact_exploitability_goes_down(tmp_path: Path) -> None:
    """Search's targets alone (no PPO update): the network learns only what search found over
    it, round after round, and its exact exploitability falls."""
    config = load_config(TINY, [*MICRO, "run.updates=40", "eval.every=10", "rollout.games=256",
                                "ppo.lr=1e-3", 'ppo.lr_schedule="constant"', "search.games=64",
                                "search.ppo=false"])  # fmt: skip
    run = train(config, tmp_path)
    scalars = read_scalars(run.run_dir)
    curve = list(scalars["eval/exploitability"][1])
    assert len(curve) == 4
    assert curve[-1] < 0.5 * curve[0], curve
    assert "losses/policy_loss" not in scalars  # no PPO update ran


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        (["search.temperature=0"], r"^search\.temperature: must be above 0"),
        (["search.games=-1"], r"^search\.games: must be 0 \(no search\) or more"),
        (["search.worlds=0"], r"^search\.worlds: must be at least 1"),
        (
            ["search.games=4", 'ppo.reward="match"'],
            r'^ppo\.reward: must be "hand" with search\.games',
        ),
        (
            ["search.games=4", "game.options={ weak_hand_exchange = true }"],
            r"^search\.games: spar2_weak_hand_exchange_true: search: rulesets with the weak-hand",
        ),
        (["search.worlds=100000"], r"^search\.worlds: at most 65,536"),
    ],
)
def test_what_search_cannot_do_is_refused_naming_the_key(overrides, message) -> None:
    with pytest.raises(ConfigError, match=message):
        check(load_config(TINY, overrides))


SMALL = {
    "train": ["--set", "run.updates=2", "--set", "rollout.games=64", "--set", "search.games=2",
              "--set", "search.worlds=2", "--set", "warmstart.updates=1", "--set",
              "search.league_every=1", "--set", "eval.deals=20"],
    "play": ["--deals", "40"],
    "show": [],
    "search_speed.py": ["--decisions", "4", "--rounds", "1"],
    "search_loop_climb.py": [],
    "regret.py": ["--positions", "8"],
}  # fmt: skip  # appended: argparse's last wins


def test_the_search_loop_page_commands_run_with_small_sizes(tmp_path, monkeypatch) -> None:
    """Every command of docs/guide/search-loop.md runs as written, with smaller sizes appended."""
    import re
    import runpy
    import shlex
    import sys

    from spar_apps.cli import main

    page = (ROOT / "docs" / "guide" / "search-loop.md").read_text()
    lines = [
        line.partition("#")[0].strip()
        for block in re.findall(r"```bash\n(.*?)```", page, re.S)
        for line in block.replace("\\\n", " ").splitlines()  # a line ending in a backslash goes on
    ]
    monkeypatch.chdir(tmp_path)
    ran = []
    for line in filter(None, lines):
        argv = shlex.split(line)
        while "=" in argv[0]:  # VAR=value before the command (thread counts): left out here
            argv.pop(0)
        if argv[0] == "python":
            script = ROOT / argv[1]
            monkeypatch.setattr(sys, "argv", [str(script), *argv[2:], *SMALL[script.name]])
            try:
                runpy.run_path(str(script), run_name="__main__")
            except SystemExit as done:  # a script that ends with its exit status
                assert done.code in (0, None), line
        else:
            assert argv[0] == "spar", line
            assert main([*argv[1:], *SMALL[argv[2] if argv[1] == "league" else argv[1]]]) == 0
        ran.append(argv[1])
    assert ran == ["train", "train", "train", "league", "league", "benchmarks/search_loop_climb.py",
                   "benchmarks/search_speed.py", "train", "benchmarks/regret.py"]  # fmt: skip
    workers = load_checkpoint(max((tmp_path / "runs" / "exit_spar2_workers" / "checkpoints")
                                  .glob("*.pt")))["games"]["workers"]  # fmt: skip
    assert all("search_games" in w["games"] for w in workers)  # the workers searched
    assert (tmp_path / "climb.png").read_bytes().startswith(b"\x89PNG")
    assert (tmp_path / "runs" / "exit_spar4" / "league" / "league.json").exists()
