"""A solved policy as arrays: saved atomically, loaded with checks, and played by an agent.

A :class:`CFRPolicy` holds, for every information set with a choice (two or
more legal actions), its key (see :func:`agents.cfr.tree.infoset_keys`:
seat, dealer, own dealt hand, the plays so far) and the probability of each
action. Information sets with one legal action are left out: the agent
plays that action.

File format (``.npz``, no pickles; ``np.load(..., allow_pickle=False)``):

===========  ======================  =========================================
array        dtype / shape           meaning
===========  ======================  =========================================
``keys``     uint8 [I, K]            information-set keys, sorted
``probs``    float64 [I, A]          action probabilities (0 for illegal)
``meta``     uint8 [bytes]           UTF-8 JSON: format, variant, players,
                                     options, algorithm, iterations, NashConv,
                                     game value, and a SHA-256 of the arrays
===========  ======================  =========================================
"""

from __future__ import annotations

import hashlib
import json
import os
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from agents.base import Decision, Situation
from agents.cfr.build import infoset_keys
from agents.cfr.seqform import SequenceForm
from spar_env.atomic import atomic_output
from spar_env.rules import Ruleset, make_rules

FORMAT = "spar-cfr-policy/1"


@dataclass(frozen=True, eq=False)
class CFRPolicy:
    rules: Ruleset
    keys: np.ndarray  # uint8 [I, K], rows sorted as bytes
    probs: np.ndarray  # float64 [I, A]
    info: dict[str, Any] = field(default_factory=dict)  # algorithm, iterations, nash_conv, ...

    @classmethod
    def from_profile(
        cls, sf: SequenceForm, profile: tuple[np.ndarray, np.ndarray], **info: Any
    ) -> CFRPolicy:
        """The choice information sets of a ruleset's tree, with ``profile``'s probabilities."""
        tree = sf.tree
        if tree.rules is None or tree.infoset_keys is None:
            raise ValueError("only trees built from a ruleset have information-set keys")
        table = sf.tree_policy(profile)
        ids = np.sort(
            np.concatenate([p.tree_infoset for p in sf.players])
        )  # sorted keys stay sorted
        keys = tree.infoset_keys[ids]
        width = keys.dtype.itemsize
        return cls(
            rules=tree.rules,
            keys=np.frombuffer(keys.tobytes(), dtype=np.uint8).reshape(-1, width).copy(),
            probs=table[ids],
            info=dict(info),
        )

    def lookup(self, keys: np.ndarray) -> np.ndarray:
        """Row of each key (bytes ``S{K}`` array), -1 where absent (a forced move)."""
        table = np.ascontiguousarray(self.keys).view(f"S{self.keys.shape[1]}").ravel()
        pos = np.minimum(np.searchsorted(table, keys), table.shape[0] - 1)
        return np.where(table[pos] == keys, pos, -1)

    def _checksum(self) -> str:
        h = hashlib.sha256(np.ascontiguousarray(self.keys).tobytes())
        h.update(np.ascontiguousarray(self.probs).tobytes())
        return h.hexdigest()

    def save(self, path: str | os.PathLike) -> Path:
        """Write the policy atomically (a temporary file in the same folder, then a rename)."""
        path = Path(path)
        meta = {
            "format": FORMAT,
            "variant": self.rules.variant,
            "players": self.rules.players,
            "options": self.rules.options(),
            "num_actions": self.rules.num_actions,
            "sha256": self._checksum(),
            **self.info,
        }
        return write_npz(path, meta, keys=self.keys, probs=self.probs)


def write_npz(path: Path, meta: dict[str, Any], **arrays: np.ndarray) -> Path:
    """Arrays plus a JSON header (array ``meta``), written atomically: a policy file."""
    blob = np.frombuffer(json.dumps(meta, sort_keys=True).encode(), dtype=np.uint8)
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_output(path, "wb") as f:
        np.savez(f, meta=blob, **arrays)
    return path


