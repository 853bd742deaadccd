"""The state folder of ``spar serve --state DIR`` is the server's alone (spar_apps.web.saved):
its own names and folders, never a link followed or a FIFO opened, nothing written outside
it, no file of another renamed or removed, every saved table and game read through the
checks of the HTTP form, and a start that refuses a folder in one line or serves it.

The sweep at the end starts a server on hostile folders of every kind and checks all of
that at once; the tests before it each hold one finding to its cause."""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import shutil
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from spar_apps.web import Limits, Lobby, create_app
from spar_apps.web.friends import FriendsTable, key_hash, table_form
from spar_apps.web.friends_store import FriendsTables
from spar_apps.web.own_folder import OwnFolder
from spar_apps.web.saved import GameFolder
from tests.helpers.cli import cli, one_line

CALM = Limits(game_burst=1e6, game_rate=1e6, new_burst=1e6)
PRECIOUS = "precious: not the server's\n"
FOREIGN = {  # what a project folder holds (spar serve --state .)
    "package.json": '{"name": "site", "version": "1.0.0"}',
    "tsconfig.json": '{"compilerOptions": {}}',
    "my_notes_2023.json": '{"version": 1, "id": "my_notes_2023", "saved": 0}',
}
START_SECONDS = 60  # a start that takes longer is a start that hangs (a FIFO read)


@pytest.fixture(scope="module")
def lobby() -> Lobby:
    return Lobby([], ["random"])


# ----- helpers ---------------------------------------------------------------------------
def snapshot(root: Path) -> dict[str, str]:
    """Every entry under ``root`` (links not followed): what it is, and a regular file's
    content hash."""
    seen = {}
    for path in sorted(root.rglob("*")) if root.is_dir() and not root.is_symlink() else []:
        if path.is_symlink():
            seen[str(path.relative_to(root))] = f"link to {os.readlink(path)}"
        elif path.is_file():
            seen[str(path.relative_to(root))] = hashlib.sha256(path.read_bytes()).hexdigest()
        elif path.is_dir():
            seen[str(path.relative_to(root))] = "folder"
        else:
            seen[str(path.relative_to(root))] = "other"
    return seen


def start(folder: Path, lobby: Lobby) -> tuple[Any, GameFolder]:
    """A server on ``folder`` (in a thread, so that a start that hangs fails the test)."""
    out: dict[str, Any] = {}

    def run() -> None:
        try:
            state = GameFolder(folder)
            out["app"] = create_app(lobby, CALM, seed=0, folder=state)
            out["state"] = state
        except BaseException as e:  # noqa: BLE001 - handed to the test
            out["error"] = e

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(START_SECONDS)
    assert not thread.is_alive(), f"the server did not start in {START_SECONDS} s (it hangs)"
    if "error" in out:
        raise out["error"]
    return out["app"], out["state"]


def play_a_hand(tables: FriendsTables, lobby: Lobby, name: str = "Ama") -> FriendsTable:
    """A 2-person table whose first hand is over (the bot moving for both), saved."""
    setup, form, people, timer, _ = table_form(lobby, {"people": 2, "name": name}, 5.0)
    table = tables.new(setup, form, people, timer)
    table.take(name)
    table.take("Kofi")
    game = table.game
    assert game is not None
    while not game.table.hand_over:
        game.stand_in()
    tables.save(table)
    return table


def saved_table(tmp_path: Path, lobby: Lobby) -> tuple[Path, dict[str, Any], str]:
    """A state folder holding one table whose first hand is over: the folder, the table's
    saved data and a key of its seat 0 (its hash set to one we know)."""
    folder = tmp_path / "state"
    state = GameFolder(folder)
    try:
        table = play_a_hand(FriendsTables(10, 3600, state), lobby)
    finally:
        state.close()
    data = json.loads((folder / "tables" / f"{table.id}.json").read_text())
    key = "k" * 32
    data["seats"][0]["key"] = key_hash(key)
    return folder, data, key


def plant_table(folder: Path, data: dict[str, Any]) -> Path:
    path = folder / "tables" / f"{data['id']}.json"
    path.write_text(json.dumps(data))
    return path


