"""The table's words: seats, suits, what happened, the trick in progress, the hand, the
headline (English and French).

A seat's name has forms a French template may ask for (``{who:le}``, ``{who:a}``,
``{who:de}``: "le siège 2", "au siège 2", "du siège 2"); English names a seat one way.
"""

MESSAGES = {
    # ----- names ---------------------------------------------------------------------
    "list.or": {"en": "{head} or {last}", "fr": "{head} ou {last}"},
    "seat.you": {"en": "you", "fr": "vous"},
    "seat.you.le": {"en": "you", "fr": "vous"},
    "seat.you.a": {"en": "you", "fr": "à vous"},
    "seat.you.de": {"en": "you", "fr": "de vous"},
    "seat.other": {"en": "seat {seat}", "fr": "siège {seat}"},
    "seat.other.le": {"en": "seat {seat}", "fr": "le siège {seat}"},
    "seat.other.a": {"en": "seat {seat}", "fr": "au siège {seat}"},
    "seat.other.de": {"en": "seat {seat}", "fr": "du siège {seat}"},
    "suit.C": {"en": "clubs", "fr": "trèfle"},
    "suit.D": {"en": "diamonds", "fr": "carreau"},
    "suit.H": {"en": "hearts", "fr": "cœur"},
    "suit.S": {"en": "spades", "fr": "pique"},
    "direction.clockwise": {"en": "clockwise", "fr": "dans le sens horaire"},
    "direction.counterclockwise": {"en": "counterclockwise", "fr": "dans le sens antihoraire"},
    "card.rank.K": {"en": "K", "fr": "R"},  # French players write R, D, V for K, Q, J
    "card.rank.Q": {"en": "Q", "fr": "D"},
    "card.rank.J": {"en": "J", "fr": "V"},
    "card.back": {"en": "a card face down", "fr": "une carte face cachée"},
    "card.face_down": {"en": "{card} (face down)", "fr": "{card} (face cachée)"},
    "card.down_tag": {"en": "face down", "fr": "face cachée"},
    # ----- what happened ---------------------------------------------------------------
    "happened": {"en": "what happened: {events}", "fr": "ce qui s'est passé : {events}"},
    "list.then": {"en": "{head}; {last}", "fr": "{head} ; {last}"},
    "list.colon": {"en": "{head}: {last}", "fr": "{head} : {last}"},
    "event.keep.you": {"en": "you keep your hand", "fr": "vous gardez votre main"},
    "event.keep.other": {"en": "{who} keeps its hand", "fr": "{who:le} garde sa main"},
    "event.exchange.you": {"en": "you exchange your hand", "fr": "vous échangez votre main"},
    "event.exchange.other": {"en": "{who} exchanges its hand", "fr": "{who:le} échange sa main"},
    "event.play.you": {"en": "you play {card}", "fr": "vous jouez {card}"},
    "event.play.other": {"en": "{who} plays {card}", "fr": "{who:le} joue {card}"},
    "event.forced": {
        "en": "your last card leaves no choice: it is played for you",
        "fr": "votre dernière carte ne laisse pas le choix : elle est jouée pour vous",
    },
    "event.down.you": {
        "en": "you play {card} face down ({why})",
        "fr": "vous jouez {card} face cachée ({why})",
    },
    "event.down.other": {
        "en": "{who} plays a card face down ({why})",
        "fr": "{who:le} joue une carte face cachée ({why})",
    },
    "event.down_again.you": {
        "en": "you play {card} face down",
        "fr": "vous jouez {card} face cachée",
    },
    "event.down_again.other": {
        "en": "{who} plays a card face down",
        "fr": "{who:le} joue une carte face cachée",
    },
    "event.trick.you": {
        "en": "you win trick {trick} with {card}",
        "fr": "vous gagnez le pli {trick} avec {card}",
    },
    "event.trick.other": {
        "en": "{who} wins trick {trick} with {card}",
        "fr": "{who:le} gagne le pli {trick} avec {card}",
    },
    "event.reveal": {
        "en": "the stock's bottom card is turned up: {card}",
        "fr": "la carte du dessous du talon est retournée : {card}",
    },
    "stock.revealed": {
        "en": "stock: bottom card {card} turned up",
        "fr": "talon : la carte du dessous, {card}, est retournée",
    },
    # ----- the headline and the trick -----------------------------------------------------
    "headline": {
        "en": "{variant}, {players} players · hand {hand} · {stage} · play goes {direction} · {goal}",
        "fr": "{variant}, {players} joueurs · main {hand} · {stage} · le jeu tourne {direction} · {goal}",
    },
    "stage.exchange": {"en": "the exchange", "fr": "l'échange"},
    "stage.trick": {"en": "trick {trick} of {tricks}", "fr": "pli {trick} sur {tricks}"},
    "exchange.explain": {
        "en": "Before trick 1 every seat in turn keeps its hand or, if it holds no {ranks}, "
        "exchanges it for the top of the stock.",
        "fr": "Avant le pli 1, chaque siège à son tour garde sa main ou, s'il n'a aucun {ranks}, "
        "l'échange contre le dessus du talon.",
    },
    "trick.led": {"en": "trick {trick}, led by {who}", "fr": "pli {trick}, mené par {who:le}"},
    "trick.last_led": {
        "en": "the last trick, led by {who}",
        "fr": "le dernier pli, mené par {who:le}",
    },
    "trick.over": {"en": "the hand is over", "fr": "la main est terminée"},
    "trick.nothing": {"en": "nothing played yet", "fr": "rien n'est encore joué"},
    "trick.your_lead": {"en": "your lead", "fr": "à vous de mener"},
    "trick.winning.you": {
        "en": "you are winning it with {card}",
        "fr": "vous le remportez pour l'instant avec {card}",
    },
    "trick.winning.other": {
        "en": "{who} is winning it with {card}",
        "fr": "{who:le} le remporte pour l'instant avec {card}",
    },
    "trick.won.you": {"en": "you won it with {card}", "fr": "vous l'avez gagné avec {card}"},
    "trick.won.other": {"en": "{who} won it with {card}", "fr": "{who:le} l'a gagné avec {card}"},
    "trick.led_tag": {"en": "{who} (led)", "fr": "{who} (a mené)"},
    # ----- the seats and the hand -----------------------------------------------------
    "column.seat": {"en": "seat", "fr": "siège"},
    "column.played": {"en": "played", "fr": "joué"},
    "column.tricks": {"en": "tricks", "fr": "plis"},
    "column.score": {"en": "score", "fr": "score"},
    "column.dealt": {"en": "hand dealt", "fr": "main distribuée"},
    "column.payoff": {"en": "payoff", "fr": "gain"},
    "column.why": {"en": "why", "fr": "pourquoi"},
    "column.chance": {"en": "match chance", "fr": "chance de gagner"},
    "flag.dealer": {"en": "dealer", "fr": "donneur"},
    "flag.exchanged": {"en": "exchanged", "fr": "a échangé"},
    "flag.sits_out": {"en": "sits out", "fr": "ne joue pas"},
    "flag.your_turn": {"en": "your turn", "fr": "à vous"},
    "flag.to_play": {"en": "to play", "fr": "joue"},
    "seat.facts": {
        "en": "{tricks} · {held} in hand",
        "fr": "{tricks} · {held} en main",
    },
    "count.tricks_won.one": {"en": "{n} trick won", "fr": "{n} pli gagné"},
    "count.tricks_won.other": {"en": "{n} tricks won", "fr": "{n} plis gagnés"},
    "count.cards.one": {"en": "{n} card", "fr": "{n} carte"},
    "count.cards.other": {"en": "{n} cards", "fr": "{n} cartes"},
    "hand.yours": {"en": "your hand: ", "fr": "votre main : "},
    "hand.choose": {"en": "choose: ", "fr": "choisissez : "},
    "hand.closed": {"en": "not {cards}: {reason}", "fr": "pas {cards} : {reason}"},
    "move.keep": {"en": "keep", "fr": "garder"},
    "move.exchange": {"en": "exchange", "fr": "échanger"},
    "hint.head": {
        "en": "hint, how often the bot would play each move:",
        "fr": "conseil, à quelle fréquence le bot jouerait chaque coup :",
    },
    "hint.head_why": {
        "en": "hint, how often the bot would play each move (each card: {why}):",
        "fr": "conseil, à quelle fréquence le bot jouerait chaque coup (chaque carte : {why}) :",
    },
    "number.percent": {"en": "{n}%", "fr": "{n}\u202f%"},  # 20 %: a narrow no-break space
    "ranks.none.one": {"en": "not a {rank}", "fr": "pas un {rank}"},
    "ranks.none.other": {"en": "neither a {head} nor a {last}", "fr": "ni un {head} ni un {last}"},
}
