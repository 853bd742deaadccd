"""A run folder's life: made only when the run can start, locked while trained into, never a dead end.

:func:`run_folder` is the ``with`` block every trainer (PPO, sampled and
exact CFR) runs inside:

- **A new run** refuses a folder that is in use or holds a run already; it
  makes the folder and takes its lock. If the run fails before its first
  checkpoint (a bad path found late, a ruleset the solver cannot take), the
  folder is removed, and the error says so: ``--name`` can be used again.
- **A resumed run** takes the lock, removes the temporary files of writes
  that a kill interrupted, and goes on from the latest checkpoint; a run
  killed before its first checkpoint has none, and starts from the
  beginning (its curves so far are dropped, its config kept).
- **The lock** is ``.lock``, an advisory ``flock`` holding the process id: a
  second process training into the folder is refused, naming the holder's
  id. The kernel lets go of it when its holder dies, so a lock left by a
  killed run never blocks its ``--resume``.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

from spar_agents.ppo.checkpoint import save_checkpoint
from spar_agents.ppo.checkpoint_names import list_checkpoints
from spar_env.atomic import OutputPathError, refuse_links
from spar_env.lockfile import LockFileError, LockHeld, lock_holder, take_lock
from spar_train.sections import ConfigError

LOCK_FILE = ".lock"
EVENT_PREFIX = "events.out.tfevents."  # TensorBoard's event files
WARMSTART_DIR = "warmstart"  # the warm start's curve: its own folder and step axis


class RunInUse(ConfigError):
    """Another process is training into the run folder."""


class RunLock:
    """The advisory lock of one run folder (see the module docstring)."""

    def __init__(self, run_dir: Path) -> None:
        self.path = run_dir / LOCK_FILE
        self.fd: int | None = None

    def acquire(self) -> None:
        """Take the lock, or raise :class:`RunInUse` naming the process that holds it.

        Raises:
            RunInUse: another process holds it.
            ConfigError: the lock's path is not a lock (a link, say: :mod:`spar_env.lockfile`).
        """
        try:
            self.fd = take_lock(self.path)
        except LockHeld as held:
            raise _in_use(self.path, held.holder) from None
        except LockFileError as e:
            raise ConfigError(str(e)) from None

    def release(self) -> None:
        if self.fd is not None:
            os.close(self.fd)  # closing lets go of the flock
            self.fd = None


def holder_check(run_dir: Path) -> None:
    """Raise :class:`RunInUse` if a process holds ``run_dir``'s lock (without keeping it)."""
    try:
        holder = lock_holder(run_dir / LOCK_FILE)
    except LockFileError as e:
        raise ConfigError(str(e)) from None
    if holder is not None:
        raise _in_use(run_dir / LOCK_FILE, holder)


def _in_use(lock: Path, holder: str) -> RunInUse:
    return RunInUse(
        f"{lock.parent} is in use: process {holder or 'unknown'} is training into it "
        f"(it holds {lock}); wait for it to end, or stop it first"
    )


def remove_temp_files(run_dir: Path) -> list[Path]:
    """Remove the temporary files (``.NAME.*.tmp``, :mod:`spar_env.atomic`) that interrupted
    writes left in ``run_dir`` and its sub-folders; the paths removed."""
    stray = [p for p in run_dir.rglob(".*.tmp") if p.is_file()]
    for p in stray:
        p.unlink(missing_ok=True)
    return stray


def drop_curves(run_dir: Path) -> None:
    """Remove the TensorBoard event files of an attempt that never reached a checkpoint."""
    for folder in (run_dir, run_dir / WARMSTART_DIR):
        if folder.is_dir():
            for p in folder.glob(f"{EVENT_PREFIX}*"):
                p.unlink(missing_ok=True)


@contextlib.contextmanager
def run_folder(
    run_dir: Path, *, resume: bool, has_checkpoint: Callable[[Path], bool]
) -> Iterator[bool]:
    """The run folder, locked for the block; yields whether the run starts from the beginning.

    Args:
        run_dir: ``runs/<name>``.
        resume: go on with the run there (else a new run, into a new folder).
        has_checkpoint: whether a run folder holds something to resume from.

    Raises:
        ConfigError: a new run whose folder holds a run, or a folder in use (:class:`RunInUse`).
    """
    made = False
    if resume and not run_dir.is_dir():
        raise ConfigError(f"--resume {run_dir}: no such run folder")
    if not resume and run_dir.exists() and any(run_dir.iterdir()):
        holder_check(run_dir)
        if has_checkpoint(run_dir):
            raise ConfigError(
                f"run.name: {run_dir} already exists; resume it with --resume {run_dir} "
                "or choose another --name"
            )
        raise ConfigError(
            f"run.name: {run_dir} already exists, stopped before its first checkpoint; "
            f"spar train --resume {run_dir} starts it from the beginning, or choose another --name"
        )
    if not run_dir.exists():
        run_dir.mkdir(parents=True)
        made = True
    lock = RunLock(run_dir)
    lock.acquire()
    try:
        try:
            refuse_links(run_dir)  # a run folder handed to us: its files are its own
        except OutputPathError as e:
            raise ConfigError(str(e)) from None
        remove_temp_files(run_dir)
        fresh = not has_checkpoint(run_dir)
        if resume and fresh:
            drop_curves(run_dir)
        yield fresh
    except Exception as e:
        if not made or has_checkpoint(run_dir):
            raise
        lock.release()
        shutil.rmtree(run_dir, ignore_errors=True)
        raise _noted(e, f"{run_dir} removed: the run stopped before its first checkpoint") from None
    finally:
        lock.release()


def _noted(error: Exception, note: str) -> Exception:
    """``error`` with ``note`` in its one-line message (where the command line prints it)."""
    if isinstance(error, OSError) and error.strerror:
        return type(error)(error.errno, f"{error.strerror}; {note}", error.filename)
    if isinstance(error, ValueError | OSError):  # an OSError of a message alone too
        try:
            return type(error)(f"{error}; {note}")
        except TypeError:
            return ConfigError(f"{error}; {note}")
    error.add_note(note)
    return error


def write_checkpoint(path: Path, payload: dict, run_dir: Path) -> None:
    """:func:`~spar_agents.ppo.checkpoint.save_checkpoint`, where a failed write (a full disk) is one
    ``OSError`` that says the earlier checkpoints are intact and how to go on."""
    try:
        save_checkpoint(path, payload)
    except OSError as e:
        earlier = [p.name for p in list_checkpoints(path.parent)]
        kept = (
            f"the earlier checkpoints ({', '.join(earlier)}) are intact; free some space and "
            f"go on with spar train --resume {run_dir}"
            if earlier
            else "the run has no earlier checkpoint"
        )
        reason = e.strerror or str(e)
        raise OSError(
            e.errno, f"writing the checkpoint failed ({reason}); {kept}", str(path)
        ) from None