def refused_in_one_line(folder: Path, lobby: Lobby, *words: str) -> str:
    with pytest.raises(ValueError) as refused:
        start(folder, lobby)
    said = str(refused.value)
    assert "\n" not in said and "File exists" not in said, said
    for word in words:
        assert word in said, (word, said)
    return said


# ----- the layout -------------------------------------------------------------------------
def test_a_new_folder_gets_the_layout_and_each_file_its_place(tmp_path: Path, lobby) -> None:
    folder = tmp_path / "state"
    app, state = start(folder, lobby)
    client = TestClient(app, base_url="http://127.0.0.1")
    game = client.post("/api/games", json={"players": 2, "opponents": "random"}).json()["game"]
    table = play_a_hand(app.state.tables, lobby)
    state.close()
    assert sorted(os.listdir(folder)) == [".lock", ".spar-serve", "games", "records", "tables"]
    assert os.listdir(folder / "games") == [f"{game}.json"]
    assert os.listdir(folder / "tables") == [f"{table.id}.json"]
    assert os.listdir(folder / "records") == [f"{table.id}-0.jsonl"]
    assert json.loads((folder / ".spar-serve").read_text())["format"] == "spar serve state"
    again, state = start(folder, lobby)
    state.close()
    assert again.state.restored == 2


# ----- foreign files: never every *.json ---------------------------------------------------
def test_a_project_folder_is_refused_and_left_as_it_was(tmp_path: Path, lobby) -> None:
    folder = tmp_path / "project"
    folder.mkdir()
    for name, text in FOREIGN.items():
        (folder / name).write_text(text)
    (folder / "tables").mkdir()
    (folder / "tables" / "seating.json").write_text("{}")
    before = snapshot(folder)
    refused_in_one_line(folder, lobby, "is not a file of spar serve", "new or empty folder")
    assert snapshot(folder) == before  # nothing renamed, removed or added (not even a lock)


def test_files_of_others_in_a_state_folder_are_never_touched(tmp_path: Path, lobby) -> None:
    folder = tmp_path / "state"
    GameFolder(folder).close()
    for where in (folder, folder / "tables", folder / "games", folder / "records"):
        where.mkdir(exist_ok=True)
        for name, text in FOREIGN.items():
            (where / name).write_text(text)
    old = {"version": 1, "id": "x" * 20, "saved": 0}  # an expired table, but not a name of ours
    (folder / "tables" / f"{'x' * 20}.json").write_text(json.dumps(old))
    before = snapshot(folder)
    app, state = start(folder, lobby)
    play_a_hand(app.state.tables, lobby)
    state.close()
    after = snapshot(folder)
    assert {k: v for k, v in after.items() if k in before} == before
    assert app.state.restored == 0


def test_an_earlier_servers_folder_is_taken_up(tmp_path: Path, lobby) -> None:
    """A folder of the earlier layout (games at DIR/ID.json, no mark) keeps its games and
    tables: the games move to games/, and the mark is written."""
    folder, data, _ = saved_table(tmp_path, lobby)
    state = GameFolder(folder)
    client = TestClient(create_app(lobby, CALM, folder=state), base_url="http://127.0.0.1")
    game = client.post("/api/games", json={"players": 2, "opponents": "random"}).json()["game"]
    state.close()
    os.rename(folder / "games" / f"{game}.json", folder / f"{game}.json")  # the earlier layout
    (folder / "games").rmdir()
    (folder / ".spar-serve").unlink()
    app, state = start(folder, lobby)
    state.close()
    assert app.state.restored == 2
    assert (folder / "games" / f"{game}.json").is_file() and (folder / ".spar-serve").is_file()


