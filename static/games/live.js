// The live game page: WebSocket first, polling when sockets are blocked, one renderer per game.
//
// The server sends every participant only their own view ({"type": "state", version,
// status, view, participants, you}); this file keeps the newest one and asks the game's
// renderer module (static/games/<game>.js) to draw it. No build step, no CDN.
//
// Transport: the socket at /ws/sessions/<id>/ is tried first and reconnected with
// backoff (1 s, 2 s, 4 s ... 30 s); after it failed or closed twice in a row, the page
// also polls view.json every 1.5 s until a socket stays open again. Actions go over the
// socket when it is open, else as a POST with the CSRF token.

const t = (text) => (window.gettext ? window.gettext(text) : text);
// A count's words: the catalogue's plural forms (Polish has three), English's two without it.
const nt = (one, many, n) => (window.ngettext ? window.ngettext(one, many, n) : (n === 1 ? one : many));

const POLL_MS = 1500;
const BACKOFF_MAX_MS = 30000;
const FAILURES_BEFORE_POLLING = 2;
const OPEN_TIMEOUT_MS = 5000;
// The server closes with these when the visitor is not in the game: do not retry.
const FINAL_CLOSE_CODES = new Set([4403, 4404]);

const root = document.getElementById("game");
const live = JSON.parse(document.getElementById("game-live").textContent);
let payload = JSON.parse(document.getElementById("game-payload").textContent);

const board = document.getElementById("board");
const connection = document.getElementById("connection");
const errorBox = document.getElementById("game-error");
const announceBox = document.getElementById("announce");
const people = document.getElementById("people");
const peopleCount = document.getElementById("people-count");

let socket = null;
let failures = 0;
let reconnectTimer = null;
let pollTimer = null;
let stopped = false;
let renderer = null;

// A built deck's card faces, by the card's symbols sorted and joined with commas:
// [[key, x, y, size, rotation], ...] in card widths (content.decks.layout). None: a grid.
const faces = live.faces && live.faces.cards ? live.faces : null;

const context = {
  act,
  picture: (key) => live.pictures.replace("KEY", encodeURIComponent(key)),
  // A live quiz's question pictures (null for other games): games.play.quiz_live.views.picture_url_template.
  questionPicture: live.question_pictures
    ? (number, key) => live.question_pictures.replace("NUMBER", String(number)).replace("KEY", encodeURIComponent(key))
    : null,
  face: (symbols) => (faces ? faces.cards[[...symbols].sort().join(",")] || null : null),
  faceShape: faces ? faces.shape : null,
  t,
  nt,
};

function setConnection(text) {
  connection.textContent = text;
}

function showError(text) {
  errorBox.textContent = text || "";
  errorBox.hidden = !text;
}

function announce(text) {
  if (text && announceBox.textContent !== text) announceBox.textContent = text;
}

// --- drawing --------------------------------------------------------------------------------

function accept(next) {
  // Versions only grow; the lobby -> running step keeps version 0, so equal is newer.
  if (!next || typeof next.version !== "number" || next.version < payload.version) return;
  payload = next;
  if (follow()) return;
  draw();
  schedulePractice();
  syncTimer();
}

// Class duels: a student's page goes where the server says their game now is.
let following = false;
function follow() {
  if (!payload.follow || following) return following;
  following = true;
  stopped = true;
  window.location.assign(payload.follow);
  return true;
}

// --- practice alone: the simulated opponent's (or the clock's) next move ---------------------
//
// Nothing runs on the server between requests: the page asks for the opponent's move
// when the payload says it is due, with the version it is answering; the server applies
// it only if that is still the version and its own clock agrees.

let practiceTimer = null;
let clockTimer = null;

function schedulePractice() {
  clearTimeout(practiceTimer);
  const practice = payload.practice;
  if (!practice || payload.status !== "running" || !practice.next) return;
  const version = payload.version;
  practiceTimer = setTimeout(() => askOpponent(version), Math.max(0, practice.wait * 1000) + 100);
}

async function askOpponent(version) {
  if (version !== payload.version) return;
  try {
    const response = await fetch(payload.practice.bot, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRFToken": root.dataset.csrf },
      body: JSON.stringify({ version }),
    });
    const body = await response.json();
    if (response.ok) accept(body);
    else if (body.wait !== undefined && version === payload.version) {
      clearTimeout(practiceTimer);
      practiceTimer = setTimeout(() => askOpponent(version), body.wait * 1000 + 100);
    }
  } catch {
    practiceTimer = setTimeout(() => askOpponent(version), 2000);
  }
}

