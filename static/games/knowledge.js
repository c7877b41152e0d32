// Knowledge? on a phone, a laptop or the projector: draws the team's view
// (games.engines.knowledge.player_view). The same view goes to everyone in the team: solo,
// a small team on several devices sharing one game, or the class on the projector.
//
// The board is an SVG loop laid out like the admin preview (knowledge_board.space_positions):
// clockwise on a circle, space 0 at the top. Each move is explained from the engine's move
// record (the last entry of view.history), never recomputed here.
//
// Keyboard: Tab through the cards, guesses and the six card slots; keys 1-6 assign the chosen
// card to the slots in their order (team, white, green, yellow, blue, red).
import { el, svg, format } from "./dom.js";

const MARKERS = ["team", "white", "green", "yellow", "blue", "red"];
const COLOURS = ["red", "yellow", "green", "blue", "white"];
const LETTERS = ["A", "B", "C", "D", "E"];
const FILL = { red: "#d7263d", yellow: "#f4c430", green: "#2e8b57", blue: "#1f5fbf", white: "#ffffff" };
const INK = { red: "#ffffff", yellow: "#1a1a1a", green: "#ffffff", blue: "#ffffff", white: "#1a1a1a" };

// What the renderer keeps between redraws: the strategic variant's chosen card and the guess.
const chosen = { card: null, guess: null, round: null };

/** A translated sentence as nodes: the values given as nodes (a key number drawn large on the
 * projector) stand where their placeholders are; the sentence itself is never cut up. */
function formatNodes(text, values) {
  const nodes = [];
  let rest = 0;
  for (const match of text.matchAll(/%\((\w+)\)s/g)) {
    nodes.push(text.slice(rest, match.index));
    const value = values[match[1]];
    nodes.push(value instanceof Node ? value : String(value ?? ""));
    rest = match.index + match[0].length;
  }
  nodes.push(text.slice(rest));
  return nodes.filter((node) => node !== "");
}

/** The plural form of the page's language for ``n`` (Django's catalogue; English without it). */
function ngettext(one, many, n) {
  return window.ngettext ? window.ngettext(one, many, n) : (n === 1 ? one : many);
}

function markerName(marker, ctx) {
  const names = {
    team: ctx.t("the team marker"),
    white: ctx.t("the white opponent"),
    green: ctx.t("the green opponent"),
    yellow: ctx.t("the yellow opponent"),
    blue: ctx.t("the blue opponent"),
    red: ctx.t("the red opponent"),
  };
  return names[marker] || marker;
}

function capital(text) {
  return text ? text[0].toUpperCase() + text.slice(1) : text;
}

function optionName(option, ctx) {
  const names = {
    red: ctx.t("red"), yellow: ctx.t("yellow"), green: ctx.t("green"), blue: ctx.t("blue"), white: ctx.t("white"),
  };
  return names[option] || option;
}

function answerText(category, answer, ctx) {
  if (category === "number") return String(answer);
  return answer.map((option) => optionName(option, ctx)).join("/");
}

function categoryName(category, ctx) {
  return {
    number: ctx.t("Number card (123)"),
    letter: ctx.t("Letter card (ABC)"),
    colour: ctx.t("Colour card"),
  }[category] || category;
}

// --- the move record, in words ------------------------------------------------------------------

