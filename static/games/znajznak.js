// ZnajZnak on a phone and on the projector: draws a player's view (games.engines.znajznak.player_view).
//
// Accessibility trade-off: naming the symbols is the game, so a picture's text
// alternative cannot be its name. Every symbol is described by its place instead
// ("Symbol 3 of 8 on your card"); a player using a screen reader can point at symbols
// but not find the common one by ear. The name is announced once the card back is
// turned over (the reveal), as at the table.
import { el, format } from "./dom.js";

function playerName(view, id) {
  const seat = view.players.find((player) => player.id === id);
  return seat ? seat.name : id;
}

// A card from a built deck is drawn like the printed one: round (or square), each picture
// at its place, size and turn from the deck's layout (content.decks.layout, card widths).
// Keyboard order runs in rows from the top left, as one reads the card. Without a layout
// (a game made from a symbol set) the pictures stand in a grid.
function placedSymbols(symbols, ctx) {
  const placements = ctx.face ? ctx.face(symbols) : null;
  if (!placements || placements.length !== symbols.length) return null;
  const rows = (p) => Math.round(p[2] * 5);
  return [...placements].sort((a, b) => rows(a) - rows(b) || a[1] - b[1]);
}

function card(symbols, { label, owner, ctx, canStop, highlight, cardKey }) {
  const placed = placedSymbols(symbols, ctx);
  const list = el("ul", {
    className: placed ? `symbols face ${ctx.faceShape === "square" ? "square" : "round"}` : "symbols",
    "aria-label": label,
  });
  const keys = placed ? placed.map((p) => p[0]) : symbols;
  keys.forEach((key, index) => {
    const alt = format(ctx.t("Symbol %(n)s of %(count)s on %(card)s"), {
      n: index + 1, count: keys.length, card: owner,
    });
    const picture = el("img", { src: ctx.picture(key), alt, loading: "lazy", width: 96, height: 96 });
    let item;
    if (canStop) {
      item = el("button", {
        type: "button",
        className: "symbol",
        "data-focus-key": `${cardKey}-${key}`,
        onclick: () => ctx.act({ type: "stop", symbol: key }),
      }, picture);
    } else {
      item = el("span", { className: "symbol" }, picture);
    }
    if (key === highlight) item.classList.add("pointed");
    const entry = el("li", {}, item);
    if (placed) {
      const [, x, y, size, rotation] = placed[index];
      // Percentages of the card: the face scales with the screen, from a phone to the projector.
      entry.style.setProperty("left", `${((x - size / 2) * 100).toFixed(3)}%`);
      entry.style.setProperty("top", `${((y - size / 2) * 100).toFixed(3)}%`);
      entry.style.setProperty("width", `${(size * 100).toFixed(3)}%`);
      entry.style.setProperty("height", `${(size * 100).toFixed(3)}%`);
      picture.style.setProperty("transform", `rotate(${rotation}deg)`);
    }
    list.append(entry);
  });
  return list;
}

function revealPanel(view, ctx) {
  const reveal = view.reveal;
  if (!reveal) return null;
  const who = playerName(view, reveal.player);
  const results = {
    right: ctx.t("%(who)s named it right."),
    wrong: ctx.t("%(who)s typed “%(text)s”: wrong."),
    dont_know: ctx.t("%(who)s did not know."),
    not_needed: ctx.t("%(who)s pointed at it on their last card: no name needed."),
  };
  const sentence = format(results[reveal.result] || "%(who)s", { who, text: reveal.text || "" });
  return el(
    "section", { className: `reveal ${reveal.result}`, "aria-labelledby": "reveal-heading" },
    el("h2", { id: "reveal-heading" }, ctx.t("The card back")),
    el("img", { src: ctx.picture(reveal.symbol), alt: "", width: 96, height: 96 }),
    el("p", {}, el("strong", {}, reveal.name)),
    el("p", {}, sentence),
  );
}

function namingForm(view, ctx) {
  const input = el("input", {
    id: "znajznak-name", type: "text", name: "text", "data-keep": "name", "data-focus-key": "name",
    autocomplete: "off", autocapitalize: "off", spellcheck: "false", maxlength: 200, required: true,
  });
  const form = el(
    "form", {
      className: "naming",
      onsubmit: (event) => {
        event.preventDefault();
        if (input.value.trim()) ctx.act({ type: "name", text: input.value });
      },
    },
    el("label", { for: "znajznak-name" }, ctx.t("Name the symbol you pointed at")),
    input,
    el("div", { className: "row" },
      el("button", { type: "submit" }, ctx.t("Name it")),
      el("button", {
        type: "button", className: "secondary", onclick: () => ctx.act({ type: "dont_know" }),
      }, ctx.t("I don't know")),
    ),
  );
  // The moment the player's STOP is accepted, the cursor goes where the name is typed.
  queueMicrotask(() => { if (!document.activeElement || document.activeElement === document.body) input.focus(); });
  return form;
}

