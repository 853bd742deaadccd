"""``py:module:Name`` specs: a user's own agent class, seated by the bench, the league and the
environments; anything that is not one is refused with one line."""

from __future__ import annotations

from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

import spar_env  # noqa: F401  (registers spar_env/Spar-v0)
from spar_agents import make_agent
from spar_env.rules import make_rules
from tests.helpers.cli import cli, one_line

MODULE = """
import numpy as np
from spar_agents.base import Decision

class FirstLegal:
    def __init__(self, rules, offset=0):
        self.offset = offset

    def act(self, situation, rng):
        return Decision(np.argmax(situation.mask, axis=1))

class NoAct:
    def __init__(self, rules):
        pass

def broken(rules):
    raise TypeError("this one takes no rules")
"""


@pytest.fixture
def mybots(tmp_path: Path, monkeypatch) -> Path:
    (tmp_path / "mybots_t.py").write_text(MODULE)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delitem(__import__("sys").modules, "mybots_t", raising=False)
    return tmp_path


def test_a_user_class_plays_in_the_bench_and_the_env(mybots: Path, capsys) -> None:
    status, out, err = cli(capsys, "bench", "py:mybots_t:FirstLegal", "random", "--deals", 50,
                           "--json")  # fmt: skip
    assert status == 0, err
    assert '"spec": "py:mybots_t:FirstLegal"' in out
    agent = make_agent("py:path=mybots_t:FirstLegal,offset=2", make_rules("spar"))
    assert agent.offset == 2
    env = gym.make("spar_env/Spar-v0", opponents="py:mybots_t:FirstLegal", seat=0)
    obs, info = env.reset(seed=0)
    assert np.flatnonzero(info["action_mask"]).size > 0


def test_the_current_folder_never_shadows_an_installed_package(mybots: Path) -> None:
    (mybots / "spar_agents").mkdir()
    (mybots / "spar_agents" / "__init__.py").write_text("raise SystemExit('shadowed')\n")
    assert make_agent("py:mybots_t:FirstLegal", make_rules("spar")) is not None


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("py:mybots_t", "py: takes module:Name"),
        ("py:nosuch_module_x:A", "cannot import nosuch_module_x"),
        ("py:mybots_t:Missing", "mybots_t has no class or function Missing"),
        ("py:mybots_t:NoAct", "has no act(situation, rng) method"),
        ("py:mybots_t:broken", "broken(rules, **params) failed"),
        ("py:path=mybots_t:FirstLegal,depth=2", "failed"),
    ],
)
def test_what_is_not_an_agent_is_refused_with_one_line(mybots: Path, capsys, spec, words) -> None:
    status, _, err = cli(capsys, "bench", spec, "random", "--deals", 5)
    one_line(status, err, words)
