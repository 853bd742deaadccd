"""The exported bot as an agent: ``onnx:checkpoints/spar4.onnx``, on onnxruntime alone.

The file's metadata (:mod:`spar_agents.export.metadata`) names the game it was
trained for; asked to play another, the agent refuses with a message naming
both. It reads only the observation and the legal mask of each decision. By
default it plays the most likely legal action (``greedy``);
``onnx:path=FILE,greedy=false`` samples from the policy with the ``rng`` it
is given.

Each bot runs on one thread and does not spin while idle, so that it shares
the cores with torch and with the other seats of a table.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import onnxruntime as ort

from spar_agents import shipped
from spar_agents.base import Decision, Situation
from spar_agents.export.metadata import (
    MASK_INPUT,
    OBS_INPUT,
    PROBS_OUTPUT,
    BotError,
    check_bot,
    run_of,
    signature_of,
)
from spar_agents.export.specialise import specialise
from spar_agents.probability_check import check_answer
from spar_agents.signature import is_universal, rules_of
from spar_env.limits import MAX_BOT_BYTES, LimitError, check_file_size
from spar_env.observation.universal import UniversalView, view_for
from spar_env.rules import Ruleset

NOT_A_MODEL = "not an ONNX model onnxruntime can run"
SHIPPED_BOT = shipped.bot_path(shipped.DEFAULT_BOT)
"""The bot trained for the default game (``spar``, 4 players): ``onnx:spar4`` (package data)."""


def session_options() -> ort.SessionOptions:
    """One thread, no spinning: a bot must not fight torch or the other seats for the cores."""
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    options.add_session_config_entry("session.inter_op.allow_spinning", "0")
    options.log_severity_level = 4  # fatal only: a failing bot is said in our one line (BotError)
    return options


def load_session(model: str | os.PathLike | bytes, where: str) -> ort.InferenceSession:
    """An onnxruntime session of a model file (or its bytes).

    Raises:
        BotError: if the file is missing or is not an ONNX model onnxruntime can run.
    """
    if not isinstance(model, bytes):
        model = _checked_path(model, where)
    try:
        return ort.InferenceSession(model, session_options(), providers=["CPUExecutionProvider"])
    except Exception as e:  # onnxruntime raises its own Fail, InvalidProtobuf, ...
        raise BotError(f"{where}: {NOT_A_MODEL} ({_first_line(e)})") from None


def read_metadata(path: str | os.PathLike, where: str) -> dict[str, str]:
    """A bot file's metadata (:mod:`spar_agents.export.metadata`), read with onnx alone: no
    inference session is built to read it.

    Raises:
        BotError: if the file is missing or is not an ONNX model.
    """
    file = _checked_path(path, where)
    try:
        model = onnx.load(file, load_external_data=False)
    except Exception as e:  # protobuf's DecodeError, an OSError, ...
        raise BotError(f"{where}: {NOT_A_MODEL} ({_first_line(e)})") from None
    if model.ir_version <= 0:  # protobuf reads some junk as an empty message
        raise BotError(f"{where}: {NOT_A_MODEL} (no IR version: not an ONNX model)")
    return {prop.key: prop.value for prop in model.metadata_props}


def _checked_path(model: str | os.PathLike, where: str) -> str:
    """A bot file's path, once the file is there and not too big.

    Raises:
        BotError: if the file is missing or too big.
    """
    path = Path(model)
    if not path.is_file():
        raise BotError(f"{where}: no such bot file")
    try:
        check_file_size(path, MAX_BOT_BYTES, "ONNX bot")
    except LimitError as e:
        raise BotError(str(e)) from None
    return str(path)


def _first_line(error: Exception) -> str:
    """An exception's first line, or its type when it has no message."""
    return str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__


def run_session(
    session: ort.InferenceSession, obs: np.ndarray, mask: np.ndarray, where: str = "the bot"
) -> np.ndarray:
    """``float32 [G, A]``: the masked policy of ``G`` decisions.

    Raises:
        BotError: naming ``where``, if the graph fails as it runs (a node that asks for more
            memory than there is, a shape its inputs do not have, ...).
    """
    feeds = {
        OBS_INPUT: np.ascontiguousarray(obs, dtype=np.uint8),
        MASK_INPUT: np.ascontiguousarray(mask, dtype=bool),
    }
    try:
        return session.run([PROBS_OUTPUT], feeds)[0]
    except Exception as e:  # onnxruntime raises its own Fail, RuntimeException, ...
        raise BotError(
            f"{where}: the bot's graph failed as it ran ({_first_line(e):.300})"
        ) from None


def bot_rules(path: str | os.PathLike) -> Ruleset:
    """The ruleset a bot file was made for, as its metadata names it (no session is built).

    Raises:
        BotError: if the file is not a spar-rl bot.
    """
    path = shipped.resolve_bot(path)
    return rules_of(signature_of(read_metadata(path, str(path)), str(path)))


def bot_game_count(path: str | os.PathLike) -> int:
    """How many games a bot file was made for: 1, or a universal bot's count.

    Raises:
        BotError: if the file is not a spar-rl bot.
    """
    path = shipped.resolve_bot(path)
    signature = signature_of(read_metadata(path, str(path)), str(path))
    return len(signature["games"]) if is_universal(signature) else 1