function drawClock() {
  const box = document.getElementById("practice-clock");
  if (!box || !payload.practice) return;
  const result = payload.practice.result;
  let seconds = result ? result.seconds : Math.floor((Date.now() - clockStart) / 1000);
  const text = (s) => `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
  box.textContent = `${t("Time")}: ${text(seconds)}`;
  if (result) {
    clearInterval(clockTimer);
    const summary = document.getElementById("practice-result");
    if (summary) {
      summary.hidden = false;
      summary.textContent = `${result.won ? t("You won.") : t("The game is over.")} ${t("Named right")}: ${result.named_right} / ${result.named_right + result.named_wrong}. ${t("Time")}: ${text(seconds)}.`;
    }
  }
}
let clockStart = Date.now() - ((payload.practice && payload.practice.elapsed) || 0) * 1000;

function keepFocusAndInput(redraw) {
  const active = document.activeElement;
  const focusKey = active && active.dataset ? active.dataset.focusKey : null;
  const kept = {};
  board.querySelectorAll("[data-keep]").forEach((input) => { kept[input.dataset.keep] = input.value; });
  redraw();
  board.querySelectorAll("[data-keep]").forEach((input) => {
    if (input.dataset.keep in kept) input.value = kept[input.dataset.keep];
  });
  if (focusKey) {
    const again = root.querySelector(`[data-focus-key="${CSS.escape(focusKey)}"]`);
    if (again && !again.disabled) again.focus();
  }
}

// Written out so that makemessages finds each one (games.models.Participant.Role).
function roleLabel(role) {
  switch (role) {
    case "facilitator": return t("facilitator");
    case "spectator": return t("spectator");
    case "bot": return t("simulated opponent");
    case "player": return t("player");
    default: return role;
  }
}

function draw() {
  root.dataset.status = payload.status;
  root.querySelectorAll("[data-when]").forEach((element) => {
    element.hidden = !element.dataset.when.split(" ").includes(payload.status);
  });
  people.replaceChildren(
    ...payload.participants.map((person) => {
      const item = document.createElement("li");
      item.textContent = person.nickname;
      if (person.role !== "player") {
        const role = document.createElement("span");
        role.className = "muted";
        role.textContent = ` (${roleLabel(person.role)})`;
        item.append(role);
      }
      if (person.nickname === payload.you.nickname) item.classList.add("you");
      return item;
    }),
  );
  peopleCount.textContent = String(payload.participants.length);
  if ((payload.view || payload.class) && renderer) {
    keepFocusAndInput(() => announce(renderer.render(board, payload, context)));
  }
}

// --- the timer (ZnajZnak note c) ----------------------------------------------------------------
//
// Every payload carries the seconds left by the server's clock; the page counts down from
// the latest figure (a monotonic clock, so a changed system time does not matter). When it
// reaches zero the page asks the server, which ends the game by time if no worker has yet:
// everyone then sees the end, whoever asked first. Screen readers hear one minute left
// and the end, not every second.

const timerBox = document.getElementById("timer");
const timerClock = document.getElementById("timer-clock");
let timerEnds = null;
let timerTick = null;
let timerAsked = 0;
let minuteAnnounced = false;

function clockText(seconds) {
  const whole = Math.max(0, Math.ceil(seconds));
  return `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, "0")}`;
}

function syncTimer() {
  const timer = payload.timer;
  const running = Boolean(timer && timer.running && payload.status === "running");
  if (timerBox) timerBox.hidden = !running;
  clearInterval(timerTick);
  timerTick = null;
  if (!running) {
    timerEnds = null;
    return;
  }
  timerEnds = performance.now() + timer.remaining * 1000;
  tickTimer();
  timerTick = setInterval(tickTimer, 250);
}

function tickTimer() {
  if (timerEnds === null) return;
  const left = (timerEnds - performance.now()) / 1000;
  const text = clockText(left);
  if (timerClock && timerClock.textContent !== text) {
    timerClock.textContent = text;
    timerClock.setAttribute("aria-label", format(t("%(time)s left"), { time: text }));
  }
  if (timerBox) timerBox.classList.toggle("ending", left <= 60);
  if (left <= 60 && left > 1 && !minuteAnnounced) {
    minuteAnnounced = true;
    announce(left > 55 ? t("One minute left.") : format(t("%(time)s left."), { time: text }));
  }
  // Ask the server once the time is up, then every few seconds until the end arrives.
  const now = performance.now();
  if (left <= 0 && now - timerAsked > 3000) {
    timerAsked = now;
    poll();
  }
}

function format(text, values) {
  return text.replace(/%\((\w+)\)s/g, (_, key) => String(values[key] ?? ""));
}

// --- acting ----------------------------------------------------------------------------------

async function act(action) {
  showError("");
  if (socket && socket.readyState === WebSocket.OPEN) {
    socket.send(JSON.stringify({ type: "action", action }));
    return;
  }
  try {
    const response = await fetch(live.actions, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRFToken": root.dataset.csrf },
      body: JSON.stringify(action),
    });
    const body = await response.json();
    if (response.ok) accept(body);
    else showError(body.reason || t("The action was refused."));
  } catch {
    showError(t("No connection: the action was not sent. Try again."));
  }
}

// --- the socket ---------------------------------------------------------------------------------

function connect() {
  if (stopped || !("WebSocket" in window)) {
    startPolling();
    return;
  }
  const scheme = window.location.protocol === "https:" ? "wss:" : "ws:";
  let opened = false;
  try {
    socket = new WebSocket(`${scheme}//${window.location.host}${live.socket}`);
  } catch {
    socket = null;
    failures += 1;
    scheduleReconnect();
    return;
  }
  // A proxy that swallows the upgrade leaves the socket connecting for minutes: give up sooner.
  const opening = socket;
  const giveUp = setTimeout(() => { if (!opened) opening.close(); }, OPEN_TIMEOUT_MS);
  socket.addEventListener("open", () => {
    clearTimeout(giveUp);
    opened = true;
    failures = 0;
    stopPolling();
    setConnection(t("Live"));
    socket.send(JSON.stringify({ type: "resume", version: payload.version }));
  });
  socket.addEventListener("message", (event) => {
    let message;
    try { message = JSON.parse(event.data); } catch { return; }
    if (message.type === "state") accept(message);
    else if (message.type === "error") showError(message.reason);
  });
  socket.addEventListener("close", (event) => {
    clearTimeout(giveUp);
    socket = null;
    if (FINAL_CLOSE_CODES.has(event.code)) {
      stopped = true;
      setConnection(t("You are not in this game."));
      return;
    }
    if (!opened || event.code !== 1000) failures += 1;
    scheduleReconnect();
  });
}

