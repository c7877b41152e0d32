// Activity on the projector, the facilitator's screen and the players' phones: draws a
// participant's view (games.engines.activity.player_view) on the shared session page.
//
// Screens (one module, chosen by who looks):
// - projector: the facilitator's page with ?screen=projector — the snake board, whose turn,
//   the form, the hourglass with a sound at the end, the last outcomes; no buttons but
//   "Show the term" for a representative who has no phone.
// - facilitator: the same, and the buttons of the table (draw, outcomes, undo, pause).
// - representative's phone: the term and the form's rules, ~10 s to memorise, then the
//   hourglass; the players' phones: the board, the form and the hourglass, never the term
//   (the server never sends it to them).
//
// The chain (no hourglass) gets a countdown of chain_seconds a word, from the server's state, on the facilitator's screens,
// naming whose representative forms the next word; the facilitator restarts it for each new
// word (its button, or Page Down / → as a presenter's clicker sends). It only helps the table:
// the outcome is still recorded with the buttons. The server keeps the word and when its
// seconds started (the chain_word action), so a projector on another computer, or a page
// reloaded mid-chain, counts down the same word.
//
// Sound: browsers play it only after a click or a key press on the page, so the screens that
// beep show a hint with a "Turn the sound on" button until the sound is enabled.
//
// The hourglass is the server's: the view holds when it was turned and the seconds left
// then (by the server's clock, read once from clock.json); every screen counts down from
// them. Actions go to /games/activity/<id>/act, which stamps them with the server's clock.
import { el, svg, format } from "./dom.js";

const live = JSON.parse(document.getElementById("activity-live").textContent);
const gameRoot = document.getElementById("game");
const errorBox = document.getElementById("game-error");
const timerNews = document.getElementById("activity-timer-news");
const chainNews = document.getElementById("activity-chain-news");
const projector = new URLSearchParams(window.location.search).get("screen") === "projector";
// The second screen is the projector view (static/talia/screen.js) without being remembered: the
// facilitator's own page in this browser keeps the view it had.
if (projector) document.documentElement.dataset.view = "projector";
const t = (text) => (window.gettext ? window.gettext(text) : text);
const nt = (one, many, n) => (window.ngettext ? window.ngettext(one, many, n) : (n === 1 ? one : many));

const AREAS = "ABCDEF";
const TARGET = 49;
const PER_ROW = 10;
const TEAM_COLOURS = ["#1d4ed8", "#a3122a", "#1b6e2a", "#6b21a8"];

let offset = 0; // server clock minus this device's clock, in ms
let shown = null; // the payload on screen
let revealed = null; // the task the facilitator chose to show the term of
let tick = null;
let memoriseTimer = null;
let lastNews = "";
let beeped = null;
let outDrawn = null; // the version whose controls were drawn again when its hourglass ran out
let audio = null;
let chain = null; // the chain's countdown: {version, index (0: the drawer's word), ends (ms, Date.now)}
let chainTick = null;
let chainCtx = null; // the render's context, for the "new word" action of the button and the keys

// --- the server's clock and acting ------------------------------------------------------------------

async function syncClock() {
  try {
    const before = Date.now();
    const response = await fetch(live.clock, { cache: "no-store", credentials: "same-origin" });
    const body = await response.json();
    const after = Date.now();
    offset = body.now * 1000 - (before + after) / 2;
  } catch {
    offset = 0;
  }
}

const serverNow = () => (Date.now() + offset) / 1000;

function showError(text) {
  if (!errorBox) return;
  errorBox.textContent = text || "";
  errorBox.hidden = !text;
}

async function post(url, body, ctx) {
  showError("");
  unlockAudio();
  try {
    const response = await fetch(url, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRFToken": gameRoot.dataset.csrf },
      body: JSON.stringify(body),
    });
    const answer = await response.json();
    if (!response.ok) {
      showError(answer.reason || t("The action was refused."));
      return null;
    }
    if (answer.view && ctx && shown && answer.version >= shown.version) {
      // The page's own socket brings the same version too; draw it now rather than wait.
      const board = document.getElementById("board");
      const news = render(board, answer, ctx);
      if (news) announce(news);
    }
    return answer;
  } catch {
    showError(t("No connection: the action was not sent. Try again."));
    return null;
  }
}

function act(action, ctx) {
  return post(live.act, action, ctx);
}

function announce(text) {
  const box = document.getElementById("announce");
  if (box && text && box.textContent !== text) box.textContent = text;
}

function timerAnnounce(text) {
  if (timerNews && text && timerNews.textContent !== text) timerNews.textContent = text;
}

function chainAnnounce(text) {
  if (chainNews && text && chainNews.textContent !== text) chainNews.textContent = text;
}

// --- sound: the hourglass has run out (WebAudio, no file needed) -------------------------------------

const soundReady = () => Boolean(audio && audio.state === "running");

function unlockAudio() {
  const Context = window.AudioContext || window.webkitAudioContext;
  if (!Context || soundReady()) return;
  if (!audio) audio = new Context();
  if (audio.state === "suspended") audio.resume().then(soundHintUpdate, () => {});
  soundHintUpdate();
}

// The hint goes once the sound plays; the focus, if it was on the hint's button, moves on.
function soundHintUpdate() {
  const hint = document.getElementById("activity-sound");
  if (!hint || !soundReady()) return;
  const hadFocus = hint.contains(document.activeElement);
  hint.remove();
  if (hadFocus) focusFallback(gameRoot);
}

function beeps(view) {
  return shown.you.role === "facilitator" || Boolean(view.task && view.task.presenter === shown.you.player);
}