# ----- links and what is not a regular file -----------------------------------------------
@pytest.mark.parametrize("part", ["records", "tables", "games"])
@pytest.mark.parametrize("marked", [True, False], ids=["marked", "earlier"])
def test_a_folder_of_ours_that_is_a_link_is_refused(tmp_path: Path, lobby, part, marked) -> None:
    folder = tmp_path / "state"
    GameFolder(folder).close()
    if not marked:
        (folder / ".spar-serve").unlink(missing_ok=True)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    for name, text in FOREIGN.items():
        (elsewhere / name).write_text(text)
    (elsewhere / f"{'A' * 16}.json").write_text("{}")  # a name of ours, in a folder of theirs
    if (folder / part).is_dir():
        (folder / part).rmdir()
    os.symlink(elsewhere, folder / part)
    before = snapshot(elsewhere)
    refused_in_one_line(folder, lobby, "symbolic link", part)
    assert snapshot(elsewhere) == before


@pytest.mark.parametrize("part", ["records", "tables", "games"])
@pytest.mark.parametrize("marked", [True, False], ids=["marked", "earlier"])
def test_a_plain_file_where_a_folder_belongs_is_refused_clearly(
    tmp_path: Path, lobby, part, marked
) -> None:
    folder = tmp_path / "state"
    GameFolder(folder).close()
    if not marked:
        (folder / ".spar-serve").unlink(missing_ok=True)
    if (folder / part).is_dir():
        (folder / part).rmdir()
    (folder / part).write_text(PRECIOUS)
    refused_in_one_line(folder, lobby, f"{part} is a regular file, not a folder")
    assert (folder / part).read_text() == PRECIOUS


def test_a_plain_file_as_tables_is_one_clear_line_from_spar_serve(tmp_path: Path, capsys) -> None:
    folder = tmp_path / "state"
    folder.mkdir()
    (folder / "tables").write_text(PRECIOUS)
    status, _, err = cli(capsys, "serve", "--state", folder, "--port", "0")
    one_line(status, err, "tables is a regular file, not a folder")
    assert "File exists" not in err


def test_a_records_file_that_links_elsewhere_is_never_written_through(
    tmp_path: Path, lobby, caplog
) -> None:
    folder = tmp_path / "state"
    state = GameFolder(folder)
    tables = FriendsTables(10, 3600, state)
    victim = tmp_path / "victim.txt"
    victim.write_text(PRECIOUS)
    setup, form, people, timer, _ = table_form(lobby, {"people": 2, "name": "Ama"}, 5.0)
    table = tables.new(setup, form, people, timer)
    (folder / "records").mkdir(exist_ok=True)
    os.symlink(victim, folder / "records" / f"{table.id}-0.jsonl")
    table.take("Ama")
    table.take("Kofi")
    while not table.game.table.hand_over:
        table.game.stand_in()
    with caplog.at_level(logging.WARNING, logger="spar.serve"):
        tables.save(table)  # the table is kept; its records are not written through the link
    state.close()
    assert victim.read_text() == PRECIOUS
    assert (folder / "records" / f"{table.id}-0.jsonl").is_symlink()
    assert (folder / "tables" / f"{table.id}.json").is_file()
    assert "symbolic link" in table.view(0, "en")["warning"]


@pytest.mark.parametrize("where", ["tables/AAAAAAAAAAAAAAAA.json", "tables/x.json", "x.json",
                                   "games/AAAAAAAAAAAAAAAAAAAAAAAA.json"])  # fmt: skip
def test_a_fifo_in_the_folder_never_blocks_the_start(tmp_path: Path, lobby, where) -> None:
    folder = tmp_path / "state"
    GameFolder(folder).close()
    os.mkfifo(folder / where)
    app, state = start(folder, lobby)  # a FIFO opened to read would wait for a writer forever
    state.close()
    assert app.state.restored == 0 and (folder / where).exists()


def test_a_fifo_in_an_unmarked_folder_refuses_it_unopened(tmp_path: Path, lobby) -> None:
    folder = tmp_path / "state"
    folder.mkdir()
    os.mkfifo(folder / "x.json")
    refused_in_one_line(folder, lobby, "x.json is not a file of spar serve")


