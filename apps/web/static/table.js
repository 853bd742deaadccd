// The web table of spar-rl: draws what the server sends and sends the person's moves.
// The game runs on the server; this page keeps only the id of its own game (one per tab, in
// sessionStorage, so that a reload or a restart of the server takes the game up again).
"use strict";

const SUITS = { C: "♣", D: "♦", H: "♥", S: "♠" };
const RED_SUITS = new Set(["D", "H"]);
const CARD_IN_TEXT = /((?:10|[2-9JQKARDV])[♣♦♥♠])/g;  // R, D, V: the French K, Q, J
let game = null; // the last view the server sent
let offer = null;
let hintOn = false;
let busy = false;
let texts = {}; // the message table in the page's language (GET /api/messages)
let language = "en";
let review = null; // the review of the hand just over, as the server sent it
let reviewAt = 0; // the trick shown, from 0
const SAVED_GAME = "spar-game"; // this tab's game id, in sessionStorage

const $ = (id) => document.getElementById(id);

function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined) node.textContent = text;
  return node;
}

function parseCard(code) {
  return { rank: code.slice(0, -1), suit: code.slice(-1) };
}

function label(code) {
  const { rank, suit } = parseCard(code);
  return rank + SUITS[suit];
}

function cardNode(code, small, down) {
  // A card face for a code such as "10H"; null (a hidden card) draws a back.
  if (code === null) {
    const back = el("div", "card back" + (small ? " small" : ""));
    back.setAttribute("aria-label", "a card face down");
    return back;
  }
  const { rank, suit } = parseCard(code);
  const node = el("div", "card" + (small ? " small" : "") + (RED_SUITS.has(suit) ? " red" : ""));
  node.appendChild(el("span", "corner", rank + SUITS[suit]));
  node.appendChild(el("span", "pip", SUITS[suit]));
  node.dataset.card = code;
  node.setAttribute("aria-label", label(code) + (down ? " (face down)" : ""));
  if (down) node.classList.add("own-down");
  return node;
}

function t(key, fields) {
  // A message of the table in the page's language, its {fields} filled (the key if missing).
  let text = texts[key] || key;
  for (const [name, value] of Object.entries(fields || {})) text = text.split(`{${name}}`).join(String(value));
  return text;
}

function colourText(node, text) {
  // Server text with its red cards in red, built from text nodes (never as HTML).
  node.textContent = "";
  for (const part of text.split(CARD_IN_TEXT)) {
    if (/^(?:10|[2-9JQKARDV])[♦♥]$/.test(part)) node.appendChild(el("span", "inline-red", part));
    else node.appendChild(document.createTextNode(part));
  }
}

async function call(method, path, body) {
  const options = { method, headers: {} };
  if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  const response = await fetch(path, options);
  let data;
  try {
    data = await response.json();
  } catch (e) {
    data = { error: `the server answered ${response.status} without JSON` };
  }
  if (!response.ok) {
    const error = new Error(data.error || `error ${response.status}`);
    error.status = response.status;
    throw error;
  }
  return data;
}

function say(text) {
  $("message").textContent = text || "";
}

// ----- the new-game form --------------------------------------------------------------
function fillSelect(select, items, chosen) {
  select.textContent = "";
  for (const [value, text] of items) {
    const option = el("option", "", text);
    option.value = value;
    if (value === chosen) option.selected = true;
    select.appendChild(option);
  }
}

function fillPlayers() {
  const variant = offer.variants.find((v) => v.name === $("variant").value);
  $("tagline").textContent = variant.tagline;
  const previous = Number($("players").value) || variant.default_players;
  const chosen = variant.players.includes(previous) ? previous : variant.default_players;
  fillSelect($("players"), variant.players.map((n) => [String(n), String(n)]), String(chosen));
}