function inHand(ctx, n) {
  return ctx.nt("%(who)s: %(n)s card in hand", "%(who)s: %(n)s cards in hand", n);
}

function outcomePanel(view, ctx) {
  const outcome = view.outcome;
  const winner = outcome.winner ? playerName(view, outcome.winner) : ctx.t("nobody");
  const reason = outcome.reason === "time_up" ? ctx.t("Time is up.") : ctx.t("A player got rid of their last card.");
  return el(
    "section", { className: "outcome", "aria-labelledby": "outcome-heading" },
    el("h2", { id: "outcome-heading" }, format(ctx.t("%(who)s wins!"), { who: winner })),
    el("p", {}, reason),
    el("ol", {}, ...outcome.ranking.map((id) => el("li", {},
      format(inHand(ctx, outcome.cards_in_hand[id]), { who: playerName(view, id), n: outcome.cards_in_hand[id] })))),
  );
}

function tablePanel(view, ctx) {
  // The projector's (and spectators') view: every face-up top card, nothing else.
  const rows = el("ul", { className: "seats" });
  for (const seat of view.players) {
    const parts = [el("h3", {}, format(inHand(ctx, seat.cards_in_hand), { who: seat.name, n: seat.cards_in_hand }))];
    if (seat.penalised) parts.push(el("p", { className: "muted" }, ctx.t("Waiting: wrong STOP (note a).")));
    if (seat.covered) parts.push(el("p", { className: "muted" }, ctx.t("Card covered.")));
    const shown = view.variant === "duel" ? seat.table : seat.top;
    if (shown) {
      parts.push(card(shown, {
        label: format(ctx.t("%(who)s's card"), { who: seat.name }),
        owner: format(ctx.t("%(who)s's card"), { who: seat.name }),
        ctx,
        canStop: false,
        highlight: view.claim && view.claim.player === seat.id ? view.claim.symbol : null,
      }));
    }
    rows.append(el("li", { className: "seat" }, ...parts));
  }
  if (view.middle && view.middle.top) {
    rows.prepend(el("li", { className: "seat middle" },
      el("h3", {}, format(ctx.t("Cards in the middle: %(n)s"), { n: view.middle.count })),
      card(view.middle.top, { label: ctx.t("The card in the middle"), owner: ctx.t("the middle card"), ctx, canStop: false })));
  }
  return [rows];
}

// --- fitting the cards to the screen ---------------------------------------------------------------
//
// A speed game is not played by scrolling: the cards take the room the screen has left below
// what stands above them (the folded header, the status line, a reveal). A player's two cards
// stand side by side or one above the other, whichever makes them larger; the table (the
// projector's, or a spectator's) lays its cards in the rows and columns that make them largest,
// leaving room for what stands below it too. The layout is measured, so it follows the screen
// as it turns or a panel appears, on a phone as on a 1920×1080 projector.

const GAP = 8;
const SMALLEST = 160;
let fitted = null;

function extraHeight(items) {
  // What an item holds besides its card (its heading, a note), as laid out now.
  return Math.max(0, ...items.map((item) => {
    const face = item.querySelector(".symbols");
    return face ? item.getBoundingClientRect().height - face.getBoundingClientRect().height : 0;
  }));
}

function bestGrid(count, width, room, extra) {
  let best = { size: 0, columns: count };
  for (let rows = 1; rows <= count; rows += 1) {
    const columns = Math.ceil(count / rows);
    const size = Math.min((width - GAP * (columns - 1)) / columns, (room - GAP * (rows - 1)) / rows - extra);
    if (size > best.size) best = { size, columns };
  }
  return best;
}

