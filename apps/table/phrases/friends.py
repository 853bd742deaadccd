"""The texts of a table of friends (:mod:`spar_apps.web.friends`): seats, invitations, the
turn timer and their errors."""

MESSAGES = {
    "seat.named.le": {"en": "{name}", "fr": "{name}"},
    "seat.named.a": {"en": "{name}", "fr": "à {name}"},
    "seat.named.de": {"en": "{name}", "fr": "de {name}"},
    "event.stood_in.you": {
        "en": "you were away: the bot played for you",
        "fr": "vous étiez absent : le bot a joué pour vous",
    },
    "event.stood_in.other": {
        "en": "{who} was away: the bot played for them",
        "fr": "{who:le} était absent : le bot a joué à sa place",
    },
    "error.not_your_turn": {
        "en": "it is not your turn: wait for the others",
        "fr": "ce n'est pas votre tour : attendez les autres",
    },
    # ----- errors of a table of friends ------------------------------------------------
    "friends.full": {
        "en": "this table is full: every person's seat is taken",
        "fr": "cette table est complète : toutes les places sont prises",
    },
    "friends.bad_key": {
        "en": "this link holds no seat at this table: ask for a new invitation",
        "fr": "ce lien ne donne aucune place à cette table : demandez une nouvelle invitation",
    },
    "friends.unknown_table": {
        "en": "no such table: its link is wrong, or the table has ended",
        "fr": "cette table n'existe pas : son lien est faux, ou la table est terminée",
    },
    "friends.server_full": {
        "en": "the server is full ({n} tables); try again later",
        "fr": "le serveur est plein ({n} tables) ; réessayez plus tard",
    },
    "friends.maker_starts": {
        "en": "only the person who made the table can start it early",
        "fr": "seule la personne qui a créé la table peut la lancer plus tôt",
    },
    "friends.started": {
        "en": "the match has started already",
        "fr": "la partie a déjà commencé",
    },
    "friends.match_running": {
        "en": "the match is still running",
        "fr": "la partie continue",
    },
    "friends.waiting": {
        "en": "the match has not started: waiting for the others",
        "fr": "la partie n'a pas commencé : on attend les autres",
    },
    "friends.next_match": {
        "en": "you joined during a match: you play from the next one",
        "fr": "vous êtes arrivé pendant une partie : vous jouerez la suivante",
    },
    "friends.bad_name": {
        "en": "a name is at most {n} letters",
        "fr": "un nom a au plus {n} lettres",
    },
    "friends.bad_people": {
        "en": "the people at the table are 2 to {n}",
        "fr": "les personnes à la table sont de 2 à {n}",
    },
    "friends.bad_timer": {
        "en": "the time for a move is {low} to {high} seconds",
        "fr": "le temps d'un coup est de {low} à {high} secondes",
    },
    "friends.too_fast": {
        "en": "too many messages: slow down",
        "fr": "trop de messages : ralentissez",
    },
    "friends.hello_first": {
        "en": "say which seat you hold first: send its key",
        "fr": "dites d'abord quelle place vous tenez : envoyez sa clé",
    },
}
