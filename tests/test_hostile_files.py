"""A sweep of every file the toolkit reads from a user, against every attack a file can carry.

The kinds of file (:data:`KINDS`): a league's folder, a run folder, a config, a PPO
checkpoint, an ONNX bot's metadata, a game record, and a web server's saved game. The
attacks (:data:`ATTACKS`):

- ``symlink``: the file (or its lock, or its folder's parts) is a link to elsewhere, or to
  ``/dev/zero``: nothing outside is written or removed, and nothing endless is read;
- ``code``: the file names code (a ``py:`` agent, a pickle, an ONNX external-data path):
  none of it runs or is read;
- ``huge``: a count or a size far past what its command-line flag allows, or a file of
  gigabytes (sparse, so it costs no disk): refused at once, in bounded memory;
- ``nesting``: JSON or TOML nested far deeper than any real file: refused, no
  ``RecursionError``;
- ``control``: terminal escapes in a name the file gives: never printed raw.

Each case builds the hostile file in a fresh folder and runs the command that reads it: it
holds when the command answers one line (or reads the file as plain data) and does no
harm. ``test_every_kind_meets_every_attack`` checks that every cell of kind x attack has
cases; ``pytest tests/test_hostile_files.py --collect-only -q`` lists them,
``kind-attack-what``.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.bots import UNIVERSAL_BOT, bot_with
from tests.helpers.cli import SHIPPED_BOT, TINY, cli, one_line, spar

KINDS = ("league", "run", "config", "checkpoint", "onnx", "record", "saved_game")
ATTACKS = ("symlink", "code", "huge", "nesting", "control")

PRECIOUS = "precious\n"
HOSTILE = "\x1b]0;pwned\x07\x1b[2J"  # retitles the window, then clears the screen
EVIL = 'open("PWNED", "w").write("x")\nclass X:\n    def __init__(self, rules):\n        pass\n'
DEEP = "[" * 100_000 + "]" * 100_000
GIB = 1 << 30


@dataclass(frozen=True)
class Case:
    kind: str
    attack: str
    what: str
    check: Callable[[Env], None]
    owner: str = ""  # a fix another change makes: the case is expected to fail until it lands


@dataclass
class Env:
    """What a case works in: a fresh current folder, and pytest's output capture."""

    tmp: Path
    capsys: Any
    request: Any

    def evil(self) -> str:
        """A module of the current folder that leaves ``PWNED`` when imported: its name."""
        name = "evil_" + re.sub(r"\W", "_", self.request.node.name)[-60:]
        (self.tmp / f"{name}.py").write_text(EVIL)
        return name

    def no_code_ran(self) -> None:
        assert not (self.tmp / "PWNED").exists(), "the file's code ran"

    def victim(self, name: str = "victim.txt") -> Path:
        victim = self.tmp / name
        victim.write_text(PRECIOUS)
        return victim

    def cli(self, *argv: object) -> tuple[int, str, str]:
        return cli(self.capsys, *argv)

    def run_copy(self) -> Path:
        """A copy of the tiny PPO run at ``runs/t``."""
        return self.request.getfixturevalue("run_copy")


CASES: list[Case] = []


def case(kind: str, attack: str, what: str, owner: str = "") -> Callable:
    assert kind in KINDS and attack in ATTACKS

    def add(check: Callable[[Env], None]) -> Callable[[Env], None]:
        CASES.append(Case(kind, attack, what, check, owner))
        return check

    return add


def refused(status: int, err: str, *names: str, code: int = 2) -> None:
    one_line(status, err, *names, code=code)
    assert "\x1b" not in err and "\x07" not in err


def refused_quickly(argv: list[object], cwd: Path, *names: str, code: int = 2) -> None:
    """``spar argv`` in a subprocess with capped memory answers one line within a minute."""
    done = spar(*argv, cwd=cwd, cap=True, timeout=60)
    refused(done.returncode, done.stderr, *names, code=code)


def clean(*texts: str) -> None:
    for text in texts:
        assert "\x1b" not in text and "\x07" not in text, text


