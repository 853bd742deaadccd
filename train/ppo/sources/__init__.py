"""Where a PPO run's rollouts come from: one source, over a game mix.

A *rollout source* (:class:`~spar_train.ppo.sources.base.RolloutSource`) plays hands with the
learner and its opponent pool and gives back the learner's decisions, one
:class:`~spar_train.ppo.sources.base.Rollout` per update. There are two, and a wrapper can
hand either to its workers (each is a :class:`~spar_train.ppo.sources.base.PartSource`):

- :mod:`~spar_train.ppo.sources.mix`: :class:`~spar_train.ppo.sources.mix.MixSource` plays
  every game of the run's mix on the batch core, in lockstep; a single game is a mix of one;
- :mod:`~spar_train.ppo.sources.search`: :class:`~spar_train.ppo.sources.search.SearchSource`
  plays a source's games and searched games beside them, whose targets ride with the rollout
  (``search.games``; :class:`~spar_train.ppo.sources.search.SearchBuffer` keeps the newest);
- :mod:`~spar_train.ppo.sources.batch`: one game's batch of games, played hand by hand in
  named steps (the learner's turn, the opponents', the core's step, the hand's rewards);
- :mod:`~spar_train.ppo.sources.lockstep`: many games' network decisions in one forward pass
  per network;
- :mod:`~spar_train.ppo.sources.pools`: who holds the seats the learner does not;
- :mod:`~spar_train.ppo.sources.base`: the protocol, the records and how parts join.

Where the games are played (a worker process beside the update, Ray actors) is a wrapper
around a source (:mod:`spar_train.ppo.wrappers`), never another source.
"""
