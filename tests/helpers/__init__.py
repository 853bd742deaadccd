"""What many test files share, one module an idea.

- :mod:`helpers.engine`: Hypothesis strategies for rulesets, random hands played
  through the batch core, and the check of each step against the reference;
- :mod:`helpers.reference`: the rules in plain Python, one hand at a time, readable
  as a spec;
- :mod:`helpers.observe_reference`: observation v1 computed the slow, plain way;
- :mod:`helpers.cli`: the ``spar`` command through a subprocess or in-process, its
  one-line errors, and tiny run folders;
- :mod:`helpers.fingerprint`: digests of what a short run leaves (no wall times).
"""
