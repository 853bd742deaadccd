"""Exported bots: a trained PPO actor as an ONNX file that plays on onnxruntime alone.

- :mod:`~spar_agents.export.metadata`: what the file says about itself (the game,
  the observation encoding, the action ids, the training run) and the check
  that refuses another game. No torch.
- :mod:`~spar_agents.export.writer`: the export itself (``torch.onnx.export`` of
  the actor, masked probabilities out) and the parity check against torch.
- :mod:`~spar_agents.export.bot`: the agent behind the spec ``onnx:FILE``. No torch.
- :mod:`~spar_agents.export.samples`: real decisions (random self-play) to check
  and time a bot on. No torch.

The package imports none of them, so that ``import spar_agents.export.bot``
never pulls in torch.
"""