export function explain(play, ctx) {
  const who = capital(markerName(play.marker, ctx));
  const target = answerText(play.category, play.answer, ctx);
  if (play.movement === "abandoned") {
    return format(ctx.t("No %(target)s is visible for %(who)s: the move is abandoned. A replacement card is drawn; assign it to any marker that has not moved."), {
      target, who: markerName(play.marker, ctx),
    });
  }
  if (play.movement === "stays") {
    return format(ctx.t("No %(target)s is visible and no card is left to replace it: %(who)s stays."), {
      target, who: markerName(play.marker, ctx),
    });
  }
  const parts = [];
  if (play.category === "number") {
    if (play.steps === 0) parts.push(format(ctx.t("%(who)s stays where it is (0 steps)."), { who }));
    else if (play.skipped_team) {
      parts.push(format(ngettext("%(who)s moves %(n)s space: its last step would land on the team marker, so it moves on to the next space (%(steps)s in all).", "%(who)s moves %(n)s spaces: its last step would land on the team marker, so it moves on to the next space (%(steps)s in all).", play.answer), {
        who, n: play.answer, steps: play.steps,
      }));
    } else parts.push(format(ngettext("%(who)s moves %(n)s space.", "%(who)s moves %(n)s spaces.", play.steps), { who, n: play.steps }));
  } else {
    const what = optionName(play.matched, ctx);
    let sentence = format(ngettext("%(who)s moves to the next %(target)s: %(n)s space", "%(who)s moves to the next %(target)s: %(n)s spaces", play.steps), { who, target: what, n: play.steps });
    if (play.skipped_team) sentence += ctx.t(", skipping the team marker");
    if (play.on_marker) sentence += format(ctx.t(", where %(marker)s shows it"), { marker: markerName(play.on_marker, ctx) });
    parts.push(`${sentence}.`);
    if (play.answer.length > 1) {
      parts.push(format(ctx.t("The card allowed %(options)s: the nearest counts."), { options: target }));
    }
  }
  if (play.from_stack) parts.push(ctx.t("It was taken out from under other markers and moves alone."));
  if (play.onto && play.onto.length && play.steps > 0) {
    parts.push(format(ctx.t("It lies on top of %(markers)s."), {
      markers: play.onto.map((m) => markerName(m, ctx)).join(", "),
    }));
  }
  if (play.flag_turned) parts.push(ctx.t("It passes the finish for the first time and is turned to its flag side."));
  else if (play.crossed && play.marker === "team") parts.push(ctx.t("The team passes the finish."));
  else if (play.crossed) parts.push(ctx.t("It passes the finish again."));
  return parts.join(" ");
}

// --- the board ------------------------------------------------------------------------------

function positions(length, radius, centre) {
  const points = [];
  for (let index = 0; index < length; index += 1) {
    const angle = -Math.PI / 2 + (2 * Math.PI * index) / length;
    points.push([centre + radius * Math.cos(angle), centre + radius * Math.sin(angle)]);
  }
  return points;
}

function piles(view) {
  // Opponents on each space, bottom to top (the stacks list says the order).
  const bySpace = new Map();
  for (const colour of MARKERS.slice(1)) {
    const space = view.markers[colour].space;
    if (!bySpace.has(space)) bySpace.set(space, []);
    bySpace.get(space).push(colour);
  }
  for (const [space, stack] of Object.entries(view.stacks)) bySpace.set(Number(space), [...stack]);
  return bySpace;
}

function boardSvg(view, ctx, highlighted) {
  const board = view.board;
  const length = board.spaces.length;
  const size = 520;
  const centre = size / 2;
  // The loop close to the edge and the markers inside it: the spaces as large as the square
  // allows (a 360-px phone reads the letters; a projector fills its height with the board).
  const disc = Math.max(8, Math.min(26, (Math.PI * (centre - 30)) / length * 0.92));
  const radius = centre - disc - 4;
  const points = positions(length, radius, centre);
  const title = ctx.t("The board: the loop of spaces clockwise from the start/finish at the top, with the markers.");
  const root = svg("svg", {
    viewBox: `0 0 ${size} ${size}`, class: "knowledge-board", role: "img", "aria-labelledby": "knowledge-board-title",
  }, svg("title", { id: "knowledge-board-title" }, title));
  root.append(svg("circle", { cx: centre, cy: centre, r: radius, fill: "none", stroke: "#999", "stroke-width": 2 }));
  board.spaces.forEach((space, index) => {
    const [x, y] = points[index];
    const finish = index === board.finish;
    root.append(svg("circle", {
      cx: x.toFixed(1), cy: y.toFixed(1), r: disc.toFixed(1),
      fill: space ? FILL[space.colour] : "#e8e8e8",
      stroke: finish ? "#000" : "#333", "stroke-width": finish ? 3 : 1,
    }));
    const label = finish ? "⚑" : space ? space.letter : "";
    root.append(svg("text", {
      x: x.toFixed(1), y: y.toFixed(1), "font-size": (disc * 1.55).toFixed(0), "text-anchor": "middle",
      "dominant-baseline": "central", fill: space ? INK[space.colour] : "#1a1a1a", "font-weight": "bold",
    }, label));
  });
  // Markers: inside the loop, stacked inward bottom to top; the team always on top.
  const stacked = piles(view);
  const teamSpace = view.markers.team.space;
  const mark = 15; // a marker's half width
  const drawMarker = (marker, space, level) => {
    const [x, y] = points[space];
    const inward = (radius - disc - mark - 4 - level * (2 * mark + 3)) / radius;
    const mx = centre + (x - centre) * inward;
    const my = centre + (y - centre) * inward;
    const group = svg("g", { class: `marker marker-${marker}${highlighted.has(marker) ? " legal" : ""}` });
    if (highlighted.has(marker)) {
      group.append(svg("circle", { cx: mx.toFixed(1), cy: my.toFixed(1), r: mark + 4, fill: "none", stroke: "#0b57d0", "stroke-width": 3, "stroke-dasharray": "4 3" }));
    }
    if (marker === "team") {
      group.append(svg("rect", { x: (mx - mark).toFixed(1), y: (my - mark).toFixed(1), width: 2 * mark, height: 2 * mark, rx: 5, fill: "#1a1a1a", stroke: "#fff", "stroke-width": 2 }));
      group.append(svg("text", { x: mx.toFixed(1), y: my.toFixed(1), fill: "#fff", "font-size": 18, "text-anchor": "middle", "dominant-baseline": "central", "font-weight": "bold" }, "T"));
    } else {
      const info = view.markers[marker];
      group.append(svg("circle", { cx: mx.toFixed(1), cy: my.toFixed(1), r: mark, fill: FILL[marker], stroke: "#1a1a1a", "stroke-width": 2 }));
      group.append(svg("text", { x: mx.toFixed(1), y: my.toFixed(1), fill: INK[marker], "font-size": info.flag ? 13 : 17, "text-anchor": "middle", "dominant-baseline": "central", "font-weight": "bold" }, `${info.letter}${info.flag ? "⚑" : ""}`));
    }
    root.append(group);
  };
  for (const [space, pile] of stacked) pile.forEach((marker, level) => drawMarker(marker, space, level));
  drawMarker("team", teamSpace, (stacked.get(teamSpace) || []).length);
  return root;
}

