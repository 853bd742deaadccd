"""How a hand scored (:func:`spar_env.explain.explain_hand`), the end of a hand, the session's
goal and result, and the final scores, in English and French."""

MESSAGES = {
    # ----- the hand's points, term by term --------------------------------------------
    "score.why_points.one": {"en": "why {n} point: {terms}", "fr": "pourquoi {n} point : {terms}"},
    "score.why_points.other": {
        "en": "why {n} points: {terms}",
        "fr": "pourquoi {n} points : {terms}",
    },
    "score.trick": {
        "en": "trick {trick} won with {card} scores {value}",
        "fr": "le pli {trick} gagné avec {card} vaut {value}",
    },
    "score.bonus": {
        "en": "a bonus for the last two tricks: {card}'s {value} again",
        "fr": "un bonus pour les deux derniers plis : les {value} de {card} une seconde fois",
    },
    "score.always_one": {
        "en": "every hand scores 1 in {variant}",
        "fr": "{variant} : chaque main vaut 1",
    },
    "score.one": {
        "en": "trick {trick} won with {card}, {ranks:none}",
        "fr": "le pli {trick} gagné avec {card}, qui n'est {ranks:none}",
    },
    "score.payoff_line": {"en": "{amount}: {why}", "fr": "{amount} : {why}"},
    # ----- each seat's payoff ---------------------------------------------------------
    "payoff.sat_out": {
        "en": "sat out this tie-break hand",
        "fr": "n'a pas joué cette main de départage",
    },
    "payoff.points": {"en": "{points}, the hand's points", "fr": "{points}, les points de la main"},
    "payoff.pays": {
        "en": "pays {who} the hand's points ({points})",
        "fr": "paie les points de la main ({points}) {who:a}",
    },
    "payoff.from": {"en": "{points} from {who}", "fr": "{points} {who:de}"},
    "payoff.winner_only": {
        "en": "with the points payoff only the winner scores",
        "fr": "quand on paie aux points, seul le gagnant marque",
    },
    "payoff.from_each": {
        "en": "{points} from each of the {n} other seats",
        "fr": "{points} de chacun des {n} autres sièges",
    },
    # ----- the session ----------------------------------------------------------------
    "session.after_hand": {
        "en": "{who}: score {before} + {points} = {after}",
        "fr": "{who} : score {before} + {points} = {after}",
    },
    "session.line_target": {
        "en": "{line}; {target} points win the match",
        "fr": "{line} ; {target} points gagnent la partie",
    },
    "session.line_hands": {
        "en": "{line}; hand {hand} of {n}",
        "fr": "{line} ; main {hand} sur {n}",
    },
    "session.line_stones": {
        "en": "{line}; {stones} stones taken, {pool} left in the pool",
        "fr": "{line} ; {stones} jetons pris, {pool} restent dans la réserve",
    },
    "goal.target": {"en": "first to {target} points", "fr": "le premier à {target} points"},
    "goal.hands": {
        "en": "{n} hands, most points wins",
        "fr": "{n} mains, le plus de points gagne",
    },
    "goal.stones": {
        "en": "stones: {left} of {n} left in the pool",
        "fr": "jetons : {left} sur {n} restent dans la réserve",
    },
    "goal.one_hand": {"en": "one hand decides", "fr": "une seule main décide"},
    "goal.open": {
        "en": "an open session: as many hands as you like",
        "fr": "une partie libre : autant de mains que vous voulez",
    },
    "result.tie": {
        "en": "session over: nobody wins (a tie for most points)",
        "fr": "partie terminée : personne ne gagne (égalité au plus de points)",
    },
    "result.you": {
        "en": "session over: you win the session",
        "fr": "partie terminée : vous gagnez la partie",
    },
    "result.other": {
        "en": "session over: {who} wins the session",
        "fr": "partie terminée : {who:le} gagne la partie",
    },
    "scores.item": {"en": "{who} {score}", "fr": "{who} {score}"},
    "scores.item_stones.one": {
        "en": "{who} {score} ({n} stone)",
        "fr": "{who} {score} ({n} jeton)",
    },
    "scores.item_stones.other": {
        "en": "{who} {score} ({n} stones)",
        "fr": "{who} {score} ({n} jetons)",
    },
    "final.scores": {"en": "final scores: {scores}", "fr": "scores finaux : {scores}"},
    "final.left.one": {
        "en": "you left the table after {n} finished hand",
        "fr": "vous avez quitté la table après {n} main terminée",
    },
    "final.left.other": {
        "en": "you left the table after {n} finished hands",
        "fr": "vous avez quitté la table après {n} mains terminées",
    },
    "final.played.one": {"en": "{n} hand played", "fr": "{n} main jouée"},
    "final.played.other": {"en": "{n} hands played", "fr": "{n} mains jouées"},
    # ----- the end of a hand ----------------------------------------------------------
    "summary.you.one": {
        "en": "hand {hand} over: you win the last trick with {card}, for {n} point",
        "fr": "main {hand} terminée : vous gagnez le dernier pli avec {card}, pour {n} point",
    },
    "summary.you.other": {
        "en": "hand {hand} over: you win the last trick with {card}, for {n} points",
        "fr": "main {hand} terminée : vous gagnez le dernier pli avec {card}, pour {n} points",
    },
    "summary.other.one": {
        "en": "hand {hand} over: {who} wins the last trick with {card}, for {n} point",
        "fr": "main {hand} terminée : {who:le} gagne le dernier pli avec {card}, pour {n} point",
    },
    "summary.other.other": {
        "en": "hand {hand} over: {who} wins the last trick with {card}, for {n} points",
        "fr": "main {hand} terminée : {who:le} gagne le dernier pli avec {card}, pour {n} points",
    },
    "summary.exchanged": {"en": "(exchanged)", "fr": "(échangée)"},
    "summary.sat_out": {"en": "sat out", "fr": "n'a pas joué"},
    "chance.note": {
        "en": "match chance: each seat's chance to win the match from here, were all seats "
        "equal players",
        "fr": "chance de gagner : la chance de chaque siège de gagner la partie à partir "
        "d'ici, si tous les sièges jouaient aussi bien",
    },
    "chance.tie": {
        "en": "{note}; a tie for most points: {tie}",
        "fr": "{note} ; égalité au plus de points : {tie}",
    },
}
