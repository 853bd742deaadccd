"""Wrappers around a rollout source: where its games are played, not how.

- :mod:`~spar_train.ppo.wrappers.worker`: a source in a worker of its own (its generator,
  its CPU copy of the network, its pools), as a process or a Ray actor runs it;
- :mod:`~spar_train.ppo.wrappers.overlap`: ``rollout.overlap``, the source in a worker
  process that plays the next rollout while the learner updates on this one;
- :mod:`~spar_train.ppo.wrappers.on_ray`: ``[ray] enabled``, the source's games shared out
  among Ray actors, each a worker.

Each takes a picklable maker of the :class:`~spar_train.ppo.sources.mix.MixSource` it wraps
and offers the run the source's interface
(:class:`~spar_train.ppo.sources.base.RolloutSource`).
"""
