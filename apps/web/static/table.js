// The web table of spar-rl: draws what the server sends and sends the person's moves.
// The game runs on the server; this page keeps only the id of its own game (one per tab, in
// sessionStorage, so that a reload or a restart of the server takes the game up again).
// Every word comes from the server: the message catalogue of the page's language
// (GET /api/messages) fills the labels and templates, and the views carry their sentences
// already said. The language follows the browser unless the player picks one (kept in
// localStorage), and every request names it (?lang=).
// At a table of friends (friends.js) the views come over the table's WebSocket instead, and
// show() draws them the same; the moves go back over it (`live`, below).
"use strict";

const SUITS = { C: "♣", D: "♦", H: "♥", S: "♠" };
const RED_SUITS = new Set(["D", "H"]);
const CARD_IN_TEXT = /((?:10|[2-9JQKARDV])[♣♦♥♠])/g;  // R, D, V: the French K, Q, J
const PACES = { tap: -1, slow: 3000, normal: 1500, none: 0 }; // ms a finished trick stays
let game = null; // the last view the server sent
let offer = null;
let hintOn = false;
let busy = false;
let lang = localStorage.getItem("spar-lang") || "";
let messages = {};
let lastAction = null; // where the person's last action was: "typed", "card", "choice", "next"
let shownTrick = ""; // the finished trick already shown a moment
let pauseTimer = null;
let review = null; // the review of the hand just over, as the server sent it
let reviewAt = 0; // the trick shown, from 0
const SAVED_GAME = "spar-game"; // this tab's game id, in sessionStorage
// While the tab sits at a table of friends, friends.js sets `live`, the table's connection:
// act(what, body) sends a move or the next hand ({do: what, ...body}), language() asks for
// the views in the page's language, leave() ends the connection. null: a game of one's own.
let live = null;
let loaded = null; // the catalogue and the offer, once loaded (friends.js waits for them too)

const $ = (id) => document.getElementById(id);

function t(key, fields) {
  // The catalogue's template of key, its {fields} filled; a counted message (key.one,
  // key.other) chosen by fields.n as the server chooses it.
  fields = fields || {};
  if (!(key in messages) && (key + ".one") in messages) {
    const n = Number(fields.n);
    key += (n === 1 || (lang === "fr" && n === 0)) ? ".one" : ".other";
  }
  const template = messages[key];
  if (template === undefined) return key;
  return template.replace(/\{(\w+)(?::\w+)?\}/g, (_, name) => String(fields[name] ?? ""));
}

function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined) node.textContent = text;
  return node;
}

function parseCard(code) {
  return { rank: code.slice(0, -1), suit: code.slice(-1) };
}

function percent(share) {
  // 20% in English, 20 % in French: the catalogue's number.percent, as the server writes it
  return t("number.percent", { n: Math.round(100 * share) });
}

function label(code) {
  const { rank, suit } = parseCard(code);
  return (messages["card.rank." + rank] || rank) + SUITS[suit];
}

function cardNode(code, small, down) {
  // A card face for a code such as "10H"; null (a hidden card) draws a back.
  if (code === null) {
    const back = el("div", "card back" + (small ? " small" : ""));
    back.setAttribute("aria-label", t("card.back"));
    return back;
  }
  const { suit } = parseCard(code);
  const node = el("div", "card" + (small ? " small" : "") + (RED_SUITS.has(suit) ? " red" : ""));
  node.appendChild(el("span", "corner", label(code)));
  node.appendChild(el("span", "pip", SUITS[suit]));
  node.dataset.card = code;
  node.setAttribute("aria-label", down ? t("card.face_down", { card: label(code) }) : label(code));
  if (down) node.classList.add("own-down");
  return node;
}

function colourText(node, text) {
  // Server text with its red cards in red, built from text nodes (never as HTML).
  node.textContent = "";
  for (const part of text.split(CARD_IN_TEXT)) {
    if (/^(?:10|[2-9JQKARDV])[♦♥]$/.test(part)) node.appendChild(el("span", "inline-red", part));
    else node.appendChild(document.createTextNode(part));
  }
}

function withLang(path) {
  return path + (path.includes("?") ? "&" : "?") + "lang=" + encodeURIComponent(lang);
}

