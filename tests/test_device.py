"""``run.device``: which device a name means, what is refused and how, and checkpoints that
are device-free (a run saved on a GPU resumes on the CPU, bit for bit).

CI has no GPU. Where a test needs torch to see one, it says so by patching
``torch.cuda``; the run saved "on a GPU" is a checkpoint whose tensors are tagged
``cuda:0`` exactly as torch tags a GPU's, which a CPU-only torch refuses to read
without a ``map_location``.
"""

from __future__ import annotations

import io
from io import StringIO
from pathlib import Path

import pytest
import torch
import torch.serialization
from helpers.stop import StopAfter
from rich.console import Console

from spar_agents.ppo import device as devices
from spar_agents.ppo.checkpoint import load_checkpoint
from spar_agents.ppo.device import describe_device, resolve_device, to_cpu
from spar_agents.ppo.precision import resolve
from spar_apps.cli.train import _Bar
from spar_train.config import ConfigError, check, load_config, resume_config
from spar_train.ppo.loop import train
from spar_train.progress import Progress

ROOT = Path(__file__).resolve().parents[1]
TINY = ROOT / "configs" / "ppo_tiny.toml"


@pytest.fixture
def no_gpu(monkeypatch) -> None:
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 0)


@pytest.fixture
def two_gpus(monkeypatch) -> None:
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 2)
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda device=None: "Test GPU")


@pytest.mark.parametrize("name", ["gpu", "CUDA", "cuda:", "cuda:x", "cuda:-1", "", "mps"])
def test_names_that_are_not_devices_are_refused_saying_which_are(name: str) -> None:
    with pytest.raises(ValueError, match=r"must be auto, cpu, cuda or cuda:N"):
        resolve_device(name)
    with pytest.raises(ConfigError, match=r"^run\.device: must be auto, cpu, cuda or cuda:N"):
        check(load_config(TINY, [f'run.device="{name}"']))


def test_without_a_gpu_auto_is_the_cpu_and_cuda_is_refused(no_gpu) -> None:
    assert resolve_device("auto") == resolve_device("cpu") == torch.device("cpu")
    for name in ("cuda", "cuda:0"):
        with pytest.raises(ValueError, match=rf"^{name}: torch sees no CUDA device \(torch "):
            resolve_device(name)
    with pytest.raises(ConfigError, match=r"^run\.device: cuda: torch sees no CUDA device"):
        check(load_config(TINY, ['run.device="cuda"']))
    check(load_config(TINY, ['run.device="auto"']))  # the default runs anywhere


def test_with_gpus_auto_takes_the_first_and_an_index_past_the_last_is_refused(two_gpus) -> None:
    assert resolve_device("auto") == torch.device("cuda", 0)
    assert resolve_device("cuda") == torch.device("cuda", 0)
    assert resolve_device("cuda:1") == torch.device("cuda", 1)
    with pytest.raises(ValueError, match=r"^cuda:2: this machine has 2 CUDA device\(s\), cuda:0"):
        resolve_device("cuda:2")
    assert describe_device(torch.device("cuda", 1)) == "cuda:1 (Test GPU)"
    assert describe_device(torch.device("cpu")) == "cpu"


@pytest.mark.parametrize("bf16", [True, False])
def test_auto_precision_on_a_gpu_follows_what_the_gpu_supports(monkeypatch, bf16: bool) -> None:
    monkeypatch.setattr(torch.cuda, "is_bf16_supported", lambda *a, **k: bf16)
    assert resolve("auto", torch.device("cuda", 0)) == ("bfloat16" if bf16 else "float32")
    assert resolve("float32", torch.device("cuda", 0)) == "float32"