function boardList(view, ctx) {
  // The board in words, for screen readers and for checking at a glance.
  const stacked = piles(view);
  const list = el("ul", { className: "marker-list" });
  for (const marker of MARKERS) {
    const info = view.markers[marker];
    const space = view.board.spaces[info.space];
    const shows = space ? `${optionName(space.colour, ctx)} ${space.letter}` : ctx.t("start/finish");
    const bits = [format(ctx.t("%(who)s: space %(n)s (%(shows)s), %(laps)s finish crossings"), {
      who: capital(markerName(marker, ctx)), n: info.space, shows, laps: info.crossings,
    })];
    if (marker !== "team") {
      bits.push(format(ctx.t("letter %(letter)s"), { letter: info.letter }));
      if (info.flag) bits.push(ctx.t("flag side up"));
      const pile = stacked.get(info.space) || [];
      if (pile.length > 1) {
        const above = pile.slice(pile.indexOf(marker) + 1);
        if (above.length) bits.push(format(ctx.t("under %(markers)s"), { markers: above.map((m) => markerName(m, ctx)).join(", ") }));
      }
      if (info.space === view.markers.team.space) bits.push(ctx.t("under the team marker"));
    }
    list.append(el("li", { className: `marker-row marker-${marker}` }, bits.join(" · ")));
  }
  return el("details", { className: "board-words" }, el("summary", {}, ctx.t("The markers in words")), list);
}

// --- the cards ------------------------------------------------------------------------------

function guessPicker(card, ctx) {
  const options = card.category === "number" ? ["0", "1", "2", "3", "4", "5"] : card.category === "letter" ? LETTERS : COLOURS;
  const group = el("div", { className: "guess", role: "group", "aria-labelledby": "guess-label" },
    el("p", { id: "guess-label", className: "guess-label" }, ctx.t("Your guess (optional, kept for your progress):")));
  for (const option of options) {
    const value = card.category === "number" ? Number(option) : option;
    const pressed = chosen.guess === value;
    group.append(el("button", {
      type: "button",
      className: `guess-option${card.category === "colour" ? ` swatch swatch-${option}` : ""}`,
      "aria-pressed": pressed ? "true" : "false",
      "data-focus-key": `guess-${option}`,
      onclick: () => {
        chosen.guess = pressed ? null : value;
        group.querySelectorAll("button").forEach((b) => b.setAttribute("aria-pressed", "false"));
        if (!pressed) group.querySelector(`[data-focus-key="guess-${option}"]`).setAttribute("aria-pressed", "true");
      },
    }, card.category === "colour" ? optionName(option, ctx) : option));
  }
  return group;
}

function frontCard(card, ctx, { selectable, selected, onselect }) {
  const body = [
    el("p", { className: "card-category" }, categoryName(card.category, ctx)),
    el("p", { className: "card-front" }, card.front || ctx.t("(no text on the front)")),
  ];
  if (!selectable) {
    // Focusable: on a phone a long front scrolls inside its card (a keyboard reaches it).
    body[1].setAttribute("tabindex", "0");
    return el("article", { className: "quiz-card front", "data-card": card.id }, ...body);
  }
  return el("button", {
    type: "button", className: `quiz-card front${selected ? " selected" : ""}`, "aria-pressed": selected ? "true" : "false",
    "data-focus-key": `card-${card.id}`, "data-card": card.id, onclick: onselect,
  }, ...body);
}