async function loadOffer() {
  offer = await call("GET", "/api/offer");
  fillSelect($("variant"), offer.variants.map((v) => [v.name, v.name]), "spar");
  fillPlayers();
  fillSelect($("opponents"), offer.opponents.map((o) => [o.id, o.label]), offer.opponents[0].id);
  fillSelect($("end"), offer.ends.map((e) => [e, e === "default" ? "the variant's end" : e.replace("target:", "first to ")]), "default");
  fillSelect($("last_two"), [["", "the variant's"], ...offer.last_two.map((x) => [x, x])], "");
  $("duplicate-on").textContent = offer.duplicate.on;
  $("duplicate-seed-name").textContent = offer.duplicate.seed;
  $("duplicate-seed").placeholder = offer.duplicate.empty;
}

async function newGame(event) {
  event.preventDefault();
  const form = {
    variant: $("variant").value,
    players: Number($("players").value),
    opponents: $("opponents").value,
    end: $("end").value,
  };
  if ($("ace_of_spades").checked) form.ace_of_spades = true;
  if ($("last_two").value) form.last_two = $("last_two").value;
  const seed = $("duplicate-seed").value.trim();
  if (seed) form.duplicate = seed;  // the server reads the digits, or says why not
  else if ($("duplicate").checked) form.duplicate = true;  // a seed drawn by the server
  $("form-message").textContent = "";
  try {
    show(await call("POST", "/api/games", form));
    say(game.warning || game.note || "");
  } catch (e) {
    $("form-message").textContent = e.message;  // beside the form: it shows with no table too
  }
}

// ----- moves ---------------------------------------------------------------------------
async function send(path, body) {
  if (busy || !game) return;
  busy = true;
  try {
    show(await call("POST", `/api/games/${game.game}/${path}`, { ...body, turn: game.turn }));
    say(game.warning || "");  // a change the server could not save goes on in memory
  } catch (e) {
    if (e.status === 409 || e.status >= 500) {  // the table moved on, or a fault: show it as it is
      try { show(await call("GET", `/api/games/${game.game}`)); } catch (ignored) { /* keep the message */ }
    }
    say(e.message);
  } finally {
    busy = false;
  }
}

function play(move) {
  return send("move", { move: String(move) });
}

async function refreshHint() {
  $("hint").textContent = "";
  if (!hintOn || !game || !game.hint || game.phase === "over" || game.to_move !== game.seat) return;
  try {
    const hint = await call("GET", `/api/games/${game.game}/hint`);
    if (hint.turn !== game.turn) return;
    const parts = hint.moves.map((m) => `${m.move.length <= 3 ? label(m.move) : m.move} ${Math.round(m.p * 100)}%`);
    colourText($("hint"), "hint, the bot's policy: " + parts.join("  "));
    for (const m of hint.moves) {
      const node = document.querySelector(`#hand .card[data-card="${m.move}"]`);
      if (node) node.appendChild(el("span", "prob", `${Math.round(m.p * 100)}%`));
    }
  } catch (e) {
    $("hint").textContent = e.message;
  }
}

// ----- drawing the table ---------------------------------------------------------------
function show(view) {
  game = view;
  sessionStorage.setItem(SAVED_GAME, view.game);  // a reload, or a restarted server, carries on
  $("welcome").hidden = true;
  $("table").hidden = false;
  const phase = view.phase === "exchange" ? "the exchange" : `trick ${view.trick} of ${view.tricks}`;
  $("headline").textContent = `${view.variant}, ${view.players} players · hand ${view.hand_number} · ` +
    `${phase} · play goes ${view.direction} · ${view.goal}`;
  $("lineup").textContent = `against ${view.lineup}`;
  drawSeats(view);
  drawTrick(view);
  colourText($("happened"), view.events.length ? "what happened: " + view.events.join("; ") : "");
  $("revealed").textContent = view.revealed ? `stock: bottom card ${label(view.revealed)} turned up` : "";
  drawHand(view);
  drawSummary(view);
  drawDuplicate(view);
  drawRules(view);
  $("tagline").textContent = view.tagline;
  $("typing").textContent = view.typing.join(", ");
  $("your-turn").hidden = !view.my_turn;
  const records = $("records");
  records.hidden = view.records === 0;
  records.href = `/api/games/${view.game}/records`;
  records.textContent = `Download records (${view.records} hand${view.records === 1 ? "" : "s"})`;
  if (view.phase !== "over") closeReview();
  document.body.dataset.turn = String(view.turn);
  document.body.dataset.phase = view.phase;
  refreshHint();
  if (view.phase !== "over") $("typed").focus();
  else $("next").focus();
}