function scheduleReconnect() {
  if (failures >= FAILURES_BEFORE_POLLING) startPolling();
  else setConnection(t("Reconnecting…"));
  clearTimeout(reconnectTimer);
  const delay = Math.min(1000 * 2 ** Math.max(failures - 1, 0), BACKOFF_MAX_MS);
  reconnectTimer = setTimeout(connect, delay);
}

// --- polling ----------------------------------------------------------------------------------

function startPolling() {
  if (pollTimer) return;
  setConnection(t("Updating every 2 seconds (no live connection)."));
  pollTimer = setInterval(poll, POLL_MS);
  poll();
}

function stopPolling() {
  clearInterval(pollTimer);
  pollTimer = null;
}

async function poll() {
  const url = new URL(live.view, window.location.href);
  // In the lobby the people change while the version stays 0: always ask for everything.
  if (payload.status !== "lobby") url.searchParams.set("since", String(payload.version));
  try {
    const response = await fetch(url, { credentials: "same-origin", cache: "no-store" });
    if (response.status === 403) {
      stopPolling();
      stopped = true;
      setConnection(t("You are not in this game."));
      return;
    }
    const body = await response.json();
    if (!body.unchanged) accept(body);
  } catch {
    // Offline for a moment; the next tick tries again.
  }
}

// --- start ----------------------------------------------------------------------------------------

renderer = await import(live.renderer);
if (!follow()) {
  draw();
  schedulePractice();
  syncTimer();
  if (payload.practice) {
    drawClock();
    clockTimer = setInterval(drawClock, 1000);
  }
  connect();
}