def sparse(path: Path, size: int) -> Path:
    """A file of ``size`` bytes that takes no disk."""
    with open(path, "wb") as f:
        f.truncate(size)
    return path


def deep_dict(depth: int) -> dict:
    out: dict = {}
    inner = out
    for _ in range(depth):
        inner["a"] = {}
        inner = inner["a"]
    return out


# ----- a league's folder ------------------------------------------------------------------
def league(env: Env, *entrants: str) -> Path:
    """A league of random and low, with ``entrants`` written into its file."""
    folder = env.tmp / "lg"
    assert env.cli("league", "add", folder, "random", "low")[0] == 0
    if entrants:
        edit_league(folder, lambda d: {**d, "entrants": d["entrants"] + list(entrants)})
    return folder


def edit_league(folder: Path, change: Callable[[dict], dict]) -> None:
    path = folder / "league.json"
    path.write_text(json.dumps(change(json.loads(path.read_text()))))


@case("league", "symlink", "lock links to a file")
def _(env: Env) -> None:
    victim, folder = env.victim(), env.tmp / "lg"
    folder.mkdir()
    os.symlink(victim, folder / "league.lock")
    refused(*env.cli("league", "add", folder, "random", "low")[::2], "league.lock")
    assert victim.read_text() == PRECIOUS


@case("league", "symlink", "league.json links to another league")
def _(env: Env) -> None:
    other = env.tmp / "other"
    assert env.cli("league", "add", other, "random", "low")[0] == 0
    before = (other / "league.json").read_text()
    folder = env.tmp / "lg"
    folder.mkdir()
    os.symlink(other / "league.json", folder / "league.json")
    status, _, err = env.cli("league", "add", folder, "high")
    refused(status, err, "league.json", "symbolic link")
    assert (other / "league.json").read_text() == before


@case("league", "code", "an entrant py:")
def _(env: Env) -> None:
    folder = league(env, f"py:{env.evil()}:X")
    assert env.cli("league", "show", folder)[0] == 0
    env.cli("league", "play", folder, "--deals", 4, "--match", 2)
    env.no_code_ran()


@case("league", "code", "an entrant search:policy=py:")
def _(env: Env) -> None:
    folder = league(env, f"search:policy=py:{env.evil()}:X")
    env.cli("league", "show", folder)
    env.cli("league", "play", folder, "--deals", 4, "--match", 2)
    env.no_code_ran()


@case("league", "huge", "a 3 GiB league.json")
def _(env: Env) -> None:
    folder = env.tmp / "lg"
    folder.mkdir()
    sparse(folder / "league.json", 3 * GIB)
    refused_quickly(["league", "show", folder], env.tmp, "league.json")


@case("league", "huge", "a planned match of 10^12 deals")
def _(env: Env) -> None:
    folder = league(env)
    edit_league(folder, lambda d: {**d, "planned": [{"index": 0, "pair": [0, 1],
                                                     "deals": 10**12, "seed": 0}]})  # fmt: skip
    from spar_train.league.store import load

    with pytest.raises(ValueError, match="deals"):
        load(folder)


@case("league", "huge", "100,000 entrants")
def _(env: Env) -> None:
    folder = league(env, *(f"onnx:{i}.onnx" for i in range(100_000)))
    refused_quickly(["league", "show", folder], env.tmp, "league.json", "entrants")


@case("league", "nesting", "league.json nested 100,000 deep")
def _(env: Env) -> None:
    folder = league(env)
    (folder / "league.json").write_text(DEEP)
    refused(*env.cli("league", "show", folder)[::2], "league.json", "nested")


@case("league", "nesting", "the game's options nested 500 deep")
def _(env: Env) -> None:
    folder = league(env)
    edit_league(folder, lambda d: {**d, "game": {**d["game"], "options": deep_dict(500)}})
    refused(*env.cli("league", "show", folder)[::2], "league.json")


