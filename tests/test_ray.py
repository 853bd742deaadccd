"""Ray: the bench as tasks and PPO rollouts on actors, on a local Ray with two CPUs.

One local Ray serves the module (it takes seconds to start, and its actors
import torch); under pytest-xdist the module's tests stay on one worker
(``xdist_group``, with ``--dist loadgroup`` in the project's pytest options)
so that they share it. A test kills only processes of its own Ray.
"""

from __future__ import annotations

import json
import os
import signal
import sys
from pathlib import Path

import numpy as np
import pytest
import ray
import torch
from helpers.stop import StopAfter

from spar_agents.ppo.checkpoint import load_checkpoint
from spar_apps.cli import main
from spar_env.rules import make_rules
from spar_train.config import ConfigError, load_config, rules_of
from spar_train.curves import read_scalars
from spar_train.distributed import check_address, require_ray
from spar_train.distributed.bench import (
    TASK_NAME,
    run_match_bench_on_ray,
    run_tournament_on_ray,
    spread,
)
from spar_train.games import OwnView, build_model, game_mix
from spar_train.match.bench import run_match_bench
from spar_train.ppo.learn import to_batch
from spar_train.ppo.loop import train
from spar_train.ppo.sources.base import merge_rollouts
from spar_train.ppo.sources.batch import GameBatch
from spar_train.ppo.sources.mix import collect_in_lockstep
from spar_train.ppo.sources.pools import OpponentPool
from spar_train.ppo.wrappers.shared import SharedSource
from spar_train.ppo.wrappers.shares import assign_games, worker_pieces
from spar_train.tournament import run_tournament

pytestmark = pytest.mark.xdist_group("ray")

ROOT = Path(__file__).resolve().parents[1]
TINY = ROOT / "configs" / "ppo_tiny.toml"
# A tiny PPO run on two rollout actors: one warm-start batch, three updates, one evaluation.
RAY_TINY = ["ray.enabled=true", "ray.workers=2", "run.updates=3", "eval.every=3",
            "warmstart.updates=1"]  # fmt: skip


@pytest.fixture(scope="module")
def local_ray():
    ray.init(num_cpus=2, object_store_memory=200 * 2**20, include_dashboard=False)
    yield ray
    ray.shutdown()


def _kill_a_running(task_name: str) -> list[int]:
    """SIGKILL one process of this test's Ray that is running a task named ``task_name``."""
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/cmdline", "rb") as f:
                title = f.read().split(b"\0")[0].strip()
        except OSError:
            continue
        pid = int(entry.name)
        if title == f"ray::{task_name}".encode() and _descends_from_me(pid):
            os.kill(pid, signal.SIGKILL)
            return [pid]
    return []


def _descends_from_me(pid: int) -> bool:
    me = os.getpid()
    while pid > 1:
        try:
            with open(f"/proc/{pid}/stat") as f:
                pid = int(f.read().rpartition(")")[2].split()[1])  # the parent's pid
        except OSError:
            return False
        if pid == me:
            return True
    return False


# ----- the bench ---------------------------------------------------------------------
def test_the_bench_on_ray_gives_the_figures_of_a_local_run(local_ray) -> None:
    rules = make_rules("spar", players=4)
    lineup = ["heuristic", "random", "low"]
    heard: list[int] = []
    on_ray = run_tournament_on_ray(
        lineup, rules, 1500, seed=3, chunk=200, progress=lambda done, _: heard.append(done)
    )
    local = run_tournament(lineup, rules, 1500, seed=3, chunk=200)
    assert on_ray.to_dict() == local.to_dict()
    assert np.array_equal(on_ray.payoff_by_deal, local.payoff_by_deal)
    assert len(heard) == 8 and heard == sorted(heard) and heard[-1] == 1500  # one per task
    # The chunk is part of what fixes the figures: the agents draw one generator per batch.
    assert run_tournament(lineup, rules, 1500, seed=3, chunk=300).to_dict() != local.to_dict()


