// Tables of friends on the page: the form that makes one, the invitation a friend opens, the
// lobby where the seats fill, and the seat's live connection (a WebSocket, apps/web/live.py),
// which brings the seat's views, drawn by table.js's show() as a game of one's own is, and
// carries the seat's moves (table.js's send() hands them to `live`).
// A seat is held by its key, which never goes in a request URL: the seat's own link keeps it
// in the fragment (#table=ID&key=KEY; a browser never sends a fragment), this browser keeps
// it in localStorage (so a closed tab or a reload comes back to the seat), and the server
// is told it only as the WebSocket's first message. Every word comes from the catalogue.
"use strict";

const TIMERS = [5, 15, 30, 60, 120]; // the turn timer's choices, in seconds
const DEFAULT_TIMER = 60;
const SEAT_KEYS = "spar-seats"; // {table id: key}: the seats this browser holds
const MY_NAME = "spar-name"; // the name last chosen, offered again
const RETRY_MS = [500, 1000, 2000, 4000, 8000, 15000]; // waits before connecting again
const BAD_KEY = 4403; // the server closed: this key holds no seat there...
const NO_TABLE = 4404; // ...there is no such table...
const ELSEWHERE = 4409; // ...or the seat was opened in more tabs than it may hold
const SILENT = 4408; // the connection said no hello in time (its reason says so): try again
const CROWDED = [4429, 4503]; // too many connections, from here or in all: try again, later
const LOOPBACK = /^(localhost|127\.[\d.]+|\[::1\])$/; // an address only this machine reaches

const seat = {
  table: null, // the table's id (an invitation's, before a seat is taken)
  key: null, // this browser's key to a seat of it, or null
  socket: null,
  retries: 0, // connections tried since the last view
  retry: null, // the timer of the next try
  lost: false, // the connection dropped: its line is on the page
  said: "", // the server's last error
  deadline: null, // performance.now() when the turn timer runs out, or null
};
let clockTimer = null;

// ----- links and keys ----------------------------------------------------------------
function keys() {
  try {
    return JSON.parse(localStorage.getItem(SEAT_KEYS)) || {};
  } catch (e) {
    return {};
  }
}

function keepKey(table, key) {
  const all = keys();
  all[table] = key;
  localStorage.setItem(SEAT_KEYS, JSON.stringify(all));
}

function forgetKey(table) {
  const all = keys();
  delete all[table];
  localStorage.setItem(SEAT_KEYS, JSON.stringify(all));
}

function pageAddress() {
  return location.origin + location.pathname;
}

function invitation(table) {
  return `${pageAddress()}#table=${encodeURIComponent(table)}`;
}

function seatLink(table, key) {
  return `${invitation(table)}&key=${encodeURIComponent(key)}`;
}