@case("league", "control", "an entrant's name")
def _(env: Env) -> None:
    folder = league(env, HOSTILE + "low")
    status, out, err = env.cli("league", "show", folder)
    assert status == 0, err
    clean(out, err)
    status, out, err = env.cli("league", "play", folder, "--deals", 4, "--match", 2)
    assert status == 0, err
    clean(out, err)


# ----- a run folder -----------------------------------------------------------------------
def resume(env: Env, run: Path, *more: object) -> tuple[int, str, str]:
    return env.cli("train", "--resume", run, "--set", "run.updates=3", *more)


def edit_config(run: Path, change: Callable[[str], str]) -> None:
    path = run / "config.toml"
    path.write_text(change(path.read_text()))


def opponents(spec: str) -> Callable[[str], str]:
    """A change of a run's config.toml: ``eval.opponents`` is ``[spec]``."""
    line = f"opponents = [{json.dumps(spec)}]"
    return lambda text: re.sub(r"opponents = \[[^\]]*\]", lambda _: line, text, count=1)


def in_section(section: str, line: str) -> Callable[[str], str]:
    """A change of a config's text: ``line`` added at the top of ``[section]``."""
    return lambda text: text.replace(f"[{section}]\n", f"[{section}]\n{line}\n", 1)


@case("run", "symlink", "its lock links to a file")
def _(env: Env) -> None:
    run, victim = env.run_copy(), env.victim()
    os.symlink(victim, run / ".lock")
    refused(*resume(env, run)[::2], ".lock")
    assert victim.read_text() == PRECIOUS


@case("run", "symlink", "its checkpoints folder links to another run's")
def _(env: Env) -> None:
    run = env.run_copy()
    elsewhere = env.tmp / "precious_checkpoints"
    shutil.move(run / "checkpoints", elsewhere)
    os.symlink(elsewhere, run / "checkpoints")
    before = {p.name: p.read_bytes() for p in elsewhere.iterdir()}
    edit_config(run, lambda t: re.sub(r"keep_checkpoints = \d+", "keep_checkpoints = 1", t))
    refused(*resume(env, run)[::2], "checkpoints", "symbolic link")
    assert {p.name: p.read_bytes() for p in elsewhere.iterdir()} == before


@case("run", "symlink", "config.toml links to /dev/zero")
def _(env: Env) -> None:
    run = env.run_copy()
    (run / "config.toml").unlink()
    os.symlink("/dev/zero", run / "config.toml")
    refused(*resume(env, run)[::2], "config.toml")


@case("run", "code", "an eval opponent py:")
def _(env: Env) -> None:
    run = env.run_copy()
    edit_config(run, opponents(f"py:{env.evil()}:X"))
    refused(*resume(env, run)[::2], "py:", "--trust-code")
    env.no_code_ran()


@case("run", "code", "a pool opponent search:policy=py:")
def _(env: Env) -> None:
    run = env.run_copy()
    edit_config(run, in_section("pool.mix", f'"search:policy=py:{env.evil()}:X" = 0.1'))
    refused(*resume(env, run)[::2], "py:", "--trust-code")
    env.no_code_ran()


@case("run", "huge", "rollout.games = 10^12")
def _(env: Env) -> None:
    run = env.run_copy()
    edit_config(run, lambda t: re.sub(r"\ngames = \d+", "\ngames = 1000000000000", t, count=1))
    refused(*resume(env, run)[::2], "rollout.games")


@case("run", "huge", "a checkpoint's model.hidden of 100,000 layers")
def _(env: Env) -> None:
    from spar_agents.ppo.agent import latest_checkpoint
    from spar_agents.ppo.checkpoint import load_checkpoint, save_checkpoint

    run = env.run_copy()
    file = latest_checkpoint(run)
    saved = load_checkpoint(file)
    saved["model"] = {**saved["model"], "hidden": [64] * 100_000}
    save_checkpoint(file, saved)
    refused(*resume(env, run)[::2], "model.hidden", "at most 64")


@case("run", "nesting", "config.toml nested 100,000 deep")
def _(env: Env) -> None:
    run = env.run_copy()
    edit_config(run, lambda t: f"deep = {DEEP}\n{t}")
    refused(*resume(env, run)[::2], "config.toml", "nested")


