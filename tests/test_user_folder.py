"""From a project folder of the user's own that has ``agents/``, ``train/`` and ``train.py``
(the commonest names in RL projects), everything of ours works: none of our modules is
imported under those names, so theirs never shadow ours, nor run in our place.

Each step runs in a subprocess whose working folder leads ``sys.path`` (as ``python -c``,
``python -m`` and notebooks put it), and the user's modules raise if they are imported.
"""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHADOWS = {
    "agents/__init__.py": "raise ImportError('the user agents package was imported')\n",
    "agents/policy.py": "raise ImportError('the user agents.policy was imported')\n",
    "train/__init__.py": "raise ImportError('the user train package was imported')\n",
    "train.py": "raise ImportError('the user train.py was imported')\n",
}
ENVS = """
import gymnasium as gym, numpy as np, spar_env
from spar_agents import make_agent
env = gym.make("spar_env/Spar-v0", opponents="heuristic", num_players=3)
obs, info = env.reset(seed=0)
env.step(int(np.flatnonzero(info["action_mask"])[0]))
aec = spar_env.env(num_players=2)
aec.reset(seed=0)
bot = make_agent("heuristic", aec.unwrapped.rules)  # a spec seat beside the AEC env's loop
plays = 0
for _agent in aec.agent_iter():
    observation, _, terminated, truncated, _ = aec.last()
    aec.step(None if terminated or truncated else int(np.flatnonzero(observation["action_mask"])[0]))
    plays += 1
print("envs", plays, type(bot).__name__)
"""


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    where = tmp_path_factory.mktemp("project")
    for name, text in SHADOWS.items():
        (where / name).parent.mkdir(exist_ok=True)
        (where / name).write_text(text)
    return where


def python(folder: Path, code: str, *args: str, timeout: float = 300, **kwargs):
    return subprocess.run([sys.executable, "-c", code, *args], cwd=folder, capture_output=True,
                          text=True, timeout=timeout, **kwargs)  # fmt: skip


def spar(folder: Path, *argv: str, **kwargs):
    """``spar argv`` through ``python -c``, so that the user's folder leads ``sys.path``."""
    code = "import sys; from spar_apps.cli import main; sys.exit(main(sys.argv[1:]))"
    return python(folder, code, *argv, **kwargs)


def test_the_users_modules_would_shadow_ours_if_we_used_their_names(folder: Path) -> None:
    done = python(folder, "import agents")
    assert done.returncode != 0 and "the user agents package was imported" in done.stderr


def test_the_envs_with_spec_opponents(folder: Path) -> None:
    done = python(folder, ENVS)
    assert done.returncode == 0, done.stderr[-3000:]
    word, plays, bot = done.stdout.split()
    assert (word, bot) == ("envs", "HeuristicAgent") and int(plays) >= 2 * 5  # a whole hand


def test_spar_train_bench_and_play(folder: Path) -> None:
    done = spar(folder, "train", "ppo_tiny", "--runs-dir", "runs", "--name", "mine",
                "--set", "run.updates=2", "--set", "warmstart.updates=1")  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    assert sorted(p.name for p in (folder / "runs" / "mine" / "checkpoints").glob("*.pt"))
    done = spar(folder, "bench", "ppo:runs/mine", "heuristic", "--deals", "40", "--json")
    assert done.returncode == 0, done.stderr[-3000:]
    figures, _ = json.JSONDecoder().raw_decode(done.stdout[done.stdout.index("{") :])
    assert {a["spec"] for a in figures["agents"]} == {"ppo:runs/mine", "heuristic"}
    done = spar(folder, "play", "--seed", "1", "--players", "2", input="")  # leaves at the prompt
    assert done.returncode == 0, done.stderr[-3000:]
    assert "final scores" in done.stdout, done.stdout[-2000:]


def test_spar_serve(folder: Path) -> None:
    code = "import sys; from spar_apps.cli import main; sys.exit(main(sys.argv[1:]))"
    server = subprocess.Popen([sys.executable, "-c", code, "serve", "--port", "0"], cwd=folder,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # fmt: skip
    try:
        line = server.stdout.readline()
        assert "the table is at http://" in line, line + server.stderr.read()
        address = line.split("http://", 1)[1].split("/", 1)[0]
        with urllib.request.urlopen(f"http://{address}/api/offer", timeout=60) as answer:
            offer = json.load(answer)
        assert answer.status == 200 and offer
        request = urllib.request.Request(
            f"http://{address}/api/games",
            method="POST",
            data=b'{"variant": "spar", "players": 2, "opponents": "heuristic"}',
            headers={"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=120) as answer:
            assert answer.status == 201 and json.load(answer)["game"]
    finally:
        server.terminate()
        server.wait(timeout=60)