function drawSeats(view) {
  const seats = $("seats");
  seats.textContent = "";
  for (const seat of view.seats) {
    const panel = el("div", "seat" + (seat.seat === view.seat ? " me" : "") +
      (seat.seat === view.to_move ? " to-move" : ""));
    panel.dataset.seat = String(seat.seat);
    const who = el("div", "who");
    const name = el("span", "name", seat.name);
    if (seat.seat === view.to_move) {
      name.appendChild(el("span", "badge turn", seat.seat === view.seat ? "your turn" : "to play"));
    }
    if (seat.dealer) name.appendChild(el("span", "badge", "dealer"));
    if (seat.exchanged) name.appendChild(el("span", "badge", "exchanged"));
    if (seat.sits_out) name.appendChild(el("span", "badge", "sits out"));
    who.appendChild(name);
    who.appendChild(el("span", "score", seat.score));
    panel.appendChild(who);
    panel.appendChild(el("div", "facts",
      `${seat.tricks_won} trick${seat.tricks_won === 1 ? "" : "s"} won · ${seat.held} card${seat.held === 1 ? "" : "s"} in hand`));
    const played = el("div", "played");
    for (const p of seat.played) played.appendChild(cardNode(p.card, true, p.down));
    panel.appendChild(played);
    seats.appendChild(panel);
  }
}

function drawTrick(view) {
  const trick = $("trick");
  trick.textContent = "";
  const current = view.current;
  if (!current) {
    $("trick-title").textContent = view.phase === "exchange"
      ? "Before trick 1 every seat in turn keeps its hand or, if it holds no 10 or better, exchanges it for the top of the stock."
      : "the hand is over";
    return;
  }
  const leader = view.names[current.leader];
  let title = view.phase === "over" ? `the last trick, led by ${leader}` : `trick ${view.trick}, led by ${leader}`;
  if (!current.plays.length) title += view.to_move === view.seat ? ": your lead" : "";
  if (current.winning) {
    const verb = view.phase === "over" ? "won it" : "winning";
    title += ` · ${view.names[current.winning.seat]} ${verb} with ${label(current.winning.card)}`;
  }
  $("trick-title").textContent = title;
  for (const p of current.plays) {
    const slot = el("div", "play" + (current.winning && current.winning.seat === p.seat ? " winning" : ""));
    slot.appendChild(cardNode(p.card, false, p.down));
    slot.appendChild(el("span", "tag", view.names[p.seat] + (p.seat === current.leader ? " (led)" : "")));
    trick.appendChild(slot);
  }
}

function explain(text) {
  // Say why a card may or may not be played, in the line under the hand (read out by screen readers).
  colourText($("why"), text || "");
}