def test_the_match_bench_on_ray_gives_the_figures_of_a_local_run(local_ray, capsys) -> None:
    rules = make_rules("spar", players=3, end="target:6")
    on_ray = run_match_bench_on_ray(["heuristic", "random"], rules, 90, seed=2, chunk=40)
    local = run_match_bench(["heuristic", "random"], rules, 90, seed=2, chunk=40)
    assert on_ray.to_dict() == local.to_dict()
    args = ["bench", "heuristic", "random", "--players", "2", "--matches", "30", "--json"]
    assert main([*args, "--chunk", "10", "--ray"]) == 0
    from_ray = json.loads(capsys.readouterr().out)
    assert main([*args, "--chunk", "10"]) == 0
    assert json.loads(capsys.readouterr().out) == from_ray


def test_a_bench_task_whose_worker_is_killed_is_run_again(local_ray) -> None:
    rules = make_rules("spar", players=4)
    lineup = ["pimc:worlds=4", "heuristic"]  # tasks of a few tenths of a second
    killed: list[int] = []

    def kill_once(done: int, deals: int) -> None:
        if not killed:
            killed.extend(_kill_a_running(TASK_NAME))

    on_ray = run_tournament_on_ray(lineup, rules, 80, seed=1, chunk=10, progress=kill_once)
    assert killed, "no running task was found to kill"
    assert on_ray.to_dict() == run_tournament(lineup, rules, 80, seed=1, chunk=10).to_dict()


def test_spar_bench_ray_prints_what_a_local_bench_prints(local_ray, capsys) -> None:
    args = ["bench", "heuristic", "random", "--deals", "600", "--seed", "2", "--json"]
    assert main([*args, "--chunk", "100", "--ray"]) == 0
    on_ray = json.loads(capsys.readouterr().out)
    assert main([*args, "--chunk", "100"]) == 0
    assert json.loads(capsys.readouterr().out) == on_ray
    assert main([*args, "--ray"]) == 0  # one task of the default chunk for two CPUs
    assert "--chunk 300 gives each CPU one" in capsys.readouterr().err


def test_the_bench_refuses_what_cannot_run_before_any_task(local_ray, capsys) -> None:
    rules = make_rules("spar", players=4)
    with pytest.raises(ValueError, match="unknown agent"):
        run_tournament_on_ray(["heuristic", "nosuch"], rules, 10)
    assert main(["bench", "--ray", "heuristic", "random"]) == 2
    assert "not a Ray address: 'heuristic'" in capsys.readouterr().err


def test_a_league_on_ray_gives_the_table_of_a_local_league(local_ray, tmp_path, capsys) -> None:
    tables = []
    for name, ray_args in (("here", []), ("ray", ["--ray"])):
        folder = tmp_path / name
        assert main(["league", "add", str(folder), "heuristic", "random", "low"]) == 0
        play = ["league", "play", str(folder), "--deals", "500", "--match", "50", "--round", "4"]
        assert main([*play, *ray_args]) == 0
        capsys.readouterr()
        assert main(["league", "show", str(folder), "--json"]) == 0
        tables.append(json.loads(capsys.readouterr().out))
    assert tables[0]["matches"] == 10
    assert tables[0] == tables[1]


def test_spread_gives_every_cpu_a_task_only_when_some_would_idle() -> None:
    assert spread(20000, 8192, 8) == 2500
    assert spread(20000, 500, 8) is None
    assert spread(3, 8192, 8) is None  # fewer deals than CPUs: no chunk helps


# ----- rollouts on actors ------------------------------------------------------------
@pytest.fixture(scope="module")
def ray_run(local_ray, tmp_path_factory):
    return train(load_config(TINY, RAY_TINY), tmp_path_factory.mktemp("ray"))


