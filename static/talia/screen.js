// The screens of a lesson: the projector view, the folded site menu and the join strip.
//
// Loaded by base.html as the first thing in <body> (a plain script, not deferred), so the
// projector view is on <html> before anything is painted:
// - ?view=projector turns the projector view on, ?view=normal turns it off; a button with
//   data-projector-toggle does the same and asks for full screen. The choice is remembered
//   (localStorage) for the pages where a game is played, led or projected (body.live).
//   Stylesheets style it with [data-view="projector"] selectors.
// - The projector's dark theme: ?theme=dark or ?theme=light, or a button with data-theme-toggle,
//   sets data-theme="dark" on <html> (remembered in localStorage, on every page); the colour
//   tokens (static/talia/tokens.css) turn dark under [data-view="projector"][data-theme="dark"].
// - On body.live the header folds to the brand and a "Menu" button (aria-expanded).
// - A join strip (templates/games/_join_strip.html) is big while its game is in the lobby and
//   a corner strip once play starts; its button shows the whole code again for late joiners.
(() => {
  "use strict";

  const root = document.documentElement;
  const KEY = "talia.view";
  const PROJECTOR = "projector";
  const THEME_KEY = "talia.theme";
  const DARK = "dark";

  function remembered(key = KEY) {
    try {
      return window.localStorage.getItem(key);
    } catch {
      return null; // storage refused (private mode, a framed page): the view lasts one page
    }
  }

  function remember(view) {
    try {
      if (view === PROJECTOR) window.localStorage.setItem(KEY, PROJECTOR);
      else window.localStorage.removeItem(KEY);
    } catch {
      /* see remembered() */
    }
  }

  function rememberTheme(theme) {
    try {
      if (theme === DARK) window.localStorage.setItem(THEME_KEY, DARK);
      else window.localStorage.removeItem(THEME_KEY);
    } catch {
      /* see remembered() */
    }
  }

  function isDark() {
    return root.dataset.theme === DARK;
  }

  function setTheme(theme) {
    if (theme === DARK) root.dataset.theme = DARK;
    else delete root.dataset.theme;
    document.querySelectorAll("[data-theme-toggle]").forEach((button) => {
      button.setAttribute("aria-pressed", String(isDark()));
    });
  }

  function isProjector() {
    return root.dataset.view === PROJECTOR;
  }

  function setView(view) {
    if (view === PROJECTOR) root.dataset.view = PROJECTOR;
    else delete root.dataset.view;
    document.querySelectorAll("[data-projector-toggle]").forEach((button) => {
      button.setAttribute("aria-pressed", String(isProjector()));
    });
    document.dispatchEvent(new CustomEvent("talia:view", { detail: { view: root.dataset.view || "normal" } }));
  }

  // Before the first paint: the address wins, then what this browser remembers.
  const asked = new URLSearchParams(window.location.search).get("view");
  if (asked === PROJECTOR || asked === "normal") remember(asked);
  const live = Boolean(document.body && document.body.classList.contains("live"));
  if (asked === PROJECTOR || (asked !== "normal" && live && remembered() === PROJECTOR)) {
    root.dataset.view = PROJECTOR;
  }
  const askedTheme = new URLSearchParams(window.location.search).get("theme");
  if (askedTheme === DARK || askedTheme === "light") rememberTheme(askedTheme);
  if (askedTheme === DARK || (askedTheme !== "light" && remembered(THEME_KEY) === DARK)) {
    root.dataset.theme = DARK;
  }
  root.dataset.screen = "ready"; // the folded menu needs this script; without it the menu stays open

  function dropFromAddress(name) {
    const url = new URL(window.location.href);
    if (!url.searchParams.has(name)) return;
    url.searchParams.delete(name);
    window.history.replaceState(window.history.state, "", url);
  }

  function toggleTheme() {
    const next = isDark() ? "light" : DARK;
    rememberTheme(next);
    dropFromAddress("theme"); // a reload keeps the choice just made, not the address's
    setTheme(next);
  }

  function toggleProjector() {
    const next = isProjector() ? "normal" : PROJECTOR;
    remember(next);
    dropFromAddress("view"); // a reload keeps the choice just made, not the address's
    setView(next);
    if (next === PROJECTOR) {
      if (!document.fullscreenElement && root.requestFullscreen) {
        root.requestFullscreen().catch(() => {}); // refused (an iframe, a phone): the view stays
      }
    } else if (document.fullscreenElement && document.exitFullscreen) {
      document.exitFullscreen().catch(() => {});
    }
  }

  function setUpMenu() {
    const header = document.querySelector(".site-header");
    const button = header && header.querySelector(".menu-toggle");
    if (!button) return;
    const setOpen = (open) => {
      button.setAttribute("aria-expanded", String(open));
      header.classList.toggle("is-open", open);
    };
    button.addEventListener("click", () => setOpen(button.getAttribute("aria-expanded") !== "true"));
    header.addEventListener("keydown", (event) => {
      if (event.key === "Escape" && button.getAttribute("aria-expanded") === "true") {
        setOpen(false);
        button.focus();
      }
    });
  }

  function setUpJoinStrip(strip) {
    const toggle = strip.querySelector("[data-join-toggle]");
    const holder = strip.closest("[data-status]");
    const lobbyStates = (strip.dataset.lobbyStates || "lobby").split(" ");
    const setLabel = () => {
      if (!toggle) return;
      const open = strip.classList.contains("is-open");
      toggle.textContent = open ? toggle.dataset.hideLabel : toggle.dataset.showLabel;
    };
    const follow = () => {
      const playing = holder ? !lobbyStates.includes(holder.dataset.status) : strip.classList.contains("is-compact");
      strip.classList.toggle("is-compact", playing);
      if (!playing) strip.classList.remove("is-open");
      setLabel();
    };
    if (holder) {
      new MutationObserver(follow).observe(holder, { attributes: true, attributeFilter: ["data-status"] });
    }
    if (toggle) {
      toggle.addEventListener("click", () => {
        strip.classList.toggle("is-open");
        setLabel();
      });
      strip.addEventListener("keydown", (event) => {
        if (event.key === "Escape" && strip.classList.contains("is-open")) {
          strip.classList.remove("is-open");
          setLabel();
          toggle.focus();
        }
      });
    }
    follow();
  }

  function setUp() {
    setUpMenu();
    document.querySelectorAll("[data-projector-toggle]").forEach((button) => {
      button.setAttribute("aria-pressed", String(isProjector()));
      button.addEventListener("click", toggleProjector);
    });
    document.querySelectorAll("[data-theme-toggle]").forEach((button) => {
      button.setAttribute("aria-pressed", String(isDark()));
      button.addEventListener("click", toggleTheme);
    });
    document.querySelectorAll("[data-join-strip]").forEach(setUpJoinStrip);
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", setUp);
  else setUp();
})();
