"""The texts of the tables, by subject, English and French side by side: gathered into
:data:`spar_apps.table.messages.MESSAGES` (which a test holds to both languages and the
same fields).

- :mod:`~spar_apps.table.phrases.table`: cards, seats, what happened, the trick, the hand.
- :mod:`~spar_apps.table.phrases.reasons`: why a move is open or closed.
- :mod:`~spar_apps.table.phrases.typed`: why a typed line is not a move.
- :mod:`~spar_apps.table.phrases.score`: how a hand scored, the session, the final scores.
- :mod:`~spar_apps.table.phrases.rules`: a variant's rules, its name and description.
- :mod:`~spar_apps.table.phrases.page`: the web page's labels and buttons, the terminal's lines.
- :mod:`~spar_apps.table.phrases.review`: the hand review.
- :mod:`~spar_apps.table.phrases.duplicate`: the duplicate challenge.
- :mod:`~spar_apps.table.phrases.friends`: a table of friends: seats, links, the turn timer.
"""

from spar_apps.table.phrases import (
    duplicate,
    friends,
    page,
    reasons,
    review,
    rules,
    score,
    table,
    typed,
)

PARTS = (
    table.MESSAGES,
    reasons.MESSAGES,
    typed.MESSAGES,
    score.MESSAGES,
    rules.MESSAGES,
    page.MESSAGES,
    review.MESSAGES,
    duplicate.MESSAGES,
    friends.MESSAGES,
)
