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
    "review.won.name": {
        "en": "{name} won it with {card}",
        "fr": "{name} l'a remporté avec {card}",
    },
    "review.by_stand_in": {
        "en": "{name} (the bot standing in)",
        "fr": "{name} (le bot à sa place)",
    },
    "review.played": {"en": "you played {card}", "fr": "vous avez joué {card}"},
    "review.played_for_you": {
        "en": "the bot played {card} for you",
        "fr": "le bot a joué {card} à votre place",
    },
    "review.col.card": {"en": "card", "fr": "carte"},
    "review.col.bot": {"en": "bot", "fr": "bot"},
    "review.col.value.stakes": {"en": "value (payoff)", "fr": "valeur (gain)"},
    "review.col.value.points": {"en": "value (points)", "fr": "valeur (points)"},
    "review.amount.stakes": {"en": "{amount} of payoff", "fr": "{amount} de gain"},
    "review.amount.points": {"en": "{amount} points", "fr": "{amount} points"},
    "review.col.chance": {"en": "match chance", "fr": "chance de gagner la partie"},
    "review.mark.played": {"en": "played", "fr": "jouée"},
    "review.mark.best": {"en": "best", "fr": "meilleure"},
    "review.verdict.best": {
        "en": "{card} was the search's best card",
        "fr": "{card} était la meilleure carte selon la recherche",
    },
    "review.verdict.close": {
        "en": "not a mistake: {best} was worth more by {gap} (± {stderr}), no more than {margin}",
        "fr": "pas une erreur : {best} valait davantage, de {gap} (± {stderr}), pas plus de "
        "{margin}",
    },
    "review.verdict.undecided": {
        "en": "not told apart: {best} was worth more by {gap} (± {stderr}), within the "
        "search's noise after {worlds} worlds",
        "fr": "pas départagées : {best} valait davantage, de {gap} (± {stderr}), dans le bruit "
        "de la recherche après {worlds} mondes",
    },
    "review.verdict.mistake": {
        "en": "mistake: {card} cost {cost} against {best} (± {stderr})",
        "fr": "erreur : {card} a coûté {cost} face à {best} (± {stderr})",
    },
    "review.verdict.mistake_match": {
        "en": "mistake: {card} cost {cost} against {best} (± {stderr}), and {chance} "
        "of match chance",
        "fr": "erreur : {card} a coûté {cost} face à {best} (± {stderr}), et {chance} "
        "de chance de gagner la partie",
    },
    "review.disagree": {
        "en": "{first} was the bot's first choice ({prob}); searching its worlds finds {best} "
        "better by {gap}",
        "fr": "{first} était le premier choix du bot ({prob}) ; en jouant ses mondes, la "
        "recherche trouve {best} meilleure de {gap}",
    },
    "review.verdict.stood_in": {
        "en": "a stand-in move: the bot played {card} for you while you were away; it is not "
        "judged as yours",
        "fr": "un coup de remplacement : le bot a joué {card} à votre place pendant votre "
        "absence ; il n'est pas jugé comme le vôtre",
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
    "review.reason.seen_lead": {
        "en": "with {card} you lead the last trick in {mine} of {of} worlds, with {other} in "
        "{theirs}",
        "fr": "avec {card}, vous entamez le dernier pli dans {mine} mondes sur {of}, avec "
        "{other} dans {theirs}",
    },
    "review.reason.seen_win": {
        "en": "with {card} you win the last trick in {mine} of {of} worlds, with {other} in "
        "{theirs}",
        "fr": "avec {card}, vous remportez le dernier pli dans {mine} mondes sur {of}, avec "
        "{other} dans {theirs}",
    },
    "review.reason.seen_keep": {
        "en": "with {card} you still hold {scorers} for the last trick in {mine} of {of} "
        "worlds, with {other} in {theirs}",
        "fr": "avec {card}, vous avez encore {scorers} pour le dernier pli dans {mine} mondes "
        "sur {of}, avec {other} dans {theirs}",
    },
    "review.reason.seen_big": {
        "en": "with {card} you win the hand for more than 1 point in {mine} of {of} worlds, "
        "with {other} in {theirs}",
        "fr": "avec {card}, vous gagnez la main pour plus de 1 point dans {mine} mondes sur "
        "{of}, avec {other} dans {theirs}",
    },
    "review.reason.seen_against": {
        "en": "with {card} another seat wins the hand for more than 1 point in {mine} of {of} "
        "worlds, with {other} in {theirs}",
        "fr": "avec {card}, un autre siège gagne la main pour plus de 1 point dans {mine} "
        "mondes sur {of}, avec {other} dans {theirs}",
    },
    "review.reason.none": {
        "en": "no single reason tells {best} from {card}: {best} simply did better across the "
        "search's worlds",
        "fr": "aucune raison simple ne distingue {best} de {card} : {best} a simplement mieux "
        "réussi sur l'ensemble des mondes de la recherche",
    },
    "review.a_rank": {"en": "a {rank}", "fr": "un {rank}"},
    "review.or": {"en": "{one} or {other}", "fr": "{one} ou {other}"},
    "review.summary.none": {
        "en": "no mistake in {decisions} decisions",
        "fr": "aucune erreur en {decisions} décisions",
    },
    "review.summary.one": {
        "en": "1 mistake in {decisions} decisions, costing {cost}",
        "fr": "1 erreur en {decisions} décisions, qui a coûté {cost}",
    },
    "review.summary.many": {
        "en": "{mistakes} mistakes in {decisions} decisions, costing {cost}",
        "fr": "{mistakes} erreurs en {decisions} décisions, qui ont coûté {cost}",
    },
    "review.note.stakes": {
        "en": "A card's value is its payoff, what the hand pays you (at {players} players a "
        "hand won with 1 point pays its winner +{total} and each other seat -1), on average "
        "over the search's worlds, drawn from what you saw, the bot {bot} playing every seat; "
        "± is its standard error.",
        "fr": "La valeur d'une carte est son gain, ce que la main vous paie (à {players} "
        "joueurs, une main gagnée à 1 point paie +{total} à son gagnant et -1 à chaque autre "
        "siège), en moyenne sur les mondes de la recherche, tirés de ce que vous aviez vu, le "
        "bot {bot} jouant à chaque siège ; ± est son erreur type.",
    },
    "review.note.points": {
        "en": "A card's value is the points you score with it (the winner scores the hand's "
        "points, the others nothing), on average over the search's worlds, drawn from what "
        "you saw, the bot {bot} playing every seat; ± is its standard error.",
        "fr": "La valeur d'une carte est le nombre de points qu'elle vous fait marquer (le "
        "gagnant marque les points de la main, les autres rien), en moyenne sur les mondes de "
        "la recherche, tirés de ce que vous aviez vu, le bot {bot} jouant à chaque siège ; ± "
        "est son erreur type.",
    },
    "review.note.worlds": {
        "en": "The search plays {worlds} worlds a decision, and more, up to {most}, where the "
        "card played and the best are not yet told apart. A mistake is a card worth less than "
        "the best by more than {margin} and by {z} standard errors.",
        "fr": "La recherche joue {worlds} mondes par décision, et davantage, jusqu'à {most}, "
        "là où la carte jouée et la meilleure ne sont pas encore départagées. Une erreur est "
        "une carte qui vaut moins que la meilleure de plus de {margin} et de {z} erreurs "
        "types.",
    },
    "review.note.stood_in.one": {
        "en": "{n} of your moves was the bot's, standing in while you were away: it is shown, "
        "not judged, and counts in no summary.",
        "fr": "{n} de vos coups a été joué par le bot à votre place pendant votre absence : il "
        "est montré, pas jugé, et ne compte dans aucun bilan.",
    },
    "review.note.stood_in.other": {
        "en": "{n} of your moves were the bot's, standing in while you were away: they are "
        "shown, not judged, and count in no summary.",
        "fr": "{n} de vos coups ont été joués par le bot à votre place pendant votre absence : "
        "ils sont montrés, pas jugés, et ne comptent dans aucun bilan.",
    },
    "review.note.match": {
        "en": "Match chance: your chance to win the match after the hand, were all seats equal "
        "players ({before} when the hand was dealt).",
        "fr": "Chance de gagner la partie : votre chance après la main, si tous les sièges "
        "jouaient aussi bien ({before} à la distribution).",
    },
    # ----- the session report ---------------------------------------------------------
    "review.report.title": {"en": "Your mistakes this session", "fr": "Vos erreurs de la session"},
    "review.report.button": {"en": "Session report", "fr": "Bilan de la session"},
    "review.report.working": {
        "en": "The search is reviewing the session's hands…",
        "fr": "La recherche revoit les mains de la session…",
    },
    "review.report.summary": {
        "en": "{hands}: {mistakes} in {decisions} decisions; their cost in all: {cost}",
        "fr": "{hands} : {mistakes} en {decisions} décisions ; leur coût total : {cost}",
    },
    "review.report.hands.one": {"en": "1 hand reviewed", "fr": "1 main revue"},
    "review.report.hands.other": {"en": "{n} hands reviewed", "fr": "{n} mains revues"},
    "review.report.mistakes.one": {"en": "{n} mistake", "fr": "{n} erreur"},
    "review.report.mistakes.other": {"en": "{n} mistakes", "fr": "{n} erreurs"},
    "review.report.times.one": {"en": "once", "fr": "1 fois"},
    "review.report.times.other": {"en": "{n} times", "fr": "{n} fois"},
    "review.report.line": {"en": "{kind}: {times}, {cost}", "fr": "{kind} : {times}, {cost}"},
    "review.report.none": {
        "en": "no hand of this game is over yet",
        "fr": "aucune main de cette partie n'est encore finie",
    },
    "review.report.friends": {
        "en": "a table of friends has no session report: it would tell each seat of the "
        "others' cards",
        "fr": "une table d'amis n'a pas de bilan de session : il dirait à chacun les cartes des "
        "autres",
    },
    "review.kind.gave_lead": {
        "en": "gave up the lead of the last trick",
        "fr": "entame du dernier pli laissée",
    },
    "review.kind.took_lead": {
        "en": "took the lead of the last trick, better left",
        "fr": "entame du dernier pli prise, qu'il valait mieux laisser",
    },
    "review.kind.lost_last": {"en": "lost the last trick", "fr": "dernier pli perdu"},
    "review.kind.scorer": {
        "en": "won for fewer points: {scorers} not kept for the last trick",
        "fr": "main gagnée pour moins de points : {scorers} pas gardé pour le dernier pli",
    },
    "review.kind.let_score": {
        "en": "let another seat win for more points",
        "fr": "un autre siège laissé gagner pour plus de points",
    },
    "review.kind.unexplained": {
        "en": "no single reason",
        "fr": "sans raison simple",
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