# ----- records that cannot be written: the table is saved, the seats are told -------------
def test_records_folder_replaced_by_a_file_loses_records_not_the_table(
    tmp_path: Path, lobby, caplog
) -> None:
    folder = tmp_path / "state"
    state = GameFolder(folder)
    tables = FriendsTables(10, 3600, state)
    if (folder / "records").is_dir():
        (folder / "records").rmdir()
    (folder / "records").write_text(PRECIOUS)  # while the server runs
    with caplog.at_level(logging.WARNING, logger="spar.serve"):
        table = play_a_hand(tables, lobby)  # saves: no OSError, the table is kept
    state.close()
    said = [r.getMessage() for r in caplog.records]
    assert not any("not saved" in line for line in said), said
    assert any("records of table" in line and "not written" in line for line in said), said
    assert (folder / "tables" / f"{table.id}.json").is_file()
    assert (folder / "records").read_text() == PRECIOUS
    assert "records are being lost" in table.view(0, "en")["warning"]
    assert "relevés se perdent" in table.view(1, "fr")["warning"]


def test_records_written_again_clear_the_warning(tmp_path: Path, lobby, monkeypatch) -> None:
    folder = tmp_path / "state"
    state = GameFolder(folder)
    tables = FriendsTables(10, 3600, state)

    def full(name: str, data: bytes, mode: int = 0o600) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(state.records, "write", full)
    table = play_a_hand(tables, lobby)
    assert "No space left" in table.view(0)["warning"]
    monkeypatch.undo()
    tables.save(table)
    state.close()
    assert "warning" not in table.view(0)
    assert os.listdir(folder / "records") == [f"{table.id}-0.jsonl"]


def test_a_table_taken_up_writes_its_records_as_they_were(tmp_path: Path, lobby) -> None:
    """The plays a bot made for people away stay in the records of the hands ended before a
    restart, when the match's records are written again after it."""
    folder = tmp_path / "state"
    state = GameFolder(folder)
    table = play_a_hand(FriendsTables(10, 3600, state), lobby)  # every play the bot's
    state.close()
    records = folder / "records" / f"{table.id}-0.jsonl"
    before = records.read_text()
    assert '"stood_in"' in before
    state = GameFolder(folder)
    tables = FriendsTables(10, 3600, state)
    assert tables.restore(lobby.setup) == 1
    (again,) = tables.tables()
    again.game.next_hand(again.game.turn)
    tables.save(again)
    state.close()
    assert records.read_text() == before


# ----- names that become paths -------------------------------------------------------------
PATHS = ["../../../x", "/tmp/x", "x\x00y", "T-0/../../x", "..", ""]


@pytest.mark.parametrize("game_id", PATHS, ids=repr)
def test_a_saved_tables_game_id_never_becomes_a_path(tmp_path: Path, lobby, game_id) -> None:
    folder, data, _ = saved_table(tmp_path, lobby)
    data["game"]["id"] = game_id
    plant_table(folder, data)
    outside = snapshot(tmp_path)
    app, state = start(folder, lobby)
    for table in app.state.tables.tables():  # were it taken up, its next save...
        app.state.tables.save(table)
    state.close()
    assert app.state.restored == 0
    assert (folder / "tables" / f"{data['id']}.json.broken").is_file()
    grown = set(snapshot(tmp_path)) - set(outside)
    assert all(path.startswith("state/") for path in grown), grown


def test_a_match_with_a_nul_in_its_id_never_stops_the_timers_save(tmp_path: Path, lobby) -> None:
    folder = tmp_path / "state"
    state = GameFolder(folder)
    tables = FriendsTables(10, 3600, state)
    table = play_a_hand(tables, lobby)
    table.game.id = "x\x00y"  # as a file once could set it
    tables.save(table)  # no ValueError: the records are named after the table and the match
    state.close()
    assert os.listdir(folder / "records") == [f"{table.id}-0.jsonl"]


@pytest.mark.parametrize("name", ["../x", "x/y", "x\x00y", "", ".", "..", "/etc/passwd"],
                         ids=repr)  # fmt: skip
def test_a_name_that_is_no_file_name_is_refused_as_a_save_failure(tmp_path: Path, name) -> None:
    folder = OwnFolder.open(tmp_path / "own")
    try:
        with pytest.raises(OSError, match="not a file name of ours"):
            folder.write(name, b"x")
    finally:
        folder.close()
    assert snapshot(tmp_path) == {"own": "folder"}


