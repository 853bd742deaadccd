"""The largest sizes the toolkit accepts: every one is refused, naming the limit, before any work.

No real use comes near these; they are there so that a typo (``1e12`` for
``1e3``) or a hostile file gets one clear line instead of an abort, a
``MemoryError`` or a run that never ends. Each was chosen from what a large
machine (hundreds of cores, a few hundred GiB of memory) can still do, and
what the two-core test machine shows it costs:

=========================  =============  =============================================
limit                      value          what it bounds, and why that value
=========================  =============  =============================================
``MAX_LAYER_WIDTH``        16,384         ``model.hidden`` widths: a 16k x 16k layer is
                                          1 GiB of weights, 3 GiB with Adam's moments
``MAX_LAYERS``             64             ``model.hidden`` entries
``MAX_GAMES``              1,048,576      games at once: ``rollout.games``,
                                          ``mccfr.deals``, ``spar speed --batch``,
                                          ``spar bench --chunk``
                                          (a rollout of 2^20 games of four seats keeps
                                          about 8 GiB of observations)
``MAX_DEALS``              100,000,000    duplicate deals: ``spar bench --deals``,
                                          ``eval.deals``, ``eval.pimc_deals``,
                                          ``mccfr.eval_deals`` (the bench keeps up to 160
                                          bytes of figures per deal: 16 GB at the limit)
``MAX_THREADS``            512            ``run.threads`` (torch; OpenMP aborts the
                                          process far above the cores it can start)
``MAX_CHECK``              1,048,576      ``spar export --check`` observations
``MAX_WORKERS``            4,096          ``ray.workers``
``MAX_WORLDS``             65,536         worlds sampled per decision by ``pimc`` and
                                          ``search`` (``worlds``, times ``candidates``
                                          for ``search``): about 46 KB a world, 3 GiB
                                          at the limit
``MAX_SEARCH_WORLDS``      65,536         worlds search in the loop values in one update:
                                          ``search.games`` x ``rollout.hands`` x
                                          ``search.worlds``; one thread of the two-core
                                          test machine values about one a millisecond
                                          times the players squared (4-player spar: 11
                                          ms), so one update of 4-player spar searches
                                          for at most about 12 minutes on one core
``MAX_CHECKPOINT_BYTES``   4 GiB          a PPO checkpoint file read by ``ppo:``,
                                          ``spar export`` and ``--resume``
``MAX_BOT_BYTES``          2 GiB          an ONNX bot (protobuf's own limit)
``MAX_POLICY_BYTES``       4 GiB          a CFR policy or sampled-CFR tables file
``MAX_CONFIG_BYTES``       1 MiB          a TOML config (``spar train CONFIG``, a run's
                                          ``config.toml``)
``MAX_LINE_BYTES``         1 MiB          one line of a game record (``spar replay``); a
                                          record is a few hundred bytes
``MAX_SESSION_END``        1,000          the value of a session end (``target:T``,
                                          ``stones:K``, ``hands:K``), wherever it comes
                                          from: a 4-player match to 1,000 lasts about
                                          2,600 hands (a week of play at a real table),
                                          and the longest a match can last is 6,994 hands
                                          (7 players to 1,000, one point a hand)
``MAX_SCORE``              1,000,000      a seat's session points typed as a state
                                          (``spar review --scores``, ``spar equity
                                          --scores``): a hand pays at most a few points,
                                          and the longest match lasts 6,994 hands; int64
                                          sums of such scores never overflow
``MAX_LEAGUE_BYTES``       256 MiB        a league's ``league.json`` (a match is about
                                          200 bytes of it)
``MAX_ENTRANTS``           1,024          a league's entrants: its tables are entrants
                                          squared (8 MiB each at the limit), its fit
                                          solves a system of that size
``MAX_SEED``               2^63 - 1       every seed (``run.seed``, ``eval.seed``,
                                          ``mccfr.eval_seed``, every ``--seed``): torch's
                                          generator takes at most 64 bits (2^64 stopped
                                          a run as it began, with torch's overflow)
``MAX_STEPS``              10^9           counts of steps and the intervals between them:
                                          ``run.updates``, ``warmstart.updates``,
                                          ``mccfr.batches``, ``solver.iterations``, every
                                          ``*_every``, ``run.keep_checkpoints``,
                                          ``spar exploit --updates``
``MAX_EPOCHS``             1,000          passes over one batch (``ppo.epochs``,
                                          ``warmstart.epochs``): 2^64 never ended an update
``MAX_SNAPSHOTS``          1,024          ``pool.snapshots``, networks kept in memory
``MAX_MINUTES``            1,000,000      a run's wall clock (``run.max_minutes``,
                                          ``--minutes``): about two years
``MAX_SECONDS``            3,600          a wait or a measurement: ``ray.timeout``,
                                          ``--ray-timeout``, ``spar serve --think``,
                                          ``spar speed --seconds``
``MAX_LR``                 1              a learning rate (``ppo.lr``, ``warmstart.lr``):
                                          Adam's step size; 10^308 diverged at the first step
``MAX_COEF``               1,000,000      a loss weight, scale or clip (``ppo.ent_coef``,
                                          ``vf_coef``, ``magnet_coef``, ``reward_scale``,
                                          ``value_clip``, ``max_grad_norm``, ``target_kl``,
                                          ``pool.mix`` shares, ``solver.target_nash_conv``):
                                          10^308 made the first update diverge
=========================  =============  =============================================
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

MAX_LAYER_WIDTH = 16_384
MAX_LAYERS = 64
MAX_GAMES = 1 << 20
MAX_DEALS = 100_000_000
MAX_THREADS = 512
MAX_CHECK = 1 << 20
MAX_WORKERS = 4096
MAX_WORLDS = 1 << 16
MAX_SEARCH_WORLDS = 1 << 16
MAX_CHECKPOINT_BYTES = 4 << 30
MAX_BOT_BYTES = 2 << 30
MAX_POLICY_BYTES = 4 << 30
MAX_CONFIG_BYTES = 1 << 20
MAX_LINE_BYTES = 1 << 20
MAX_SESSION_END = 1000
MAX_SCORE = 1_000_000
MAX_LEAGUE_BYTES = 256 << 20
MAX_ENTRANTS = 1024
MAX_SEED = 2**63 - 1
MAX_STEPS = 10**9
MAX_EPOCHS = 1000
MAX_SNAPSHOTS = 1024
MAX_MINUTES = 1_000_000
MAX_SECONDS = 3600
MAX_LR = 1
MAX_COEF = 1_000_000


class LimitError(ValueError):
    """A size past one of the limits above; the message names the limit."""


def check_at_most(what: str, value: float, limit: float) -> None:
    """Raise :class:`LimitError` if ``value`` is above ``limit``."""
    if value > limit:
        shown = f"{value:,}" if isinstance(value, int) else f"{value:g}"
        raise LimitError(f"{what}: at most {limit:,} (a limit of spar-rl); got {shown}")


def check_file_size(path: str | os.PathLike, limit: int, what: str) -> None:
    """Raise :class:`LimitError` if the regular file ``path`` is larger than ``limit`` bytes
    (a file of another kind, such as a pipe, is bounded when read: :func:`read_bounded`)."""
    path = Path(path)
    try:
        size = path.stat().st_size if path.is_file() else 0
    except OSError:
        return  # the reader says what is wrong with it
    if size > limit:
        raise LimitError(
            f"{path}: {_bytes(size)}, larger than any {what} (at most {_bytes(limit)})"
        )


def read_bounded(path: str | os.PathLike, limit: int, what: str) -> bytes:
    """The bytes of ``path`` (a file, or a pipe or device), refused past ``limit`` bytes.

    Raises:
        LimitError: for a file larger than ``limit``.
        OSError: if it cannot be read.
    """
    check_file_size(path, limit, what)
    with open(path, "rb") as f:
        data = f.read(limit + 1)
    if len(data) > limit:
        raise LimitError(f"{path}: larger than any {what} (at most {_bytes(limit)})")
    return data


def check_nesting(value: object, levels: int, what: str) -> None:
    """Raise :class:`LimitError` if the lists and dicts of ``value`` nest more than ``levels``
    deep (``[1]`` is 1 deep, ``{"a": [1]}`` 2), looking level by level, never by recursion,
    before anything that recurses (``json.dumps``, ``repr``) meets it."""
    level = [value]
    for _ in range(levels):
        level = [
            item
            for container in level
            if isinstance(container, dict | list | tuple)
            for item in (container.values() if isinstance(container, dict) else container)
            if isinstance(item, dict | list | tuple)
        ]
        if not level:
            return
    raise LimitError(f"{what} is nested more than {levels} levels deep")


def load_json(text: str | bytes, levels: int, what: str) -> Any:
    """The JSON value of ``text``, refused if it nests more than ``levels`` deep.

    Raises:
        LimitError: for JSON nested too deeply (also past Python's own recursion limit).
        ValueError: for text that is not JSON (``json.JSONDecodeError``, ``UnicodeDecodeError``).
    """
    try:
        value = json.loads(text)
    except RecursionError:
        raise LimitError(f"{what} is nested more than {levels} levels deep") from None
    check_nesting(value, levels, what)
    return value


def _bytes(n: int) -> str:
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size:
            return f"{n / size:,.1f} {unit}"
    return f"{n:,} bytes"