function slotPanel(view, ctx, card, canAct) {
  const slots = el("ol", { className: "card-slots", "aria-label": ctx.t("The six card slots") });
  MARKERS.forEach((marker, index) => {
    const placed = view.slots[marker];
    const free = view.free_markers.includes(marker);
    const label = capital(markerName(marker, ctx));
    const item = el("li", { className: `slot slot-${marker}${placed ? " filled" : ""}` });
    if (placed) {
      item.append(
        el("p", { className: "slot-name" }, label),
        el("p", { className: "slot-answer" }, answerText(placed.category, placed.answer, ctx)),
        el("p", { className: "card-front small slot-front" }, placed.front || ""),
        placed.back ? el("p", { className: "card-back slot-back" }, placed.back) : null,
      );
    } else if (free && card && canAct) {
      item.append(el("button", {
        type: "button", className: "assign", "data-marker": marker, "data-focus-key": `assign-${marker}`,
        "aria-keyshortcuts": String(index + 1),
        onclick: () => assign(ctx, card, marker),
      }, format(ctx.t("%(n)s · Assign to %(who)s"), { n: index + 1, who: markerName(marker, ctx) })));
    } else {
      item.append(el("p", { className: "slot-name" }, label), el("p", { className: "muted" }, ctx.t("free")));
    }
    slots.append(item);
  });
  return slots;
}

function assign(ctx, card, marker) {
  const action = { type: "assign", card: card.id, marker };
  if (chosen.guess !== null && chosen.guess !== undefined) action.guess = chosen.guess;
  chosen.card = null;
  chosen.guess = null;
  ctx.act(action);
}

let keyHandler = null;

function bindKeys(ctx, card, free) {
  if (keyHandler) document.removeEventListener("keydown", keyHandler);
  keyHandler = null;
  if (!card) return;
  keyHandler = (event) => {
    const target = event.target;
    if (target && (target.tagName === "INPUT" || target.tagName === "TEXTAREA" || target.isContentEditable)) return;
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    const index = Number(event.key) - 1;
    if (index >= 0 && index < MARKERS.length && free.includes(MARKERS[index])) {
      event.preventDefault();
      assign(ctx, card, MARKERS[index]);
    }
  };
  document.addEventListener("keydown", keyHandler);
}

// --- the whole view ---------------------------------------------------------------------------