# ----- one loader, the bounds of the form ---------------------------------------------------
def _wrong(change: Callable[[dict], None]) -> Callable[[dict], dict]:
    def wrong(data: dict) -> dict:
        data = json.loads(json.dumps(data))
        change(data)
        return data

    return wrong


WRONG_TABLES = {
    "a 1 s timer": _wrong(lambda d: d.update(timer=1)),
    "a timer of true": _wrong(lambda d: d.update(timer=True)),
    "a name 'you'": _wrong(lambda d: d["seats"][1].update(name="you")),
    "a name 'siège 2'": _wrong(lambda d: d["seats"][1].update(name="siège 2")),
    "a name of digits": _wrong(lambda d: d["seats"][1].update(name="1234")),
    "a name with a bidi override": _wrong(lambda d: d["seats"][1].update(name="a\u202eb")),
    "no name for a seat taken": _wrong(lambda d: d["seats"][1].update(name="")),
    "two seats of one name": _wrong(lambda d: d["seats"][1].update(name="AMA")),
    "a key that is no hash": _wrong(lambda d: d["seats"][1].update(key="z" * 64)),
    "a duplicate challenge": _wrong(lambda d: d["form"].update(duplicate=0)),
    "a bot's seat that is a person's": _wrong(lambda d: d["seats"][0].update(person=False)),
    "a match of no one": _wrong(lambda d: d.update(people=[])),
    "a match of a seat twice": _wrong(lambda d: d.update(people=[0, 0])),
    "a match counted 0": _wrong(lambda d: d.update(match=0)),
    "a seed of text": _wrong(lambda d: d.update(seed="1")),
    "its id not its name": _wrong(lambda d: d.update(id="B" * 16)),
}


def test_a_hostile_table_is_refused_in_one_line_and_the_rest_loads(
    tmp_path: Path, lobby, caplog
) -> None:
    folder, good, _ = saved_table(tmp_path, lobby)
    ids = {}
    for k, (what, wrong) in enumerate(WRONG_TABLES.items()):
        data = wrong(good)
        table_id = f"bad{k:02d}".ljust(16, "x")
        if what != "its id not its name":
            data["id"] = table_id
        data["game"]["id"] = f"{data['id']}-0"
        (folder / "tables" / f"{table_id}.json").write_text(json.dumps(data))
        ids[what] = table_id
    with caplog.at_level(logging.WARNING, logger="spar.serve"):
        app, state = start(folder, lobby)
    state.close()
    assert [t.id for t in app.state.tables.tables()] == [good["id"]]
    said = [r.getMessage() for r in caplog.records if r.name == "spar.serve"]
    for what, table_id in ids.items():
        lines = [line for line in said if f"/{table_id}.json " in line]
        assert len(lines) == 1 and "\n" not in lines[0], (what, lines)
        assert (folder / "tables" / f"{table_id}.json.broken").is_file(), what


@pytest.mark.parametrize("timer", [5, 5.0, 600])
def test_a_table_of_a_timer_the_form_allows_is_taken_up(tmp_path: Path, lobby, timer) -> None:
    folder, data, _ = saved_table(tmp_path, lobby)
    plant_table(folder, {**data, "timer": timer})
    app, state = start(folder, lobby)
    state.close()
    assert app.state.restored == 1


# ----- the sweep ---------------------------------------------------------------------------
@dataclass
class Case:
    what: str
    plant: Callable[[Path, Path], None]  # (DIR, a folder outside it)
    refused: str = ""  # a word of the one-line refusal, or "" if the server must start


def _link(name: str, to_folder: bool) -> Callable[[Path, Path], None]:
    def plant(folder: Path, outside: Path) -> None:
        target = outside if to_folder else outside / "victim.txt"
        if (folder / name).is_dir():
            (folder / name).rmdir()
        elif (folder / name).exists():
            (folder / name).unlink()
        os.symlink(target, folder / name)

    return plant


def _file(name: str, text: str | bytes) -> Callable[[Path, Path], None]:
    def plant(folder: Path, outside: Path) -> None:
        path = folder / name
        if path.is_dir():
            path.rmdir()
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text)

    return plant


