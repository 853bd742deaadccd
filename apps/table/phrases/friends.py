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
    "friends.name_missing": {
        "en": "type a name: it shows your seat to the others",
        "fr": "tapez un nom : il montre votre place aux autres",
    },
    "friends.name_long": {
        "en": "a name is at most {n} characters",
        "fr": "un nom a au plus {n} caractères",
    },
    "friends.name_chars": {
        "en": "a name is letters, digits, spaces and {signs} only",
        "fr": "un nom ne contient que des lettres, des chiffres, des espaces et {signs}",
    },
    "friends.name_letters": {
        "en": "a name holds a letter: a number alone reads as a seat",
        "fr": "un nom contient une lettre : un nombre seul se lit comme une place",
    },
    "friends.name_reserved": {
        "en": "“{name}” is what the page calls a seat or a bot: choose another name",
        "fr": "« {name} » est le nom que la page donne à une place ou à un bot : choisissez un "
        "autre nom",
    },
    "friends.name_taken": {
        "en": "someone at this table is called {name} already: choose another name",
        "fr": "quelqu'un s'appelle déjà {name} à cette table : choisissez un autre nom",
    },
    "friends.records_lost": {
        "en": "the hands' records of this table cannot be written ({why}): the match goes on, "
        "but its records are being lost",
        "fr": "les relevés des mains de cette table ne peuvent être écrits ({why}) : la partie "
        "continue, mais ses relevés se perdent",
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
    "friends.no_hello": {
        "en": "no seat's key came within {n} s",
        "fr": "aucune clé de place reçue en {n} s",
    },
    "friends.too_many_here": {
        "en": "too many connections from your address (at most {n}): try again later",
        "fr": "trop de connexions depuis votre adresse ({n} au plus) : réessayez plus tard",
    },
    "friends.too_many_sockets": {
        "en": "the server holds all the connections it may: try again later",
        "fr": "le serveur tient toutes les connexions qu'il peut : réessayez plus tard",
    },
    # ----- the page of a table of friends (friends.js) -----------------------------------
    "friends.title": {"en": "Play with friends", "fr": "Jouer avec des amis"},
    "friends.help": {
        "en": "The game chosen above, with friends: each opens the link you send them in "
        "their own browser, and the bots play the other seats.",
        "fr": "Le jeu choisi ci-dessus, avec des amis : chacun ouvre dans son navigateur le "
        "lien que vous lui envoyez, et les bots jouent les autres sièges.",
    },
    "friends.people": {"en": "People at the table", "fr": "Personnes à la table"},
    "friends.timer": {"en": "Time for a move", "fr": "Temps par coup"},
    "friends.seconds": {"en": "{n} s", "fr": "{n} s"},
    "friends.name": {"en": "Your name", "fr": "Votre nom"},
    "friends.make": {"en": "Make the table", "fr": "Créer la table"},
    "friends.head": {
        "en": "A table of friends: {game}, {players} players",
        "fr": "Une table d'amis : {game}, {players} joueurs",
    },
    "friends.about": {
        "en": "{people} people and the bots ({lineup}); {timer} s for a move, then the bot "
        "plays for whoever is away",
        "fr": "{people} personnes et les bots ({lineup}) ; {timer} s par coup, puis le bot "
        "joue pour qui est absent",
    },
    "friends.invited": {
        "en": "{name} invites you to this table",
        "fr": "{name} vous invite à cette table",
    },
    "friends.invited_anonymous": {
        "en": "You are invited to this table",
        "fr": "Vous êtes invité à cette table",
    },
    "friends.take": {"en": "Take a seat", "fr": "Prendre une place"},
    "friends.seat.free": {"en": "free", "fr": "libre"},
    "friends.seat.bot": {"en": "a bot", "fr": "un bot"},
    "friends.seat.friend": {"en": "a friend", "fr": "un ami"},
    "friends.seat.you": {"en": "{name} (you)", "fr": "{name} (vous)"},
    "friends.waiting_for.one": {"en": "Waiting for {n} friend.", "fr": "On attend {n} ami."},
    "friends.waiting_for.other": {"en": "Waiting for {n} friends.", "fr": "On attend {n} amis."},
    "friends.start_note": {
        "en": "Start now, and the bots take the free seats for this match.",
        "fr": "Commencez maintenant, et les bots prennent les places libres pour cette partie.",
    },
    "friends.start": {"en": "Start now", "fr": "Commencer maintenant"},
    "friends.invitation": {
        "en": "The invitation: send this link to your friends",
        "fr": "L'invitation : envoyez ce lien à vos amis",
    },
    "friends.loopback": {
        "en": "This address reaches this machine only: for friends elsewhere, open the page "
        "at an address they can reach (spar serve --host 0.0.0.0).",
        "fr": "Cette adresse ne mène qu'à cette machine : pour des amis ailleurs, ouvrez la "
        "page à une adresse qu'ils peuvent joindre (spar serve --host 0.0.0.0).",
    },
    "friends.copy": {"en": "Copy", "fr": "Copier"},
    "friends.copied": {"en": "Copied", "fr": "Copié"},
    "friends.your_link": {
        "en": "Your own link to come back to your seat",
        "fr": "Votre lien à vous pour revenir à votre place",
    },
    "friends.your_link_help": {
        "en": "Keep it to yourself: it opens your seat after a closed tab or a reload, on this "
        "device or another.",
        "fr": "Gardez-le pour vous : il rouvre votre place après un onglet fermé ou un "
        "rechargement, sur cet appareil ou un autre.",
    },
    "friends.lineup": {
        "en": "a table of friends; the bots: {lineup}",
        "fr": "une table d'amis ; les bots : {lineup}",
    },
    "friends.clock.you": {"en": "your turn: {n} s left", "fr": "à vous : encore {n} s"},
    "friends.clock.other": {
        "en": "{who} to play: {n} s left",
        "fr": "à jouer : {who}, encore {n} s",
    },
    "friends.clock.next": {"en": "the next hand in {n} s", "fr": "main suivante dans {n} s"},
    "friends.again": {"en": "Play another match", "fr": "Jouer une autre partie"},
    "friends.lost": {
        "en": "the connection to the table was lost: trying again in {n} s",
        "fr": "la connexion à la table est perdue : nouvel essai dans {n} s",
    },
    "friends.elsewhere": {
        "en": "your seat was opened in another tab or device: this page let it go (open your "
        "link to take it back)",
        "fr": "votre place a été ouverte dans un autre onglet ou appareil : cette page l'a "
        "laissée (ouvrez votre lien pour la reprendre)",
    },
}