def test_a_run_off_the_cpu_names_its_device_before_anything_else(tmp_path, monkeypatch) -> None:
    """The first event a run reports on another device is the line naming it; the CLI prints it.

    The device here is ``meta`` (no data): the run is stopped at that first event."""
    import spar_train.ppo.parts

    monkeypatch.setattr(spar_train.ppo.parts, "resolve_device", lambda name: torch.device("meta"))
    heard: list[Progress] = []

    class Heard(Exception):
        pass

    def report(event: Progress) -> None:
        heard.append(event)
        raise Heard

    with pytest.raises(Heard):
        train(load_config(TINY), tmp_path, report=report)
    (first,) = heard
    assert first.phase == "start"
    assert first.note == "the learner runs on meta (float32 matrix products)"
    out = StringIO()
    with _Bar(Console(file=out, force_terminal=False)) as bar:
        bar.update(first)
    assert "spar train: the learner runs on meta (float32 matrix products)\n" in out.getvalue()


def test_a_cpu_run_says_nothing_of_its_device(tmp_path) -> None:
    heard: list[Progress] = []
    train(load_config(TINY, ["run.updates=1", "warmstart.updates=1", "run.device=\"cpu\""]),
          tmp_path, report=heard.append)  # fmt: skip
    assert heard and all(event.phase != "start" for event in heard)


def _tagged_as_gpu(monkeypatch) -> None:
    """From now on torch.save tags every tensor's storage ``cuda:0``, as a GPU's."""
    registry = [(0, lambda storage: "cuda:0", lambda obj, location: None)]
    monkeypatch.setattr(torch.serialization, "_package_registry",
                        registry + list(torch.serialization._package_registry))  # fmt: skip


def test_a_run_saved_on_a_gpu_resumes_on_the_cpu_bit_for_bit(tmp_path, monkeypatch) -> None:
    # Both runs on the CPU (on a GPU machine "auto" would be the GPU, whose arithmetic differs
    # in the last bits): only the files are tagged as a GPU's.
    config = load_config(TINY, ["run.updates=4", "run.checkpoint_every=1", "eval.every=4",
                                'run.device="cpu"'])  # fmt: skip
    whole = train(config, tmp_path / "a")
    with monkeypatch.context() as gpu:
        _tagged_as_gpu(gpu)
        train(config, tmp_path / "b", hooks=[StopAfter(2)])
    saved = tmp_path / "b" / "tiny" / "checkpoints" / "update_000002.pt"
    outer = torch.load(io.BytesIO(saved.read_bytes()), weights_only=True, map_location="cpu")
    inner = outer["payload"].numpy().tobytes()
    if not torch.cuda.is_available():  # the file is a GPU's: a plain load refuses it here
        with pytest.raises(RuntimeError, match="CUDA"):
            torch.load(io.BytesIO(inner), weights_only=True)
    resumed = train(resume_config(tmp_path / "b" / "tiny", ['run.device="cpu"']),
                    tmp_path / "b", resume=True)  # fmt: skip
    assert resumed.counters.update == whole.counters.update == 4
    a = load_checkpoint(tmp_path / "a" / "tiny" / "checkpoints" / "update_000004.pt")
    b = load_checkpoint(tmp_path / "b" / "tiny" / "checkpoints" / "update_000004.pt")
    for key, tensor in a["weights"].items():
        assert torch.equal(tensor, b["weights"][key]), key
    assert a["rng"] == b["rng"]


def test_a_resumed_run_may_change_its_device_and_how_long_it_runs_only(tmp_path) -> None:
    run = train(load_config(TINY, ["run.updates=1", "warmstart.updates=1"]), tmp_path)
    assert resume_config(run.run_dir, ['run.device="cpu"']).run.device == "cpu"
    with pytest.raises(ConfigError, match=r"only run\.updates, .* and run\.device may change"):
        resume_config(run.run_dir, ["run.seed=1"])


def test_to_cpu_reaches_every_tensor_and_keeps_cpu_ones_as_they_are() -> None:
    t = torch.ones(2)
    nested = {"a": t, "b": [t, (t, 3)], "c": "x"}
    out = to_cpu(nested)
    assert out["a"] is t and out["b"][1][0] is t and out["b"][1][1] == 3 and out["c"] == "x"
    assert isinstance(out["b"][1], tuple)
    assert devices.DEVICES == ("auto", "cpu", "cuda", "cuda:N")
