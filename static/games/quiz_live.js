// The live quiz on a phone and on the projector (the facilitator's screen): draws one view of
// games.engines.quiz_live.player_view (docs/replay.md, Live quiz; docs/quizzes.md).
//
// A phone only ever gets its own team's answer and result; the projector shows the open
// question, how many teams answered (never which) and, once closed, the right answer and the
// standings by Team ID. The key of an open question is never in the view this file gets.
import { el, format } from "./dom.js";

const CHOICE_KINDS = ["picture_name", "name_picture", "text_symbol", "period", "choice"];
const TYPED_KINDS = ["picture_name_typed", "know"];

// What a team member is putting together before sending, per question (kept across redraws:
// another team's answer redraws the page).
const drafts = new Map();

function legal(view, type) {
  return (view.legal_actions || []).some((action) => action.type === type);
}

function picture(ctx, number, token, alt) {
  return token ? el("img", { className: "quiz-live-picture", src: ctx.questionPicture(number, token), alt }) : null;
}

function optionLabel(option, index, ctx) {
  if (typeof option !== "object") return String(option);
  return option.label || option.text || format(ctx.t("Picture %(n)s"), { n: String.fromCharCode(65 + index) });
}

function prompt(question, ctx) {
  const p = question.prompt || {};
  return el(
    "div", { className: "quiz-live-prompt" },
    p.name ? el("p", { className: "quiz-name" }, p.name) : null,
    p.text ? el("p", { className: "quiz-text" }, p.text) : null,
    picture(ctx, question.number, p.picture, ctx.t("The question's picture")),
  );
}

function heading(view, ctx) {
  const question = view.question;
  let text;
  if (view.phase === "lobby") text = ctx.t("The quiz starts soon");
  else if (view.phase === "finished") text = ctx.t("The quiz is over");
  else if (view.phase === "open") text = format(ctx.t("Question %(n)s of %(total)s"), { n: question.number, total: view.question_count });
  else text = format(ctx.t("Question %(n)s of %(total)s: closed"), { n: question.number, total: view.question_count });
  return el("h2", { id: "quiz-live-phase" }, text);
}

// One ticking countdown per page: it counts down to the question's closing time (the
// server's), and on the teacher's screen closes the question when the time is up.
let ticking = null;

function countdown(view, ctx) {
  clearInterval(ticking);
  ticking = null;
  const question = view.question;
  if (view.phase !== "open" || !question.closes_at) return null;
  const box = el("p", { className: "quiz-live-count" });
  let closing = false;
  const tick = () => {
    const left = Math.max(0, Math.round(question.closes_at - Date.now() / 1000));
    box.textContent = format(ctx.t("%(s)s seconds left"), { s: left });
    if (left <= 0 && view.role === "facilitator" && legal(view, "close_question") && !closing) {
      closing = true;
      ctx.act({ type: "close_question" });
    }
  };
  tick();
  ticking = setInterval(tick, 1000);
  return box;
}

function answeredCount(view, ctx) {
  if (!view.question || view.phase !== "open") return null;
  const n = view.question.answered;
  const text = ctx.nt
    ? ctx.nt("%(n)s of %(total)s team has answered", "%(n)s of %(total)s teams have answered", view.team_count)
    : "%(n)s of %(total)s teams have answered";
  return el("p", { className: "quiz-live-answered", "aria-live": "polite" }, format(text, { n, total: view.team_count }));
}

function rightAnswer(view, ctx) {
  if (!view.reveal || !view.question) return null;
  const q = view.question;
  const answer = view.reveal.answer;
  const options = (q.prompt && q.prompt.options) || [];
  let text;
  const label = (id) => {
    const index = options.findIndex((o) => (typeof o === "object" ? o.id === id : String(o) === String(id)));
    return index >= 0 ? optionLabel(options[index], index, ctx) : String(id);
  };
  if (Array.isArray(answer)) text = answer.map(label).join(", ");
  else if (answer && typeof answer === "object") text = "";
  else text = label(answer);
  return el(
    "section", { className: "quiz-live-reveal", "aria-labelledby": "quiz-live-right" },
    el("h3", { id: "quiz-live-right" }, ctx.t("The right answer")),
    text ? el("p", { className: "quiz-live-answer" }, text) : null,
    el("p", {}, format(ctx.t("Teams fully right: %(n)s of %(total)s"), { n: view.reveal.right, total: view.team_count })),
  );
}

function standings(view, ctx) {
  const rows = view.score_record || [];
  if (!rows.length) return null;
  const own = view.your_team ? view.your_team.team_id : null;
  const tie = view.time === "tie_break";
  return el(
    "section", { className: "quiz-live-standings", "aria-labelledby": "quiz-live-standings" },
    el("h3", { id: "quiz-live-standings" }, ctx.t("Standings")),
    el(
      "table", {},
      el("thead", {}, el("tr", {},
        el("th", { scope: "col" }, ctx.t("Place")),
        el("th", { scope: "col" }, ctx.t("Team ID")),
        el("th", { scope: "col" }, ctx.t("Score")),
        tie ? el("th", { scope: "col" }, ctx.t("Time (s)")) : null,
      )),
      el("tbody", {}, ...rows.map((row) => el(
        "tr", { className: row.team_id === own ? "quiz-live-own" : "" },
        el("td", {}, String(row.place)),
        el("th", { scope: "row" }, row.team_id, row.team_id === own ? ` (${ctx.t("your team")})` : ""),
        el("td", {}, String(row.score)),
        tie ? el("td", {}, String(Math.round(row.time))) : null,
      ))),
    ),
  );
}