def read_npz(path: str | os.PathLike) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """The arrays and JSON header of a file of :func:`write_npz`, without unpickling anything.

    Raises:
        ValueError: the file is unreadable (truncated or altered) or has no header.
    """
    try:
        with np.load(path, allow_pickle=False) as data:
            if "meta" not in data.files:
                raise ValueError(f"{path}: not a CFR policy file (arrays {sorted(data.files)})")
            arrays = {k: data[k] for k in data.files if k != "meta"}
            return arrays, json.loads(bytes(data["meta"]).decode())
    except (zipfile.BadZipFile, EOFError, OSError, json.JSONDecodeError, UnicodeDecodeError) as err:
        raise ValueError(
            f"{path}: unreadable CFR policy file (truncated or altered?): {err}"
        ) from err


def load_policy(path: str | os.PathLike, rules: Ruleset | None = None) -> CFRPolicy:
    """Load and check a policy file.

    Args:
        path: a file written by :meth:`CFRPolicy.save`.
        rules: if given, the file's variant and players must match it.

    Raises:
        ValueError: the file is truncated, altered, not a policy file, or for
            another ruleset.
    """
    arrays, meta = read_npz(path)
    if set(arrays) != {"keys", "probs"}:
        raise ValueError(f"{path}: not a CFR policy file (arrays {sorted(arrays)})")
    keys, probs = arrays["keys"], arrays["probs"]
    if meta.get("format") != FORMAT:
        raise ValueError(f"{path}: format {meta.get('format')!r}, expected {FORMAT!r}")
    if rules is not None and (meta["variant"], meta["players"]) != (rules.variant, rules.players):
        raise ValueError(
            f"{path}: a policy for {meta['variant']} with {meta['players']} players, "
            f"not {rules.variant} with {rules.players}"
        )
    file_rules = make_rules(meta["variant"], players=meta["players"], **meta["options"])
    if rules is not None and file_rules != rules:
        raise ValueError(f"{path}: the policy's options {meta['options']} differ from the rules'")
    if (
        keys.dtype != np.uint8
        or keys.ndim != 2
        or probs.shape != (keys.shape[0], meta["num_actions"])
    ):
        raise ValueError(
            f"{path}: array shapes do not match (keys {keys.shape}, probs {probs.shape})"
        )
    info = {
        k: v
        for k, v in meta.items()
        if k not in ("format", "variant", "players", "options", "num_actions", "sha256")
    }
    policy = CFRPolicy(rules=file_rules, keys=keys, probs=probs, info=info)
    if policy._checksum() != meta.get("sha256"):
        raise ValueError(f"{path}: checksum mismatch: the arrays were altered")
    return policy


class CFRAgent:
    """Plays a solved policy (spec ``cfr:<path>``) in the rulesets the exact tree supports.

    The key of a decision is built from what its seat knows: its own dealt
    hand, the dealer and the public play history. Forced moves (no key in
    the table) play the one legal card.
    """

    def __init__(self, policy: CFRPolicy) -> None:
        self.policy = policy

    @classmethod
    def from_path(cls, path: str | os.PathLike, rules: Ruleset | None = None) -> CFRAgent:
        return cls(load_policy(path, rules))

    def act(self, situation: Situation, rng: np.random.Generator) -> Decision:
        rules = situation.rules
        if rules != self.policy.rules:
            raise ValueError(f"this policy is for {self.policy.rules.variant}, not {rules.variant}")
        st, g = situation.state, situation.games
        keys = infoset_keys(situation.seats, st.dealer[g], st.dealt[g], situation.history.cards[g])
        rows = self.policy.lookup(keys)
        mask = situation.mask.astype(np.float64)
        probs = np.where(rows[:, None] >= 0, self.policy.probs[np.maximum(rows, 0)], 1.0) * mask
        probs /= probs.sum(axis=1, keepdims=True)
        cum = probs.cumsum(axis=1)
        # The first action whose cumulative probability passes the draw: never a 0-probability one.
        pick = np.argmax(cum > rng.random(probs.shape[0])[:, None] * cum[:, -1:], axis=1)
        return Decision(actions=pick.astype(np.int64), probs=probs.astype(np.float32))