function fit(area) {
  if (!area || !area.isConnected) return;
  const items = [...area.children];
  if (!items.length) return;
  const main = area.closest("main");
  const keepBelow = area.classList.contains("seats");
  for (let pass = 0; pass < 2; pass += 1) {
    const box = area.getBoundingClientRect();
    const top = box.top + window.scrollY;
    const below = keepBelow && main ? Math.max(0, main.getBoundingClientRect().bottom - box.bottom) : 0;
    const room = window.innerHeight - top - below - GAP;
    const { size, columns } = bestGrid(items.length, area.clientWidth, room, extraHeight(items));
    area.classList.add("is-fitted");
    area.style.setProperty("--columns", String(columns));
    area.style.setProperty("--card", `${Math.floor(Math.max(size, SMALLEST))}px`);
  }
}

function fitLater(area) {
  fitted = area;
  requestAnimationFrame(() => fit(area));
}

window.addEventListener("resize", () => fitLater(fitted));
document.addEventListener("talia:view", () => fitLater(fitted));
// What stands above the cards grows and shrinks (a status line, the timer, an error): refit then.
const above = new ResizeObserver(() => fitLater(fitted));
document.querySelectorAll(".site-header, #game > :not(#board), #board").forEach((element) => above.observe(element));

export function render(root, payload, ctx) {
  const view = payload.view;
  const you = view.you;
  const parts = [];
  let news = "";
  const stops = new Set(view.legal_actions.filter((a) => a.type === "stop").map((a) => a.symbol));

  if (view.terminal) {
    parts.push(outcomePanel(view, ctx));
    news = format(ctx.t("%(who)s wins!"), { who: view.outcome.winner ? playerName(view, view.outcome.winner) : "" });
    if (view.outcome.reason === "time_up") news = `${ctx.t("Time is up.")} ${news}`;
  }
  const reveal = revealPanel(view, ctx);
  if (reveal) {
    parts.push(reveal);
    if (!news) news = `${view.reveal.name}. ${reveal.lastChild.textContent}`;
  }

  if (you && view.comparison) {
    const claim = view.claim;
    if (claim && claim.player === you) {
      parts.push(namingForm(view, ctx));
      news = ctx.t("Name the symbol you pointed at.");
    } else if (claim) {
      const text = format(ctx.t("%(who)s said STOP and is naming the symbol."), { who: playerName(view, claim.player) });
      parts.push(el("p", { className: "status-line" }, text));
      news = text;
    } else if (view.penalised.includes(you)) {
      parts.push(el("p", { className: "status-line" },
        ctx.t("Your STOP was on a symbol the cards do not share: wait until someone else says STOP.")));
    } else {
      parts.push(el("p", { className: "status-line" },
        ctx.t("Find the symbol both cards show and press it to say STOP.")));
    }
    const otherCard = view.comparison.other_is === "middle"
      ? ctx.t("the middle card")
      : format(ctx.t("%(who)s's card"), { who: playerName(view, view.comparison.other_is) });
    const highlight = claim && claim.player === you ? claim.symbol : null;
    parts.push(el("div", { className: "cards" },
      el("section", { "aria-labelledby": "own-card" },
        el("h2", { id: "own-card" }, ctx.t("Your card")),
        card(view.comparison.own, { label: ctx.t("Your card"), owner: ctx.t("your card"), ctx, canStop: stops.size > 0, highlight, cardKey: "own" })),
      el("section", { "aria-labelledby": "other-card" },
        el("h2", { id: "other-card", className: "capitalise" }, otherCard),
        card(view.comparison.other, { label: otherCard, owner: otherCard, ctx, canStop: stops.size > 0, highlight, cardKey: "other" })),
    ));
    parts.push(el("p", { className: "help" },
      ctx.t("The pictures are described by their place only: naming them is the game.")));
  } else if (you && !view.terminal) {
    parts.push(el("p", { className: "status-line" }, ctx.t("Your card is covered while someone names a symbol.")));
  }

  if (!you) {
    parts.push(...tablePanel(view, ctx));
    if (payload.you.role === "facilitator" && view.legal_actions.some((a) => a.type === "time_up")) {
      parts.push(el("p", {}, el("button", {
        type: "button", className: "secondary", "data-focus-key": "time-up",
        onclick: () => ctx.act({ type: "time_up" }),
      }, ctx.t("End the game now (time is up)"))));
    }
  } else {
    const counts = el("ul", { className: "counts" }, ...view.players.map((seat) => el("li", {},
      format(inHand(ctx, seat.cards_in_hand), { who: seat.id === you ? ctx.t("You") : seat.name, n: seat.cards_in_hand }))));
    parts.push(el("section", { "aria-label": ctx.t("Cards in hand") }, counts));
  }
  root.replaceChildren(...parts);
  fitLater(root.querySelector(".cards, .seats"));
  return news;
}