async function call(method, path, body) {
  const options = { method, headers: {} };
  if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  const response = await fetch(withLang(path), options);
  let data;
  try {
    data = await response.json();
  } catch (e) {
    data = { error: t("page.no_json", { status: response.status }) };
  }
  if (!response.ok) {
    const error = new Error(data.error || t("page.error", { status: response.status }));
    error.status = response.status;
    throw error;
  }
  return data;
}

function say(text) {
  $("message").textContent = text || "";
}

// ----- the language ---------------------------------------------------------------------
async function loadMessages() {
  // The catalogue of the chosen language, or of the browser's (the server reads its header).
  const answer = await call("GET", "/api/messages");
  lang = answer.language;
  messages = answer.messages;
  document.documentElement.lang = lang;
  document.title = t("page.title");
  for (const node of document.querySelectorAll("[data-msg]")) node.textContent = t(node.dataset.msg);
  $("duplicate-seed").placeholder = t("duplicate.form.empty");
  fillSelect($("lang"), Object.entries(answer.languages), lang);
  fillSelect($("pace"), Object.keys(PACES).map((p) => [p, t("page.pace." + p)]), pace());
  document.dispatchEvent(new Event("spar:messages"));  // friends.js says its own texts again
}

async function switchLanguage() {
  lang = $("lang").value;
  localStorage.setItem("spar-lang", lang);
  await loadMessages();
  await loadOffer();
  if (live) live.language();
  else if (game) show(await call("GET", `/api/games/${game.game}`));
  if (!$("review").hidden) await openReview();  // the review again, said in the new language
  if ($("rules").open) await readRules();
}

function pace() {
  const chosen = localStorage.getItem("spar-pace");
  return chosen in PACES ? chosen : "normal";
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
  $("about").textContent = variant.about;
  const previous = Number($("players").value) || variant.default_players;
  const chosen = variant.players.includes(previous) ? previous : variant.default_players;
  fillSelect($("players"), variant.players.map((n) => [String(n), String(n)]), String(chosen));
}

async function loadOffer() {
  const keep = offer ? formValues() : null;
  offer = await call("GET", "/api/offer");
  fillSelect($("variant"), offer.variants.map((v) => [v.name, v.title]), keep ? keep.variant : "spar");
  fillPlayers();
  fillSelect($("opponents"), offer.opponents.map((o) => [o.id, o.label]), keep ? keep.opponents : offer.opponents[0].id);
  fillSelect($("end"), offer.ends.map((e) => [e.id, e.label]), keep ? keep.end : "default");
  fillSelect($("last_two"), offer.last_two.map((x) => [x.id, x.label]), keep ? (keep.last_two || "") : "");
}

function formValues() {
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
  return form;
}

async function newGame(event) {
  event.preventDefault();
  lastAction = null;  // a new game takes no focus: on a phone, no keyboard over the cards
  if (live) live.leave();  // a game of one's own: the table of friends keeps the seat
  $("form-message").textContent = "";
  try {
    show(await call("POST", "/api/games", formValues()));
    say(game.warning || game.note || "");
  } catch (e) {
    $("form-message").textContent = e.message;  // beside the form: it shows with no table too
  }
}

async function readRules() {
  // The rules of the game the form asks for, before it starts.
  const form = formValues();
  const query = new URLSearchParams({ variant: form.variant, players: String(form.players), end: form.end });
  if (form.last_two) query.set("last_two", form.last_two);
  if (form.ace_of_spades) query.set("ace_of_spades", "true");
  try {
    drawRules(await call("GET", `/api/rules?${query}`));
    $("rules").open = true;
    $("rules").scrollIntoView({ block: "nearest" });
  } catch (e) {
    say(e.message);
  }
}

