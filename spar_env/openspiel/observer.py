"""The observer of the OpenSpiel bridge (:mod:`spar_env.openspiel`): information states
(perfect recall) and observations (:func:`spar_env.observation.per_game.encode`), as strings and tensors."""

from __future__ import annotations

import numpy as np

from spar_env.observation.per_game import encode, layout_for
from spar_env.rules import Ruleset


class Observer:
    """Information states (perfect recall) and observations, as strings and tensors."""

    def __init__(self, game, perfect_recall: bool) -> None:
        rules = game.rules
        self.rules = rules
        self.perfect = perfect_recall
        n, c, a = rules.players, rules.num_card_ids, rules.num_actions
        if perfect_recall:
            shapes = [
                ("seat", (n,)),
                ("dealer", (n,)),
                ("dealt", (c,)),
                ("held", (c,)),
                ("revealed", (c,)),
                ("plays", (game.max_plays, n + a + 1)),  # who played, then the action or ??
            ]
        else:
            shapes = [("observation", (layout_for(rules).size,))]
        size = sum(int(np.prod(s)) for _, s in shapes)
        self.tensor = np.zeros(size, np.float32)
        self.dict = {}
        at = 0
        for name, shape in shapes:
            width = int(np.prod(shape))
            self.dict[name] = self.tensor[at : at + width].reshape(shape)
            at += width

    def _seen_plays(self, state, player: int) -> list[tuple[int, int]]:
        """(seat, action) per play, the action -1 where the card lay face down for another."""
        return [(s, -1 if down and s != player else a) for s, a, down in play_triples(state.plays)]

    def set_from(self, state, player: int) -> None:
        self.tensor.fill(0)
        rules = self.rules
        if not self.perfect:
            core = state._observed_core()
            if core is not None:
                self.dict["observation"][:] = encode(core, player)[0]
            return
        self.dict["seat"][player] = 1
        dealer, bits, held, revealed = state._view(player)
        if dealer is not None:
            self.dict["dealer"][dealer] = 1
        if bits is None:
            return
        for card in range(rules.num_card_ids):
            self.dict["dealt"][card] = bits >> card & 1
            self.dict["held"][card] = held >> card & 1
        if revealed >= 0:
            self.dict["revealed"][revealed] = 1
        for k, (seat, action) in enumerate(self._seen_plays(state, player)):
            self.dict["plays"][k, seat] = 1
            self.dict["plays"][
                k, rules.players + (action if action >= 0 else rules.num_actions)
            ] = 1

    def string_from(self, state, player: int) -> str:
        rules = self.rules
        if not self.perfect:
            core = state._observed_core()
            if core is None:
                return f"seat {player}: dealing"
            obs = encode(core, player)[0]
            parts = [f"seat {player}"]
            for b in layout_for(rules).blocks:
                nz = np.flatnonzero(obs[b.offset : b.offset + b.width])
                if nz.size:
                    vals = obs[b.offset + nz]
                    parts.append(
                        f"{b.name}:"
                        + ",".join(
                            str(i) if v == 1 else f"{i}={v}" for i, v in zip(nz, vals, strict=True)
                        )
                    )
            return " ".join(parts)
        dealer, bits, held, revealed = state._view(player)
        out = [f"seat {player}", f"dealer {'?' if dealer is None else dealer}"]
        if bits is None:
            return " ".join(out + ["dealing"])
        out.append(f"hand {card_names(rules, bits)}")
        if held:
            out.append(f"took {card_names(rules, held)}")
        if revealed >= 0:
            out.append(f"stock bottom {rules.card_name(revealed)}")
        plays = []
        for seat, action in self._seen_plays(state, player):
            if action < 0:
                plays.append(f"{seat}:??")
            elif action >= rules.num_card_ids:
                plays.append(f"{seat}:{('KEEP', 'EXCHANGE')[action - rules.keep_action]}")
            else:
                plays.append(f"{seat}:{rules.card_name(action)}")
        return " ".join(out) + " | " + " ".join(plays)


def play_triples(plays: bytes) -> list[tuple[int, int, int]]:
    """A state's plays, 3 bytes each, as (seat, action, face_down) triples."""
    return [(plays[i], plays[i + 1], plays[i + 2]) for i in range(0, len(plays), 3)]


def card_names(rules: Ruleset, bits: int) -> str:
    """The cards of a bit set, in card notation, comma-separated."""
    return ",".join(rules.card_name(c) for c in range(rules.num_card_ids) if bits >> c & 1)