def test_a_run_on_ray_writes_what_a_local_run_writes(ray_run, tmp_path: Path) -> None:
    local = train(load_config(TINY, [*RAY_TINY, "ray.enabled=false"]), tmp_path)

    def files(run_dir: Path) -> list[str]:
        names = (p.relative_to(run_dir).as_posix() for p in run_dir.rglob("*"))
        return sorted("events" if "tfevents" in name else name for name in names)

    assert files(ray_run.run_dir) == files(local.run_dir)
    assert "checkpoints/update_000003.pt" in files(ray_run.run_dir)
    split = {"time/workers_seconds", "time/transfer_seconds"}  # the learner's wait, split
    assert set(read_scalars(ray_run.run_dir)) == set(read_scalars(local.run_dir)) | split
    assert ray_run.counters.update == 3 and set(ray_run.evaluations) == {"random", "heuristic"}
    assert "enabled = true" in (ray_run.run_dir / "config.toml").read_text()
    saved = load_checkpoint(ray_run.run_dir / "checkpoints" / "update_000003.pt")
    assert len(saved["games"]["workers"]) == 2
    rules = rules_of(load_config(TINY))
    bench = run_tournament([f"ppo:{ray_run.run_dir}", "random"], rules, 20, seed=0)
    assert bench.agents[0].hands == 40


def _kill_worker_0_in_the_third_rollout(monkeypatch) -> list[SharedSource]:
    """Have worker 0 of the next Ray source killed while it plays the run's third rollout
    (warm start, update 1, update 2); the sources that collected, as they do."""
    collect, wait = SharedSource.collect, ray.wait
    calls, sources, killed = [], [], []

    def counted(self, *args, **kwargs):
        calls.append(len(calls))
        sources.append(self)
        return collect(self, *args, **kwargs)

    def wait_then_kill(refs, **kwargs):
        # Once: worker 1 may answer before worker 0's death is heard (no replacement yet).
        if len(calls) == 3 and not killed:
            killed.append(sources[-1].crew.name(0))
            ray.kill(ray.get_actor(killed[0]))
        return wait(refs, **kwargs)

    monkeypatch.setattr(SharedSource, "collect", counted)
    monkeypatch.setattr(ray, "wait", wait_then_kill)
    return sources


def test_a_killed_rollout_worker_is_replaced_and_the_run_loses_nothing(
    ray_run, tmp_path: Path, monkeypatch, caplog
) -> None:
    """Killed while its share of update 2 is being played; stopped after it and resumed: the
    run ends with the weights of the run that nothing happened to."""
    sources = _kill_worker_0_in_the_third_rollout(monkeypatch)
    config = load_config(TINY, RAY_TINY)
    stopped = train(config, tmp_path, hooks=[StopAfter(2)])
    monkeypatch.undo()
    assert stopped.counters.update == 2 and sources[-1].replaced == 1
    assert "rollout worker 0" in caplog.text and "died" in caplog.text
    resumed = train(config, tmp_path, resume=True)
    assert resumed.counters.update == 3
    assert resumed.counters.decisions == ray_run.counters.decisions
    a = load_checkpoint(ray_run.run_dir / "checkpoints" / "update_000003.pt")
    b = load_checkpoint(resumed.run_dir / "checkpoints" / "update_000003.pt")
    for key, tensor in a["weights"].items():
        assert torch.equal(tensor, b["weights"][key]), key
    for saved_a, saved_b in zip(a["games"]["workers"], b["games"]["workers"], strict=True):
        assert saved_a["rng"] == saved_b["rng"]


def test_a_run_resumes_on_ray_only_where_its_games_were(tmp_path: Path, capsys) -> None:
    local = train(load_config(TINY, ["run.updates=1", "warmstart.updates=0"]), tmp_path)
    assert main(["train", "--resume", str(local.run_dir), "--ray"]) == 2
    assert "collected its rollouts without Ray" in capsys.readouterr().err
    assert main(["train", str(ROOT / "configs" / "cfr_micro.toml"), "--ray"]) == 2
    assert "--ray spreads PPO's rollouts" in capsys.readouterr().err