function openLink() {
  // The page's link names a table: its seat (a key in the link, or kept by this browser),
  // else its invitation. The address bar is left with the invitation: no key to share by
  // mistake. Whether the link named a table.
  const link = new URLSearchParams(location.hash.replace(/^#/, ""));
  const table = link.get("table");
  if (!table) return false;
  if (link.get("key")) keepKey(table, link.get("key"));
  history.replaceState(null, "", invitation(table));
  const key = keys()[table];
  if (key && seat.table === table && seat.key === key && seat.socket) return true;  // there
  if (key) sit(table, key);
  else invite(table);
  return true;
}

// ----- making a table, taking a seat ---------------------------------------------------
function fillTableForm() {
  const players = Number($("players").value) || 2;
  const people = Math.min(Number($("people").value) || 2, players);
  const counts = Array.from({ length: players - 1 }, (_, i) => String(i + 2));
  fillSelect($("people"), counts.map((n) => [n, n]), String(people));
  const timer = Number($("timer").value) || DEFAULT_TIMER;
  fillSelect($("timer"), TIMERS.map((s) => [String(s), t("friends.seconds", { n: s })]), String(timer));
}

async function makeTable(event) {
  event.preventDefault();
  $("form-message").textContent = "";
  const form = formValues();
  delete form.duplicate;  // a table of friends plays no duplicate challenge
  form.people = Number($("people").value);
  form.timer = Number($("timer").value);
  form.name = $("my-name").value;
  try {
    const made = await call("POST", "/api/tables", form);
    localStorage.setItem(MY_NAME, form.name.trim());
    $("friends").open = false;
    sit(made.table, made.key);
  } catch (e) {
    $("form-message").textContent = e.message;
  }
}

async function invite(table) {
  // The invitation: who invites, to what game, the seats; a name to type and a seat to take.
  disconnect();
  live = null;
  game = null;
  Object.assign(seat, { table, key: null });
  showLobby();
  clearLobby();
  $("seat-link-box").hidden = true;
  try {
    const info = await call("GET", `/api/tables/${encodeURIComponent(table)}`);
    if (seat.table === table && !seat.key) drawLobby(info);
  } catch (e) {
    tell(e.message);
  }
}

async function takeSeat(event) {
  event.preventDefault();
  const table = seat.table;
  const name = $("friend-name").value;
  try {
    const taken = await call("POST", `/api/tables/${encodeURIComponent(table)}/seats`, { name });
    localStorage.setItem(MY_NAME, name.trim());
    sit(taken.table, taken.key);
  } catch (e) {
    tell(e.message);
  }
}

// ----- the live connection -------------------------------------------------------------
function sit(table, key) {
  // Hold the seat of `key` at `table`: its link kept, its connection open.
  disconnect();
  keepKey(table, key);
  history.replaceState(null, "", invitation(table));  // a reload comes back to the seat
  Object.assign(seat, { table, key, retries: 0, lost: false });
  live = { act, language: sayLanguage, leave };
  game = null;
  say("");
  showLobby();
  clearLobby();
  $("seat-link").value = seatLink(table, key);
  $("seat-link-box").hidden = false;
  $("seat-link-box").open = true;  // shown before the match; folded once it runs
  connect();
}

function connect() {
  clearTimeout(seat.retry);
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  const socket = new WebSocket(`${scheme}//${location.host}/api/tables/${encodeURIComponent(seat.table)}/live`);
  seat.socket = socket;
  socket.addEventListener("open", () => socket.send(JSON.stringify({ key: seat.key, lang })));
  socket.addEventListener("message", (event) => {
    if (socket === seat.socket) receive(JSON.parse(event.data));
  });
  socket.addEventListener("close", (event) => {
    if (socket === seat.socket) closed(event.code, event.reason);
  });
}

function receive(message) {
  busy = false;
  if (message.type === "error") {
    seat.said = message.error;
    tell(message.error);
    return;
  }
  if (message.type !== "view") return;
  const view = message.view;
  seat.retries = 0;
  if (seat.lost) tell("");
  seat.lost = false;
  setDeadline(view.friends.deadline_in);
  if (view.phase === "waiting") {
    game = null;
    showLobby();
    drawLobby(view.friends);
    return;
  }
  $("lobby").hidden = true;
  if (!game) $("seat-link-box").open = false;
  show(view);
  if (view.warning) say(view.warning);  // the table's records cannot be written: every seat is told
  $("friends-bar").hidden = false;
  $("lineup").textContent = t("friends.lineup", { lineup: view.lineup });
  $("again").hidden = !view.session_over;
  tick();
}

function closed(code, reason) {
  // The connection ended: come back with a growing wait, unless the server said it is over.
  seat.socket = null;
  busy = false;
  if (live === null) return;
  if (code === BAD_KEY || code === NO_TABLE) {  // the invitation, if any, and why
    const said = seat.said;
    forgetKey(seat.table);
    invite(seat.table).then(() => { if (code === BAD_KEY) tell(said); });
    return;
  }
  if (code === ELSEWHERE) {
    tell(t("friends.elsewhere"));
    return;
  }
  if (CROWDED.includes(code)) seat.retries = Math.max(seat.retries, 3);  // 4 s or more
  const wait = RETRY_MS[Math.min(seat.retries, RETRY_MS.length - 1)];
  seat.retries += 1;
  seat.lost = true;
  const again = t("friends.lost", { n: Math.ceil(wait / 1000) });
  const why = (code === SILENT || CROWDED.includes(code)) && reason ? `${reason}; ` : "";
  tell(why + again);
  seat.retry = setTimeout(connect, wait);
}

function act(what, body) {
  // A move, the next hand, the early start or another match: {do: what, ...body}.
  tell("");
  const socket = seat.socket;
  if (!socket || socket.readyState !== WebSocket.OPEN) {  // connecting, or coming back
    busy = false;
    if (!socket && !seat.lost) connect();  // let go to another tab: this one takes it back
    return;
  }
  socket.send(JSON.stringify({ do: what, ...(body || {}) }));
}

function sayLanguage() {
  // The views again, in the page's new language (a reconnection says it in its hello).
  const socket = seat.socket;
  if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify({ lang }));
}

function disconnect() {
  clearTimeout(seat.retry);
  const socket = seat.socket;
  seat.socket = null;
  if (socket) socket.close(1000);
  stopClock();
}

function leave() {
  // A game of one's own instead: the connection ends, the seat stays this browser's.
  disconnect();
  live = null;
  Object.assign(seat, { table: null, key: null, lost: false });
  for (const id of ["lobby", "friends-bar", "seat-link-box", "again"]) $(id).hidden = true;
  history.replaceState(null, "", pageAddress());
}

function tell(text) {
  // A line for the person: the lobby's, before the match; the table's message line after.
  if (!$("lobby").hidden) $("lobby-message").textContent = text || "";
  else say(text);
}

// ----- the lobby -------------------------------------------------------------------------
function showLobby() {
  const first = $("lobby").hidden;
  $("lobby").hidden = false;
  $("welcome").hidden = true;
  $("table").hidden = true;
  document.body.classList.add("playing");  // on a phone, the form folds up
  document.body.dataset.phase = "waiting";
  if (first) $("lobby").scrollIntoView({ block: "start" });
}

function clearLobby() {
  for (const id of ["lobby-head", "lobby-game", "lobby-about", "lobby-seats", "lobby-note", "lobby-message"]) {
    $(id).textContent = "";
  }
  for (const id of ["take-seat", "invite-row", "start-now"]) $(id).hidden = true;
}

function seatLabel(info, s) {
  if (!s.person) return t("friends.seat.bot");
  if (!s.taken) return t("friends.seat.free");
  const name = s.name || t("friends.seat.friend");
  return s.seat === info.you ? t("friends.seat.you", { name }) : name;
}

function drawLobby(info) {
  const seated = info.you !== undefined;
  const maker = info.seats[0].name;
  const what = t("friends.head", { game: info.title, players: info.players });
  const people = info.seats.filter((s) => s.person).length;
  const invited = maker ? t("friends.invited", { name: maker }) : t("friends.invited_anonymous");
  $("lobby-head").textContent = seated ? what : invited;
  $("lobby-game").textContent = seated ? "" : what;
  $("lobby-game").hidden = seated;
  $("lobby-about").textContent = t("friends.about", { people, lineup: info.lineup, timer: info.timer });
  const list = $("lobby-seats");
  list.textContent = "";
  for (const s of info.seats) {
    const item = el("li", !s.person ? "bot" : s.taken ? "taken" : "free");
    if (s.seat === info.you) item.classList.add("me");
    item.dataset.seat = String(s.seat);
    item.appendChild(el("span", "where", t("seat.other", { seat: s.seat })));
    item.appendChild(el("span", "who", seatLabel(info, s)));
    list.appendChild(item);
  }
  $("take-seat").hidden = seated || info.free === 0;
  if (!seated && !$("friend-name").value) $("friend-name").value = localStorage.getItem(MY_NAME) || "";
  let note = "";
  if (!info.free && !seated) note = t("friends.full");
  else if (info.started) note = t("friends.next_match");
  else if (seated) note = t("friends.waiting_for", { n: info.free });
  if (seated && info.you === 0 && !info.started) note += " " + t("friends.start_note");
  note = note.trim();
  $("lobby-note").textContent = note;
  $("invite-row").hidden = !seated || info.free === 0;
  $("invite-link").value = invitation(info.table);
  $("invite-note").hidden = !LOOPBACK.test(location.hostname);
  $("start-now").hidden = !(seated && info.you === 0 && !info.started);
}

// ----- the turn timer ----------------------------------------------------------------------
function setDeadline(seconds) {
  // The seconds the view said are left, counted down here.
  seat.deadline = seconds === null || seconds === undefined ? null : performance.now() + seconds * 1000;
  if (clockTimer === null) clockTimer = setInterval(tick, 250);
  tick();
}

function stopClock() {
  clearInterval(clockTimer);
  clockTimer = null;
  seat.deadline = null;
  $("friends-clock").textContent = "";
}

function tick() {
  const clock = $("friends-clock");
  const view = game;
  if (!live || !view || seat.deadline === null) {
    clock.textContent = "";
    return;
  }
  const n = Math.max(0, Math.ceil((seat.deadline - performance.now()) / 1000));
  let text = "";
  if (view.phase === "over") text = view.session_over ? "" : t("friends.clock.next", { n });
  else if (view.my_turn) text = t("friends.clock.you", { n });
  else if (view.to_move >= 0) text = t("friends.clock.other", { who: view.names[view.to_move], n });
  clock.textContent = text;
  clock.dataset.left = String(n);
  clock.classList.toggle("mine", view.my_turn);
}

// ----- copying a link ----------------------------------------------------------------------
async function copy(button) {
  const input = $(button.dataset.copy);
  input.select();
  try {
    await navigator.clipboard.writeText(input.value);
  } catch (e) {
    document.execCommand("copy");  // a page not served securely has no clipboard API
  }
  button.textContent = t("friends.copied");
  setTimeout(() => { button.textContent = t("friends.copy"); }, 2000);
}

document.addEventListener("DOMContentLoaded", () => {
  $("new-table").addEventListener("submit", makeTable);
  $("take-seat").addEventListener("submit", takeSeat);
  $("start-now").addEventListener("click", () => act("start"));
  $("again").addEventListener("click", () => act("again"));
  for (const button of document.querySelectorAll("button.copy")) {
    button.addEventListener("click", () => copy(button));
  }
  $("variant").addEventListener("change", fillTableForm);
  $("players").addEventListener("change", fillTableForm);
  window.addEventListener("hashchange", openLink);
  document.addEventListener("spar:messages", () => {
    $("seat-link").setAttribute("aria-label", t("friends.your_link"));
    if (offer) fillTableForm();
    if (seat.table && !seat.key) invite(seat.table);  // the invitation, in the new language
  });
  $("my-name").value = localStorage.getItem(MY_NAME) || "";
  loaded.then(() => {
    fillTableForm();
    openLink();
  }).catch((e) => say(e.message));
});