// ----- moves ---------------------------------------------------------------------------
async function send(path, body, from) {
  if (busy || !game) return;
  busy = true;
  lastAction = from;
  if (live) {  // at a table of friends: over its WebSocket; the next view sets busy back
    live.act(path, { ...body, turn: game.turn });
    return;
  }
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

function play(move, from) {
  return send("move", { move: String(move) }, from);
}

async function refreshHint() {
  $("hint").textContent = "";
  if (!hintOn || !game || !game.hint || game.phase === "over" || game.to_move !== game.seat) return;
  try {
    const hint = await call("GET", `/api/games/${game.game}/hint`);
    if (hint.turn !== game.turn) return;
    const words = { keep: t("move.keep"), exchange: t("move.exchange") };
    const parts = hint.moves.map((m) => `${words[m.move] || label(m.move)} ${percent(m.p)}`);
    colourText($("hint"), t("hint.head") + " " + parts.join("  "));
    for (const m of hint.moves) {
      const node = document.querySelector(`#hand .card[data-card="${m.move}"]`);
      if (node) node.appendChild(el("span", "prob", percent(m.p)));
    }
  } catch (e) {
    $("hint").textContent = e.message;
  }
}

// ----- drawing the table ---------------------------------------------------------------
function show(view) {
  game = view;
  // a reload, or a restarted server, carries on (a table of friends: by its seat link)
  if (!live) sessionStorage.setItem(SAVED_GAME, view.game);
  $("welcome").hidden = true;
  $("table").hidden = false;
  document.body.classList.add("playing");
  $("headline").textContent = view.texts.headline;
  $("lineup").textContent = t("page.against", { lineup: view.lineup });
  drawSeats(view);
  drawFelt(view);
  colourText($("happened"), view.texts.happened);
  $("revealed").textContent = view.texts.revealed;
  drawHand(view);
  drawSummary(view);
  drawDuplicate(view);
  drawRules(view);
  $("tagline").textContent = view.tagline;
  $("typed-label").textContent = view.typed;
  $("your-turn").hidden = !view.my_turn;
  $("hint-switch").hidden = live !== null && !view.hint;  // none at a table of friends
  const records = $("records");
  records.hidden = view.records === 0;
  records.href = withLang(`/api/games/${view.game}/records`);
  records.textContent = t("page.records", { n: view.records });
  if (view.phase !== "over") closeReview();
  document.body.dataset.turn = String(view.turn);
  document.body.dataset.phase = view.phase;
  refreshHint();
  keepFocus(view);
}

function keepFocus(view) {
  // Focus stays where the person's last action was: the text box only after typing in it
  // (on a phone, focusing it raises the keyboard over the cards).
  const options = { preventScroll: true };
  if (view.phase === "over") {
    if (lastAction) $("next").focus(options);
  } else if (lastAction === "typed") {
    $("typed").focus(options);
  } else if (lastAction === "card") {
    const card = document.querySelector("#hand .card.legal");
    if (card) card.focus(options);
  } else if (lastAction === "choice" || lastAction === "next") {
    const button = document.querySelector("#choices button:not(.closed)") || document.querySelector("#hand .card.legal");
    if (button) button.focus(options);
  }
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
      name.appendChild(el("span", "badge turn", t(seat.seat === view.seat ? "flag.your_turn" : "flag.to_play")));
    }
    if (seat.dealer) name.appendChild(el("span", "badge", t("flag.dealer")));
    if (seat.exchanged) name.appendChild(el("span", "badge", t("flag.exchanged")));
    if (seat.sits_out) name.appendChild(el("span", "badge", t("flag.sits_out")));
    who.appendChild(name);
    who.appendChild(el("span", "score", seat.score));
    panel.appendChild(who);
    panel.appendChild(el("div", "facts", seat.facts));
    const played = el("div", "played");
    for (const p of seat.played) played.appendChild(cardNode(p.card, true, p.down));
    panel.appendChild(played);
    seats.appendChild(panel);
  }
}

function drawFelt(view) {
  // A trick just won stays a moment (the pace), or until a tap, before the next is drawn.
  clearTimeout(pauseTimer);
  $("go-on").hidden = true;
  const finished = view.finished;
  const key = finished ? `${view.game}:${view.hand_number}:${finished.trick}` : "";
  const ms = PACES[pace()];
  if (!finished || key === shownTrick || ms === 0 || view.phase !== "play") {
    if (finished) shownTrick = key;
    drawTrick(view, view.current, view.texts.trick);
    return;
  }
  shownTrick = key;
  document.body.dataset.pause = "on";
  drawTrick(view, finished, finished.text);
  const done = () => {
    clearTimeout(pauseTimer);
    $("felt").removeEventListener("click", done);
    $("go-on").hidden = true;
    delete document.body.dataset.pause;
    if (game === view) drawTrick(view, view.current, view.texts.trick);
  };
  $("felt").addEventListener("click", done);
  if (ms > 0) pauseTimer = setTimeout(done, ms);
  else $("go-on").hidden = false;
}

