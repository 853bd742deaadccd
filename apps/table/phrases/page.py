"""The web page's labels, buttons and errors, the opponents' names, and the terminal's own
lines (``spar play``), in English and French."""

MESSAGES = {
    # ----- the web page ---------------------------------------------------------------
    "page.title": {"en": "Spar: play against the bots", "fr": "Spar : jouez contre les bots"},
    "page.variant": {"en": "Variant", "fr": "Variante"},
    "page.players": {"en": "Players", "fr": "Joueurs"},
    "page.opponents": {"en": "Opponents", "fr": "Adversaires"},
    "page.session": {"en": "Session", "fr": "Partie"},
    "page.session_help": {
        "en": "when the session ends: the variant's own end, or the first seat to reach a score",
        "fr": "quand la partie finit : la fin propre à la variante, ou le premier siège qui "
        "atteint un score",
    },
    "page.end.default": {"en": "the variant's own end", "fr": "la fin de la variante"},
    "page.end.target": {"en": "first to {n} points", "fr": "le premier à {n} points"},
    "page.last_two": {"en": "Last two tricks", "fr": "Deux derniers plis"},
    "page.last_two_help": {
        "en": "when the winner took both of the last two tricks with a scoring card: does "
        "the trick before the last count too?",
        "fr": "quand le gagnant a pris les deux derniers plis avec une carte qui marque : "
        "l'avant-dernier pli compte-t-il aussi ?",
    },
    "page.last_two.default": {"en": "as the variant says", "fr": "comme la variante"},
    "page.last_two.off": {"en": "off: only the last counts", "fr": "non : seul le dernier compte"},
    "page.last_two.sum": {"en": "sum: both count", "fr": "somme : les deux comptent"},
    "page.last_two.bonus": {
        "en": "bonus: the pair on top of the last",
        "fr": "bonus : la paire en plus du dernier",
    },
    "page.ace": {"en": "A♠ in the deck", "fr": "A♠ dans le jeu"},
    "page.start": {"en": "New game", "fr": "Nouvelle partie"},
    "page.form_toggle": {"en": "New game…", "fr": "Nouvelle partie…"},
    "page.read_rules": {"en": "The rules of this game", "fr": "Les règles de ce jeu"},
    "page.pace": {"en": "Pace", "fr": "Rythme"},
    "page.pace.tap": {
        "en": "a finished trick waits for a tap",
        "fr": "un pli fini attend une touche",
    },
    "page.pace.slow": {"en": "slow: a trick stays 3 s", "fr": "lent : un pli reste 3 s"},
    "page.pace.normal": {"en": "normal: a trick stays 1.5 s", "fr": "normal : un pli reste 1,5 s"},
    "page.pace.none": {"en": "no pause", "fr": "sans pause"},
    "page.go_on": {"en": "Go on", "fr": "Continuer"},
    "page.your_hand": {"en": "Your hand", "fr": "Votre main"},
    "page.hint": {"en": "Hint: the bot's probabilities", "fr": "Conseil : les probabilités du bot"},
    "page.records.one": {
        "en": "Download records ({n} hand)",
        "fr": "Télécharger les relevés ({n} main)",
    },
    "page.records.other": {
        "en": "Download records ({n} hands)",
        "fr": "Télécharger les relevés ({n} mains)",
    },
    "page.typed": {
        "en": "Type a card ({examples}) or its number, then Enter:",
        "fr": "Tapez une carte ({examples}) ou son numéro, puis Entrée :",
    },
    "page.next": {"en": "Next hand (Enter)", "fr": "Main suivante (Entrée)"},
    "page.rules": {"en": "The rules", "fr": "Les règles"},
    "page.against": {"en": "against {lineup}", "fr": "contre {lineup}"},
    "page.welcome": {
        "en": "Choose a game above and press New game. You sit in seat 0; the bots play the "
        "other seats on the server. Tap a card to play it, or type its name or number. The "
        "scores, the trick in progress and what just happened are shown as you play.",
        "fr": "Choisissez un jeu ci-dessus et appuyez sur Nouvelle partie. Vous êtes au siège "
        "0 ; les bots jouent les autres sièges sur le serveur. Touchez une carte pour la "
        "jouer, ou tapez son nom ou son numéro. Les scores, le pli en cours et ce qui vient "
        "de se passer s'affichent pendant le jeu.",
    },
    "page.no_json": {
        "en": "the server answered {status} without JSON",
        "fr": "le serveur a répondu {status} sans JSON",
    },
    "page.error": {"en": "error {status}", "fr": "erreur {status}"},
    # ----- the opponents ------------------------------------------------------------------
    "opponent.shipped": {"en": "the built-in bot", "fr": "le bot intégré"},
    "opponent.shipped_spec": {"en": "the built-in bot ({spec})", "fr": "le bot intégré ({spec})"},
    "opponent.heuristic": {
        "en": "heuristic: the rule-based expert",
        "fr": "heuristic : l'expert à règles",
    },
    "opponent.search": {
        "en": "search: the strongest bot (up to {seconds} s a move)",
        "fr": "search : le bot le plus fort (jusqu'à {seconds} s par coup)",
    },
    "opponent.pimc": {
        "en": "pimc: a search bot (up to {seconds} s a move)",
        "fr": "pimc : un bot qui cherche (jusqu'à {seconds} s par coup)",
    },
    "opponent.spec": {"en": "{spec}", "fr": "{spec}"},
    "opponent.fallback": {
        "en": "no built-in bot plays {variant} with {players} players{options}; your opponents "
        "are {fallback}",
        "fr": "aucun bot intégré ne joue à {variant} à {players} joueurs{options} ; vos "
        "adversaires sont {fallback}",
    },
    "opponent.spec_limited": {
        "en": "{spec} (up to {seconds} s a move)",
        "fr": "{spec} (jusqu'à {seconds} s par coup)",
    },
    # ----- errors a player may meet -------------------------------------------------------
    "error.stale_turn": {
        "en": "out of turn: this was for turn {turn}, the table is at turn {now}; reload the table",
        "fr": "hors tour : c'était pour le tour {turn}, la table est au tour {now} ; "
        "rechargez la table",
    },
    "error.session_over": {
        "en": "the session is over: start a new game",
        "fr": "la partie est terminée : commencez une nouvelle partie",
    },
    "error.hand_over": {
        "en": "the hand is over: deal the next hand",
        "fr": "la main est terminée : distribuez la main suivante",
    },
    "error.hand_running": {
        "en": "the hand is still running: play a card",
        "fr": "la main continue : jouez une carte",
    },
    "error.not_saved": {
        "en": "this game could not be saved ({why}): it goes on, but a restart of the server "
        "would lose it",
        "fr": "cette partie n'a pas pu être enregistrée ({why}) : elle continue, mais un "
        "redémarrage du serveur la perdrait",
    },
    "error.full": {
        "en": "the server is full ({n} games); try again later",
        "fr": "le serveur est plein ({n} parties) ; réessayez plus tard",
    },
    "error.no_hint_bot": {
        "en": "no bot with probabilities was trained for this game",
        "fr": "aucun bot à probabilités n'a été entraîné pour ce jeu",
    },
    "error.no_hint_now": {
        "en": "there is no move to hint at: the hand is over",
        "fr": "aucun coup à conseiller : la main est terminée",
    },
    "error.unknown_game": {
        "en": "no such game: the id is unknown or the game expired after {minutes} minutes "
        "without a move; start a new game",
        "fr": "pas de telle partie : l'identifiant est inconnu ou la partie a expiré après "
        "{minutes} minutes sans coup ; commencez une nouvelle partie",
    },
    # ----- the terminal (spar play) -------------------------------------------------------
    "play.intro": {
        "en": "You are seat {seat} against {lineup}. Seed {seed} (--seed {seed} deals these "
        "hands again). Type a card ({examples}) or its number; r shows the rules; q leaves.",
        "fr": "Vous êtes au siège {seat} contre {lineup}. Graine {seed} (--seed {seed} "
        "redistribue ces mains). Tapez une carte ({examples}) ou son numéro ; r montre les "
        "règles ; q pour partir.",
    },
    "play.seats.one": {"en": "seat {seats}: {label}", "fr": "le siège {seats} : {label}"},
    "play.seats.other": {"en": "seats {seats}: {label}", "fr": "les sièges {seats} : {label}"},
    "play.loading": {
        "en": "Loading the bots and the game engine (the first run after an install compiles "
        "the engine: some seconds more)...",
        "fr": "Chargement des bots et du moteur de jeu (la première partie après une "
        "installation compile le moteur : quelques secondes de plus)...",
    },
    "play.records": {
        "en": "records of the finished hands are in {path}",
        "fr": "les relevés des mains terminées sont dans {path}",
    },
    "prompt.next": {
        "en": "Enter for the next hand, q to leave: ",
        "fr": "Entrée pour la main suivante, q pour partir : ",
    },
    "prompt.exchange": {"en": "keep or exchange? ", "fr": "garder ou échanger ? "},
    "prompt.card": {"en": "your card: ", "fr": "votre carte : "},
    "prompt.go_on": {
        "en": "Enter goes on, q leaves: ",
        "fr": "Entrée pour continuer, q pour partir : ",
    },
}
