"""Checks of the built wheel, run by .ci/wheel.

    python wheel_checks.py contents WHEEL      # size and files of the wheel
    python wheel_checks.py installed ROOT      # in the wheel's venv, from a folder without source

The second form must run with the python of a venv holding only the wheel
(and its dependencies), from a folder outside ROOT, the source checkout.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time
import zipfile
from pathlib import Path

MAX_BYTES = 10 * 1024 * 1024
NOT_SHIPPED = ("runs/", "tests/", "notebooks/", "benchmarks/", "docs/", "checkpoints/", "configs/")
PACKAGES = {"spar_env", "spar_agents", "spar_train", "spar_apps"}  # setup.py's import names
USER_SHADOWS = {  # a user's own modules with the folders' bare names, in the folder we run from
    "agents/__init__.py": "raise ImportError('the user agents package was imported')\n",
    "train/__init__.py": "raise ImportError('the user train package was imported')\n",
    "train.py": "raise ImportError('the user train.py was imported')\n",
}
ENVS = """
import gymnasium as gym, numpy as np, spar_env
env = gym.make("spar_env/Spar-v0", opponents="heuristic")
obs, info = env.reset(seed=0)
env.step(int(np.flatnonzero(info["action_mask"])[0]))
from spar_agents import make_agent
make_agent("pimc:worlds=4", spar_env.make_rules("spar"))
aec = spar_env.env()
aec.reset(seed=0)
for _agent in aec.agent_iter(max_iter=8):
    observation, _, terminated, truncated, _ = aec.last()
    action = None if terminated or truncated else int(np.flatnonzero(observation["action_mask"])[0])
    aec.step(action)
print("ok")
"""


def contents(wheel: Path) -> None:
    size = wheel.stat().st_size
    names = zipfile.ZipFile(wheel).namelist()
    assert size < MAX_BYTES, f"the wheel is {size / 2**20:.1f} MB, over {MAX_BYTES / 2**20:.0f} MB"
    stray = [n for n in names if n.startswith(NOT_SHIPPED)]
    assert not stray, f"the wheel holds files it must not: {stray[:5]}"
    tops = {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")}
    assert tops == PACKAGES, f"top-level names in the wheel: {sorted(tops)}"
    root = Path(__file__).resolve().parents[1]
    wanted = [f"spar_agents/checkpoints/{p.name}" for p in root.glob("checkpoints/*.*")]
    wanted += [f"spar_train/configs/{p.name}" for p in root.glob("configs/*.toml")]
    missing = sorted(set(wanted) - set(names))
    assert not missing, f"the wheel lacks the shipped files {missing}"
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names), "no LICENSE"
    print(f"wheel {wheel.name}: {size / 2**20:.2f} MB, {len(names)} files, no {NOT_SHIPPED}")


def run(*argv: str) -> str:
    done = subprocess.run(argv, capture_output=True, text=True, timeout=600, check=False)
    if done.returncode != 0:
        sys.exit(f"{' '.join(argv)} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    return done.stdout + done.stderr


def play_one_hand(spar: Path, seconds: float = 120.0) -> str:
    """``spar play`` on a pty: the first legal card at every turn, keep at the exchange, one hand."""
    leader, follower = os.openpty()
    env = {**os.environ, "COLUMNS": "120", "LINES": "50"}
    child = subprocess.Popen(
        [str(spar), "play", "--seed", "1"],
        stdin=follower,
        stdout=follower,
        stderr=follower,
        env=env,
    )
    os.close(follower)
    seen, pending = "", ""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        ready, _, _ = select.select([leader], [], [], 1.0)
        if not ready:
            if child.poll() is not None:
                break
            continue
        try:
            chunk = os.read(leader, 4096).decode("utf-8", "replace")
        except OSError:  # the child closed the pty
            break
        seen += chunk
        pending += chunk
        for prompt, answer in (
            ("your card: ", "1"),
            ("keep or exchange? ", "k"),
            ("q to leave: ", "q"),
        ):
            if prompt in pending:
                os.write(leader, f"{answer}\n".encode())
                pending = ""
    else:
        child.kill()
        sys.exit(f"spar play did not finish in {seconds:.0f} s:\n{seen[-2000:]}")
    child.wait(timeout=30)
    os.close(leader)
    assert child.returncode == 0, f"spar play exited {child.returncode}:\n{seen[-2000:]}"
    return seen


def installed(root: Path) -> None:
    import spar_env
    from spar_agents import shipped

    for name, text in USER_SHADOWS.items():
        Path(name).parent.mkdir(exist_ok=True)
        Path(name).write_text(text)
    for module in sorted(PACKAGES):
        file = Path(__import__(module).__file__).resolve()
        assert root not in file.parents, f"{module} comes from the source tree: {file}"
    bot = shipped.bot_path().resolve()
    assert bot.is_file() and root not in bot.parents, bot
    print(f"spar-rl {spar_env.__version__} from {Path(spar_env.__file__).parent}; bot {bot.name}")
    spar = Path(sys.executable).with_name("spar")

    assert "commands" in run(str(spar), "--help")
    print("spar --help: ok")

    seen = play_one_hand(spar)
    assert "against seats 1, 2, 3: the built-in bot (onnx:exit4)" in seen, seen[-2000:]
    assert "your opponents are heuristic" not in seen
    assert "after 1 finished hand" in seen, seen[-2000:]
    print("spar play: one hand against the built-in bot (onnx:exit4), through a pty: ok")

    bench = run(str(spar), "bench", "onnx:spar4", "heuristic", "heuristic", "heuristic",
                "--deals", "200", "--json")  # fmt: skip
    figures, _ = json.JSONDecoder().raw_decode(bench[bench.index("{") :])
    bot_row = next(a for a in figures["agents"] if a["spec"] == "onnx:spar4")
    print(f"spar bench onnx:spar4 heuristic x3, 200 deals: {bot_row['mean_payoff']:+.3f}: ok")

    out = run(str(spar), "train", "ppo_tiny", "--runs-dir", "runs")
    assert sorted(Path("runs/tiny/checkpoints").glob("update_*.pt")), out
    print("spar train ppo_tiny: ok")
    out = run(str(spar), "bench", "ppo:runs/tiny", "random", "--deals", "20")
    assert "the game is spar with 2 players, as ppo:runs/tiny was made for" in out, out
    print("spar bench ppo:runs/tiny random (the game from the run): ok")

    assert run(sys.executable, "-c", ENVS).strip().endswith("ok")  # the cwd leads sys.path
    print(
        "from a folder with agents/, train/ and train.py of the user's own: gymnasium.make("
        "'spar_env/Spar-v0', opponents='heuristic') and the PettingZoo env: ok"
    )


if __name__ == "__main__":
    mode, arg = sys.argv[1], Path(sys.argv[2]).resolve()
    contents(arg) if mode == "contents" else installed(arg)
