"""A user's own agent (``py:module:Name``), with its faults said in one line that names it.

The agents of this package answer with one legal action per decision; a user's agent
may not. Unchecked, its faults surface far from their cause: an exception in ``act``
as a traceback, an answer of one action broadcast by NumPy to every game, a NaN read
as action -9223372036854775808. :class:`GuardedAgent` wraps every agent a ``py:`` spec
builds and checks each answer before anything plays it.

==========================================  =======================================
the agent's ``act``                         is refused as (:class:`AgentFault`)
==========================================  =======================================
raises (or calls ``sys.exit``)              ``act failed: ValueError: ...``
returns something without ``actions``       ``act returned None, not a Decision``
gives other than one action a decision      ``3 decisions but 1 action``
gives NaN, fractions or non-numbers         ``its actions are not whole numbers``
gives ``probs`` of the wrong shape          ``probs of shape (1, 4), not (3, 36)``
==========================================  =======================================

An action that is a whole number but not legal is left to the engine, whose message
names the game, the card and the legal ones.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from spar_agents.base import Agent, Decision, Situation


class AgentFault(ValueError):
    """A user's agent failed in ``act`` or answered with something that is not a decision."""


class GuardedAgent:
    """``agent``, whose every answer is checked (module docstring); ``where`` names it.

    Its other attributes are the agent's own (``GuardedAgent(a).depth is a.depth``).
    """

    def __init__(self, agent: Agent, where: str) -> None:
        self.agent = agent
        self.where = where

    def act(self, situation: Situation, rng: np.random.Generator) -> Decision:
        try:
            decision = self.agent.act(situation, rng)
        except (Exception, SystemExit) as e:  # noqa: BLE001 - the user's code's fault
            raise AgentFault(f"{self.where}: act failed: {describe(e)}") from None
        return checked(decision, situation, self.where)

    def __getattr__(self, name: str) -> Any:
        if name == "agent":  # not set yet (a copy being built): no recursion
            raise AttributeError(name)
        return getattr(self.agent, name)


def describe(error: BaseException) -> str:
    """``ValueError: the message`` (``SystemExit(7)`` for an exit)."""
    if isinstance(error, SystemExit):
        return f"SystemExit({error.code!r})"
    return f"{type(error).__name__}: {error}"


def checked(decision: object, situation: Situation, where: str) -> Decision:
    """``decision`` as a :class:`Decision` of int64 actions, one per decision of
    ``situation``, or :class:`AgentFault` naming ``where`` and what is wrong."""
    actions = getattr(decision, "actions", None)
    if actions is None:
        raise AgentFault(
            f"{where}: act returned {_kind(decision)}, not a Decision (spar_agents.base)"
        )
    try:
        array = np.asarray(actions)
    except Exception as e:  # noqa: BLE001 - whatever the user's object does
        raise AgentFault(f"{where}: its actions are not an array ({describe(e)})") from None
    g = situation.size
    if array.shape != (g,):
        raise AgentFault(
            f"{where}: act was given {g} decisions and answered with actions of shape "
            f"{array.shape} (one action for each decision, in order)"
        )
    if array.dtype.kind not in "iu":
        as_float = array.astype(np.float64) if array.dtype.kind in "fb" else None
        if as_float is None or not (np.isfinite(as_float).all() and (as_float % 1 == 0).all()):
            raise AgentFault(
                f"{where}: its actions are not whole numbers (got {_first_bad(array)}); "
                "act must answer with action ids"
            )
    probs = getattr(decision, "probs", None)
    num_actions = situation.rules.num_actions
    if probs is not None and np.shape(probs) != (g, num_actions):
        raise AgentFault(f"{where}: its probs have shape {np.shape(probs)}, not "
                         f"{(g, num_actions)} (or give none)")  # fmt: skip
    return Decision(array.astype(np.int64), probs)


def _kind(value: object) -> str:
    return "None" if value is None else f"a {type(value).__name__}"


def _first_bad(array: np.ndarray) -> str:
    """The first value of an array of actions that is not a whole number, for a message."""
    for value in array.ravel():
        try:
            if float(value) % 1 == 0:
                continue
        except (TypeError, ValueError, OverflowError):
            pass
        return f"{value.item() if isinstance(value, np.generic) else value!r:.40}"
    return f"{array.dtype} values"
