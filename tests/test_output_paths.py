"""Every output command writes according to what its path is: a link's target is written and
the link stays, a FIFO's reader gets the output and the FIFO stays, a device stays a device,
and a directory is refused in one line (:mod:`spar_env.atomic`)."""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path

import pytest
from helpers.cli import cli, one_line
from starlette.testclient import TestClient

from spar_apps.web import Lobby, create_app
from spar_env.atomic import OutputPathError, atomic_output, output_kind

# (command, option, file name): each writes one output file
BENCH = ["bench", "heuristic", "random", "--players", "2", "--deals", "20"]
COMMANDS = {
    "record --out": (["record", "--hands", "3", "--out"], "records.jsonl"),
    "bench --csv": ([*BENCH, "--csv"], "bench.csv"),
    "bench --plot": ([*BENCH, "--plot"], "bench.png"),
    "export --out": (["export", "RUN", "--out"], "bot.onnx"),
}
SIGNATURES = {  # what each output starts with
    "record --out": b'{"',
    "bench --csv": b"variant,players,deals,seed,spec",
    "bench --plot": b"\x89PNG",
    "export --out": b"\x08",  # an ONNX protobuf: field 1 (ir_version), a varint
}


def command(name: str, target: Path, tiny_run: Path) -> list[str]:
    argv, _ = COMMANDS[name]
    return [str(tiny_run) if a == "RUN" else a for a in argv] + [str(target)]


def read_fifo(fifo: Path, got: list[bytes]) -> threading.Thread:
    def read() -> None:
        with open(fifo, "rb") as f:
            got.append(f.read())

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    return reader


@pytest.mark.parametrize("name", COMMANDS)
def test_a_link_stays_a_link_and_its_target_holds_the_output(name, tiny_run, tmp_path, capsys):
    file = COMMANDS[name][1]
    (tmp_path / "real").mkdir()
    link = tmp_path / file
    link.symlink_to(tmp_path / "real" / file)  # dangling until written
    status, _, err = cli(capsys, *command(name, link, tiny_run))
    assert status == 0, err
    assert link.is_symlink() and os.readlink(link) == str(tmp_path / "real" / file)
    assert (tmp_path / "real" / file).read_bytes().startswith(SIGNATURES[name])
    status, _, err = cli(capsys, *command(name, link, tiny_run))  # written again, through it
    assert status == 0 and link.is_symlink(), err
    assert sorted(p.name for p in (tmp_path / "real").iterdir()) == [file]  # no temp file left


@pytest.mark.parametrize("name", COMMANDS)
def test_a_fifos_reader_gets_the_output_and_the_fifo_stays(name, tiny_run, tmp_path, capsys):
    fifo = tmp_path / COMMANDS[name][1]
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = read_fifo(fifo, got)
    status, _, err = cli(capsys, *command(name, fifo, tiny_run))
    reader.join(timeout=120)
    assert status == 0, err
    assert got and got[0].startswith(SIGNATURES[name])
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


@pytest.mark.parametrize("name", COMMANDS)
def test_a_device_stays_a_device(name, tiny_run, tmp_path, capsys):
    null = tmp_path / COMMANDS[name][1]
    try:  # a copy of /dev/null (character device 1, 3), where this process may make one
        os.mknod(null, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    except PermissionError:
        pytest.skip("making a device node needs root (CAP_MKNOD); CI runs as root")
    status, _, err = cli(capsys, *command(name, null, tiny_run))
    assert status == 0, err
    assert stat.S_ISCHR(os.lstat(null).st_mode) and os.stat(null).st_rdev == os.makedev(1, 3)


@pytest.mark.parametrize("name", COMMANDS)
def test_a_directory_is_refused_in_one_line(name, tiny_run, tmp_path, capsys):
    folder = tmp_path / COMMANDS[name][1]
    folder.mkdir()
    status, _, err = cli(capsys, *command(name, folder, tiny_run))
    one_line(status, err, COMMANDS[name][0][-1], str(folder), "is a directory")


def test_dev_stdout_is_written_in_place_not_renamed_over(tmp_path) -> None:
    """``--csv /dev/stdout > file``: the shell's file gets the output, and nothing is renamed."""
    import subprocess
    import sys

    out = tmp_path / "out.txt"
    code = ("from spar_env.atomic import atomic_output\n"
            "print('before', flush=True)\n"
            "with atomic_output('/dev/stdout') as f: f.write('written\\n')\n"
            "print('after', flush=True)\n")  # fmt: skip
    with open(out, "w") as stdout:
        subprocess.run([sys.executable, "-c", code], stdout=stdout, check=True, timeout=60)
    assert out.read_text().split() == ["before", "written", "after"]


def test_what_each_path_is_written_as(tmp_path) -> None:
    (tmp_path / "file").write_text("old")
    (tmp_path / "link").symlink_to(tmp_path / "file")
    assert output_kind(tmp_path / "new") == ("replace", tmp_path / "new")
    assert output_kind(tmp_path / "link") == ("replace", tmp_path / "file")
    assert output_kind("/dev/null") == ("stream", Path("/dev/null"))
    with pytest.raises(OutputPathError, match="is a directory"):
        output_kind(tmp_path)
    with pytest.raises(ZeroDivisionError), atomic_output(tmp_path / "link") as f:
        f.write("half")
        raise ZeroDivisionError  # a failed write leaves the file as it was
    assert (tmp_path / "file").read_text() == "old" and (tmp_path / "link").is_symlink()


def test_record_batch_has_the_limit_of_the_others(capsys) -> None:
    status, _, err = cli(capsys, "record", "--hands", "1", "--batch", "2000000")
    one_line(status, err, "--batch", "1,048,576", "2,000,000")


def test_a_refused_host_is_answered_in_json() -> None:
    app = create_app(Lobby([]), allowed_hosts=["127.0.0.1", "localhost"])
    client = TestClient(app, base_url="http://evil.example")
    answer = client.get("/api/offer")
    assert answer.status_code == 400
    assert answer.headers["content-type"] == "application/json"
    assert "invalid Host header" in answer.json()["error"]
    assert TestClient(app, base_url="http://127.0.0.1").get("/api/offer").status_code == 200
