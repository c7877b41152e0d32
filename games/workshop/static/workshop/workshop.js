// The workshop pages keep themselves up to date by polling; no WebSocket is needed.
//
// Every POLL_MS the page asks view.json?since=N; while the workshop is at version N the
// answer is {"unchanged": true}. When it moved, the page fetches its panel, rendered by
// the server for this visitor alone, and swaps it in, keeping what the visitor was typing
// and where the focus was. Forms are ordinary POSTs: the page works without this file.

const live = JSON.parse(document.getElementById("workshop-live").textContent);
const panel = document.getElementById("workshop-panel");
const announceBox = document.getElementById("workshop-announce");
const connection = document.getElementById("workshop-connection");

let version = live.version;
let status = currentState()?.dataset.status;
let busy = false;
let timer = null;

function currentState() {
  return panel.querySelector(".workshop-state");
}

function keepInputAndFocus(swap) {
  const active = document.activeElement;
  const focusKey = active && panel.contains(active) ? active.dataset.focusKey : null;
  const kept = {};
  panel.querySelectorAll("[data-keep]").forEach((field) => {
    // Only what the visitor changed: a key renamed by a group-mate still shows up.
    const changed = field.tagName === "SELECT" ? true : field.value !== field.defaultValue;
    if (changed) kept[field.dataset.keep] = field.value;
  });
  swap();
  panel.querySelectorAll("[data-keep]").forEach((field) => {
    if (!(field.dataset.keep in kept)) return;
    if (field.tagName === "SELECT" && ![...field.options].some((o) => o.value === kept[field.dataset.keep])) return;
    field.value = kept[field.dataset.keep];
  });
  if (focusKey) {
    const again = panel.querySelector(`[data-focus-key="${CSS.escape(focusKey)}"]`);
    if (again) again.focus();
  }
}

async function refresh() {
  const response = await fetch(live.panel, { credentials: "same-origin", cache: "no-store" });
  if (!response.ok) return;
  const html = await response.text();
  keepInputAndFocus(() => { panel.innerHTML = html; });
  const state = currentState();
  if (!state) return;
  version = Number(state.dataset.version);
  if (state.dataset.status !== status) {
    status = state.dataset.status;
    announceBox.textContent = state.dataset.statusLabel;
    // The join strip (templates/games/_join_strip.html) follows this: a corner strip after the lobby.
    const root = document.getElementById("workshop");
    if (root) root.dataset.status = status;
  }
}

async function poll() {
  if (busy || document.hidden) return;
  busy = true;
  try {
    const url = new URL(live.view, window.location.href);
    url.searchParams.set("since", String(version));
    const response = await fetch(url, { credentials: "same-origin", cache: "no-store" });
    if (response.status === 403) {
      clearInterval(timer);
      connection.textContent = connection.dataset.gone || "";
      return;
    }
    const body = await response.json();
    if (!body.unchanged) await refresh();
  } catch {
    // Offline for a moment: the next tick tries again.
  } finally {
    busy = false;
  }
}

timer = setInterval(poll, live.poll_ms);