function drawTrick(view, trickView, title) {
  const trick = $("trick");
  trick.textContent = "";
  colourText($("trick-title"), title);
  if (!trickView) return;
  for (const p of trickView.plays) {
    const winning = trickView.winning && trickView.winning.seat === p.seat;
    const slot = el("div", "play" + (winning ? " winning" : ""));
    slot.appendChild(cardNode(p.card, false, p.down));
    const led = trickView.plays.length && trickView.plays[0].seat === p.seat;
    slot.appendChild(el("span", "tag", led ? t("trick.led_tag", { who: view.names[p.seat] }) : view.names[p.seat]));
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
    const reason = item.reason || t("reason.not_your_turn");
    if (item.reason) {
      // Every card of the person's turn says why: on hover (title), on focus and for screen readers.
      node.title = item.reason;
      node.setAttribute("aria-label", `${item.label}: ${item.reason}`);
      node.tabIndex = 0;
      node.addEventListener("focus", () => explain(`${item.label}: ${item.reason}`));
      node.addEventListener("mouseenter", () => explain(`${item.label}: ${item.reason}`));
    }
    if (item.face_down) node.appendChild(el("span", "down-tag", t("card.down_tag")));
    if (item.legal) {
      node.setAttribute("role", "button");
      node.appendChild(el("span", "num", String(item.number)));
      // sent with its suit symbol, which every language reads alike ("10C" is 10 de cœur in French)
      const sent = item.card.slice(0, -1) + SUITS[item.card.slice(-1)];
      node.addEventListener("click", () => play(sent, "card"));
      node.addEventListener("keydown", (e) => { if (e.key === "Enter") play(sent, "card"); });
    } else {
      node.setAttribute("aria-disabled", "true");
      node.addEventListener("click", () => explain(`${item.label}: ${reason}`));
    }
    hand.appendChild(node);
  }
  const choices = $("choices");
  choices.textContent = "";
  for (const c of view.choices) {
    const button = el("button", "", c.legal ? `${c.number}: ${c.label}` : c.label);
    button.type = "button";
    button.dataset.action = c.action;
    button.title = c.reason;
    button.setAttribute("aria-label", `${button.textContent}: ${c.reason}`);
    if (c.legal) button.addEventListener("click", () => play(c.action, "choice"));
    else {
      button.setAttribute("aria-disabled", "true");
      button.classList.add("closed");
      button.addEventListener("click", () => explain(`${c.label}: ${c.reason}`));
    }
    button.addEventListener("focus", () => explain(`${c.label}: ${c.reason}`));
    choices.appendChild(button);
  }
  $("typed-form").hidden = view.phase === "over";
  hand.hidden = view.phase === "over";
}

function drawRules(texts) {
  $("rules-head").textContent = texts.title;
  const body = $("rules-body");
  body.textContent = "";
  for (const section of texts.rules) {
    body.appendChild(el("dt", "", section.heading));
    const text = el("dd");
    colourText(text, section.text);
    body.appendChild(text);
  }
}