@case("run", "control", "an eval opponent's name")
def _(env: Env) -> None:
    run = env.run_copy()
    edit_config(run, opponents("onnx:" + HOSTILE))
    refused(*resume(env, run)[::2], "eval.opponents")


# ----- a config --------------------------------------------------------------------------
def config(env: Env, change: Callable[[str], str]) -> Path:
    path = env.tmp / "handed.toml"
    path.write_text(change(TINY.read_text()))
    return path


@case("config", "symlink", "the config links to /dev/zero")
def _(env: Env) -> None:
    os.symlink("/dev/zero", env.tmp / "zero.toml")
    refused(*env.cli("train", env.tmp / "zero.toml")[::2], "zero.toml")


@case("config", "code", "an eval opponent py:")
def _(env: Env) -> None:
    path = config(env, in_section("eval", f'opponents = ["py:{env.evil()}:X"]'))
    refused(*env.cli("train", path)[::2], "py:", "--trust-code")
    env.no_code_ran()


@case("config", "huge", "rollout.games = 10^12")
def _(env: Env) -> None:
    path = config(env, lambda t: t.replace("games = 128", "games = 1000000000000"))
    refused(*env.cli("train", path)[::2], "rollout.games")


@case("config", "huge", "a seed of 5,000 digits")
def _(env: Env) -> None:
    path = config(env, lambda t: t.replace("seed = 0", "seed = " + "9" * 5000))
    refused(*env.cli("train", path)[::2], "handed.toml")


@case("config", "nesting", "an array nested 100,000 deep")
def _(env: Env) -> None:
    path = config(env, lambda t: f"deep = {DEEP}\n{t}")
    refused_quickly(["train", path], env.tmp, "handed.toml", "nested")


@case("config", "control", "run.name")
def _(env: Env) -> None:
    path = config(env, lambda t: t.replace('name = "tiny"', f"name = {json.dumps(HOSTILE)}"))
    refused(*env.cli("train", path)[::2], "run.name")
    assert not (env.tmp / "runs").exists()


# ----- a PPO checkpoint --------------------------------------------------------------------
def checkpoint(path: Path, config: dict | None = None, **entries: Any) -> Path:
    """A checkpoint of a tiny 2-player network, its entries replaced by ``entries``; a
    ``config`` is saved from a thread with a deep stack (torch pickles recursively)."""
    from spar_agents.ppo.checkpoint import save_checkpoint
    from spar_agents.ppo.network import ActorCritic
    from spar_agents.signature import game_signature
    from spar_env.observation.per_game import layout_for
    from spar_env.rules import make_rules

    rules = make_rules("spar", players=2)
    net = ActorCritic(layout_for(rules).high, rules.num_actions, hidden=(8,))
    payload = {"game": game_signature(rules), "model": {"hidden": [8], "privileged": 0},
               "weights": net.state_dict(), "counters": {"update": 1},
               "config": config or {"run": {"name": "handed"}}, **entries}  # fmt: skip
    limit, stack = sys.getrecursionlimit(), threading.stack_size(256 << 20)
    sys.setrecursionlimit(50_000)
    try:
        saver = threading.Thread(target=save_checkpoint, args=(path, payload))
        saver.start()
        saver.join()
    finally:
        sys.setrecursionlimit(limit)
        threading.stack_size(stack)
    assert path.is_file()
    return path


@case("checkpoint", "symlink", "ppo: links to /dev/zero")
def _(env: Env) -> None:
    os.symlink("/dev/zero", env.tmp / "zero.pt")
    refused(*env.cli("bench", "ppo:zero.pt", "random", "--deals", 2)[::2], "zero.pt")


