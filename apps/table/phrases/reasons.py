"""Why a move is open or closed (:func:`spar_env.explain.move_reasons`) and why a card goes
face down, in English and French (why a typed line is not a move:
:mod:`spar_apps.table.phrases.typed`)."""

MESSAGES = {
    # ----- a card of the hand ---------------------------------------------------------
    "reason.lead": {
        "en": "you lead this trick: any card may be played",
        "fr": "vous menez ce pli : toute carte peut être jouée",
    },
    "reason.follow": {
        "en": "you must follow suit: {suit} were led and you hold {cards}",
        "fr": "vous devez fournir : la couleur demandée est {suit} et vous avez {cards}",
    },
    "reason.follows_beats": {
        "en": "it follows {suit}, the suit led, and beats {best}",
        "fr": "elle fournit à {suit}, la couleur demandée, et bat {best}",
    },
    "reason.follows_short": {
        "en": "it follows {suit}, the suit led, but does not beat {best}",
        "fr": "elle fournit à {suit}, la couleur demandée, mais ne bat pas {best}",
    },
    "reason.off_suit": {
        "en": "you hold no {suit}, so any card may be played, but a card of another suit "
        "cannot win the trick",
        "fr": "vous n'avez pas de {suit} : toute carte peut être jouée, mais une carte d'une "
        "autre couleur ne peut pas gagner le pli",
    },
    "reason.goes_down": {
        "en": "{reason}; it goes face down: {why}",
        "fr": "{reason} ; elle sera jouée face cachée : {why}",
    },
    "reason.not_your_turn": {"en": "not your turn", "fr": "ce n'est pas votre tour"},
    # ----- face down ------------------------------------------------------------------
    "down.off_suit": {
        "en": "a card not of the suit led is played face down",
        "fr": "une carte qui n'est pas de la couleur demandée est jouée face cachée",
    },
    "down.no_lead": {
        "en": "a card that does not take the lead of the trick is played face down",
        "fr": "une carte qui ne prend pas la main dans le pli est jouée face cachée",
    },
    "down.no_beat": {
        "en": "a card that does not beat the best card of the trick is played face down",
        "fr": "une carte qui ne bat pas la meilleure carte du pli est jouée face cachée",
    },
    "down.other_suit": {
        "en": "a card of another suit never takes the lead, so it is played face down",
        "fr": "une carte d'une autre couleur ne prend jamais la main : elle est jouée face cachée",
    },
    # ----- the weak-hand exchange ---------------------------------------------------------
    "reason.exchange_first": {
        "en": "keep or exchange your hand first: the weak-hand exchange comes before trick 1",
        "fr": "gardez ou échangez d'abord votre main : l'échange des mains faibles vient avant "
        "le pli 1",
    },
    "reason.keep": {"en": "keep your hand and play it", "fr": "garder votre main et la jouer"},
    "reason.weak": {
        "en": "your hand holds no {ranks}, so it is weak: you may set it aside and take the "
        "top {n} cards of the stock",
        "fr": "votre main n'a aucun {ranks} : elle est faible, vous pouvez la mettre de côté et "
        "prendre les {n} cartes du dessus du talon",
    },
    "reason.strong": {
        "en": "your hand holds {cards}: a hand with a {ranks} is strong, so it may keep but "
        "not exchange",
        "fr": "votre main a {cards} : une main avec un {ranks} est forte, elle peut garder mais "
        "pas échanger",
    },
    "reason.stock_short": {
        "en": "the stock holds {n} cards, fewer than a hand: nobody may exchange",
        "fr": "le talon n'a que {n} cartes, moins qu'une main : personne ne peut échanger",
    },
}
