"""A user's own agent that fails: every fault of its ``act`` (and of its module) is one line
naming it (:mod:`spar_agents.registry.guarded`), never a traceback, a silent exit, an
answer broadcast to every game or a NaN read as an action."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from spar_agents import make_agent
from spar_env.rules import make_rules
from tests.helpers.cli import cli, one_line, spar

MODULE = """
import sys
import numpy as np
from spar_agents.base import Decision


def first_legal(situation):
    return np.argmax(situation.mask, axis=1)


class Raises:
    def __init__(self, rules):
        pass

    def act(self, situation, rng):
        raise RuntimeError("boom in act")


class Exits:
    def __init__(self, rules):
        pass

    def act(self, situation, rng):
        sys.exit(3)


class ReturnsNone:
    def __init__(self, rules):
        pass

    def act(self, situation, rng):
        return None


class OneAction:
    def __init__(self, rules):
        pass

    def act(self, situation, rng):
        return Decision(first_legal(situation)[:1])


class NaNs:
    def __init__(self, rules):
        pass

    def act(self, situation, rng):
        return Decision(np.full(situation.size, np.nan))


class Floats:  # whole numbers as floats are still actions
    def __init__(self, rules):
        self.depth = 2

    def act(self, situation, rng):
        return Decision(first_legal(situation).astype(np.float64))


class BadProbs:
    def __init__(self, rules):
        pass

    def act(self, situation, rng):
        return Decision(first_legal(situation), np.ones((1, 2)))
"""


@pytest.fixture
def faulty(tmp_path: Path, monkeypatch) -> Path:
    (tmp_path / "faulty_t.py").write_text(MODULE)
    (tmp_path / "exits_t.py").write_text("raise SystemExit(7)\nclass X: pass\n")
    monkeypatch.chdir(tmp_path)
    for name in ("faulty_t", "exits_t"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    return tmp_path


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("Raises", "act failed: RuntimeError: boom in act"),
        ("Exits", "act failed: SystemExit(3)"),
        ("ReturnsNone", "act returned None, not a Decision"),
        ("OneAction", "answered with actions of shape (1,)"),
        ("NaNs", "its actions are not whole numbers (got nan)"),
        ("BadProbs", "its probs have shape (1, 2)"),
    ],
)
def test_a_fault_in_act_is_one_line_naming_the_agent(faulty: Path, capsys, name, words) -> None:
    status, _, err = cli(capsys, "bench", f"py:faulty_t:{name}", "random", "--deals", 8)
    one_line(status, err, f"py:faulty_t:{name}", words)


def test_an_answer_of_whole_floats_plays_and_attributes_reach_the_agent(faulty: Path) -> None:
    agent = make_agent("py:faulty_t:Floats", make_rules("spar"))
    assert agent.depth == 2  # the agent's own attributes, through the guard
    status = cli_status("bench", "py:faulty_t:Floats", "random", "--deals", 8)
    assert status == 0


def cli_status(*argv: object) -> int:
    from spar_apps.cli import main

    return main([str(a) for a in argv])


def test_the_environments_hear_the_fault_too(faulty: Path) -> None:
    import gymnasium as gym

    import spar_env  # noqa: F401  (registers spar_env/Spar-v0)

    env = gym.make("spar_env/Spar-v0", opponents="py:faulty_t:NaNs", seat=0)
    with pytest.raises(ValueError, match="py:faulty_t:NaNs: its actions are not whole"):
        obs, info = env.reset(seed=0)
        for _ in range(40):
            obs, *_, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))


def test_a_module_that_exits_on_import_is_one_line(faulty: Path) -> None:
    done = spar("bench", "py:exits_t:X", "random", "--deals", 4, cwd=faulty)
    one_line(done.returncode, done.stderr, "cannot import exits_t: SystemExit(7)")