// --- the teacher's controls ---------------------------------------------------------------------

function controls(view, ctx) {
  if (view.role !== "facilitator") return null;
  const buttons = [];
  if (legal(view, "open_question")) {
    const label = view.phase === "lobby" ? ctx.t("Open the first question") : ctx.t("Open the next question");
    buttons.push(el("button", { type: "button", onclick: () => ctx.act({ type: "open_question" }) }, label));
  }
  if (legal(view, "close_question")) {
    buttons.push(el("button", { type: "button", onclick: () => ctx.act({ type: "close_question" }) }, ctx.t("Close the question")));
  }
  if (legal(view, "end_game")) {
    buttons.push(el("button", { type: "button", className: "secondary", onclick: () => ctx.act({ type: "end_game" }) }, ctx.t("End the quiz")));
  }
  return buttons.length ? el("div", { className: "row quiz-live-controls" }, ...buttons) : null;
}

// --- a phone's answer -----------------------------------------------------------------------------

function send(ctx, question, answer) {
  ctx.act({ type: "answer", question: question.number, answer });
}

function choiceForm(view, question, ctx) {
  const p = question.prompt || {};
  const options = question.kind === "knowledge" ? (p.options || []).map((o) => ({ id: String(o), label: String(o) })) : p.options || [];
  const mine = view.your_team.answer && view.your_team.answer.choice;
  return el(
    "div", { className: "quiz-live-options", role: "group", "aria-labelledby": "quiz-live-phase" },
    ...options.map((option, index) => el(
      "button",
      { type: "button", className: "quiz-live-option", "aria-pressed": String(mine === option.id), onclick: () => send(ctx, question, { choice: option.id }) },
      picture(ctx, question.number, option.picture, ""),
      optionLabel(option, index, ctx),
    )),
  );
}

function draftFor(question, initial) {
  if (!drafts.has(question.number)) drafts.set(question.number, initial);
  return drafts.get(question.number);
}

function periodsForm(view, question, ctx) {
  const chosen = new Set(draftFor(question, (view.your_team.answer && view.your_team.answer.choices) || []));
  const options = question.prompt.options || [];
  return el(
    "fieldset", { className: "quiz-live-form" },
    el("legend", {}, ctx.t("Tick every period it belongs to")),
    ...options.map((option, index) => el(
      "label", { className: "quiz-live-check" },
      el("input", {
        type: "checkbox", checked: chosen.has(option.id),
        onchange: (event) => {
          if (event.target.checked) chosen.add(option.id); else chosen.delete(option.id);
          drafts.set(question.number, [...chosen]);
        },
      }),
      optionLabel(option, index, ctx),
    )),
    el("button", { type: "button", onclick: () => send(ctx, question, { choices: [...chosen] }) }, ctx.t("Send the answer")),
  );
}

function typedForm(view, question, ctx) {
  const id = `quiz-live-text-${question.number}`;
  const value = draftFor(question, (view.your_team.answer && view.your_team.answer.text) || "");
  return el(
    "div", { className: "quiz-live-form" },
    el("label", { for: id }, ctx.t("Your team's answer")),
    el("input", { id, type: "text", value, maxlength: "200", autocomplete: "off", oninput: (event) => drafts.set(question.number, event.target.value) }),
    el("button", { type: "button", onclick: () => send(ctx, question, { text: drafts.get(question.number) || "" }) }, ctx.t("Send the answer")),
  );
}

function orderForm(view, question, ctx, root) {
  const events = question.prompt.events || [];
  const order = draftFor(question, (view.your_team.answer && view.your_team.answer.order && view.your_team.answer.order.length)
    ? view.your_team.answer.order : events.map((e) => e.id));
  const byId = Object.fromEntries(events.map((e) => [e.id, e]));
  const move = (index, by) => {
    const next = [...order];
    [next[index], next[index + by]] = [next[index + by], next[index]];
    drafts.set(question.number, next);
    root.dispatchEvent(new CustomEvent("quiz-live-redraw"));
  };
  return el(
    "div", { className: "quiz-live-form" },
    el("p", {}, ctx.t("Put them in order, earliest first.")),
    el("ol", { className: "quiz-live-order" }, ...order.map((id, index) => el(
      "li", {},
      el("span", {}, (byId[id] && byId[id].text) || id),
      el("span", { className: "row" },
        el("button", { type: "button", disabled: index === 0, "aria-label": format(ctx.t("Move “%(e)s” earlier"), { e: (byId[id] && byId[id].text) || id }), onclick: () => move(index, -1) }, "↑"),
        el("button", { type: "button", disabled: index === order.length - 1, "aria-label": format(ctx.t("Move “%(e)s” later"), { e: (byId[id] && byId[id].text) || id }), onclick: () => move(index, 1) }, "↓"),
      ),
    ))),
    el("button", { type: "button", onclick: () => send(ctx, question, { order: [...order] }) }, ctx.t("Send the answer")),
  );
}