class OnnxAgent:
    """Plays an exported bot (see the module docstring)."""

    def __init__(
        self,
        rules: Ruleset,
        session: ort.InferenceSession,
        greedy: bool = True,
        where: str = "",
        source: str | os.PathLike | bytes | None = None,
    ) -> None:
        if not isinstance(greedy, bool):
            raise ValueError(f"onnx: greedy must be true or false; got {greedy!r}")
        self.rules = rules
        self.session = session
        self.greedy = greedy
        self.source = source
        self.meta: dict[str, str] = dict(session.get_modelmeta().custom_metadata_map)
        where = where or "the bot"
        self.where = where
        check_bot(self.meta, rules, where)
        universal = is_universal(signature_of(self.meta, where))
        self.view: UniversalView | None = view_for(rules) if universal else None  # observation v2
        self._check_graph(where)
        # A universal bot plays through its game's own graph (spar_agents.export.specialise), made
        # from the model file (``source``) once; without it, through v2.
        self.game_session: ort.InferenceSession | None = None
        if self.view is not None and source is not None:
            model = (
                onnx.load_from_string(source) if isinstance(source, bytes) else onnx.load(source)
            )
            game_bot = specialise(model, self.view, where).SerializeToString()
            self.game_session = load_session(game_bot, where)

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        """Pickled as its model's bytes, so that a rollout worker (a process, a Ray actor on
        another machine) builds its own session: an onnxruntime session cannot be pickled."""
        if self.source is None:
            raise TypeError(f"{self.where}: a bot built from a bare session cannot be sent to "
                            "another process; build it from its file")  # fmt: skip
        data = self.source if isinstance(self.source, bytes) else Path(self.source).read_bytes()
        return _rebuilt, (self.rules, data, self.greedy, self.where)

    @classmethod
    def from_path(cls, rules: Ruleset, path: str | os.PathLike, greedy: bool = True) -> OnnxAgent:
        session = load_session(path, str(path))
        return cls(rules, session, greedy, where=f"onnx:{path}", source=path)

    @property
    def run(self) -> dict[str, Any]:
        """The training run the bot came from: name, update, checkpoint."""
        return run_of(self.meta)

    def probs(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """``float32 [G, A]``: the policy over legal actions (exactly 0 on illegal ones);
        the bot's own observations and actions (v2 for a universal bot)."""
        return self._answer(self.session, obs, mask)

    def game_probs(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """``float32 [G, A]``: the policy on the game's own observation (v1) and actions,
        as :meth:`act` plays it (a universal bot: its game's own graph, if it has one)."""
        if self.view is None:
            return self.probs(obs, mask)
        if self.game_session is None:
            v2_probs = self.probs(self.view.from_v1(obs), self.view.widen_mask(mask))
            return self.view.game_probs(v2_probs)
        return self._answer(self.game_session, obs, mask)

    def _answer(
        self, session: ort.InferenceSession, obs: np.ndarray, mask: np.ndarray
    ) -> np.ndarray:
        """A graph's checked answer (:func:`spar_agents.probability_check.check_answer`) to ``G`` decisions."""
        if obs.shape[0] == 0:
            return np.zeros((0, mask.shape[1]), dtype=np.float32)
        probs = run_session(session, obs, mask, self.where)
        check_answer(probs, mask, self.where)
        return probs

    def act(self, situation: Situation, rng: np.random.Generator) -> Decision:
        mask = situation.mask
        choice = mask.sum(axis=1) > 1
        if choice.all():
            probs = self.game_probs(situation.obs, mask)
        else:  # a forced move's policy is 1 on its one legal action: the graph's answer exactly
            probs = mask.astype(np.float32)
            if choice.any():
                chosen = Situation(situation.state, situation.history, situation.games[choice])
                probs[choice] = self.game_probs(chosen.obs, mask[choice])
        actions = probs.argmax(axis=1) if self.greedy else _sample(probs, rng)
        return Decision(actions.astype(np.int64), probs)

    def _check_graph(self, where: str) -> None:
        """The graph's inputs and output must be the ones the metadata promises."""
        inputs = {i.name: i for i in self.session.get_inputs()}
        widths = {OBS_INPUT: int(self.meta["obs_size"]), MASK_INPUT: int(self.meta["num_actions"])}
        for name, width in widths.items():
            found = inputs.get(name)
            if found is None or found.shape[-1] != width:
                raise BotError(f"{where}: the graph has no input {name!r} of width {width}")
        outputs = {o.name: o for o in self.session.get_outputs()}
        if PROBS_OUTPUT not in outputs:
            raise BotError(f"{where}: the graph has no output {PROBS_OUTPUT!r}")
        shape = outputs[PROBS_OUTPUT].shape
        out_width = shape[-1] if shape else None
        if (
            isinstance(out_width, int) and out_width != widths[MASK_INPUT]
        ):  # a named axis is checked
            raise BotError(  # on the first answer
                f"{where}: the graph's output {PROBS_OUTPUT!r} is {out_width} wide, not one "
                f"probability for each of the {widths[MASK_INPUT]} actions"
            )


def _sample(probs: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One action per row drawn from ``probs`` by the Gumbel-max trick.

    Illegal actions score ``log 0 = -inf`` and never win; so does a draw of
    exactly 0 (``-log(-log 0) = -inf``), never ``+inf``.
    """
    with np.errstate(divide="ignore"):
        gumbel = -np.log(-np.log(rng.random(probs.shape)))
        return (np.log(probs) + gumbel).argmax(axis=1)


def _rebuilt(rules: Ruleset, data: bytes, greedy: bool, where: str) -> OnnxAgent:
    """An :class:`OnnxAgent` unpickled (:meth:`OnnxAgent.__reduce__`)."""
    return OnnxAgent(rules, load_session(data, where), greedy, where=where, source=data)