@case("checkpoint", "code", "a pickle that would run code")
def _(env: Env) -> None:
    import pickle

    class Payload:
        def __reduce__(self):
            return (exec, ('open("PWNED", "w").write("x")',))

    (env.tmp / "evil.pt").write_bytes(pickle.dumps({"format": "spar-rl checkpoint",
                                                    "x": Payload()}))  # fmt: skip
    refused(*env.cli("bench", "ppo:evil.pt", "random", "--deals", 2)[::2], "evil.pt")
    refused(*env.cli("export", "evil.pt", "--out", "b.onnx")[::2], "evil.pt")
    env.no_code_ran()


@case("checkpoint", "huge", "model.hidden of 100,000 layers")
def _(env: Env) -> None:
    checkpoint(env.tmp / "c.pt", model={"hidden": [8] * 100_000, "privileged": 0})
    refused(*env.cli("export", "c.pt", "--out", "b.onnx")[::2], "model.hidden")


@case("checkpoint", "huge", "a 5 GiB file")
def _(env: Env) -> None:
    sparse(env.tmp / "big.pt", 5 * GIB)
    refused_quickly(["bench", "ppo:big.pt", "random", "--deals", 2], env.tmp, "big.pt")


@case("checkpoint", "nesting", "its config nested 5,000 deep")
def _(env: Env) -> None:
    checkpoint(env.tmp / "c.pt", config={"run": {"name": "x"}, "deep": deep_dict(5000)})
    refused(*env.cli("export", "c.pt", "--out", "b.onnx")[::2], "c.pt", "nested")


@case("checkpoint", "nesting", "its game's options nested 5,000 deep")
def _(env: Env) -> None:
    from spar_agents.signature import game_signature
    from spar_env.rules import make_rules

    game = {**game_signature(make_rules("spar", players=2)), "options": deep_dict(5000)}
    checkpoint(env.tmp / "c.pt", game=game)
    refused(*env.cli("bench", "ppo:c.pt", "random", "--deals", 2)[::2], "c.pt")


@case("checkpoint", "control", "its run's name")
def _(env: Env) -> None:
    checkpoint(env.tmp / "c.pt", config={"run": {"name": HOSTILE}})
    status, out, err = env.cli("export", "c.pt", "--out", "b.onnx", "--check", 16)
    assert status == 0, err
    clean(out, err)


# ----- an ONNX bot's metadata ------------------------------------------------------------
def bench_bot(env: Env, bot: Path) -> tuple[int, str]:
    status, _, err = env.cli("bench", f"onnx:{bot}", "random", "--players", 4, "--deals", 2)
    return status, err


@case("onnx", "symlink", "onnx: links to /dev/zero")
def _(env: Env) -> None:
    os.symlink("/dev/zero", env.tmp / "zero.onnx")
    refused(*bench_bot(env, env.tmp / "zero.onnx"), "zero.onnx")


@case("onnx", "code", "an initializer read from a linked file beside it")
def _(env: Env) -> None:
    import onnx

    secret = env.victim("secret.bin")
    model = onnx.load(str(SHIPPED_BOT))
    tensor = model.graph.initializer[0]
    tensor.ClearField("raw_data")
    tensor.data_location = onnx.TensorProto.EXTERNAL
    entry = tensor.external_data.add()
    entry.key, entry.value = "location", "data.bin"
    (env.tmp / "bot").mkdir()
    os.symlink(secret, env.tmp / "bot" / "data.bin")
    onnx.save(model, str(env.tmp / "bot" / "b.onnx"))
    refused(*bench_bot(env, env.tmp / "bot" / "b.onnx"), "b.onnx")


@case("onnx", "huge", "players = 1,000,000")
def _(env: Env) -> None:
    refused(*bench_bot(env, bot_with(env.tmp / "b.onnx", players="1000000")), "b.onnx")


@case("onnx", "huge", "a 3 GiB file")
def _(env: Env) -> None:
    refused(*bench_bot(env, sparse(env.tmp / "big.onnx", 3 * GIB)), "big.onnx")


@case("onnx", "nesting", "options nested 100,000 deep")
def _(env: Env) -> None:
    refused(*bench_bot(env, bot_with(env.tmp / "b.onnx", options=DEEP)), "nested")


