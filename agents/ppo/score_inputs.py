"""The points each seat still needs, as 0/1 inputs the network reads beside its observation.

Observation v2 gives each seat's session score and the target divided by 30, so
"one point from the target" is a difference of 0.033 between two inputs. A tanh
network can threshold that only with large weights, which a fine-tune's small
Adam steps do not reach: a bot fine-tuned on the match reward barely read the
score (``benchmarks/critic_score_spread.py``). ``model.score_inputs`` adds, for
every relative seat ``k`` and ``n`` = 1, 2, 3, the input "seat ``k`` wins the
match with a hand of ``n`` points" (0 outside ``target:T`` sessions and for seats
the game lacks). The inputs are computed inside the network from the
observation, so an exported bot still takes the plain observation and its
ONNX graph computes them itself.
"""

from __future__ import annotations

import torch
from torch import nn

from spar_env.observation.universal import MAX_SEATS, OFFSETS
from spar_env.rules.ruleset import END_KINDS

POINTS = (1, 2, 3)  # the hand scores spar's scoring gives; larger ones also count as 3 here
WIDTH = MAX_SEATS * len(POINTS)  # 21 inputs


class ScoreInputs(nn.Module):
    """``float [G, 21]`` from raw (unscaled) observation v2 rows: seat-major, then points."""

    score_columns: torch.Tensor
    seat_columns: torch.Tensor
    points: torch.Tensor

    def __init__(self) -> None:
        super().__init__()
        seats = torch.arange(MAX_SEATS)
        self.register_buffer("score_columns", OFFSETS["scores"] + seats, persistent=False)
        self.register_buffer("seat_columns", OFFSETS["seat_in_game"] + seats, persistent=False)
        self.register_buffer("points", torch.tensor(POINTS, dtype=torch.float32), persistent=False)
        self.target_column = OFFSETS["session_end"] + END_KINDS.index("target")
        self.end_column = OFFSETS["end_value"]

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        x = obs.to(torch.float32)
        scores = x[:, self.score_columns]  # [G, P]
        present = x[:, self.seat_columns] * x[:, self.target_column : self.target_column + 1]
        end = x[:, self.end_column : self.end_column + 1]
        reach = (scores[:, :, None] + self.points >= end[:, :, None]).to(torch.float32)
        return (reach * present[:, :, None]).flatten(1)
