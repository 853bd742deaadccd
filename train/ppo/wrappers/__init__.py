"""Wrappers around a rollout source: where its games are played, not how.

- :mod:`~spar_train.ppo.wrappers.worker`: a source in a worker of its own (its generator,
  its CPU copy of the network, its pools), as a process or a Ray actor runs it;
- :mod:`~spar_train.ppo.wrappers.shares`: which games each worker plays, and what it is
  built from;
- :mod:`~spar_train.ppo.wrappers.shared`: the run's games shared out among workers, their
  rollouts joined, played beside the update (``rollout.overlap``), checkpointed, and a dead
  worker replaced;
- :mod:`~spar_train.ppo.wrappers.processes`: those workers as processes on this machine
  (``rollout.workers``, ``rollout.overlap``);
- :mod:`~spar_train.ppo.wrappers.rpc`: an object in a process of its own, called by method
  name over a socket (what runs each of those processes);
- :mod:`~spar_train.ppo.wrappers.on_ray`: those workers as Ray actors (``[ray] enabled``);
- :mod:`~spar_train.ppo.wrappers.served`: the workers' network turns answered in the
  learner's process, every worker's in one batch (``rollout.inference = "learner"``).

Each takes picklable makers of the sources it wraps (whatever
:class:`~spar_train.ppo.sources.base.PartSource` the run hands each worker) and offers the run
the source's interface (:class:`~spar_train.ppo.sources.base.RolloutSource`); none knows what
the sources play.
"""