def test_a_run_on_ray_resumed_with_other_games_is_refused_naming_the_key(
    ray_run, tmp_path: Path
) -> None:
    """It failed inside a Ray worker, with a wrapped traceback naming no key."""
    import shutil

    from spar_agents.ppo.checkpoint import CheckpointError

    copy = tmp_path / ray_run.run_dir.name
    shutil.copytree(ray_run.run_dir, copy)
    (copy / ".lock").unlink(missing_ok=True)
    with pytest.raises(CheckpointError) as refused:
        train(load_config(TINY, [*RAY_TINY, "rollout.games=64"]), tmp_path, resume=True)
    assert len(str(refused.value).splitlines()) == 1
    assert "rollout.games = 128, and the run's config now has rollout.games = 64" in str(
        refused.value
    )


# ----- a game mix on actors --------------------------------------------------------------
MIX3 = ('game.mix=[{variant="jeu_de_carte",players=2},{variant="sipa",players=3},'
        '{variant="spar",players=4}]')  # fmt: skip
# RAY_TINY on a mix of three games of 8 games each: worker 0 plays the first and the third.
RAY_MIX = [*RAY_TINY, MIX3, "rollout.games=24", "eval.deals=4"]


@pytest.fixture(scope="module")
def ray_mix_run(local_ray, tmp_path_factory):
    return train(load_config(TINY, RAY_MIX), tmp_path_factory.mktemp("ray_mix"))


def _last_checkpoint(run_dir: Path) -> dict:
    return load_checkpoint(run_dir / "checkpoints" / "update_000003.pt")


def _assert_same_run(a: dict, b: dict, *, skip: tuple[str, ...] = ()) -> None:
    """Two checkpoints hold the same run, bit for bit: all but the wall clock (and ``skip``)."""

    def same(x, y) -> bool:
        if isinstance(x, torch.Tensor):
            return isinstance(y, torch.Tensor) and x.dtype == y.dtype and torch.equal(x, y)
        if isinstance(x, dict):
            return isinstance(y, dict) and x.keys() == y.keys() and all(same(x[k], y[k]) for k in x)
        if isinstance(x, list | tuple):
            return len(x) == len(y) and all(map(same, x, y))
        return x == y

    assert a.keys() == b.keys()
    for key in a:
        if key in skip:
            continue
        if key == "counters":
            assert {**a[key], "seconds": 0} == {**b[key], "seconds": 0}
        else:
            assert same(a[key], b[key]), key


def test_a_mix_on_ray_plays_each_game_whole_on_one_worker(ray_mix_run, tmp_path: Path) -> None:
    """The run writes what a local mix run writes (its figures differ: each worker draws from
    its own generator); each worker's checkpointed games are its games of the mix."""
    local = train(load_config(TINY, [*RAY_MIX, "ray.enabled=false"]), tmp_path)

    split = {"time/workers_seconds", "time/transfer_seconds"}  # the learner's wait, split
    assert set(read_scalars(ray_mix_run.run_dir)) == set(read_scalars(local.run_dir)) | split
    assert "charts/train_payoff_vs_sipa3_heuristic" in read_scalars(local.run_dir)
    assert ray_mix_run.counters.update == 3 and ray_mix_run.evaluations["heuristic"]["games"] == 3
    workers = _last_checkpoint(ray_mix_run.run_dir)["games"]["workers"]
    held = [sorted({key.partition("/")[0] for key in w["games"]}) for w in workers]
    assert held == [["jeu_de_carte2", "spar4"], ["sipa3"]]


def test_a_mix_on_ray_is_fixed_by_its_seed_and_worker_count(ray_mix_run, tmp_path: Path) -> None:
    again = train(load_config(TINY, RAY_MIX), tmp_path)
    _assert_same_run(_last_checkpoint(again.run_dir), _last_checkpoint(ray_mix_run.run_dir))