function soundHint(view) {
  if (view.terminal || soundReady() || !beeps(view) || !(window.AudioContext || window.webkitAudioContext)) return null;
  return el("p", { className: "activity-sound", id: "activity-sound" },
    t("The sound at the end of the time plays only after a click or a key press on this page."), " ",
    el("button", { type: "button", className: "secondary", "data-focus-key": "sound", onclick: unlockAudio }, t("Turn the sound on")));
}

function beep(delays = [0, 0.35, 0.7]) {
  if (!soundReady()) return;
  const start = audio.currentTime;
  delays.forEach((delay, index) => {
    const tone = audio.createOscillator();
    const gain = audio.createGain();
    tone.type = "square";
    tone.frequency.value = index === 2 ? 660 : 880;
    gain.gain.setValueAtTime(0.0001, start + delay);
    gain.gain.exponentialRampToValueAtTime(0.3, start + delay + 0.02);
    gain.gain.exponentialRampToValueAtTime(0.0001, start + delay + 0.3);
    tone.connect(gain).connect(audio.destination);
    tone.start(start + delay);
    tone.stop(start + delay + 0.32);
  });
}

// Not once: a gesture the browser did not count (or one before the page could play) is
// followed by others; unlockAudio does nothing once the sound plays. A click, not a
// pointerdown: the hint goes at once, and the page moving under a pressed pointer would
// take the click away from the button it was meant for.
document.addEventListener("click", unlockAudio);
document.addEventListener("keydown", unlockAudio);

// --- names ----------------------------------------------------------------------------------------

function team(view, id) {
  return view.teams.find((entry) => entry.id === id);
}

function teamName(view, id) {
  const found = team(view, id);
  return found ? found.name : id;
}

function playerName(view, id) {
  for (const entry of view.teams) {
    const player = entry.players.find((p) => p.id === id);
    if (player) return player.name;
  }
  return id;
}

function formLabel(form) {
  switch (form) {
    case "draw": return t("Draw");
    case "describe": return t("Describe");
    case "mime": return t("Mime");
    case "chain": return t("Chain");
    case "rhyme": return t("Rhyme");
    default: return form || "";
  }
}

function formRules(form) {
  switch (form) {
    case "draw": return t("Draw the term. No speaking, and no instructions to teammates by gesture. The drawing may contain no digits and no letters.");
    case "describe": return t("Describe the term in words. The word itself, any part of it, and any word derived from it may not be used.");
    case "mime": return t("Show the term in pantomime. No speaking, no sounds of any kind, no using objects or pointing at them. Pointing at parts of your own body is allowed.");
    case "chain": return t("Read the word aloud and at once form a new word that begins with its end (the last one or two syllables). Each team's representative in turn does the same within about 5 seconds; the team with the last valid word moves 4 fields.");
    case "rhyme": return t("Read the term silently and make up the first line of a verse ending in a word that rhymes with it; your teammate completes the verse with a line ending in the term. Guessed in time: 5 fields.");
    default: return "";
  }
}

function fieldLabel(position) {
  if (position <= 0) return t("start");
  if (position >= TARGET) return t("target area");
  return `${AREAS[Math.floor((position - 1) / 8)]}${((position - 1) % 8) + 1}`;
}

// --- the board: a snake of fields, drawn as SVG ----------------------------------------------------

function fieldBox(position) {
  const row = Math.floor(position / PER_ROW);
  const column = position % PER_ROW;
  const x = row % 2 === 0 ? column : PER_ROW - 1 - column;
  return { x: x * 60 + 4, y: row * 60 + 4 };
}

function boardSvg(view) {
  const rows = Math.ceil((TARGET + 1) / PER_ROW);
  const width = PER_ROW * 60 + 8;
  const height = rows * 60 + 8;
  const positions = view.teams.map((entry) => `${entry.name}: ${fieldLabel(entry.position)}`).join(", ");
  const picture = svg("svg", {
    viewBox: `0 0 ${width} ${height}`,
    role: "img",
    "aria-label": format(t("The board. %(positions)s."), { positions }),
    class: "activity-board-svg",
  });
  // The track first, so that the fields lie on it.
  const path = [];
  for (let position = 0; position <= TARGET; position += 1) {
    const box = fieldBox(position);
    path.push(`${position ? "L" : "M"}${box.x + 28} ${box.y + 28}`);
  }
  picture.append(svg("path", { d: path.join(" "), class: "track", fill: "none" }));
  for (let position = 0; position <= TARGET; position += 1) {
    const box = fieldBox(position);
    let kind = "start";
    let label = t("Start");
    if (position >= TARGET) {
      kind = "target";
      label = t("Target");
    } else if (position > 0) {
      const area = AREAS[Math.floor((position - 1) / 8)];
      kind = `area-${area}`;
      label = `${area}${((position - 1) % 8) + 1}`;
    }
    const group = svg("g", { class: `field ${kind}` });
    group.append(svg("rect", { x: box.x, y: box.y, width: 56, height: 56, rx: 8 }));
    const text = svg("text", { x: box.x + 28, y: box.y + 18, "text-anchor": "middle" });
    text.textContent = label;
    group.append(text);
    picture.append(group);
  }
  // The pieces: a coloured disc with the team's number, side by side on a shared field.
  const byField = {};
  view.teams.forEach((entry, index) => {
    (byField[entry.position] = byField[entry.position] || []).push(index);
  });
  for (const [position, indexes] of Object.entries(byField)) {
    const box = fieldBox(Number(position));
    indexes.forEach((index, k) => {
      const cx = box.x + 14 + (k % 2) * 28;
      const cy = box.y + 34 + Math.floor(k / 2) * 12 - (indexes.length > 2 ? 6 : 0);
      const isTurn = view.teams[index].id === view.turn;
      const piece = svg("g", { class: `piece${isTurn ? " turn" : ""}` });
      piece.append(svg("circle", { cx, cy, r: indexes.length > 2 ? 9 : 12, fill: TEAM_COLOURS[index % 4] }));
      const number = svg("text", { x: cx, y: cy + 5, "text-anchor": "middle", class: "piece-number" });
      number.textContent = String(index + 1);
      piece.append(number);
      picture.append(piece);
    });
  }
  return picture;
}

