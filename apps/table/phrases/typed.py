"""Why a typed line is not a move (:func:`spar_apps.table.read_move`), in English and French:
each with the card letters of its own language (:mod:`spar_apps.table.card_entry`)."""

MESSAGES = {
    "typed.no_choice": {
        "en": "there is no choice {index}: type a number from 1 to {n}",
        "fr": "il n'y a pas de choix {index} : tapez un nombre de 1 à {n}",
    },
    "typed.not_a_card": {
        "en": "'{text}' is not a card: write the rank ({ranks}) then the suit ({suits})",
        "fr": "« {text} » n'est pas une carte : écrivez la valeur ({ranks}) puis la couleur "
        "({suits})",
    },
    "typed.ambiguous": {
        "en": "'{text}' could be {cards}: type {codes}",
        "fr": "« {text} » peut être {cards} : tapez {codes}",
    },
    "typed.not_in_deck": {
        "en": "'{text}' is not in the {variant} deck: its ranks are {ranks} and its suits {suits}",
        "fr": "« {text} » n'est pas dans le jeu de {variant} : ses valeurs sont {ranks} et ses "
        "couleurs {suits}",
    },
    "typed.not_held": {"en": "you do not hold {card}", "fr": "vous n'avez pas {card}"},
    "typed.then": {"en": "{error}; {what}", "fr": "{error} ; {what}"},
    "typed.no_exchange": {"en": "you may not exchange now", "fr": "vous ne pouvez pas échanger"},
    "typed.keep_only": {"en": "{reason}: type k", "fr": "{reason} : tapez g"},
    "typed.neither": {
        "en": "'{word}' is neither keep nor exchange",
        "fr": "« {word} » n'est ni garder ni échanger",
    },
    "typed.exchange_both": {
        "en": "type k to keep your hand or e to exchange it (or 1 or 2)",
        "fr": "tapez g pour garder votre main ou e pour l'échanger (ou 1 ou 2)",
    },
    "typed.exchange_keep": {
        "en": "type k to keep your hand (it holds a {ranks})",
        "fr": "tapez g pour garder votre main (elle a un {ranks})",
    },
    "typed.card": {
        "en": "type a card such as {example}, or its number ({numbers})",
        "fr": "tapez une carte, par exemple {example}, ou son numéro ({numbers})",
    },
    "typed.keys": {
        "en": "{what}; r rules; q leaves",
        "fr": "{what} ; r les règles ; q pour partir",
    },
    "typed.leave_web": {
        "en": "to leave this table, start a new game",
        "fr": "pour quitter cette table, commencez une nouvelle partie",
    },
    "typed.too_long": {
        "en": "a move is a short text: a card such as 10h, its number, k or e",
        "fr": "un coup est un texte court : une carte comme 10c (10 de cœur), son numéro, g ou e",
    },
}