def test_a_mix_on_ray_stopped_and_resumed_is_the_run_never_stopped(
    ray_mix_run, tmp_path: Path
) -> None:
    config = load_config(TINY, RAY_MIX)
    assert train(config, tmp_path, hooks=[StopAfter(2)]).counters.update == 2
    resumed = train(config, tmp_path, resume=True)
    # torch's generator only builds networks; the resume's rebuilt snapshots drew from it.
    _assert_same_run(_last_checkpoint(resumed.run_dir), _last_checkpoint(ray_mix_run.run_dir),
                     skip=("torch_rng",))  # fmt: skip


def test_a_killed_worker_of_a_mix_is_replaced_and_the_run_loses_nothing(
    ray_mix_run, tmp_path: Path, monkeypatch
) -> None:
    sources = _kill_worker_0_in_the_third_rollout(monkeypatch)
    run = train(load_config(TINY, RAY_MIX), tmp_path)
    monkeypatch.undo()
    assert sources[-1].replaced == 1
    _assert_same_run(_last_checkpoint(run.run_dir), _last_checkpoint(ray_mix_run.run_dir))


def test_a_mix_resumes_only_with_the_ray_workers_that_played_its_games(
    ray_mix_run, tmp_path: Path
) -> None:
    import shutil

    from spar_agents.ppo.checkpoint import CheckpointError

    def resume(run_dir: Path, *overrides: str) -> str:
        copy = tmp_path / str(len(list(tmp_path.iterdir()))) / run_dir.name
        shutil.copytree(run_dir, copy)
        (copy / ".lock").unlink(missing_ok=True)
        with pytest.raises(CheckpointError) as refused:
            train(load_config(TINY, [*RAY_MIX, *overrides]), copy.parent, resume=True)
        assert len(str(refused.value).splitlines()) == 1
        return str(refused.value)

    assert "played by 2 rollout workers; resume the run with them (rollout.workers = 2, or " \
        "ray.enabled = true and ray.workers = 2)" in resume(ray_mix_run.run_dir,
                                                            "ray.enabled=false")  # fmt: skip
    assert "holds the games of 2 rollout workers; this run has ray.workers = 1: resume it " \
        "with ray.workers = 2" in resume(ray_mix_run.run_dir, "ray.workers=1")  # fmt: skip
    local = train(load_config(TINY, [*RAY_MIX, "ray.enabled=false", "run.updates=1",
                                     "warmstart.updates=0"]), tmp_path / "local")  # fmt: skip
    assert "played in the learner's process (rollout.workers = 0, ray.enabled = false)" in resume(
        local.run_dir
    )


# ----- the parts, without a cluster ------------------------------------------------------
def _rollouts(games: tuple[int, ...], hands: int) -> list:
    """One local rollout of ``hands`` hands for each count of ``games`` (a worker's share)."""
    config = load_config(TINY)
    rules = rules_of(config)
    model = build_model(config, game_mix(config))
    pool = OpponentPool(rules, {"self": 0.5, "heuristic": 0.5}, 1, make_model=None)
    parts = []
    for n in games:
        batch = GameBatch(rules, n, np.random.default_rng(n), OwnView(rules), 0.1)
        play = batch.play(pool, hands, np.random.default_rng(n), privileged=True)
        parts += collect_in_lockstep(model, [play])
    return parts


def test_joined_rollouts_give_the_advantages_of_each_part() -> None:
    parts = _rollouts((5, 8), hands=2)
    joined = merge_rollouts(parts)
    assert joined.decisions == sum(p.decisions for p in parts) and joined.hands == 26
    whole = to_batch(joined, 1.0, 0.95, train_forced=True)
    each = [to_batch(p, 1.0, 0.95, train_forced=True) for p in parts]
    for field in ("advantages", "returns", "actions", "obs"):
        expected = torch.cat([getattr(b, field) for b in each])
        assert torch.equal(getattr(whole, field), expected), field
    for entry, (total, hands) in joined.payoff_by_entry.items():
        assert hands == sum(p.payoff_by_entry[entry][1] for p in parts)
        assert total == pytest.approx(sum(p.payoff_by_entry[entry][0] for p in parts))