function pairsForm(view, question, ctx) {
  const p = question.prompt;
  const connect = question.kind === "connect";
  const lefts = connect ? p.symbols || [] : p.left || [];
  const rights = connect ? p.groups || [] : p.right || [];
  const field = connect ? "groups" : "pairs";
  const pairs = draftFor(question, { ...((view.your_team.answer && view.your_team.answer[field]) || {}) });
  return el(
    "div", { className: "quiz-live-form" },
    ...lefts.map((left) => {
      const id = `quiz-live-${question.number}-${left.id}`;
      return el(
        "p", {},
        el("label", { for: id }, left.name || left.text || left.id),
        el("select", { id, onchange: (event) => { pairs[left.id] = event.target.value; } },
          el("option", { value: "" }, ctx.t("Choose…")),
          ...rights.map((right) => el("option", { value: right.id, selected: pairs[left.id] === right.id }, right.label || right.text || right.id)),
        ),
      );
    }),
    el("button", { type: "button", onclick: () => send(ctx, question, { [field]: { ...pairs } }) }, ctx.t("Send the answer")),
  );
}

function answerForm(view, ctx, root) {
  const question = view.question;
  if (view.phase !== "open" || !legal(view, "answer")) return null;
  const kind = question.kind;
  if (CHOICE_KINDS.includes(kind) || kind === "knowledge") return choiceForm(view, question, ctx);
  if (kind === "periods") return periodsForm(view, question, ctx);
  if (TYPED_KINDS.includes(kind)) return typedForm(view, question, ctx);
  if (kind === "chronology") return orderForm(view, question, ctx, root);
  return pairsForm(view, question, ctx);
}

function teamPart(view, ctx) {
  const team = view.your_team;
  if (!team) return null;
  const parts = [];
  if (view.phase === "lobby") {
    const id = "quiz-live-team-id";
    const value = drafts.get("team_id") ?? team.team_id ?? "";
    parts.push(el(
      "form", {
        className: "quiz-live-form",
        onsubmit: (event) => {
          event.preventDefault();
          ctx.act({ type: "choose_team_id", team_id: drafts.get("team_id") ?? team.team_id ?? "" });
        },
      },
      el("label", { for: id }, view.solo ? ctx.t("Your secret name for the standings") : ctx.t("Your team's secret Team ID")),
      el("input", { id, type: "text", value, maxlength: "32", autocomplete: "off", oninput: (event) => drafts.set("team_id", event.target.value) }),
      el("button", { type: "submit" }, ctx.t("Choose it")),
    ));
  }
  if (team.team_id) parts.push(el("p", {}, format(ctx.t("Your Team ID: %(id)s"), { id: team.team_id })));
  if (view.phase === "open" && team.answer) {
    parts.push(el("p", { className: "quiz-live-sent", role: "status" }, ctx.t("Your team's answer is in. You can change it until the question closes.")));
  }
  if (team.result) {
    const r = team.result;
    parts.push(el(
      "section", { className: "quiz-live-result", "aria-labelledby": "quiz-live-result" },
      el("h3", { id: "quiz-live-result" }, format(ctx.t("Your team: %(score)s of %(points)s"), { score: r.score, points: r.points })),
      r.parts.length > 1 || (r.parts[0] && r.parts[0].label) ? el("ul", {}, ...r.parts.map((part) => el(
        "li", {}, `${part.label ? `${part.label}: ` : ""}${part.correct ? ctx.t("right") : format(ctx.t("%(given)s, right: %(expected)s"), { given: part.given || "—", expected: part.expected })}`,
      ))) : null,
    ));
  }
  return el("div", { className: "quiz-live-team" }, ...parts);
}

export function render(root, payload, ctx) {
  const view = payload.view;
  if (!view) {
    root.replaceChildren();
    return "";
  }
  root.classList.add("quiz-live");
  if (!root.dataset.quizLiveRedraw) {
    root.dataset.quizLiveRedraw = "1";
    root.addEventListener("quiz-live-redraw", () => render(root, root.quizLiveLast.payload, root.quizLiveLast.ctx));
  }
  root.quizLiveLast = { payload, ctx };
  const question = view.phase !== "lobby" && view.question ? view.question : null;
  const lobby = view.phase === "lobby"
    ? el("p", {}, format(ctx.t("Teams with a Team ID: %(n)s of %(total)s"), { n: view.teams_with_team_id, total: view.team_count }))
    : null;
  root.replaceChildren(...[
    heading(view, ctx),
    lobby,
    countdown(view, ctx),
    question ? prompt(question, ctx) : null,
    answeredCount(view, ctx),
    answerForm(view, ctx, root),
    teamPart(view, ctx),
    rightAnswer(view, ctx),
    controls(view, ctx),
    standings(view, ctx),
  ].filter(Boolean));
  return view.phase === "finished" ? ctx.t("The quiz is over.") : "";
}