function standings(view) {
  return el(
    "ol", { className: "activity-teams-list", "aria-label": t("Teams and their fields") },
    ...view.teams.map((entry, index) => el(
      "li", { className: entry.id === view.turn ? "turn" : "" },
      el("span", { className: "swatch", style: `background:${TEAM_COLOURS[index % 4]}`, "aria-hidden": "true" }, String(index + 1)),
      el("strong", {}, entry.name),
      ` · ${fieldLabel(entry.position)}`,
      entry.area ? ` (${formLabel(view.board.forms[entry.area])})` : "",
      entry.finalist ? el("span", { className: "badge" }, t("final task")) : null,
      view.variant === "teams" ? el("span", { className: "muted" }, ` · ${t("representative")}: ${playerName(view, entry.representative)}`) : null,
    )),
  );
}

// --- the hourglass ------------------------------------------------------------------------------------

function remaining(view) {
  const glass = view.hourglass;
  if (!glass || glass.left === null || glass.left === undefined) return null;
  if (glass.paused || glass.started_at === null) return Math.max(glass.left, 0);
  return Math.max(glass.left - Math.max(serverNow() - glass.started_at, 0), 0);
}

// The hourglass has run out, by the server's numbers (its clock, when it was turned, the
// seconds left): a guess is no longer recorded (the server refuses it), time up is.
function hourglassOut(view) {
  const glass = view.hourglass;
  return view.phase === "presenting" && Boolean(glass) && !glass.paused && glass.started_at !== null && remaining(view) === 0;
}

function clockText(seconds) {
  const whole = Math.max(0, Math.ceil(seconds));
  return `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, "0")}`;
}

function hourglassBox(view) {
  if (view.phase === "memorise") {
    const from = view.hourglass && view.hourglass.memorise_from;
    return el("div", { className: "hourglass memorise", id: "activity-hourglass" },
      el("span", { className: "hourglass-label" }, t("Memorising")),
      el("span", { className: "hourglass-clock", id: "activity-clock" }, from ? clockText(view.memorise_seconds) : "…"),
    );
  }
  if (view.phase !== "presenting") return null;
  const left = remaining(view);
  const paused = view.hourglass && view.hourglass.paused;
  const out = hourglassOut(view);
  return el("div", { className: `hourglass${paused ? " paused" : ""}${out ? " ending out" : ""}`, id: "activity-hourglass" },
    el("span", { className: "hourglass-label", id: "activity-hourglass-label" }, paused ? t("Hourglass paused") : out ? t("Time is up!") : t("Hourglass")),
    el("span", { className: "hourglass-clock", id: "activity-clock", role: "timer", "aria-live": "off" },
      left === null ? `${view.timer} s` : clockText(left)),
    el("span", { className: "hourglass-bar", "aria-hidden": "true" },
      el("span", { id: "activity-bar", style: `width:${left === null ? 100 : (100 * left) / view.timer}%` })),
  );
}

function startTicking(view, ctx) {
  clearInterval(tick);
  clearTimeout(memoriseTimer);
  const glass = view.hourglass || {};
  const key = `${view.version}`;
  if (view.phase === "memorise" && glass.memorise_from) {
    const ends = glass.memorise_from + view.memorise_seconds;
    const update = () => {
      const clock = document.getElementById("activity-clock");
      if (clock) clock.textContent = clockText(ends - serverNow());
    };
    update();
    tick = setInterval(update, 250);
    // The representative's phone turns the hourglass on time; the facilitator's screens a
    // moment later, should that phone have gone quiet. The server turns it once.
    const me = shown.you;
    const presenter = view.task && view.task.presenter === me.player;
    const backup = me.role === "facilitator" ? (projector ? 2500 : 1500) : null;
    if (presenter || backup !== null) {
      const wait = Math.max(0, (ends - serverNow()) * 1000) + (presenter ? 150 : backup);
      memoriseTimer = setTimeout(() => {
        if (shown && shown.version === view.version && shown.view.phase === "memorise") {
          post(live.hourglass, { version: shown.version }, ctx);
        }
      }, wait);
    }
    return;
  }
  if (view.phase !== "presenting") return;
  let announced10 = false;
  let announcedHalf = false;
  const update = () => {
    const left = remaining(view);
    const clock = document.getElementById("activity-clock");
    const bar = document.getElementById("activity-bar");
    if (left === null || !clock) return;
    clock.textContent = clockText(left);
    if (bar) bar.style.width = `${(100 * left) / view.timer}%`;
    const box = document.getElementById("activity-hourglass");
    if (box) box.classList.toggle("ending", left <= 10);
    if (view.hourglass.paused) return;
    if (!announcedHalf && view.timer >= 40 && left <= view.timer / 2 && left > 10) {
      announcedHalf = true;
      timerAnnounce(format(t("Half the time is gone: %(time)s left."), { time: clockText(left) }));
    }
    if (!announced10 && left <= 10 && left > 0) {
      announced10 = true;
      timerAnnounce(t("10 seconds left."));
    }
    if (left <= 0 && beeped !== key) {
      beeped = key;
      timerAnnounce(t("Time is up!"));
      if (beeps(view)) beep();
      clearInterval(tick);
    }
    if (left <= 0 && outDrawn !== key && shown && shown.view === view) {
      // Draw the page again: the label says so and the buttons follow (no guess in time now).
      outDrawn = key;
      const board = document.getElementById("board");
      if (board) render(board, shown, ctx);
    }
  };
  update();
  if (!view.hourglass.paused && view.hourglass.started_at !== null) tick = setInterval(update, 250);
}