def _fifo(name: str) -> Callable[[Path, Path], None]:
    def plant(folder: Path, outside: Path) -> None:
        os.mkfifo(folder / name)

    return plant


def _sparse(name: str, size: int) -> Callable[[Path, Path], None]:
    def plant(folder: Path, outside: Path) -> None:
        with open(folder / name, "wb") as f:
            f.truncate(size)

    return plant


def _unmark(then: Callable[[Path, Path], None]) -> Callable[[Path, Path], None]:
    def plant(folder: Path, outside: Path) -> None:
        (folder / ".spar-serve").unlink()
        then(folder, outside)

    return plant


T, G = "T" * 16, "G" * 24  # names of ours
OURS = re.compile(r"(games/[A-Za-z0-9_-]{24}|tables/[A-Za-z0-9_-]{16})\.json")
DEEP = "[" * 100_000 + "]" * 100_000
SAVED = {"version": 1, "saved": 1e18}  # a file of ours, from the future, with nothing in it


def _table(**fields: object) -> str:
    return json.dumps({**SAVED, "id": T, **fields})


SWEEP = [
    Case("DIR/records links to a folder outside", _link("records", True), "symbolic link"),
    Case("DIR/tables links to a folder outside", _link("tables", True), "symbolic link"),
    Case("DIR/games links to a folder outside", _link("games", True), "symbolic link"),
    Case("DIR/tables links to a file outside", _link("tables", False), "symbolic link"),
    Case("DIR/.spar-serve links to a file outside", _link(".spar-serve", False), "symbolic link"),
    Case("DIR/.lock links to a file outside", _link(".lock", False), "symbolic link"),
    Case("DIR/tables/T.json links to a file", _link(f"tables/{T}.json", False)),
    Case("DIR/games/G.json links to a file", _link(f"games/{G}.json", False)),
    Case("DIR/records/T-0.jsonl links to a file", _link(f"records/{T}-0.jsonl", False)),
    Case("an earlier folder's tables link outside", _unmark(_link("tables", True)), "symbolic"),
    Case(
        "an earlier folder's game links to a file",
        _unmark(_link(f"{G}.json", False)),
        "symbolic link",
    ),  # fmt: skip
    Case("a FIFO at DIR/tables/T.json", _fifo(f"tables/{T}.json")),
    Case("a FIFO at DIR/tables/x.json", _fifo("tables/x.json")),
    Case("a FIFO at DIR/x.json", _fifo("x.json")),
    Case("a FIFO at DIR/x.json, unmarked", _unmark(_fifo("x.json")), "not a file of spar"),
    Case("a FIFO as DIR/.spar-serve", _unmark(_fifo(".spar-serve")), "FIFO"),
    Case(
        "a FIFO as DIR/records",
        lambda d, o: (d.joinpath("records").rmdir(), os.mkfifo(d / "records")),
        "a FIFO, not a folder",
    ),  # fmt: skip
    Case("a file as DIR/tables", _file("tables", PRECIOUS), "regular file, not a folder"),
    Case("a file as DIR/records", _file("records", PRECIOUS), "regular file, not a folder"),
    Case("a file as DIR/games", _file("games", PRECIOUS), "regular file, not a folder"),
    Case("a file as DIR/tables, unmarked", _unmark(_file("tables", PRECIOUS)), "not a folder"),
    Case("foreign JSON in DIR", lambda d, o: [_file(n, t)(d, o) for n, t in FOREIGN.items()]),
    Case(
        "foreign JSON in DIR, unmarked",
        _unmark(lambda d, o: [_file(n, t)(d, o) for n, t in FOREIGN.items()]),
        "not a file of spar",
    ),  # fmt: skip
    Case(
        "foreign JSON in DIR/tables",
        lambda d, o: [_file(f"tables/{n}", t)(d, o) for n, t in FOREIGN.items()],
    ),  # fmt: skip
    Case(
        "foreign JSON in DIR/games",
        lambda d, o: [_file(f"games/{n}", t)(d, o) for n, t in FOREIGN.items()],
    ),  # fmt: skip
    Case("a foreign mark", _file(".spar-serve", '{"format": "mine"}'), "not the mark"),
    Case(
        "a table whose match id climbs out",
        _file(f"tables/{T}.json", _table(game={"id": "../../../x"})),
    ),  # fmt: skip
    Case(
        "a table whose match id is absolute",
        _file(f"tables/{T}.json", _table(game={"id": "/tmp/x"})),
    ),  # fmt: skip
    Case(
        "a table whose id climbs out",
        _file(f"tables/{T}.json", json.dumps({**SAVED, "id": "../../x"})),
    ),  # fmt: skip
    Case(
        "a table with a NUL in its match id",
        _file(f"tables/{T}.json", _table(game={"id": "x\u0000y"})),
    ),  # fmt: skip
    Case(
        "a game with a NUL in its id",
        _file(f"games/{G}.json", json.dumps({**SAVED, "id": f"{G}\u0000"})),
    ),  # fmt: skip
    Case("a NUL byte in a table's file", _file(f"tables/{T}.json", b"\x00" * 64)),
    Case("a 3 GiB table", _sparse(f"tables/{T}.json", 3 << 30)),
    Case("a 3 GiB game", _sparse(f"games/{G}.json", 3 << 30)),
    Case("a table nested 100,000 deep", _file(f"tables/{T}.json", DEEP)),
    Case("a game nested 100,000 deep", _file(f"games/{G}.json", DEEP)),
    Case(
        "a table nested 20 deep",
        _file(f"tables/{T}.json", _table(game=json.loads("[" * 20 + "]" * 20))),
    ),  # fmt: skip
    Case("a folder at a table's name", lambda d, o: (d / "tables" / f"{T}.json").mkdir()),
    Case(
        "DIR itself is a file",
        lambda d, o: (shutil.rmtree(d), d.write_text(PRECIOUS)),
        "not a folder",
    ),  # fmt: skip
]


