"""A file we were handed never makes ``spar train`` dial out on its word: a Ray cluster named
by a config file, or by a resumed run's ``config.toml``, is joined only with ``--trust-code``
or when the user typed that address themselves (``--ray ADDRESS``, ``--set ray.address=``).

A local listener stands for the cluster: it hears whether anything connected. Ray itself is
stood in for past the connection (``ray.init`` raises), so the tests need no Ray and no
cluster.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest
from helpers.cli import TINY, cli, one_line

REACHED = "reached ray.init"  # the stand-in Ray's one answer


@pytest.fixture
def listener() -> Iterator[socket.socket]:
    """A TCP listener on a free local port, standing for a cluster."""
    with socket.create_server(("127.0.0.1", 0)) as server:
        server.settimeout(0.5)
        yield server


@pytest.fixture(autouse=True)
def no_ray(monkeypatch) -> None:
    """A Ray that was never started and whose ``init`` refuses: a run that gets as far as
    joining a cluster stops there, with ``REACHED``."""

    def init(**_: object) -> None:
        raise ValueError(REACHED)

    fake = SimpleNamespace(is_initialized=lambda: False, init=init)
    monkeypatch.setattr("spar_train.distributed.require_ray", lambda: fake)


def address(server: socket.socket) -> str:
    return f"ray://127.0.0.1:{server.getsockname()[1]}"


def heard(server: socket.socket) -> bool:
    """Whether anything connected to ``server`` (the kernel holds a finished handshake in the
    backlog until it is accepted, so this may be asked after the fact)."""
    try:
        connection, _ = server.accept()
    except TimeoutError:
        return False
    connection.close()
    return True


def handed(tmp_path: Path, ray: str) -> Path:
    """The tiny config with a ``[ray]`` table, as a file somebody sent."""
    path = tmp_path / "handed.toml"
    text = TINY.read_text().replace("[warmstart]\nimitate = \"heuristic\"\nupdates = 2",
                                    "[warmstart]\nupdates = 0")  # fmt: skip
    path.write_text(f"{text}\n[ray]\n{ray}\nworkers = 1\ntimeout = 5.0\n")
    return path


@pytest.mark.parametrize("enabled", ["true", "false"])  # false: a bare --ray joins it too
def test_a_cluster_named_by_a_config_file_is_refused_before_any_connection(
    tmp_path: Path, capsys, monkeypatch, listener: socket.socket, enabled: str
) -> None:
    monkeypatch.chdir(tmp_path)
    config = handed(tmp_path, f'enabled = {enabled}\naddress = "{address(listener)}"')
    status, _, err = cli(capsys, "train", config, "--name", "h", "--ray")
    one_line(status, err, "handed.toml", "ray.address", "--trust-code", "--ray ADDRESS")
    assert not heard(listener)
    assert not (tmp_path / "runs").exists()


def test_auto_read_from_a_file_is_refused_too(tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    config = handed(tmp_path, 'enabled = true\naddress = "auto"')
    status, _, err = cli(capsys, "train", config, "--name", "h")
    one_line(status, err, "ray.address", "'auto'", "--trust-code")


@pytest.mark.parametrize("how", ["--trust-code", "--ray", "--set"])
def test_a_trusted_or_typed_cluster_is_joined(
    tmp_path: Path, capsys, monkeypatch, listener: socket.socket, how: str
) -> None:
    monkeypatch.chdir(tmp_path)
    there = address(listener)
    config = handed(tmp_path, f'enabled = true\naddress = "{there}"')
    trust = {"--trust-code": ["--trust-code"], "--ray": ["--ray", there],
             "--set": ["--set", f'ray.address="{there}"']}[how]  # fmt: skip
    status, _, err = cli(capsys, "train", config, "--name", "h", *trust)
    assert status == 2 and REACHED in err, err
    assert heard(listener)


def test_a_local_ray_in_a_file_needs_no_trust(tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    config = handed(tmp_path, 'enabled = true\naddress = ""')
    status, _, err = cli(capsys, "train", config, "--name", "h")
    assert status == 2 and REACHED in err, err  # started a Ray here: nothing was dialled


def test_turning_ray_on_by_hand_does_not_vouch_for_the_file_s_address(
    tmp_path: Path, capsys, monkeypatch, listener: socket.socket
) -> None:
    monkeypatch.chdir(tmp_path)
    config = handed(tmp_path, f'enabled = false\naddress = "{address(listener)}"')
    status, _, err = cli(capsys, "train", config, "--set", "ray.enabled=true")
    one_line(status, err, "ray.address", "--trust-code")
    assert not heard(listener)


def _resume_on_ray(run: Path, there: str) -> None:
    config = run / "config.toml"
    text = config.read_text()
    local = '[ray]\nenabled = false\naddress = ""'
    assert local in text
    config.write_text(text.replace(local, f'[ray]\nenabled = true\naddress = "{there}"'))


def test_a_resumed_run_s_cluster_is_refused_unless_trusted_or_typed(
    run_copy: Path, capsys, listener: socket.socket
) -> None:
    there = address(listener)
    _resume_on_ray(run_copy, there)
    status, _, err = cli(capsys, "train", "--resume", run_copy, "--set", "run.updates=3")
    one_line(status, err, "config.toml", "ray.address", "--trust-code")
    assert not heard(listener)
    status, _, err = cli(capsys, "train", "--resume", run_copy, "--ray", there)
    assert REACHED in err and heard(listener), err
    status, _, err = cli(capsys, "train", "--resume", run_copy, "--trust-code")
    assert REACHED in err and heard(listener), err


def test_exploit_resume_refuses_a_cluster_named_by_the_run_s_config(
    tmp_path: Path, capsys, monkeypatch, listener: socket.socket
) -> None:
    from spar_env import __version__
    from spar_train.config import dump_config
    from spar_train.exploit import exploit_config

    monkeypatch.chdir(tmp_path)
    run = tmp_path / "runs" / "x"
    run.mkdir(parents=True)
    config = exploit_config("heuristic", "spar", 2, updates=1)
    (run / "config.toml").write_text(dump_config(config, __version__))
    _resume_on_ray(run, address(listener))
    status, _, err = cli(capsys, "exploit", "--resume", run)
    assert status == 2 and "Traceback" not in err, err
    last = err.splitlines()[-1]  # after the line that says where the run goes
    assert "config.toml" in last and "ray.address" in last and "--trust-code" in last, err
    assert not heard(listener)