// --- the chain's countdown: chain_seconds a word, round the teams in the chain's order -------------

// Who forms word ``index``: the drawer first ("reads the word aloud and at once forms a new
// word"), then each team's representative in turn (task.guessers is the chain's order).
function chainSpeaker(view, index) {
  const order = view.task.guessers;
  const teamId = order[index % order.length];
  const player = index % order.length === 0 ? view.task.presenter : team(view, teamId).representative;
  return { team: teamName(view, teamId), who: playerName(view, player) };
}

function chainStartText(view) {
  const speaker = chainSpeaker(view, chain.index);
  return format(t("Word %(n)s: %(who)s (%(team)s), %(s)s seconds."), { n: chain.index + 1, ...speaker, s: view.chain_seconds });
}

function chainOverText(view) {
  const late = chainSpeaker(view, chain.index);
  if (chain.index === 0) return format(t("Time is up for %(team)s: the chain did not start."), late);
  return format(t("Time is up for %(team)s: %(last)s formed the last valid word."), { team: late.team, last: chainSpeaker(view, chain.index - 1).team });
}

function chainFacilitating(view) {
  return view.phase === "chain" && !view.terminal && shown.you.role === "facilitator";
}

// A new word: the speaker formed it, so the next one has chain_seconds. The server records
// it (chain_word) and every screen, on any computer, draws the countdown from its state.
function chainNext() {
  if (!shown || !chainFacilitating(shown.view) || !chain) return;
  act({ type: "chain_word" }, chainCtx);
}

// The countdown as the server holds it: the word and when its seconds started (its clock,
// turned into this device's); without a clock (an old game), from this drawing.
function chainFromView(view) {
  const glass = view.hourglass || {};
  if (typeof glass.started_at === "number") {
    return { version: view.version, index: glass.word || 0, ends: (glass.started_at + view.chain_seconds) * 1000 - offset };
  }
  return { version: view.version, index: glass.word || 0, ends: Date.now() + view.chain_seconds * 1000 };
}

