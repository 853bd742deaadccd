"""``call``, ``get_attr`` and ``set_attr`` for the native vector env, as ``SyncVectorEnv`` has them.

Code written for ``SyncVectorEnv`` asks the sub-envs for their attributes:
``envs.call("action_masks")`` gives one ``bool [A]`` mask per sub-env.
:class:`~spar_env.envs.vector.SparVectorEnv` has no sub-env objects (its
games are rows of one batch), so :class:`SubEnvAttributes` answers for them
from the batch, with SyncVectorEnv's return types: a tuple with one value per
sub-env, a method called with the arguments given (``get_attr`` calls it
too, as SyncVectorEnv's does).

What a sub-env has, as :class:`~spar_env.envs.single.SparEnv` has it:
``action_masks`` (``bool [A]``), ``seat`` (the learner's seat), ``rules``,
``observation_space`` and ``action_space`` (one sub-env's), ``render_mode``
and ``metadata``; and any attribute given to it by ``set_attr``. Those read
from the batch cannot be set: ``set_attr`` on them raises ``AttributeError``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


class SubEnvAttributes:
    """Mixin for a vector env whose sub-envs are games of one batch; see the module docstring.

    The host class provides ``num_envs`` and ``_sub_env_values()``, a dict
    from an attribute's name to a function that returns its value in every
    sub-env (a sequence of ``num_envs`` values).
    """

    num_envs: int

    def _sub_env_values(self) -> dict[str, Callable[[], Any]]:
        raise NotImplementedError

    def call(self, name: str, *args: Any, **kwargs: Any) -> tuple[Any, ...]:
        """Each sub-env's ``name``: called with ``args`` and ``kwargs`` if it is a method."""
        builtin = self._sub_env_values().get(name)
        if builtin is not None:
            if args or kwargs:
                raise TypeError(f"the sub-envs' {name} takes no arguments")
            return tuple(builtin())
        given = self._set_attributes().get(name)
        if given is None:
            known = ", ".join(sorted(self._sub_env_values()) + sorted(self._set_attributes()))
            raise AttributeError(f"the sub-envs have no attribute {name!r}; they have: {known}")
        return tuple(value(*args, **kwargs) if callable(value) else value for value in given)

    def get_attr(self, name: str) -> tuple[Any, ...]:
        """Each sub-env's ``name`` (a method is called, as in ``SyncVectorEnv``)."""
        return self.call(name)

    def set_attr(self, name: str, values: list[Any] | tuple[Any, ...] | Any) -> None:
        """Give each sub-env ``name``: one value per sub-env (a list or tuple) or one for all."""
        if name in self._sub_env_values():
            raise AttributeError(f"the sub-envs' {name} is read from the batch; it cannot be set")
        if not isinstance(values, list | tuple):
            values = [values] * self.num_envs
        if len(values) != self.num_envs:
            raise ValueError(
                "Values must be a list or tuple with length equal to the number of environments. "
                f"Got `{len(values)}` values for {self.num_envs} environments."
            )
        self._set_attributes()[name] = list(values)

    def _set_attributes(self) -> dict[str, list[Any]]:
        if "_sub_env_attributes" not in self.__dict__:
            self._sub_env_attributes: dict[str, list[Any]] = {}
        return self._sub_env_attributes