export function render(root, payload, ctx) {
  const view = payload.view;
  if (!view) return "";
  const canAct = payload.you && payload.you.role !== "spectator" && view.legal_actions.length > 0;
  if (chosen.round !== `${view.round}:${view.history.length}`) {
    // A new card is up: forget the last choice (another device may have played it).
    chosen.round = `${view.round}:${view.history.length}`;
    chosen.card = null;
    chosen.guess = null;
  }
  const playable = view.to_assign || [];
  const legalCards = new Set(view.legal_actions.map((action) => action.card));
  let card = null;
  if (view.variant === "basic" || view.replacement) card = playable.find((c) => legalCards.has(c.id)) || null;
  else card = playable.find((c) => c.id === chosen.card && legalCards.has(c.id)) || null;
  const highlighted = new Set(card ? view.free_markers : []);

  const parts = [];
  const last = view.history.length ? view.history[view.history.length - 1] : null;
  let news = last ? explain(last, ctx) : "";

  const number = (value) => el("strong", { className: "key-number" }, String(value));
  parts.push(el("p", { className: "status-line knowledge-status" }, ...(view.terminal
    ? formatNodes(ctx.t("Round %(n)s · the game is over."), { n: number(view.round) })
    : formatNodes(ctx.t("Round %(n)s · cards still to play: %(left)s"), { n: number(view.round), left: number(view.cards_in_stack) }))));
  if (view.triggered_by && !view.terminal) {
    parts.push(el("p", { className: "notice" }, format(ctx.t("%(who)s has crossed the finish for the second time: this is the last round."), {
      who: capital(markerName(view.triggered_by, ctx)),
    })));
  }

  if (view.terminal) {
    const result = view.result;
    const won = view.outcome === "won";
    const text = won
      ? ctx.t("The team wins: furthest ahead, and no opponent with its flag is beyond the finish ahead of it.")
      : format(ctx.t("The team loses: %(who)s overtook it."), {
        who: (result.overtaken_by || []).map((m) => markerName(m, ctx)).join(", "),
      });
    news = `${text} ${news}`;
    parts.push(el("section", { className: `outcome ${won ? "won" : "lost"}`, "aria-labelledby": "knowledge-outcome" },
      el("h2", { id: "knowledge-outcome" }, won ? ctx.t("Won!") : ctx.t("Lost")),
      el("p", {}, text),
      el("ol", { className: "progress-list" }, ...MARKERS.map((marker) => el("li", {},
        format(ngettext("%(who)s: %(n)s space of progress", "%(who)s: %(n)s spaces of progress", result.progress[marker]), { who: capital(markerName(marker, ctx)), n: result.progress[marker] })))),
    ));
  }

  const layout = el("div", { className: "knowledge-layout" });
  const boardBox = el("figure", { className: "board-box" }, boardSvg(view, ctx, highlighted), boardList(view, ctx));
  const side = el("div", { className: "card-box" });

  if (last) {
    const lastCard = view.slots[last.marker] && view.slots[last.marker].id === last.card
      ? view.slots[last.marker]
      : view.abandoned.find((c) => c.id === last.card);
    // Focusable: on the projector it may scroll inside the loop's middle (a keyboard reaches it).
    side.append(el("section", { className: "last-move", "aria-labelledby": "last-move-heading", tabindex: "0" },
      el("h2", { id: "last-move-heading" }, ctx.t("The card back")),
      lastCard ? el("p", { className: "card-front small" }, lastCard.front || "") : null,
      lastCard && lastCard.back ? el("p", { className: "card-back" }, lastCard.back) : null,
      el("p", { className: "answer" }, format(ctx.t("Answer: %(answer)s"), { answer: answerText(last.category, last.answer, ctx) }),
        last.guess_correct === true ? el("span", { className: "right" }, ` · ${ctx.t("your guess was right")}`) : null,
        last.guess_correct === false ? el("span", { className: "wrong" }, ` · ${ctx.t("your guess was wrong")}`) : null),
      el("p", { className: "explanation" }, explain(last, ctx)),
    ));
  }

  if (!view.terminal) {
    const heading = view.replacement
      ? ctx.t("Replacement card: assign it to any marker that has not moved")
      : view.variant === "strategic"
        ? ctx.t("This round's cards: read all the fronts, then choose one")
        : ctx.t("The next card");
    const cards = el("section", { className: "front-cards", "aria-labelledby": "front-heading" },
      el("h2", { id: "front-heading" }, heading));
    const strategic = view.variant === "strategic" && !view.replacement;
    // The fronts in a list of their own: a screen lays them out in columns that its box
    // scrolls through downwards when they are long (static/games/knowledge.css).
    const list = el("div", { className: "front-list" });
    cards.append(list);
    for (const front of playable) {
      list.append(frontCard(front, ctx, {
        selectable: strategic && canAct,
        selected: card && card.id === front.id,
        onselect: () => {
          chosen.card = front.id;
          chosen.guess = null;
          render(root, payload, ctx);
          const again = root.querySelector(`[data-focus-key="card-${CSS.escape(front.id)}"]`);
          if (again) again.focus();
        },
      }));
    }
    if (card && canAct) {
      cards.append(guessPicker(card, ctx));
      cards.append(el("p", { className: "help" }, ctx.t("Then assign the card to a marker that has not moved this round (highlighted on the board; keys 1–6).")));
    } else if (strategic && canAct) {
      cards.append(el("p", { className: "help" }, ctx.t("Choose the card to play next.")));
    } else if (!canAct) {
      cards.append(el("p", { className: "help" }, ctx.t("You are watching: the team assigns the cards.")));
    }
    side.append(cards);
  }
  side.append(el("section", { className: "slots-box", "aria-labelledby": "slots-heading" },
    el("h2", { id: "slots-heading" }, ctx.t("Card slots")), slotPanel(view, ctx, card, canAct)));

  const moves = view.history.slice(-6).reverse();
  if (moves.length) {
    side.append(el("details", { className: "move-log" },
      el("summary", {}, ctx.t("Earlier moves")),
      el("ol", {}, ...moves.map((play) => el("li", {}, `${ctx.t("Round")} ${play.round}: ${explain(play, ctx)}`)))));
  }
  layout.append(boardBox, side);
  parts.push(layout);
  root.replaceChildren(...parts);
  // How many cards have been played: lets a page (or a test) see that an action arrived.
  root.dataset.moves = String(view.history.length);
  bindKeys(ctx, canAct ? card : null, view.free_markers);
  return news;
}
