"""Game records (docs/rules.md, "Game records"): write hands as JSON records and replay them.

For example::

    from spar_env.records import record_hands, replay
    for record in record_hands(make_rules("sipa", players=3), 100, np.random.default_rng(0)):
        assert replay(record)["winner"] == record["result"]["winner"]

- :mod:`~spar_env.records.schema`: the record's fields, counts and cards.
- :mod:`~spar_env.records.replayer`: replaying records through the batch core,
  with errors that name the play and the rule.
- :mod:`~spar_env.records.recorder`: playing hands with a policy and writing
  their records (:class:`RecordWriter`, a finished game as a record).
"""

from spar_env.records.recorder import Policy, RecordWriter, random_policy, record_hands
from spar_env.records.replayer import replay, replay_many
from spar_env.records.schema import ParsedRecord, RecordError, parse_record

__all__ = [
    "ParsedRecord",
    "Policy",
    "RecordError",
    "RecordWriter",
    "parse_record",
    "random_policy",
    "record_hands",
    "replay",
    "replay_many",
]