@case("onnx", "nesting", "a universal bot's games nested 100,000 deep")
def _(env: Env) -> None:
    refused(*bench_bot(env, bot_with(env.tmp / "b.onnx", UNIVERSAL_BOT, games=DEEP)), "nested")


@case("onnx", "control", "its variant")
def _(env: Env) -> None:
    refused(*bench_bot(env, bot_with(env.tmp / "b.onnx", variant=HOSTILE)), "b.onnx")


# ----- a game record -----------------------------------------------------------------------
RECORD = {"variant": "spar", "options": {}, "players": 2, "dealer": 0,
          "hands": [["6H", "KH", "9C", "AD", "7S"], ["6C", "KC", "9D", "AS", "7H"]],
          "plays": []}  # fmt: skip


def replay(env: Env, *records: object) -> tuple[int, str, str]:
    path = env.tmp / "records.jsonl"
    lines = (r if isinstance(r, str) else json.dumps(r) for r in records)
    path.write_text("".join(line + "\n" for line in lines))
    return env.cli("replay", path)


def replay_refused(env: Env, record: object, *words: str) -> None:
    status, out, err = replay(env, record)
    refused(status, err, "records.jsonl", "1 of 1 records failed", code=1)
    result = json.loads(out)
    assert all(word in result["error"] for word in words), result
    clean(out)


@case("record", "symlink", "the file links to /dev/zero")
def _(env: Env) -> None:
    os.symlink("/dev/zero", env.tmp / "zero.jsonl")
    status, _, err = env.cli("replay", env.tmp / "zero.jsonl")
    refused(status, err, "zero.jsonl", code=1)


@case("record", "code", "the variant py:")
def _(env: Env) -> None:
    replay_refused(env, {**RECORD, "variant": f"py:{env.evil()}:X"}, "variant")
    env.no_code_ran()


@case("record", "huge", "a dealer of 5,000 digits")
def _(env: Env) -> None:
    replay_refused(env, json.dumps(RECORD).replace('"dealer": 0', '"dealer": ' + "9" * 5000))


@case("record", "huge", "players = 10^9")
def _(env: Env) -> None:
    replay_refused(env, {**RECORD, "players": 10**9}, "players")


@case("record", "nesting", "the record nested 100,000 deep")
def _(env: Env) -> None:
    replay_refused(env, DEEP, "nested")


@case("record", "nesting", "its options nested 500 deep")
def _(env: Env) -> None:
    replay_refused(env, {**RECORD, "options": deep_dict(500)}, "nested")


@case("record", "control", "its variant")
def _(env: Env) -> None:
    replay_refused(env, {**RECORD, "variant": HOSTILE})


# ----- a web server's saved game ---------------------------------------------------------
def saved_game(env: Env, folder: Path) -> dict:
    """A real saved game in ``folder`` (a game made by a server keeping its games there)."""
    from starlette.testclient import TestClient

    from spar_apps.web import Limits, Lobby, create_app
    from spar_apps.web.saved import GameFolder

    state = GameFolder(folder)
    try:
        app = create_app(Lobby(["random"], ["random"]), Limits(), seed=0, folder=state)
        client = TestClient(app, base_url="http://127.0.0.1")
        view = client.post("/api/games", json={"players": 2, "opponents": "random"}).json()
    finally:
        state.close()
    return json.loads((folder / "games" / f"{view['game']}.json").read_text())


def restore(folder: Path, caplog: Any = None) -> tuple[Any, list[str]]:
    """A server keeping its games in ``folder``: its store, and the files it set aside."""
    from spar_apps.web import Limits, Lobby, create_app
    from spar_apps.web.saved import GameFolder

    state = GameFolder(folder)
    app = create_app(Lobby(["random"], ["random"]), Limits(), folder=state)
    state.close()
    return app.state.store, sorted(p.name for p in (folder / "games").glob("*.broken"))


def plant(env: Env, change: Callable[[dict], object]) -> tuple[Path, str]:
    """A saved game in ``state/``, changed by ``change``: the folder and the game's file."""
    folder = env.tmp / "state"
    data = saved_game(env, folder)
    name = f"{data['id']}.json"
    changed = change(data)
    (folder / "games" / name).write_text(
        changed if isinstance(changed, str) else json.dumps(changed)
    )
    return folder, name


