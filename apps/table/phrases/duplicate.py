"""The texts of the duplicate challenge (:mod:`spar_apps.table.duplicate`, the terminal's
challenge lines and the web page's duplicate panel and form field), English and French side by
side."""

MESSAGES = {
    "duplicate.title": {"en": "Duplicate challenge", "fr": "Défi duplicate"},
    "duplicate.bot": {"en": "the bot in your seat: {bot}", "fr": "le bot à votre place : {bot}"},
    "duplicate.hand": {
        "en": "hand {hand}: you {you}, the bot in your seat {bot}",
        "fr": "main {hand} : vous {you}, le bot à votre place {bot}",
    },
    "duplicate.total": {
        "en": "in all: you {you}, the bot in your seat {bot}",
        "fr": "au total : vous {you}, le bot à votre place {bot}",
    },
    "duplicate.ahead": {
        "en": "you are {diff} ahead of the bot",
        "fr": "vous devancez le bot de {diff}",
    },
    "duplicate.behind": {
        "en": "the bot is {diff} ahead of you",
        "fr": "le bot vous devance de {diff}",
    },
    "duplicate.level": {"en": "level with the bot", "fr": "à égalité avec le bot"},
    "duplicate.again": {
        "en": "seed {seed}: the same seed deals these hands to anyone who plays it "
        "(spar play --duplicate {seed}, or the seed field of the web table)",
        "fr": "graine {seed} : la même graine distribue ces mains à qui la joue "
        "(spar play --duplicate {seed}, ou le champ graine de la table web)",
    },
    "duplicate.intro": {
        "en": "You are seat {seat} against {lineup}. Duplicate challenge, seed {seed}: each hand "
        "is dealt from the seed with its own dealer, and the bot in your seat ({bot}) plays it "
        "again from the score you had, against the same bots; after each hand you see both "
        "results. Type a card ({examples}) or its number; r shows the rules; q leaves.",
        "fr": "Vous êtes au siège {seat} contre {lineup}. Défi duplicate, graine {seed} : chaque "
        "main est distribuée d'après la graine, avec son propre donneur, et le bot à votre "
        "place ({bot}) la rejoue depuis le score que vous aviez, contre les mêmes bots ; après "
        "chaque main, vous voyez les deux résultats. Tapez une carte ({examples}) ou son "
        "numéro ; r montre les règles ; q pour partir.",
    },
    "duplicate.column.hand": {"en": "hand", "fr": "main"},
    "duplicate.column.you": {"en": "you", "fr": "vous"},
    "duplicate.column.bot": {"en": "bot in your seat", "fr": "bot à votre place"},
    "duplicate.form.on": {"en": "Duplicate challenge", "fr": "Défi duplicate"},
    "duplicate.form.seed": {"en": "seed", "fr": "graine"},
    "duplicate.form.empty": {"en": "new", "fr": "nouvelle"},
    "duplicate.error.seed": {
        "en": "the duplicate seed must be a whole number from 0 to {most}; got {got}",
        "fr": "la graine du duplicate doit être un nombre entier de 0 à {most} ; reçu {got}",
    },
}
