"""Perfect-information solving: a hand with every card visible, solved exactly (max-n).

:mod:`spar_agents.perfect_info.solver` is the entry (positions, values, best moves);
:mod:`spar_agents.perfect_info.kernel` is its compiled search. ``pimc`` and ``search``
solve their sampled worlds with it.
"""