function drawHand(view) {
  const hand = $("hand");
  hand.textContent = "";
  explain("");
  for (const item of view.hand) {
    const node = cardNode(item.card, false, false);
    node.classList.add(item.legal ? "legal" : "dim");
    if (item.reason) {
      // Every card of the person's turn says why: on hover (title), on focus and for screen readers.
      node.title = item.reason;
      node.setAttribute("aria-label", `${label(item.card)}: ${item.reason}`);
      node.tabIndex = 0;
      node.addEventListener("focus", () => explain(`${label(item.card)}: ${item.reason}`));
      node.addEventListener("mouseenter", () => explain(`${label(item.card)}: ${item.reason}`));
    }
    if (item.face_down) node.appendChild(el("span", "down-tag", "face down"));
    if (item.legal) {
      node.setAttribute("role", "button");
      node.appendChild(el("span", "num", String(item.number)));
      node.addEventListener("click", () => play(item.card));
      node.addEventListener("keydown", (e) => { if (e.key === "Enter") play(item.card); });
    } else {
      node.setAttribute("aria-disabled", "true");
      node.addEventListener("click", () => explain(`${label(item.card)}: ${item.reason || "not your turn"}`));
    }
    hand.appendChild(node);
  }
  const choices = $("choices");
  choices.textContent = "";
  for (const c of view.choices) {
    const button = el("button", "", c.legal ? `${c.number}: ${c.action}` : c.action);
    button.type = "button";
    button.dataset.action = c.action;
    button.title = c.reason;
    button.setAttribute("aria-label", `${button.textContent}: ${c.reason}`);
    if (c.legal) button.addEventListener("click", () => play(c.action));
    else {
      button.setAttribute("aria-disabled", "true");
      button.classList.add("closed");
      button.addEventListener("click", () => explain(`${c.action}: ${c.reason}`));
    }
    button.addEventListener("focus", () => explain(`${c.action}: ${c.reason}`));
    choices.appendChild(button);
  }
  $("typed-form").hidden = view.phase === "over";
  hand.hidden = view.phase === "over";
}

function drawRules(view) {
  $("rules-head").textContent = `The rules of ${view.variant}: ${view.tagline}`;
  const body = $("rules-body");
  body.textContent = "";
  for (const section of view.rules) {
    body.appendChild(el("dt", "", section.heading));
    const text = el("dd");
    colourText(text, section.text);
    body.appendChild(text);
  }
}

const CHANCE_NOTE = "match chance: each seat's chance to win the match from here, were all seats equal players";

function drawSummary(view) {
  const box = $("summary");
  const s = view.summary;
  box.hidden = !s;
  if (!s) return;
  const wins = s.winner === view.seat ? "win" : "wins";
  colourText($("summary-head"),
    `hand ${s.hand} over: ${view.names[s.winner]} ${wins} the last trick with ${label(s.card)}, ` +
    `for ${s.points} point${s.points === 1 ? "" : "s"}`);
  colourText($("why-points"), s.why_points);
  colourText($("session-line"), s.session_line);
  const body = box.querySelector("tbody");
  body.textContent = "";
  view.seats.forEach((seat, i) => {
    const row = el("tr");
    row.appendChild(el("td", "", seat.name));
    const cards = el("td", "cards");
    for (const code of s.dealt[i]) {
      cards.appendChild(el("span", RED_SUITS.has(parseCard(code).suit) ? "red" : "", label(code)));
    }
    if (!s.dealt[i].length) cards.textContent = "sat out";
    if (s.exchanged[i]) cards.appendChild(el("span", "", "(exchanged)"));
    row.appendChild(cards);
    row.appendChild(el("td", "", (s.payoffs[i] > 0 ? "+" : "") + s.payoffs[i]));
    row.appendChild(el("td", "why", s.why_payoffs[i]));
    row.appendChild(el("td", "", seat.score));
    if (s.match_chances) row.appendChild(el("td", "chance", `${Math.round(100 * s.match_chances[i])}%`));
    body.appendChild(row);
  });
  $("chance-head").hidden = !s.match_chances;
  $("chance-note").hidden = !s.match_chances;
  if (s.match_chances) {
    const tie = 1 - s.match_chances.reduce((a, b) => a + b, 0);
    $("chance-note").textContent = CHANCE_NOTE + (tie >= 0.005 ? `; a tie for most points: ${Math.round(100 * tie)}%` : "");
  }
  $("session-result").textContent = view.session_result || "";
  $("next").hidden = view.session_over;
  $("review-open").hidden = !view.review;
  $("review-open").textContent = t("review.button");
}

