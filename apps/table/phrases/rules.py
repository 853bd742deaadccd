"""A variant's rules as a player reads them (:mod:`spar_apps.table.rules_text`), the variants'
names and one-line descriptions, in English and French."""

MESSAGES = {
    # ----- headings -------------------------------------------------------------------
    "rules.head": {
        "en": "{variant}, {players} players: {tagline}",
        "fr": "{variant}, {players} joueurs : {tagline}",
    },
    "rules.title": {
        "en": "The rules of {variant}: {tagline}",
        "fr": "Les règles de {variant} : {tagline}",
    },
    "rules.manual": {
        "en": "The whole manual: docs/rules.md of spar-rl.",
        "fr": "Le manuel complet (en anglais) : docs/rules.md de spar-rl.",
    },
    "rules.h.deck": {"en": "The deck", "fr": "Le jeu de cartes"},
    "rules.h.deal": {"en": "The deal", "fr": "La donne"},
    "rules.h.exchange": {"en": "The weak-hand exchange", "fr": "L'échange des mains faibles"},
    "rules.h.tricks": {"en": "The tricks", "fr": "Les plis"},
    "rules.h.scoring": {"en": "Scoring", "fr": "Les points"},
    "rules.h.payoff": {"en": "The payoff", "fr": "Le paiement"},
    "rules.h.match": {"en": "The match", "fr": "La partie"},
    "rules.h.skill": {"en": "The skill", "fr": "L'astuce"},
    "tagline.1": {"en": "only the last trick counts", "fr": "seul le dernier pli compte"},
    "tagline.2": {"en": "the last two tricks count", "fr": "les deux derniers plis comptent"},
    "tagline.3": {"en": "the last three tricks count", "fr": "les trois derniers plis comptent"},
    "tagline.n": {"en": "the last {n} tricks count", "fr": "les {n} derniers plis comptent"},
    # ----- the deck and the deal --------------------------------------------------------
    "rules.deck": {
        "en": "{n} cards: {suits}, each ranked high to low {ranks}.",
        "fr": "{n} cartes : {suits}, chaque couleur de la plus forte à la plus faible {ranks}.",
    },
    "rules.deck_without": {
        "en": "{n} cards: {suits}, each ranked high to low {ranks}, without {missing}.",
        "fr": "{n} cartes : {suits}, chaque couleur de la plus forte à la plus faible {ranks}, "
        "sans {missing}.",
    },
    "rules.one_at_a_time": {"en": "one at a time", "fr": "une à une"},
    "rules.all_at_once": {"en": "all at once", "fr": "toutes d'un coup"},
    "rules.pattern": {"en": "{pattern} at a time", "fr": "{pattern} à la fois"},
    "rules.then": {"en": "{head} then {last}", "fr": "{head} puis {last}"},
    "rules.deal": {
        "en": "{players} players get {n} cards each, {rounds}, starting with the seat after "
        "the dealer; play goes {direction}.",
        "fr": "{players} joueurs reçoivent {n} cartes chacun, {rounds}, en commençant par le "
        "siège après le donneur ; le jeu tourne {direction}.",
    },
    "rules.stock.one": {
        "en": "The other card stays face down as the stock.",
        "fr": "La carte restante reste face cachée : c'est le talon.",
    },
    "rules.stock.other": {
        "en": "The other {n} cards stay face down as the stock.",
        "fr": "Les {n} autres cartes restent face cachée : c'est le talon.",
    },
    "rules.reveal": {
        "en": "When trick {trick} begins, the stock's bottom card is turned face up: nobody "
        "holds it.",
        "fr": "Au début du pli {trick}, la carte du dessous du talon est retournée : personne "
        "ne l'a en main.",
    },
    "rules.exchange": {
        "en": "Before trick 1 each seat in turn keeps its hand or, if it holds no {ranks}, may "
        "set it aside and take the top {n} cards of the stock.",
        "fr": "Avant le pli 1, chaque siège à son tour garde sa main ou, s'il n'a aucun {ranks}, "
        "peut la mettre de côté et prendre les {n} cartes du dessus du talon.",
    },
    "rules.exchange_end": {
        "en": "The round ends as soon as the stock holds fewer cards than a hand.",
        "fr": "Le tour s'arrête dès que le talon a moins de cartes qu'une main.",
    },
    # ----- the tricks -------------------------------------------------------------------
    "rules.lead": {
        "en": "The seat after the dealer leads trick 1 with any card.",
        "fr": "Le siège après le donneur mène le pli 1 avec n'importe quelle carte.",
    },
    "rules.follow": {
        "en": "Each seat in turn must follow the suit led if it can; a seat that cannot plays "
        "any card.",
        "fr": "Chaque siège à son tour doit fournir à la couleur demandée s'il le peut ; un "
        "siège qui ne le peut pas joue n'importe quelle carte.",
    },
    "rules.wins": {
        "en": "The highest card of the suit led wins (high to low: {ranks}); a card of another "
        "suit never wins. The winner leads the next trick.",
        "fr": "La plus forte carte de la couleur demandée gagne (de la plus forte à la plus "
        "faible : {ranks}) ; une carte d'une autre couleur ne gagne jamais. Le gagnant mène "
        "le pli suivant.",
    },
    "rules.down_off_suit": {
        "en": "A card not of the suit led is played face down: only its player sees it.",
        "fr": "Une carte qui n'est pas de la couleur demandée est jouée face cachée : seul son "
        "joueur la voit.",
    },
    "rules.down_non_winning": {
        "en": "A card that does not beat the best card of the trick so far is played face "
        "down: only its player sees it. The card winning a trick is always face up.",
        "fr": "Une carte qui ne bat pas la meilleure carte du pli jusque-là est jouée face "
        "cachée : seul son joueur la voit. La carte qui gagne un pli est toujours visible.",
    },
    # ----- scoring and the payoff ---------------------------------------------------------
    "rules.score_one": {
        "en": "The seat that wins the last trick wins the hand, for 1 point: {tagline}, and no "
        "card scores more.",
        "fr": "Le siège qui gagne le dernier pli gagne la main, pour 1 point : {tagline}, et "
        "aucune carte ne vaut plus.",
    },
    "rules.score": {
        "en": "The seat that wins the last trick wins the hand: {per_card}, 1 with any other card.",
        "fr": "Le siège qui gagne le dernier pli gagne la main : {per_card}, 1 avec toute autre "
        "carte.",
    },
    "rules.with": {"en": "{value} with a {rank}", "fr": "{value} avec un {rank}"},
    "rules.last.2": {"en": "last two tricks", "fr": "deux derniers plis"},
    "rules.last.3": {"en": "last three tricks", "fr": "trois derniers plis"},
    "rules.last.n": {"en": "last {n} tricks", "fr": "{n} derniers plis"},
    "rules.chain": {
        "en": "The {last} can add up: when the winner took each of them with a {rank}, {runs}.",
        "fr": "Les {last} peuvent s'additionner : quand le gagnant les a tous pris avec un "
        "{rank}, {runs}.",
    },
    "rules.run": {"en": "{points} for the last {n}", "fr": "{points} pour les {n} derniers"},
    "rules.sum": {
        "en": "When the winner also took the trick before with a scoring card, both count: a "
        "{seven} then a {six} make {total}.",
        "fr": "Quand le gagnant a aussi pris le pli d'avant avec une carte qui marque, les deux "
        "comptent : un {seven} puis un {six} font {total}.",
    },
    "rules.bonus": {
        "en": "When the winner also took the trick before with a scoring card, the pair comes "
        "on top of the last trick's own points: a {seven} then a {six} make {total}.",
        "fr": "Quand le gagnant a aussi pris le pli d'avant avec une carte qui marque, la paire "
        "s'ajoute aux points du dernier pli : un {seven} puis un {six} font {total}.",
    },
    "rules.payoff_points": {
        "en": "The winner scores the hand's points; the others score nothing.",
        "fr": "Le gagnant marque les points de la main ; les autres ne marquent rien.",
    },
    "rules.payoff_stakes": {
        "en": "Every other seat pays the winner the hand's points: at {n} players a hand of "
        "{top} pays the winner +{total} and {others} -{top}.",
        "fr": "Chaque autre siège paie au gagnant les points de la main : à {n} joueurs, une "
        "main de {top} rapporte +{total} au gagnant et {others} -{top}.",
    },
    "rules.the_other": {"en": "the other seat", "fr": "l'autre siège"},
    "rules.each_other": {"en": "each other seat", "fr": "chaque autre siège"},
    # ----- the match --------------------------------------------------------------------
    "rules.deals": {
        "en": "The winner of a hand deals the next one.",
        "fr": "Le gagnant d'une main distribue la suivante.",
    },
    "rules.target": {
        "en": "The first seat to {target} points (not payoffs) wins the match.",
        "fr": "Le premier siège à {target} points (pas les gains) gagne la partie.",
    },
    "rules.target_c": {
        "en": "The first seat to {target} points (not payoffs) wins the match (scores are "
        "written in c-notation: c9 is 9, c12 2 is 14).",
        "fr": "Le premier siège à {target} points (pas les gains) gagne la partie (les scores "
        "s'écrivent en notation c : c9 vaut 9, c12 2 vaut 14).",
    },
    "rules.hands": {
        "en": "After {n} hands the seat with the most points wins.",
        "fr": "Après {n} mains, le siège qui a le plus de points gagne.",
    },
    "rules.stones": {
        "en": "A pool of {n} stones: each hand's winner takes as many as its points. Once the "
        "pool is empty the seat with the most stones wins; tied seats play tie-break hands.",
        "fr": "Une réserve de {n} jetons : le gagnant de chaque main en prend autant que ses "
        "points. Quand la réserve est vide, le siège qui a le plus de jetons gagne ; les "
        "sièges à égalité jouent des mains de départage.",
    },
    "rules.one_hand": {
        "en": "One hand decides the game.",
        "fr": "Une seule main décide la partie.",
    },
    "rules.open": {
        "en": "An open session: play as many hands as you like.",
        "fr": "Une partie libre : jouez autant de mains que vous voulez.",
    },
    "rules.skill": {
        "en": "A {low} wins a trick only when it is led and nobody can follow its suit. Keep it "
        "for the last trick, win trick {trick} so that you lead the last one, and strip the "
        "others of its suit before then.",
        "fr": "Un {low} ne gagne un pli que s'il est mené et que personne ne peut fournir à sa "
        "couleur. Gardez-le pour le dernier pli, gagnez le pli {trick} pour mener le dernier, "
        "et videz les autres de sa couleur avant.",
    },
    # ----- the variants: a readable name and one line ---------------------------------------
    "variant.spar": {"en": "Spar", "fr": "Spar"},
    "variant.spar.about": {
        "en": "Ghana's game: only the last trick counts, 3 points with a 6, 2 with a 7",
        "fr": "le jeu du Ghana : seul le dernier pli compte, 3 points avec un 6, 2 avec un 7",
    },
    "variant.spar_classic": {"en": "Spar, seven cards", "fr": "Spar à sept cartes"},
    "variant.spar_classic.about": {
        "en": "the older Spar: seven cards each from 36, as many hands as you like",
        "fr": "le Spar d'avant : sept cartes chacun sur 36, autant de mains que vous voulez",
    },
    "variant.essilfy": {"en": "Essilfy", "fr": "Essilfy"},
    "variant.essilfy.about": {
        "en": "Spar where the last two tricks can add up, played to 30",
        "fr": "le Spar où les deux derniers plis peuvent s'additionner, en 30 points",
    },
    "variant.jeu_de_carte": {"en": "Jeu de carte (Benin)", "fr": "Jeu de carte (Bénin)"},
    "variant.jeu_de_carte.about": {
        "en": "a card that cannot follow suit goes face down; a 7 on the last trick scores 2",
        "fr": "une carte qui ne fournit pas est jouée face cachée ; un 7 au dernier pli vaut 2",
    },
    "variant.sipa": {"en": "Sipa (Togo)", "fr": "Sipa (Togo)"},
    "variant.sipa.about": {
        "en": "the last three tricks count, and a card that does not beat the trick goes face down",
        "fr": "les trois derniers plis comptent, et une carte qui ne bat pas le pli est cachée",
    },
    "variant.agram": {"en": "Agram (Niger)", "fr": "Agram (Niger)"},
    "variant.agram.about": {
        "en": "10 is high and the ace low; one hand of six cards decides",
        "fr": "le 10 est la plus forte et l'as la plus faible ; une main de six cartes décide",
    },
    "variant.sink_sink": {"en": "Sink-sink (Niger)", "fr": "Sink-sink (Niger)"},
    "variant.sink_sink.about": {
        "en": "Agram with five cards, dealt 2 then 3; one hand decides",
        "fr": "l'Agram à cinq cartes, données 2 puis 3 ; une main décide",
    },
    "variant.fapfap": {"en": "Fap-fap (Cameroon)", "fr": "Fap-fap (Cameroun)"},
    "variant.fapfap.about": {
        "en": "Agram's deck; a 3 on the last trick scores 2, on the last two 4",
        "fr": "le jeu de l'Agram ; un 3 au dernier pli vaut 2, aux deux derniers 4",
    },
    "variant.agram_mali": {"en": "Agram (Mali)", "fr": "Agram (Mali)"},
    "variant.agram_mali.about": {
        "en": "a rank order of its own, 7 J 8 9 Q 10 K A from high to low; one hand decides",
        "fr": "un ordre à lui, 7 V 8 9 D 10 R A de la plus forte à la plus faible ; une main "
        "décide",
    },
    "variant.mini": {"en": "Mini", "fr": "Mini"},
    "variant.mini.about": {
        "en": "a tiny game to learn on: two players, three cards each from A K 7 6",
        "fr": "un tout petit jeu pour apprendre : deux joueurs, trois cartes chacun parmi A R 7 6",
    },
    "variant.micro": {"en": "Micro", "fr": "Micro"},
    "variant.micro.about": {
        "en": "the smallest game: two players, two cards each from K 7 6",
        "fr": "le plus petit jeu : deux joueurs, deux cartes chacun parmi R 7 6",
    },
}