def test_joined_rollouts_add_up_their_seconds_for_one_game_as_for_a_mix() -> None:
    """``time/<part>_seconds`` has one meaning however the rollouts are joined: the work
    done. The one-game Ray path took the slowest worker's seconds; a mix on Ray summed them."""
    from spar_train.games import MixGame
    from spar_train.ppo.sources.base import join_games

    parts = _rollouts((5, 40), hands=1)
    summed = {k: sum(p.seconds[k] for p in parts) for k in parts[0].seconds}
    assert summed != {k: max(p.seconds[k] for p in parts) for k in summed}  # they differ here
    assert merge_rollouts(parts).seconds == pytest.approx(summed)  # one game's workers
    rules = rules_of(load_config(TINY))
    games = [MixGame(rules, 1.0, OwnView(rules), key) for key in ("a", "b")]
    assert join_games(games, parts).seconds == pytest.approx(summed)  # a mix's games


@pytest.mark.parametrize(
    ("override", "message"),
    [
        ("ray.workers=0", "ray.workers: must be at least 1"),
        ("ray.cpus_per_worker=0", "ray.cpus_per_worker: must be at least 1"),
        ('ray.address="no such"', "ray.address: not a Ray address"),
        ("ray.speed=2", "ray.speed: unknown key"),
    ],
)
def test_bad_ray_keys_are_refused_naming_them(override: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        load_config(TINY, [override])


def test_a_run_on_ray_needs_a_game_for_every_worker() -> None:
    with pytest.raises(ConfigError, match=r"rollout.games: must be at least ray.workers \(4\)"):
        load_config(TINY, ["ray.enabled=true", "ray.workers=4", "rollout.games=3"])
    assert load_config(TINY, ["ray.workers=4", "rollout.games=3"]).ray.workers == 4  # unused


def test_addresses_ray_takes_pass_and_others_do_not() -> None:
    for address in ("", "auto", "local", "10.0.0.5:6379", "ray://head.example:10001"):
        assert check_address(address) == address
    for address in ("heuristic", "pimc:worlds=8", "host:port"):
        with pytest.raises(ValueError, match="not a Ray address"):
            check_address(address)


def test_without_ray_the_error_says_how_to_install_it(monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray now fails
    with pytest.raises(ValueError, match=r'pip install -e "\.\[ray\]"'):
        require_ray()


def test_each_game_of_a_mix_goes_whole_to_the_least_loaded_worker() -> None:
    assert assign_games([8, 8, 8], 2) == [[0, 2], [1]]
    assert assign_games([5, 1, 3, 3], 2) == [[0, 1], [2, 3]]  # 6 games each
    assert assign_games([2, 9, 4, 4, 1], 3) == [[1], [0, 2], [3, 4]]  # ties: the lower index
    assert assign_games([3, 3], 1) == [[0, 1]]
    with pytest.raises(ValueError, match="^3 workers for the 2 games of the mix$"):
        assign_games([3, 3], 3)
    # Each worker's pieces: (game, games of it); a single game is shared out among them.
    assert worker_pieces([8, 5, 8], 2) == [[(0, 8), (1, 5)], [(2, 8)]]
    assert worker_pieces([10], 3) == [[(0, 4)], [(0, 3)], [(0, 3)]]
    assert worker_pieces([10], 1) == [[(0, 10)]]


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ([MIX3, "ray.workers=4"],
         r"ray.workers: must be at most the 3 games of game.mix \(each worker plays whole "
         r"games\); got 4"),
        (['game.mix=[{variant="spar",players=2,options={end="target:5"}}]', "ray.workers=1",
          'ppo.reward="match"'],
         "ray.enabled: must be false with ppo.reward = match"),
    ],
)  # fmt: skip
def test_a_mix_on_ray_is_refused_where_it_cannot_run(overrides: list[str], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        load_config(TINY, ["ray.enabled=true", *overrides])
    assert load_config(TINY, [MIX3, "ray.enabled=true", "ray.workers=3"]).ray.workers == 3