// ----- the review of the hand just over ---------------------------------------------------
async function openReview() {
  if (!game || !game.review) return;
  review = null;
  document.body.classList.add("reviewing");
  $("review").hidden = false;
  for (const id of ["review-title", "review-summary", "review-trick", "review-notes", "review-where"]) $(id).textContent = "";
  $("review-status").textContent = t("review.working");
  drawReviewNav();
  $("review-close").focus();
  const asked = game.game;
  try {
    const data = await call("GET", `/api/games/${asked}/review?lang=${encodeURIComponent(language)}`);
    if (!game || game.game !== asked || $("review").hidden) return;  // closed, or another game
    review = data;
    reviewAt = 0;
    $("review-status").textContent = "";
    drawReview();
  } catch (e) {
    $("review-status").textContent = e.message;
  }
}

function closeReview() {
  const open = !$("review").hidden;
  review = null;
  $("review").hidden = true;
  document.body.classList.remove("reviewing");
  if (open && game && game.review) $("review-open").focus();
}

function stepReview(by) {
  if (!review) return;
  reviewAt = Math.min(Math.max(reviewAt + by, 0), review.tricks.length - 1);
  drawReview();
}

function drawReviewNav() {
  $("review-prev").textContent = "‹ " + t("review.prev");
  $("review-next").textContent = t("review.next") + " ›";
  $("review-close").textContent = t("review.close");
  $("review-prev").disabled = !review || reviewAt === 0;
  $("review-next").disabled = !review || reviewAt >= review.tricks.length - 1;
}

function chip(text, cls) {
  const node = el("span", "chip" + (cls ? " " + cls : ""));
  colourText(node, text);
  return node;
}

function drawReview() {
  const r = review;
  $("review-title").textContent = r.title;
  $("review-summary").textContent = r.summary;
  $("review-summary").className = r.mistakes ? "has-mistakes" : "no-mistakes";
  const trick = r.tricks[reviewAt];
  $("review-where").textContent = trick.title;
  drawReviewNav();
  const box = $("review-trick");
  box.textContent = "";
  const plays = el("div", "review-plays");
  for (const p of trick.plays) {
    const play = el("span", "review-play" + (p.seat === trick.winner ? " winner" : ""));
    play.appendChild(el("span", "who", p.name));
    play.appendChild(chip(p.card || "🂠", p.card ? "" : "back"));
    plays.appendChild(play);
  }
  box.appendChild(plays);
  colourText(box.appendChild(el("p", "won")), trick.won);
  const d = trick.decision;
  if (d) drawDecision(box, r, d);
  const notes = $("review-notes");
  notes.textContent = "";
  for (const note of r.notes) notes.appendChild(el("p", "note", note));
}

function drawDecision(box, r, d) {
  colourText(box.appendChild(el("p", "played-line")), d.played_text);
  if (!d.forced) {
    const table = el("table", "review-cards");
    const head = el("tr");
    const columns = ["col_card", "col_bot", "col_value", ...(r.match ? ["col_chance"] : []), ""];
    for (const c of columns) head.appendChild(el("th", "", c ? r.labels[c] : ""));
    table.appendChild(el("thead")).appendChild(head);
    const body = table.appendChild(el("tbody"));
    for (const c of d.cards) {
      const row = el("tr", (c.best ? "best" : "") + (c.played ? " played" : ""));
      row.dataset.card = c.code;
      row.appendChild(el("td")).appendChild(chip(c.card));
      row.appendChild(el("td", "num", c.bot));
      row.appendChild(el("td", "num", c.value_text));
      if (r.match) row.appendChild(el("td", "num", c.chance_text));
      const marks = [c.played ? r.labels.mark_played : "", c.best ? r.labels.mark_best : ""];
      row.appendChild(el("td", "marks", marks.filter(Boolean).join(", ")));
      body.appendChild(row);
    }
    box.appendChild(table);
  }
  colourText(box.appendChild(el("p", "verdict" + (d.mistake ? " mistake" : ""))), d.verdict);
  if (d.reasons.length) {
    const list = box.appendChild(el("ul", "reasons"));
    for (const reason of d.reasons) colourText(list.appendChild(el("li")), reason);
  }
}