function drawSummary(view) {
  const box = $("summary");
  const s = view.summary;
  box.hidden = !s;
  if (!s) return;
  colourText($("summary-head"), s.head);
  colourText($("why-points"), s.why_points);
  colourText($("session-line"), s.session_line);
  const body = box.querySelector("tbody");
  body.textContent = "";
  const column = (key) => t("column." + key);
  view.seats.forEach((seat, i) => {
    const row = el("tr");
    const cell = (cls, text, key) => {
      const td = el("td", cls, text);
      td.dataset.label = column(key);  // the column's name, shown beside the cell on a phone
      row.appendChild(td);
      return td;
    };
    cell("seat-name", seat.name, "seat");
    const cards = cell("cards", undefined, "dealt");
    for (const code of s.dealt[i]) {
      cards.appendChild(el("span", RED_SUITS.has(parseCard(code).suit) ? "red" : "", label(code)));
    }
    if (!s.dealt[i].length) cards.textContent = t("summary.sat_out");
    if (s.exchanged[i]) cards.appendChild(el("span", "", t("summary.exchanged")));
    cell("payoff", (s.payoffs[i] > 0 ? "+" : "") + s.payoffs[i], "payoff");
    cell("why", s.why_payoffs[i], "why");
    cell("score", seat.score, "score");
    if (s.match_chances) cell("chance", percent(s.match_chances[i]), "chance");
    body.appendChild(row);
  });
  $("chance-head").hidden = !s.match_chances;
  $("chance-note").hidden = !s.match_chances;
  $("chance-note").textContent = s.chance_note || "";
  $("session-result").textContent = view.session_result || "";
  $("next").hidden = view.session_over;
  $("review-open").hidden = !view.review;
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
    const data = await call("GET", `/api/games/${asked}/review`);
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
  for (const id of ["report-title", "report-summary", "report-kinds"]) $(id).textContent = "";
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
    const card = play.appendChild(chip(p.card || "░░", p.card ? "" : "back"));  // the table's back
    if (!p.card) card.setAttribute("aria-label", t("card.back"));
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
  if (d.reasons.length || d.unexplained) {
    const list = box.appendChild(el("ul", "reasons"));
    for (const reason of d.reasons) colourText(list.appendChild(el("li")), reason);
    if (d.unexplained) colourText(list.appendChild(el("li", "unexplained")), d.unexplained);
  }
  if (d.disagree) colourText(box.appendChild(el("p", "disagree")), d.disagree);
}

// ----- the session report: every finished hand of the game, its mistakes by kind -----------
async function openReport() {
  if (!game || !game.review) return;
  const asked = game.game;
  $("report-title").textContent = "";
  $("report-kinds").textContent = "";
  $("report-summary").textContent = t("review.report.working");
  try {
    const data = await call("GET", `/api/games/${asked}/report`);
    if (!game || game.game !== asked || $("review").hidden) return;
    $("report-title").textContent = data.title;
    $("report-summary").textContent = data.summary;
    for (const kind of data.kinds) $("report-kinds").appendChild(el("li", "", kind.text));
  } catch (e) {
    $("report-summary").textContent = e.message;
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
  if (text) play(text, "typed");
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
    send("next", {}, "next");
  }
});

document.addEventListener("DOMContentLoaded", () => {
  $("new-game").addEventListener("submit", newGame);
  $("variant").addEventListener("change", () => { fillPlayers(); if ($("rules").open) readRules(); });
  $("read-rules").addEventListener("click", readRules);
  $("rules").addEventListener("toggle", () => {  // opened before a game: the form's game
    if ($("rules").open && !game && !$("rules-body").childElementCount) readRules();
  });
  $("lang").addEventListener("change", () => switchLanguage().catch((e) => say(e.message)));
  $("pace").addEventListener("change", () => localStorage.setItem("spar-pace", $("pace").value));
  $("go-on").addEventListener("click", (e) => { e.stopPropagation(); $("felt").click(); });
  $("typed-form").addEventListener("submit", typed);
  $("form-toggle").addEventListener("click", () => {  // a phone's folded forms, out and back
    const open = document.body.classList.toggle("form-open");
    $("form-toggle").setAttribute("aria-expanded", String(open));
  });
  $("next").addEventListener("click", () => send("next", {}, "next"));
  $("hint-toggle").addEventListener("change", (e) => { hintOn = e.target.checked; refreshHint(); });
  $("review-open").addEventListener("click", openReview);
  $("review-close").addEventListener("click", closeReview);
  $("report-open").addEventListener("click", openReport);
  $("review-prev").addEventListener("click", () => stepReview(-1));
  $("review-next").addEventListener("click", () => stepReview(1));
  $("duplicate-seed").addEventListener("input", (e) => { if (e.target.value.trim()) $("duplicate").checked = true; });
  loaded = loadMessages().then(loadOffer);
  loaded.then(resume).catch((e) => say(e.message));
});

async function resume() {
  // Take up this tab's game where it was: after a reload, or after the server restarted.
  const id = sessionStorage.getItem(SAVED_GAME);
  if (!id || location.hash.startsWith("#table=")) return;  // a table of friends: friends.js
  try {
    show(await call("GET", `/api/games/${encodeURIComponent(id)}`));
  } catch (e) {
    sessionStorage.removeItem(SAVED_GAME);  // expired or unknown: the form starts a new one
  }
}
