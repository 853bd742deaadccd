"""A solved policy as arrays: saved atomically, loaded with checks, and played by an agent.

A :class:`CFRPolicy` holds, for every information set with a choice (two or
more legal actions), its key (see :func:`spar_agents.cfr.tree.infoset_keys`:
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

from spar_agents.base import Decision, Situation
from spar_agents.cfr.build import infoset_keys
from spar_agents.cfr.seqform import SequenceForm
from spar_env.atomic import atomic_output
from spar_env.limits import MAX_POLICY_BYTES, check_file_size
from spar_env.rules import Ruleset, make_rules

FORMAT = "spar-cfr-policy/1"
ZIP_MAGIC = b"PK\x03\x04"  # an .npz file is a zip archive


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

    def profile(self, sf: SequenceForm) -> tuple[np.ndarray, np.ndarray]:
        """The inverse of :meth:`from_profile`: this policy as a profile on ``sf`` (the tree
        of its ruleset), for exact evaluation (:mod:`spar_agents.cfr.evaluation`).

        Raises:
            ValueError: if a choice information set of the tree is not in the policy.
        """
        table = sf.tree_policy(sf.uniform())  # forced sets: probability 1 on their action
        ids = np.sort(np.concatenate([p.tree_infoset for p in sf.players]))
        rows = self.lookup(sf.tree.infoset_keys[ids])
        if (rows < 0).any():
            raise ValueError(
                f"the policy lacks {int((rows < 0).sum())} information sets of the tree"
            )
        table[ids] = self.probs[rows]
        return sf.from_tree_policy(table)

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
        ValueError: the file is missing, too large, unreadable (truncated or altered), not
            an ``.npz`` archive, or has no JSON object as its header.
    """
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"{path}: no such CFR policy file")
    check_file_size(path, MAX_POLICY_BYTES, "CFR policy file")
    with open(path, "rb") as f:
        if f.read(4) != ZIP_MAGIC:
            raise ValueError(f"{path}: not a CFR policy file (not an .npz archive)")
    try:
        with np.load(path, allow_pickle=False) as data:
            if "meta" not in data.files:
                raise ValueError(f"{path}: not a CFR policy file (arrays {sorted(data.files)})")
            arrays = {k: data[k] for k in data.files if k != "meta"}
            meta = json.loads(bytes(data["meta"]).decode())
    except (zipfile.BadZipFile, EOFError, OSError, json.JSONDecodeError, UnicodeDecodeError) as err:
        raise ValueError(
            f"{path}: unreadable CFR policy file (truncated or altered?): {err}"
        ) from err
    except ValueError as err:  # numpy's: an array it would have to unpickle, a bad header
        if str(err).startswith(str(path)):
            raise
        raise ValueError(f"{path}: not a CFR policy file (an array numpy cannot read)") from None
    if not isinstance(meta, dict):
        raise ValueError(f"{path}: not a CFR policy file (its header is not a JSON object)")
    return arrays, meta


def rules_in_header(path: str | os.PathLike, meta: dict[str, Any]) -> Ruleset:
    """The ruleset a policy file's header names (variant, players, options).

    Raises:
        ValueError: naming the file, for a header without them or with values that are no rules.
    """
    variant, players, options = meta.get("variant"), meta.get("players"), meta.get("options")
    if not isinstance(variant, str) or not isinstance(players, int) or isinstance(players, bool):
        raise ValueError(f"{path}: the policy's header names no variant and players")
    if not isinstance(options, dict):
        raise ValueError(f"{path}: the policy's header has no options table")
    try:
        return make_rules(variant, players=players, **options)
    except (TypeError, ValueError) as e:
        raise ValueError(f"{path}: the policy's header names no playable rules ({e})") from None


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
    file_rules = rules_in_header(path, meta)
    if rules is not None and (meta["variant"], meta["players"]) != (rules.variant, rules.players):
        raise ValueError(
            f"{path}: a policy for {meta['variant']} with {meta['players']} players, "
            f"not {rules.variant} with {rules.players}"
        )
    if rules is not None and file_rules != rules:
        raise ValueError(f"{path}: the policy's options {meta['options']} differ from the rules'")
    if (
        keys.dtype != np.uint8
        or keys.ndim != 2
        or probs.dtype != np.float64
        or probs.shape != (keys.shape[0], meta.get("num_actions"))
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