def set_aside(folder: Path, name: str) -> None:
    store, broken = restore(folder)
    assert len(store) == 0 and broken == [f"{name}.broken"]


@case("saved_game", "symlink", "the folder's lock links to a file")
def _(env: Env) -> None:
    from spar_apps.web.saved import GameFolder

    victim = env.victim()
    os.symlink(victim, env.tmp / ".lock")
    with pytest.raises(ValueError, match="symbolic link"):
        GameFolder(env.tmp)
    assert victim.read_text() == PRECIOUS


@case("saved_game", "symlink", "a game's file links to another server's game")
def _(env: Env) -> None:
    from spar_apps.web.saved import GameFolder

    other = env.tmp / "other"
    data = saved_game(env, other)
    name = f"{data['id']}.json"
    before = (other / "games" / name).read_text()
    folder = env.tmp / "state"
    GameFolder(folder).close()  # a state folder of its own
    os.symlink(other / "games" / name, folder / "games" / name)
    store, broken = restore(folder)
    for game_id in [data["id"]] if len(store) else []:  # if taken up, a change must not leak
        game = store.get(game_id)
        store.save(game)
    assert (other / "games" / name).read_text() == before
    assert len(store) == 0 and broken == []  # not loaded, and the link left alone
    assert (folder / "games" / name).is_symlink()


@case("saved_game", "code", "its opponents py:")
def _(env: Env) -> None:
    folder, name = plant(env, lambda d: {**d, "form": {**d["form"],
                                                       "opponents": f"py:{env.evil()}:X"}})  # fmt: skip
    set_aside(folder, name)
    env.no_code_ran()


@case("saved_game", "huge", "a log of 400,000 actions")
def _(env: Env) -> None:
    folder, name = plant(env, lambda d: {**d, "log": [0] * 400_000})
    start = time.monotonic()
    set_aside(folder, name)
    assert time.monotonic() - start < 30


@case("saved_game", "huge", "a 3 GiB file")
def _(env: Env) -> None:
    folder, name = plant(env, lambda d: d)
    sparse(folder / "games" / name, 3 * GIB)
    set_aside(folder, name)


@case("saved_game", "nesting", "its form nested 100,000 deep")
def _(env: Env) -> None:
    folder, name = plant(env, lambda d: json.dumps(d).replace('"form": {', f'"deep": {DEEP}, '
                                                             '"form": {', 1))  # fmt: skip
    set_aside(folder, name)


@case("saved_game", "control", "its opponents, in the server's log")
def _(env: Env) -> None:
    folder, name = plant(env, lambda d: {**d, "form": {**d["form"], "opponents": HOSTILE}})
    caplog = env.request.getfixturevalue("caplog")
    set_aside(folder, name)
    lines = [r.getMessage() for r in caplog.records if r.name == "spar.serve"]
    assert lines and all("\x1b" not in line for line in lines), lines


# ----- the sweep ----------------------------------------------------------------------------
def _param(c: Case) -> Any:
    marks = [pytest.mark.xfail(reason=f"left to {c.owner}", strict=False)] if c.owner else []
    return pytest.param(c, id=f"{c.kind}-{c.attack}-{c.what}", marks=marks)


@pytest.mark.parametrize("c", [_param(c) for c in CASES])
def test_a_hostile_file_does_no_harm(c: Case, tmp_path: Path, capsys, monkeypatch,
                                     request) -> None:  # fmt: skip
    monkeypatch.chdir(tmp_path)
    c.check(Env(tmp_path, capsys, request))
    for name in list(sys.modules):
        if name.startswith("evil_"):
            del sys.modules[name]


def test_every_kind_meets_every_attack() -> None:
    cells = Counter((c.kind, c.attack) for c in CASES)
    missing = [(k, a) for k in KINDS for a in ATTACKS if not cells[k, a]]
    assert not missing, missing