@pytest.mark.parametrize("case", SWEEP, ids=[c.what for c in SWEEP])
def test_sweep_of_hostile_state_folders(tmp_path: Path, lobby, case: Case) -> None:
    """Nothing is written outside DIR, no file the server did not write is renamed or removed,
    and the server starts, or refuses in one line."""
    folder, outside = tmp_path / "DIR", tmp_path / "outside"
    GameFolder(folder).close()
    outside.mkdir()
    (outside / "victim.txt").write_text(PRECIOUS)
    for name, text in FOREIGN.items():
        (outside / name).write_text(text)
    case.plant(folder, outside)
    planted = snapshot(folder)
    around = snapshot(tmp_path)
    if case.refused:
        refused_in_one_line(folder, lobby, case.refused)
    else:
        app, state = start(folder, lobby)
        client = TestClient(app, base_url="http://127.0.0.1")
        made = client.post("/api/games", json={"players": 2, "opponents": "random"})
        assert made.status_code == 201, made.text
        play_a_hand(app.state.tables, lobby)
        for table in app.state.tables.tables():
            app.state.tables.save(table)
        state.close()
    assert snapshot(outside) == {k.removeprefix("outside/"): v for k, v in around.items()
                                 if k.startswith("outside/")}  # fmt: skip
    now = snapshot(folder)
    for name, what in planted.items():  # every file of another is as it was, where it was
        regular = what not in ("folder", "other") and not what.startswith("link")
        if OURS.fullmatch(name) and regular:
            continue  # a regular file of a name of ours: set aside as *.broken (logged)
        assert now.get(name) == what, (name, what, now.get(name))
    grown = {k for k in snapshot(tmp_path) if k not in around}
    assert all(k.startswith("DIR/") for k in grown), grown


def test_the_sweep_covers_every_kind_of_hostile_folder() -> None:
    kinds = {
        "link": ["links"],
        "fifo": ["FIFO"],
        "plain file where a folder belongs": ["a file as"],
        "foreign JSON": ["foreign JSON"],
        "path-like id": ["climbs out", "absolute"],
        "NUL": ["NUL"],
        "huge": ["3 GiB"],
        "deep nesting": ["nested"],
    }
    for kind, words in kinds.items():
        assert any(w in c.what for c in SWEEP for w in words), kind