function signed(value) {
  return value > 0 ? `+${value}` : String(value);
}

function drawDuplicate(view) {
  // The duplicate challenge: every finished hand's two results, the total, the seed.
  const board = view.duplicate;
  $("duplicate-board").hidden = !board;
  const last = board && view.phase === "over" && board.hands.length ? board.hands[board.hands.length - 1] : null;
  $("duplicate-last").textContent = last ? last.line : "";
  $("duplicate-last").hidden = !last;
  if (!board) return;
  $("duplicate-title").textContent = board.title;
  $("duplicate-bot").textContent = board.bot;
  const head = $("duplicate-hands").querySelector("thead tr");
  head.textContent = "";
  for (const name of board.columns) head.appendChild(el("th", "", name));
  const body = $("duplicate-hands").querySelector("tbody");
  body.textContent = "";
  for (const pair of board.hands) {
    const row = el("tr");
    row.dataset.you = String(pair.you);
    row.dataset.bot = String(pair.bot);
    row.appendChild(el("td", "", String(pair.hand)));
    row.appendChild(el("td", "num", signed(pair.you)));
    row.appendChild(el("td", "num", signed(pair.bot)));
    body.appendChild(row);
  }
  $("duplicate-hands").hidden = !board.hands.length;
  $("duplicate-total").textContent = `${board.total.line} · ${board.total.verdict}`;
  $("duplicate-again").textContent = board.again;
}

// ----- keyboard ------------------------------------------------------------------------
function typed(event) {
  event.preventDefault();
  const text = $("typed").value.trim();
  $("typed").value = "";
  if (text) play(text);
}

document.addEventListener("keydown", (event) => {
  if (!$("review").hidden) {  // the review: arrows step through the tricks, Escape leaves
    if (event.key === "ArrowRight") stepReview(1);
    else if (event.key === "ArrowLeft") stepReview(-1);
    else if (event.key === "Escape") closeReview();
    return;
  }
  if (game && game.phase === "over" && !game.session_over && event.key === "Enter" &&
      document.activeElement.tagName !== "SELECT") {
    event.preventDefault();
    send("next", {});
  }
});

document.addEventListener("DOMContentLoaded", () => {
  $("new-game").addEventListener("submit", newGame);
  $("variant").addEventListener("change", fillPlayers);
  $("typed-form").addEventListener("submit", typed);
  $("next").addEventListener("click", () => send("next", {}));
  $("hint-toggle").addEventListener("change", (e) => { hintOn = e.target.checked; refreshHint(); });
  $("review-open").addEventListener("click", openReview);
  $("review-close").addEventListener("click", closeReview);
  $("review-prev").addEventListener("click", () => stepReview(-1));
  $("review-next").addEventListener("click", () => stepReview(1));
  $("duplicate-seed").addEventListener("input", (e) => { if (e.target.value.trim()) $("duplicate").checked = true; });
  loadTexts().then(loadOffer).then(resume).catch((e) => say(e.message));
});

async function loadTexts() {
  // The page's texts in the browser's language (or ?lang= of the page's address).
  const asked = new URLSearchParams(location.search).get("lang");
  const data = await call("GET", "/api/messages" + (asked ? `?lang=${encodeURIComponent(asked)}` : ""));
  texts = data.messages;
  language = data.language;
  document.documentElement.lang = language;
}

async function resume() {
  // Take up this tab's game where it was: after a reload, or after the server restarted.
  const id = sessionStorage.getItem(SAVED_GAME);
  if (!id) return;
  try {
    show(await call("GET", `/api/games/${encodeURIComponent(id)}`));
  } catch (e) {
    sessionStorage.removeItem(SAVED_GAME);  // expired or unknown: the form starts a new one
  }
}
