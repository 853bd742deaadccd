"""Exact CFR-family solvers for the small two-player variants (``micro``, ``mini``).

- :mod:`spar_agents.cfr.tree`: a game tree as arrays (also built by hand, for tests);
- :mod:`spar_agents.cfr.build`: the whole tree of a ruleset, enumerated by the core;
- :mod:`spar_agents.cfr.seqform`: its sequence form (sequences, sparse payoffs);
- :mod:`spar_agents.cfr.solvers`: CFR, CFR+, DCFR and PCFR+ on the sequence form;
- :mod:`spar_agents.cfr.evaluation`: exact best response, NashConv, values;
- :mod:`spar_agents.cfr.lp`: the sequence-form LP (HiGHS), a cross-check;
- :mod:`spar_agents.cfr.policy`: the average policy as arrays, saved and loaded.
"""
