"""The presets of docs/rules.md as data: each a set of :class:`~spar_env.rules.ruleset.Ruleset`
fields by variant name (:func:`spar_env.rules.make_rules` builds and checks them)."""

from __future__ import annotations

from typing import Any

_SPAR_RANKS = ("A", "K", "Q", "J", "10", "9", "8", "7", "6")
_SEVEN_UP_RANKS = ("A", "K", "Q", "J", "10", "9", "8", "7")
_AGRAM_RANKS = ("10", "9", "8", "7", "6", "5", "4", "3", "A")

PRESETS: dict[str, dict[str, Any]] = {
    "spar": dict(ranks=_SPAR_RANKS, hand_size=5, deal_pattern=(3, 2), end="target:10"),
    "spar_classic": dict(
        ranks=_SPAR_RANKS, ace_of_spades=True, hand_size=7, deal_pattern=(1,) * 7, end="open"
    ),
    "essilfy": dict(ranks=_SPAR_RANKS, last_two="sum", end="target:30", c_notation=True),
    "jeu_de_carte": dict(
        ranks=_SEVEN_UP_RANKS, scoring="seven", face_down="off_suit", end="target:24"
    ),
    "sipa": dict(
        ranks=_SEVEN_UP_RANKS,
        direction="counterclockwise",
        scoring="sipa",
        face_down="non_winning",
        end="target:10",
    ),
    "agram": dict(
        ranks=_AGRAM_RANKS,
        hand_size=6,
        deal_pattern=(3, 3),
        direction="counterclockwise",
        scoring="one",
        end="one_hand",
    ),
    "sink_sink": dict(
        ranks=_AGRAM_RANKS,
        hand_size=5,
        deal_pattern=(2, 3),
        direction="counterclockwise",
        scoring="one",
        end="one_hand",
    ),
    "fapfap": dict(
        ranks=_AGRAM_RANKS,
        hand_size=6,
        deal_pattern=(3, 3),
        direction="counterclockwise",
        scoring="fapfap",
        end="open",
    ),
    "agram_mali": dict(
        ranks=("7", "J", "8", "9", "Q", "10", "K", "A"),
        hand_size=6,
        deal_pattern=(3, 3),
        direction="counterclockwise",
        scoring="one",
        end="one_hand",
    ),
    "mini": dict(
        suits=("C", "D", "H"),
        ranks=("A", "K", "7", "6"),
        players=2,
        hand_size=3,
        deal_pattern=(3,),
        first_dealer=1,
        end="one_hand",
    ),
    "micro": dict(
        suits=("C", "D"),
        ranks=("K", "7", "6"),
        players=2,
        hand_size=2,
        deal_pattern=(2,),
        first_dealer=1,
        end="one_hand",
    ),
}
