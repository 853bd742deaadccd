"""Checks that a network bot's answer is a probability over the legal cards, naming the bot.

A diverged network or a broken exported file answers with NaN, with weight
on cards that may not be played, or with a row of the wrong width. Played
on, such an answer turns into "seat 1 cannot play AC" far from its cause;
checked here, the bot is refused by name when it first answers so.
"""

from __future__ import annotations

import numpy as np

TOLERANCE = 1e-3  # a row of legal probabilities must add up to 1 within this


class BotAnswerError(ValueError):
    """A bot answered with something that is not a probability over the legal actions."""


def check_answer(probs: np.ndarray, mask: np.ndarray, who: str) -> None:
    """Raise :class:`BotAnswerError` naming ``who`` unless each row of ``probs`` (``[G, A]``)
    is finite, at least 0, 0 off ``mask`` and adds up to 1 on it (0 if no action is legal)."""
    if probs.ndim != 2 or probs.shape != mask.shape:
        raise BotAnswerError(
            f"{who}: its answer has shape {tuple(probs.shape)}, not one probability for each of "
            f"the {mask.shape[-1]} actions of {mask.shape[0]} decisions"
        )
    legal = mask.astype(bool)
    if _sound(probs, legal):  # the usual case, in a few whole-array passes
        return
    finite = np.isfinite(probs).all(axis=1)
    bad = ~finite | (probs < 0).any(axis=1)
    bad |= np.where(legal, 0.0, np.abs(np.nan_to_num(probs))).max(axis=1, initial=0) > TOLERANCE
    total = np.where(legal, np.nan_to_num(probs), 0.0).sum(axis=1)
    bad |= legal.any(axis=1) & (np.abs(total - 1) > TOLERANCE)  # a row with none is all 0
    if bad.any():
        g = int(np.flatnonzero(bad)[0])
        row = probs[g]
        if not finite[g]:
            why = "not finite (NaN or infinite)"
        elif (row < 0).any():
            why = "negative"
        elif np.abs(row[~legal[g]]).max(initial=0) > TOLERANCE:
            why = f"{float(row[~legal[g]].sum()):.3g} on illegal cards"
        else:
            why = f"adding up to {float(total[g]):.3g} over the legal cards"
        raise BotAnswerError(
            f"{who}: its answer is not a probability over the legal cards "
            f"(decision {g} of {probs.shape[0]}: {why}); is the bot broken or its training "
            "diverged?"
        )


def _sound(probs: np.ndarray, legal: np.ndarray) -> bool:
    """Whether every row passes :func:`check_answer` (without saying which fails)."""
    if not (np.isfinite(probs).all() and (probs >= 0).all()):
        return False
    if np.where(legal, 0.0, probs).max(initial=0) > TOLERANCE:
        return False
    total = np.where(legal, probs, 0.0).sum(axis=1)
    return bool((~legal.any(axis=1) | (np.abs(total - 1) <= TOLERANCE)).all())