// Page Down and → are what a presenter's clicker sends; not character keys (WCAG 2.1.4).
document.addEventListener("keydown", (event) => {
  if (event.key !== "PageDown" && event.key !== "ArrowRight") return;
  if (event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
  if (!shown || !chainFacilitating(shown.view)) return;
  const target = event.target;
  if (target && target.closest && target.closest("input, select, textarea, [contenteditable]")) return;
  event.preventDefault();
  chainNext();
});

// On each render of the chain phase: the same countdown again, or the server's newer one.
function chainSync(view, ctx) {
  clearInterval(chainTick);
  chainTick = null;
  chainCtx = ctx;
  if (!chainFacilitating(view)) {
    chain = null;
    return;
  }
  if (chain && chain.version === view.version) {
    chainDraw(view, { announce: false });
    return;
  }
  const moved = !chain || chain.index !== (view.hourglass || {}).word;
  chain = chainFromView(view);
  chainDraw(view, { announce: moved });
}

function chainBox(view) {
  if (!chainFacilitating(view)) return null;
  return el("section", { className: "hourglass chain", id: "activity-chain", "aria-labelledby": "activity-chain-heading" },
    el("h2", { className: "hourglass-label", id: "activity-chain-heading" }, t("Chain")),
    el("p", { className: "chain-speaker", id: "activity-chain-speaker" }),
    el("span", { className: "hourglass-clock", id: "activity-chain-clock", role: "timer", "aria-live": "off" }, clockText(view.chain_seconds)),
    el("span", { className: "hourglass-bar", "aria-hidden": "true" }, el("span", { id: "activity-chain-bar", style: "width:100%" })),
    el("p", { className: "chain-over", id: "activity-chain-over", hidden: true }),
    el("button", { type: "button", "data-focus-key": "chain-next", onclick: chainNext }, t("New word: restart the countdown")),
    el("p", { className: "chain-keys" }, t("Or press Page Down or → (as a presenter's clicker does).")),
  );
}

function chainDraw(view, { announce: say }) {
  clearInterval(chainTick);
  chainTick = null;
  const speaker = chainSpeaker(view, chain.index);
  const words = document.getElementById("activity-chain-heading");
  const who = document.getElementById("activity-chain-speaker");
  if (words) words.textContent = format(t("Chain: word %(n)s"), { n: chain.index + 1 });
  if (who) {
    who.textContent = chain.index === 0
      ? format(t("%(who)s (%(team)s) reads the word aloud and forms a new word."), speaker)
      : format(t("%(who)s (%(team)s) forms the next word."), speaker);
  }
  if (say) chainAnnounce(chainStartText(view));
  const update = () => {
    const left = Math.max((chain.ends - Date.now()) / 1000, 0);
    const clock = document.getElementById("activity-chain-clock");
    const bar = document.getElementById("activity-chain-bar");
    const over = document.getElementById("activity-chain-over");
    const box = document.getElementById("activity-chain");
    if (clock) clock.textContent = clockText(left);
    if (bar) bar.style.width = `${(100 * left) / view.chain_seconds}%`;
    if (box) box.classList.toggle("ending", left <= 0);
    if (over) {
      over.hidden = left > 0;
      over.textContent = left > 0 ? "" : chainOverText(view);
    }
    if (left <= 0) {
      clearInterval(chainTick);
      chainTick = null;
      if (chain.said !== chain.index) {
        chain.said = chain.index;
        chainAnnounce(chainOverText(view));
        if (Date.now() - chain.ends < 2000) beep([0]); // not again for a countdown long over
      }
    }
  };
  update();
  if (chain.ends > Date.now()) chainTick = setInterval(update, 200);
}

// --- the task: what is played now --------------------------------------------------------------------

function taskHeading(view) {
  const task = view.task;
  if (!task || !task.form) return null;
  const parts = [el("span", { className: `form-badge form-${task.form}` }, formLabel(task.form))];
  if (task.slot) parts.push(el("span", { className: "slot" }, format(t("area %(slot)s"), { slot: task.slot })));
  if (task.kind === "term" && task.points) parts.push(el("span", {}, format(nt("%(n)s point", "%(n)s points", task.fields), { n: task.fields })));
  if (task.open) parts.push(el("span", { className: "badge open" }, t("open game: every team may guess")));
  if (task.stage === "final_open") parts.push(el("span", { className: "badge" }, t("final task, part one")));
  if (task.stage === "final_hardest") parts.push(el("span", { className: "badge" }, t("final task, part two")));
  return el("p", { className: "activity-task" }, ...parts);
}

function termBox(view, { hideable }) {
  const task = view.task;
  if (!task || !task.text) return null;
  const key = `${task.card}:${task.slot}`;
  const term = el("p", { className: "term", id: "activity-term" }, task.text);
  if (!hideable) {
    return el("section", { className: "term-box", "aria-labelledby": "term-heading" },
      el("h2", { id: "term-heading" }, task.kind === "chain"
        ? t("The word of the chain")
        : task.presenter === shown.you.player ? t("Your term") : t("The hardest term, as you chose it")),
      term);
  }
  // The facilitator's screen may be on the projector: the term only on demand.
  const open = revealed === key || task.kind === "chain";
  term.hidden = !open;
  return el("section", { className: "term-box hideable", "aria-labelledby": "term-heading" },
    el("h2", { id: "term-heading" }, t("The term")),
    task.kind === "chain" ? null : el("button", {
      type: "button",
      className: "secondary",
      "aria-pressed": open ? "true" : "false",
      "aria-controls": "activity-term",
      "data-focus-key": "reveal",
      onclick: (event) => {
        revealed = revealed === key ? null : key;
        const shownNow = revealed === key;
        term.hidden = !shownNow;
        event.currentTarget.setAttribute("aria-pressed", shownNow ? "true" : "false");
        event.currentTarget.textContent = shownNow ? t("Hide the term") : t("Show the term");
      },
    }, open ? t("Hide the term") : t("Show the term")),
    term);
}

function hardestChoice(view, ctx) {
  const task = view.task;
  const choices = view.legal_actions.filter((a) => a.type === "choose_hardest");
  if (!task || view.phase !== "choosing") return null;
  const finalist = teamName(view, task.team);
  const intro = view.variant === "three_players"
    ? format(t("%(who)s chooses the hardest term on the card; the left-hand neighbour presents it."), { who: playerName(view, task.choosers[0] || "") })
    : format(t("The other teams choose the hardest term on the card; only %(team)s guesses it."), { team: finalist });
  const parts = [el("p", { className: "status-line" }, intro)];
  // The finalist team sees the projector: the card stays on the choosers' phones and your screen.
  if (projector) return el("section", { className: "activity-choosing" }, ...parts);
  if (choices.length && task.card_terms) {
    parts.push(el("ul", { className: "activity-choices" }, ...task.card_terms.map((term) => {
      const allowed = choices.some((a) => a.slot === term.slot);
      return el("li", {}, el("button", {
        type: "button",
        className: "choice",
        disabled: !allowed,
        "data-focus-key": `hardest-${term.slot}`,
        onclick: () => act({ type: "choose_hardest", slot: term.slot }, ctx),
      }, `${term.slot} · ${formLabel(term.kind === "term" ? view.board.forms[term.slot] : term.kind)}: ${term.text}${term.points ? ` (${term.points})` : ""}`));
    })));
  } else if (choices.length) {
    parts.push(el("div", { className: "row" }, ...choices.map((a) => el("button", {
      type: "button", "data-focus-key": `hardest-${a.slot}`, onclick: () => act({ type: "choose_hardest", slot: a.slot }, ctx),
    }, format(t("Term %(slot)s"), { slot: a.slot })))));
  }
  return el("section", { className: "activity-choosing" }, ...parts);
}

// --- buttons of whoever may act --------------------------------------------------------------------------

function button(label, action, ctx, { className = "", confirmText = "", focusKey = "" } = {}) {
  return el("button", {
    type: "button",
    className,
    "data-focus-key": focusKey || `act-${action.type}-${action.team || action.winner_team || action.area || action.slot || ""}${action.guessed === undefined ? "" : action.guessed}`,
    onclick: () => {
      if (confirmText && !window.confirm(confirmText)) return;
      act(action, ctx);
    },
  }, label);
}

function controls(view, ctx) {
  if (projector) return null;
  const actions = view.legal_actions || [];
  if (!actions.length) return null;
  const has = (type) => actions.filter((a) => a.type === type);
  const rows = [];
  const task = view.task;
  const ending = task && task.stage === "final_hardest" ? t("This ends the game. Record it?") : "";
  if (has("choose_area").length) {
    rows.push(el("p", {}, t("Final task: choose one of the areas A–F, then draw a card.")));
    rows.push(el("div", { className: "row" }, ...has("choose_area").map((a) => button(`${a.area} · ${formLabel(view.board.forms[a.area])}`, { type: "choose_area", area: a.area }, ctx))));
  }
  if (has("draw").length) {
    rows.push(el("div", { className: "row" }, button(format(t("Draw a card for %(team)s"), { team: teamName(view, view.turn) }), { type: "draw" }, ctx, { className: "big" })));
  }
  if (has("start_timer").length) {
    rows.push(el("div", { className: "row" }, button(t("Ready: turn the hourglass"), { type: "start_timer" }, ctx, { className: "big" })));
  }
  const out = hourglassOut(view);
  const late = (node) => {
    // The server no longer records a guess: the button stays in its place, disabled.
    if (out) node.disabled = true;
    return node;
  };
  if (out && (has("guessed").length || has("rhyme_result").length)) {
    rows.push(el("p", { className: "time-up", id: "activity-time-up", role: "status" }, t("Time is up: the term was not guessed in time.")));
  }
  const guessed = has("guessed");
  if (guessed.length) {
    const single = guessed.length === 1;
    rows.push(el("div", { className: "row outcomes" }, ...guessed.map((a) => late(button(
      out ? (single ? t("Too late to guess") : format(t("Too late to guess: %(team)s"), { team: teamName(view, a.team) }))
        : single ? t("Guessed in time") : format(t("Guessed first: %(team)s"), { team: teamName(view, a.team) }),
      { type: "guessed", team: a.team }, ctx, { className: "good", confirmText: view.variant === "teams" ? ending : "" },
    )))));
  }
  if (has("rhyme_result").length) {
    rows.push(el("div", { className: "row outcomes" },
      late(button(out ? t("Too late to guess") : t("Rhyme guessed (+5)"), { type: "rhyme_result", guessed: true }, ctx, { className: "good" })),
      button(out ? t("Time is up: not guessed") : t("Rhyme not guessed"), { type: "rhyme_result", guessed: false }, ctx, { className: out ? "" : "secondary" })));
  }
  if (has("chain_result").length) {
    rows.push(el("p", {}, t("Who formed the last valid word of the chain? That team moves 4 fields.")));
    rows.push(el("div", { className: "row outcomes" }, ...has("chain_result").map((a) => button(
      a.winner_team ? teamName(view, a.winner_team) : t("Nobody: the chain did not start"),
      { type: "chain_result", winner_team: a.winner_team }, ctx, { className: a.winner_team ? "good" : "secondary" },
    ))));
  }
  const misses = [];
  if (has("not_guessed").length) {
    misses.push(button(out ? t("Time is up: not guessed") : t("Not guessed"), { type: out && has("time_up").length ? "time_up" : "not_guessed" }, ctx, { className: out ? "" : "secondary", confirmText: view.variant === "three_players" ? ending : "" }));
  }
  if (has("rule_broken").length) misses.push(button(t("Rule broken (back 3 fields)"), { type: "rule_broken" }, ctx, { className: "secondary", confirmText: view.variant === "three_players" ? ending : "" }));
  if (misses.length) rows.push(el("div", { className: "row outcomes" }, ...misses));
  const clock = [];
  // One focus key: the focus stays on the button as it turns from pause to resume and back.
  if (has("pause_timer").length) clock.push(button(t("Pause the hourglass"), { type: "pause_timer" }, ctx, { className: "secondary", focusKey: "act-hourglass" }));
  if (has("resume_timer").length) clock.push(button(t("Resume the hourglass"), { type: "resume_timer" }, ctx, { focusKey: "act-hourglass" }));
  if (has("undo").length) {
    const last = view.history[view.history.length - 1];
    clock.push(button(last ? format(t("Undo the last outcome (%(what)s)"), { what: eventText(view, last) }) : t("Undo the last outcome"), { type: "undo" }, ctx, { className: "secondary" }));
  }
  if (clock.length) rows.push(el("div", { className: "row" }, ...clock));
  if (!rows.length) return null;
  return el("section", { className: "activity-controls", "aria-labelledby": "controls-heading" },
    el("h2", { id: "controls-heading", tabindex: "-1" }, shown.you.role === "facilitator" ? t("Record what happens") : t("Your move")), ...rows);
}

// --- what happened ------------------------------------------------------------------------------------

function eventText(view, event) {
  const who = teamName(view, event.team);
  const form = formLabel(event.kind === "term" ? view.board.forms[event.slot] : event.kind);
  let result;
  if (event.result === "guessed") {
    result = event.winner && event.winner !== event.team
      ? format(t("guessed by %(team)s"), { team: teamName(view, event.winner) })
      : t("guessed");
  } else if (event.result === "rule_broken") result = t("rule broken");
  else if (event.result === "chain") {
    result = event.winner ? format(t("last word: %(team)s"), { team: teamName(view, event.winner) }) : t("no chain");
  } else result = event.action === "time_up" ? t("time up") : t("not guessed");
  const moves = event.moves.filter((m) => m.from !== m.to)
    .map((m) => `${teamName(view, m.team)} ${fieldLabel(m.from)} → ${fieldLabel(m.to)}`).join(", ");
  return `${who}, ${form}: ${result}${moves ? ` (${moves})` : ""}`;
}

function lastOutcomes(view) {
  if (!view.history.length) return null;
  const recent = view.history.slice(-5).reverse();
  return el("section", { className: "activity-history", "aria-labelledby": "history-heading" },
    el("h2", { id: "history-heading" }, t("Last outcomes")),
    el("ol", {}, ...recent.map((event) => el("li", {}, eventText(view, event)))));
}

function outcomeBox(view) {
  const result = view.outcome;
  const names = result.winners.map((id) => teamName(view, id)).join(", ");
  const reasons = {
    final_task: t("The final task is complete."),
    hardest_term_not_guessed: t("The hardest term was not guessed: the player who chose it wins."),
    stack_exhausted: t("The cards ran out: the furthest ahead wins."),
  };
  return el("section", { className: "outcome", "aria-labelledby": "outcome-heading" },
    el("h2", { id: "outcome-heading" }, format(result.winner ? t("%(who)s wins!") : t("Shared win: %(who)s"), { who: names })),
    el("p", {}, reasons[result.reason] || ""));
}

function turnLine(view) {
  const you = shown.you.player;
  const task = view.task;
  const turnTeam = teamName(view, view.turn);
  const rep = playerName(view, view.representative);
  if (view.phase === "ready") {
    if (view.representative === you) return t("Your turn: draw a card.");
    if (view.final === "hardest") return format(t("%(team)s goes on to part two of the final task."), { team: turnTeam });
    return view.variant === "teams"
      ? format(t("%(team)s's turn: %(who)s presents."), { team: turnTeam, who: rep })
      : format(t("%(who)s's turn."), { who: rep });
  }
  if (!task) return "";
  const presenter = playerName(view, task.presenter);
  if (task.presenter === you) {
    if (view.phase === "memorise") return t("Memorise the term. The hourglass turns in about 10 seconds.");
    if (view.phase === "presenting") return t("Present the term now!");
    if (view.phase === "chain") return t("Read the word aloud and start the chain.");
  }
  if (view.phase === "memorise") return format(t("%(who)s memorises the term."), { who: presenter });
  if (view.phase === "presenting") {
    if (task.guessers.includes(view.your_team) && view.your_team) return format(t("Guess! %(who)s presents."), { who: presenter });
    return format(t("%(who)s presents (%(form)s)."), { who: presenter, form: formLabel(task.form).toLowerCase() });
  }
  if (view.phase === "chain") return t("The chain: each team's representative adds a word in turn, about 5 seconds each.");
  return "";
}

// A student who joined after the start watches until they choose a team (the server seats
// them: "teams of as equal a size as possible"); the game for 3 players has no place for them.
function lateJoin(view, ctx) {
  if (projector || view.terminal || !shown || shown.you.role !== "spectator" || !live.joinTeam) return null;
  if (view.variant !== "teams") {
    return el("p", { className: "muted", id: "activity-watching" }, t("The game for 3 players is played by exactly three players: you watch this game."));
  }
  return el("section", { className: "activity-join", "aria-labelledby": "join-heading" },
    el("h2", { id: "join-heading" }, t("You came after the start: join a team")),
    el("div", { className: "row" }, ...view.teams.map((entry) => el("button", {
      type: "button",
      "data-focus-key": `join-${entry.id}`,
      onclick: () => post(live.joinTeam, { team: entry.id }, ctx),
    }, format(t("Join %(team)s"), { team: entry.name })))));
}

// --- render ---------------------------------------------------------------------------------------------

// Where the focus goes when the element that had it is gone from the new drawing (the button
// of an action that is no longer possible): the heading of the buttons, else the turn line.
function focusFallback(root) {
  const target = root.querySelector("#controls-heading") || root.querySelector(".activity-turn") || root.querySelector("#board-heading");
  if (!target) return;
  if (!target.hasAttribute("tabindex")) target.setAttribute("tabindex", "-1");
  target.focus({ preventScroll: true });
}

export function render(root, payload, ctx) {
  if (shown && payload.version < shown.version) return "";
  // Redrawing replaces every element: the focus goes back to the same control (data-focus-key),
  // so a keyboard user keeps their place, or to focusFallback when that control is gone.
  const active = document.activeElement;
  const hadFocus = Boolean(active && active !== document.body && root.contains(active));
  const focusKey = hadFocus && active.dataset ? active.dataset.focusKey : null;
  const view = payload.view;
  shown = payload;
  const you = payload.you;
  const facilitating = you.role === "facilitator";
  const presenting = view.task && view.task.presenter === you.player;
  const parts = [];
  root.classList.toggle("activity-projector", projector);

  if (view.terminal) parts.push(outcomeBox(view));
  const line = turnLine(view);
  if (!view.terminal) parts.push(el("p", { className: "status-line activity-turn" }, line));
  const top = el("div", { className: "activity-top" }, taskHeading(view), hourglassBox(view), chainBox(view), soundHint(view));
  parts.push(top);
  if (!view.terminal) {
    if (presenting && !facilitating) {
      parts.push(termBox(view, { hideable: false }));
      if (view.task.form) {
        parts.push(el("section", { className: "rules", "aria-labelledby": "rules-heading" },
          el("h2", { id: "rules-heading" }, format(t("The rules: %(form)s"), { form: formLabel(view.task.form) })),
          el("p", {}, formRules(view.task.form))));
      }
    } else if (facilitating) {
      parts.push(termBox(view, { hideable: true }));
    } else if (view.task && view.task.text) {
      parts.push(termBox(view, { hideable: false })); // a chain's word, or the card handed over in part two
    }
    if (facilitating && view.task && view.task.form && !projector) {
      parts.push(el("details", { className: "rules" }, el("summary", {}, format(t("The rules: %(form)s"), { form: formLabel(view.task.form) })), el("p", {}, formRules(view.task.form))));
    }
    parts.push(hardestChoice(view, ctx));
    parts.push(controls(view, ctx));
    parts.push(lateJoin(view, ctx));
  }
  parts.push(el("section", { className: "activity-board", "aria-labelledby": "board-heading" },
    el("h2", { id: "board-heading" }, t("The board")),
    boardSvg(view),
    el("p", { className: "legend" }, ...AREAS.split("").map((area) => el("span", { className: `legend-item area-${area}` }, `${area}: ${formLabel(view.board.forms[area])}`)),
      el("span", { className: "legend-item target" }, t("red: target area"))),
    standings(view),
    el("p", { className: "muted" }, format(t("Cards left: %(n)s"), { n: view.cards_left })),
  ));
  parts.push(lastOutcomes(view));
  root.replaceChildren(...parts.filter(Boolean));
  if (hadFocus) {
    const again = focusKey ? root.querySelector(`[data-focus-key="${CSS.escape(focusKey)}"]`) : null;
    if (again && !again.disabled) again.focus({ preventScroll: true });
    else focusFallback(root);
  }
  startTicking(view, ctx);
  chainSync(view, ctx);

  // The hourglass's news go to its own live region (#activity-timer-news), with its 10 s and
  // time-up notices; the rest to the page's (#announce), through live.js.
  let news = line;
  let hourglassNews = false;
  if (view.terminal) news = root.querySelector("#outcome-heading").textContent;
  else if (hourglassOut(view)) {
    news = t("Time is up!");
    hourglassNews = true;
  } else if (view.phase === "presenting" && view.hourglass && !view.hourglass.paused) {
    const seconds = Math.ceil(remaining(view) ?? view.timer);
    news = format(nt("The hourglass runs: %(n)s second.", "The hourglass runs: %(n)s seconds.", seconds), { n: seconds });
    hourglassNews = true;
  } else if (view.phase === "presenting" && view.hourglass && view.hourglass.paused) {
    news = t("The hourglass is paused.");
    hourglassNews = true;
  }
  if (news === lastNews) return "";
  lastNews = news;
  if (hourglassNews) {
    timerAnnounce(news);
    return "";
  }
  return news;
}

// --- the lobby: choosing teams (the page draws no view before the game starts) --------------------------

async function lobbyRefresh() {
  const box = document.getElementById("activity-teams");
  if (!box || gameRoot.dataset.status !== "lobby") return false;
  try {
    const response = await fetch(live.lobby, { cache: "no-store", credentials: "same-origin" });
    if (!response.ok) return true;
    drawLobby(box, await response.json());
  } catch {
    // Offline for a moment: the next round tries again.
  }
  return true;
}

function drawLobby(box, lobby) {
  if (lobby.status !== "lobby") return;
  const focusKey = document.activeElement && document.activeElement.dataset ? document.activeElement.dataset.focusKey : null;
  const seat = async (player, teamId) => {
    showError("");
    const response = await fetch(live.seat, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRFToken": gameRoot.dataset.csrf },
      body: JSON.stringify({ player, team: teamId }),
    });
    const body = await response.json();
    if (response.ok) drawLobby(box, body);
    else showError(body.reason || t("The action was refused."));
  };
  const parts = [];
  if (lobby.hint) parts.push(el("p", { className: "status-line" }, lobby.hint));
  if (lobby.variant === "teams") {
    const columns = lobby.teams.map((entry) => {
      const mine = lobby.your_team === entry.id;
      const members = el("ul", {}, ...entry.players.map((p) => el("li", {}, p.nickname,
        lobby.facilitating ? mover(lobby, p, seat) : null)));
      return el("section", { className: `lobby-team${mine ? " mine" : ""}`, "aria-label": entry.name },
        el("h3", {}, `${entry.name} (${entry.players.length})`),
        members,
        lobby.you && !lobby.facilitating ? el("button", {
          type: "button",
          className: mine ? "secondary" : "",
          "data-focus-key": `join-${entry.id}`,
          "aria-pressed": mine ? "true" : "false",
          onclick: () => seat(lobby.you, mine ? null : entry.id),
        }, mine ? t("Leave this team") : format(t("Join %(team)s"), { team: entry.name })) : null);
    });
    parts.push(el("div", { className: "lobby-teams" }, ...columns));
    if (lobby.unseated.length) {
      parts.push(el("section", { className: "lobby-team unseated", "aria-label": t("Not in a team yet") },
        el("h3", {}, `${t("Not in a team yet")} (${lobby.unseated.length})`),
        el("ul", {}, ...lobby.unseated.map((p) => el("li", {}, p.nickname, lobby.facilitating ? mover(lobby, p, seat) : null)))));
    }
  } else {
    parts.push(el("ul", {}, ...lobby.unseated.map((p) => el("li", {}, p.nickname))));
  }
  box.replaceChildren(...parts);
  if (focusKey) {
    const again = box.querySelector(`[data-focus-key="${CSS.escape(focusKey)}"]`);
    if (again) again.focus();
  }
}

function mover(lobby, player, seat) {
  const id = `seat-${player.player}`;
  const select = el("select", { id, "data-focus-key": id, onchange: (event) => seat(player.player, event.target.value || null) },
    el("option", { value: "" }, t("no team yet")),
    ...lobby.teams.map((entry) => el("option", { value: entry.id }, entry.name)));
  const current = lobby.teams.find((entry) => entry.players.some((p) => p.player === player.player));
  select.value = current ? current.id : "";
  return el("span", { className: "mover" }, " ",
    el("label", { for: id, className: "activity-visually-hidden" }, format(t("Team of %(who)s"), { who: player.nickname })),
    select);
}

// The projector shows the game, not the facilitator's links and buttons.
if (projector) document.querySelectorAll(".activity-screens, .activity-lobby form").forEach((e) => e.remove());

await syncClock();
if (gameRoot.dataset.status === "lobby") {
  const lobbyTimer = setInterval(async () => {
    if (!(await lobbyRefresh())) clearInterval(lobbyTimer);
  }, 2500);
  lobbyRefresh();
}
