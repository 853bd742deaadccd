"""The texts of the hand review (:mod:`spar_apps.table.review_text`, the terminal's review
screen and the web page's review panel), English and French side by side."""

MESSAGES = {
    "review.button": {"en": "Review this hand", "fr": "Revoir cette main"},
    "review.working": {
        "en": "The search is reviewing the hand…",
        "fr": "La recherche revoit la main…",
    },
    "review.title": {"en": "Review of the hand", "fr": "Revue de la main"},
    "review.you": {"en": "you", "fr": "vous"},
    "review.seat": {"en": "seat {seat}", "fr": "siège {seat}"},
    "review.trick": {"en": "trick {trick} of {tricks}", "fr": "pli {trick} sur {tricks}"},
    "review.trick_line": {"en": "{trick}: {plays}; {won}", "fr": "{trick} : {plays} ; {won}"},
    "review.won.you": {"en": "you won it with {card}", "fr": "vous l'avez remporté avec {card}"},
    "review.won.seat": {
        "en": "seat {seat} won it with {card}",
        "fr": "le siège {seat} l'a remporté avec {card}",
    },
    "review.played": {"en": "you played {card}", "fr": "vous avez joué {card}"},
    "review.col.card": {"en": "card", "fr": "carte"},
    "review.col.bot": {"en": "bot", "fr": "bot"},
    "review.col.value": {"en": "value (points)", "fr": "valeur (points)"},
    "review.col.chance": {"en": "match chance", "fr": "chance de gagner la partie"},
    "review.mark.played": {"en": "played", "fr": "jouée"},
    "review.mark.best": {"en": "best", "fr": "meilleure"},
    "review.verdict.best": {
        "en": "{card} was the search's best card",
        "fr": "{card} était la meilleure carte selon la recherche",
    },
    "review.verdict.close": {
        "en": "not a mistake: {best} was worth {gap} points more (± {stderr}), too little to "
        "tell apart",
        "fr": "pas une erreur : {best} valait {gap} points de plus (± {stderr}), trop peu pour "
        "trancher",
    },
    "review.verdict.mistake": {
        "en": "mistake: {card} cost {cost} points against {best} (± {stderr})",
        "fr": "erreur : {card} a coûté {cost} points face à {best} (± {stderr})",
    },
    "review.verdict.mistake_match": {
        "en": "mistake: {card} cost {cost} points against {best} (± {stderr}), and {chance} "
        "of match chance",
        "fr": "erreur : {card} a coûté {cost} points face à {best} (± {stderr}), et {chance} "
        "de chance de gagner la partie",
    },
    "review.verdict.forced": {
        "en": "{card} was the only legal card",
        "fr": "{card} était la seule carte jouable",
    },
    "review.reason.wins_lead": {
        "en": "{card} wins trick {trick}, so you lead the last",
        "fr": "{card} remporte le pli {trick} : vous entamez donc le dernier",
    },
    "review.reason.loses_lead": {
        "en": "{card} cannot win trick {trick}, so you do not lead the last",
        "fr": "{card} ne peut pas remporter le pli {trick} : vous n'entamerez donc pas le dernier",
    },
    "review.reason.keeps": {
        "en": "{card} keeps {other} for the last trick",
        "fr": "{card} garde {other} pour le dernier pli",
    },
    "review.reason.keeps_void": {
        "en": "{card} keeps {other} for the last trick: no one else holds {suit}",
        "fr": "{card} garde {other} pour le dernier pli : personne d'autre n'a de {suit}",
    },
    "review.reason.keeps_void_seen": {
        "en": "{card} keeps {other} for the last trick: every other seat has shown it has no "
        "{suit}",
        "fr": "{card} garde {other} pour le dernier pli : chaque autre siège a montré qu'il "
        "n'a plus de {suit}",
    },
    "review.reason.scorer": {
        "en": "{card} scores {points} only by winning the last trick",
        "fr": "{card} ne marque {points} qu'en remportant le dernier pli",
    },
    "review.summary.none": {
        "en": "no mistake in {decisions} decisions",
        "fr": "aucune erreur en {decisions} décisions",
    },
    "review.summary.one": {
        "en": "1 mistake in {decisions} decisions, costing {cost} points",
        "fr": "1 erreur en {decisions} décisions, pour {cost} points",
    },
    "review.summary.many": {
        "en": "{mistakes} mistakes in {decisions} decisions, costing {cost} points",
        "fr": "{mistakes} erreurs en {decisions} décisions, pour {cost} points",
    },
    "review.note": {
        "en": "A card's value is the search's mean payoff over {worlds} worlds drawn from what "
        "you saw, the bot {bot} playing every seat; ± is its standard error. A mistake is a "
        "card worth less than the best by more than {margin} points and {z} standard errors.",
        "fr": "La valeur d'une carte est le gain moyen de la recherche sur {worlds} mondes tirés "
        "de ce que vous aviez vu, le bot {bot} jouant à chaque siège ; ± est son erreur type. "
        "Une erreur est une carte qui vaut moins que la meilleure de plus de {margin} points et "
        "de {z} erreurs types.",
    },
    "review.note.match": {
        "en": "Match chance: your chance to win the match after the hand, were all seats equal "
        "players ({before} when the hand was dealt).",
        "fr": "Chance de gagner la partie : votre chance après la main, si tous les sièges "
        "jouaient aussi bien ({before} à la distribution).",
    },
    "review.prev": {"en": "Previous trick", "fr": "Pli précédent"},
    "review.next": {"en": "Next trick", "fr": "Pli suivant"},
    "review.close": {"en": "Back to the table", "fr": "Retour à la table"},
    "review.prompt": {
        "en": "Enter: next trick, q: back to the table ",
        "fr": "Entrée : pli suivant, q : retour à la table ",
    },
    "review.hand_prompt": {
        "en": "Enter for the next hand, v to review it, q to leave: ",
        "fr": "Entrée pour la main suivante, v pour la revoir, q pour partir : ",
    },
    "review.end_prompt": {
        "en": "v to review the hand, Enter to see the final scores: ",
        "fr": "v pour revoir la main, Entrée pour voir les scores finaux : ",
    },
    "review.exchange": {
        "en": "the review's search does not play hands with the weak-hand exchange",
        "fr": "la recherche de la revue ne joue pas les mains avec l'échange des mains faibles",
    },
    "review.running": {
        "en": "there is no hand to review yet: the hand is still running",
        "fr": "pas encore de main à revoir : la main continue",
    },
    "review.tie_break": {
        "en": "a tie-break hand that some seats sat out has no record to review",
        "fr": "une main de barrage dont certains sièges étaient absents n'a pas "
        "d'enregistrement à revoir",
    },
    "review.unavailable": {
        "en": "no bot with probabilities plays this game, and the review needs one",
        "fr": "aucun bot à probabilités ne joue ce jeu, et la revue en demande un",
    },
}
