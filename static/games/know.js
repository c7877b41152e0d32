// Know on a team's device, the facilitator's page and the projector: draws one view of
// games.engines.know.player_view (docs/replay.md, Know: "What a player sees").
//
// Anonymity: this file only ever gets the view the server built for this screen. A team
// device sees its own team (your_team, "yours" flags); the projector gets the spectator
// view (games.play.know.selectors.know_public_payload); the facilitator sees the Team IDs
// of the teams only if the game was set up that way. Every answer is drawn in one neutral
// typeface (.know-answer), whoever wrote it.
//
// The session page (live.js) imports render(); the projector page loads this module on its
// own and polls its public endpoint (startProjector below).
import { el, format } from "./dom.js";

const gettext = (text) => (window.gettext ? window.gettext(text) : text);

function ngettext(one, many, n) {
  return window.ngettext ? window.ngettext(one, many, n) : (n === 1 ? one : many);
}

function legal(view, type) {
  return (view.legal_actions || []).filter((action) => action.type === type);
}

// The answers ticked as best, per "round:question", kept across redraws until marked.
const ticked = new Map();
// The facilitator's "End the game" asks once more before it acts.
let confirmingEnd = false;

// --- parts every screen has -------------------------------------------------------------------

function phaseText(view, ctx) {
  const round = view.round ? view.round.number : null;
  const resolving = (view.resolutions || []).find((r) => r.status === "resolving");
  switch (view.phase) {
    case "prep": return ctx.t("Question Prep: choose a secret Team ID and write your questions");
    case "questions": return format(ctx.t("Question Round %(n)s: teams submit one question card each"), { n: round });
    case "answers": return format(ctx.t("Question Round %(n)s: answer cards"), { n: round });
    case "between_rounds": return ctx.t("Between rounds");
    case "resolution": return format(ctx.t("Resolution of round %(n)s: marking the answers"), { n: resolving ? resolving.round : "" });
    case "over": return ctx.t("The game is over");
    default: return view.phase;
  }
}

function banner(view, ctx) {
  return el(
    "section", { className: "know-banner", "aria-labelledby": "know-phase" },
    el("h2", { id: "know-phase" }, phaseText(view, ctx)),
    el("p", {}, el("strong", {}, ctx.t("Agreed source of answers:")), " ", view.source),
    el("p", { className: "help" }, format(
      ctx.t("Teams: %(teams)s · Point Pool per question: %(pool)s · answer cards per team per round: up to %(limit)s · marked by: %(who)s"),
      {
        teams: view.team_count, pool: view.point_pool, limit: view.answer_limit,
        who: view.marking === "facilitator" ? ctx.t("the facilitator") : ctx.t("each question's own team"),
      },
    )),
  );
}

function scoreRecord(view, ctx, ownTeamId) {
  const record = view.score_record || {};
  const ids = view.outcome ? view.outcome.ranking : Object.keys(record);
  if (!ids.length) return null;
  const winners = view.outcome ? view.outcome.winners : [];
  return el(
    "section", { className: "know-scores", "aria-labelledby": "know-scores-heading" },
    el("h2", { id: "know-scores-heading" }, view.outcome ? ctx.t("Final score record") : ctx.t("Score record")),
    el("table", { className: "results" },
      el("thead", {}, el("tr", {}, el("th", { scope: "col" }, ctx.t("Team ID")), el("th", { scope: "col" }, ctx.t("Points")))),
      el("tbody", {}, ...ids.map((teamId) => el(
        "tr", { className: winners.includes(teamId) ? "winner" : null },
        el("th", { scope: "row" }, teamId, teamId === ownTeamId ? ` (${ctx.t("you")})` : "",
          winners.includes(teamId) ? ` · ${ctx.t("winner")}` : ""),
        el("td", {}, String(record[teamId])),
      )))),
  );
}

function setAside(view, ctx) {
  if (!view.set_aside || !view.set_aside.length || view.phase === "over") return null;
  return el("p", { className: "help know-set-aside" }, format(
    ctx.t("Set aside, nobody answered them: questions %(list)s. They come back in new rounds once every question has been played."),
    { list: view.set_aside.join(", ") },
  ));
}

function outcomeText(view, ctx) {
  if (!view.outcome) return null;
  const reason = view.outcome.reason === "questions_ran_out"
    ? ctx.t("The questions ran out.") : ctx.t("The facilitator ended the game.");
  const winners = view.outcome.winners.length
    ? format(ctx.t("Most points: %(list)s."), { list: view.outcome.winners.join(", ") }) : "";
  return el("p", { className: "outcome", role: "status" }, `${reason} ${winners}`);
}

function questionHead(number, text, ctx, extra) {
  return el("h3", {}, format(ctx.t("Question %(n)s"), { n: number }), extra || null);
}

// --- Resolution: answers matched to questions, and marking ---------------------------------------

function markingForm(view, resolution, question, ctx, { remark }) {
  const key = `${resolution.round}:${question.number}`;
  if (!ticked.has(key)) ticked.set(key, new Set(question.best_answers || []));
  const chosen = ticked.get(key);
  const boxes = question.answers.map((answer) => {
    const id = `know-best-${resolution.round}-${question.number}-${answer.id}`;
    return el("li", { className: "check" },
      el("input", {
        type: "checkbox", id, checked: chosen.has(answer.id), "data-focus-key": id,
        onchange: (event) => { if (event.target.checked) chosen.add(answer.id); else chosen.delete(answer.id); },
      }),
      " ",
      el("label", { for: id }, el("span", { className: "know-answer" }, answer.text)));
  });
  const button = format(remark ? ctx.t("Re-mark question %(n)s") : ctx.t("Mark question %(n)s"), { n: question.number });
  return el("form", {
    className: "know-marking",
    onsubmit: (event) => {
      event.preventDefault();
      const best = question.answers.map((a) => a.id).filter((id) => chosen.has(id));
      ticked.delete(key);
      ctx.act({ type: "mark", question_number: question.number, best_answers: best });
    },
  },
  el("fieldset", {},
    el("legend", {}, format(ctx.t("Best answers to question %(n)s (none ticked: no points)"), { n: question.number })),
    el("ul", { className: "know-answers" }, ...boxes)),
  el("button", { type: "submit", "data-focus-key": `mark-${question.number}` }, button));
}

function resolutionSection(view, resolution, ctx, { canMark }) {
  const questions = resolution.questions.map((question) => {
    const best = new Set(question.best_answers || []);
    const answers = el("ol", { className: "know-answers", "aria-label": format(ctx.t("Answers to question %(n)s"), { n: question.number }) },
      ...question.answers.map((answer) => el(
        "li", { className: best.has(answer.id) ? "best" : null },
        el("span", { className: "know-answer" }, answer.text),
        best.has(answer.id) ? el("strong", { className: "know-best" }, ` ★ ${ctx.t("best answer")}`) : null,
        answer.yours ? el("span", { className: "muted" }, ` (${ctx.t("your answer")})`) : null,
      )));
    let result = el("p", { className: "muted" }, ctx.t("Not marked yet."));
    if (question.marked) {
      result = el("p", {}, question.best_answers.length
        ? format(ngettext("%(p)s point to each best answer.", "%(p)s points to each best answer.", question.points_each), { p: question.points_each })
        : ctx.t("No answer earned points."));
    }
    const markable = canMark(question);
    return el("article", { className: "know-question" },
      questionHead(question.number, question.text, ctx, question.yours ? ` · ${ctx.t("your question")}` : ""),
      el("p", { className: "know-question-text" }, question.text),
      markable ? null : answers, // the marking form lists the same answers, with their boxes
      result,
      markable ? markingForm(view, resolution, question, ctx, { remark: question.marked }) : null);
  });
  const open = resolution.status === "resolving";
  const heading = format(open ? ctx.t("Round %(n)s: the Round Deck revealed") : ctx.t("Round %(n)s, resolved"), { n: resolution.round });
  const body = [el("h2", {}, heading), ...questions];
  if (open) return el("section", { className: "know-resolution open" }, ...body);
  return el("details", { className: "know-resolution" }, el("summary", {}, heading), ...questions);
}

function resolutions(view, ctx, canMark) {
  const list = [...(view.resolutions || [])].reverse(); // the newest first
  return list.map((resolution) => resolutionSection(view, resolution, ctx, {
    canMark: (question) => resolution.status === "resolving" && canMark(question),
  }));
}

// --- the round's questions, while answers are written ---------------------------------------------

function roundQuestions(view, ctx, answerPart) {
  if (!view.round || view.round.step !== "answers") return null;
  return el("section", { className: "know-round", "aria-labelledby": "know-round-heading" },
    el("h2", { id: "know-round-heading" }, format(ctx.t("The questions of round %(n)s"), { n: view.round.number })),
    ...view.round.questions.map((question) => el("article", { className: question.yours ? "know-question yours" : "know-question" },
      questionHead(question.number, question.text, ctx, question.yours ? ` · ${ctx.t("your question")}` : ""),
      el("p", { className: "know-question-text" }, question.text),
      answerPart ? answerPart(question) : null)));
}

function roundProgress(view, ctx) {
  if (!view.round) return null;
  return el("p", { className: "counts" }, format(ctx.t("%(n)s of %(d)s question cards are in."), {
    n: view.round.questions_submitted, d: view.round.questions_due,
  }));
}

// --- a team's device ------------------------------------------------------------------------------

function statusText(status, ctx) {
  const texts = {
    in_hand: ctx.t("in your hand"),
    in_round: ctx.t("in a Round Deck"),
    set_aside: ctx.t("set aside, comes back later"),
    marked: ctx.t("marked"),
  };
  return texts[status] || status;
}

function teamIdForm(view, ctx) {
  const team = view.your_team;
  return el("section", { className: "know-team-id", "aria-labelledby": "know-team-id-heading" },
    el("h2", { id: "know-team-id-heading" }, ctx.t("Your secret Team ID")),
    team.team_id ? el("p", {}, ctx.t("Your Team ID:"), " ", el("strong", {}, team.team_id)) :
      el("p", {}, ctx.t("Choose a Team ID nobody would guess. Keep it to your team.")),
    el("form", {
      className: "row",
      onsubmit: (event) => {
        event.preventDefault();
        const input = event.target.querySelector("input");
        ctx.act({ type: "choose_team_id", team_id: input.value });
      },
    },
    el("label", { for: "know-team-id" }, ctx.t("Team ID")),
    el("input", { id: "know-team-id", type: "text", maxlength: 32, autocomplete: "off", "data-keep": "team-id", "data-focus-key": "team-id", value: team.team_id || "", required: true }),
    el("button", { type: "submit" }, team.team_id ? ctx.t("Change the Team ID") : ctx.t("Choose this Team ID"))));
}

function questionWriting(view, ctx) {
  const team = view.your_team;
  return el("section", { className: "know-writing", "aria-labelledby": "know-writing-heading" },
    el("h2", { id: "know-writing-heading" }, ctx.t("Write your questions")),
    el("p", { className: "help" }, ctx.t("One question a card; objective questions, answerable from the agreed source, are easiest to mark.")),
    ...team.cards.map((card) => {
      const id = `know-q-${card.number}`;
      return el("form", {
        className: "know-card",
        onsubmit: (event) => {
          event.preventDefault();
          ctx.act({ type: "write_question", card: card.number, text: event.target.querySelector("textarea").value });
        },
      },
      el("label", { for: id }, format(ctx.t("Question card %(n)s"), { n: card.number }),
        " ", el("span", { className: "muted" }, card.text ? ctx.t("(written)") : ctx.t("(blank)"))),
      el("textarea", { id, rows: 2, maxlength: 500, "data-keep": `q-${card.number}`, "data-focus-key": id, value: card.text || "" }),
      el("button", { type: "submit", className: "secondary" }, format(ctx.t("Save question %(n)s"), { n: card.number })));
    }));
}

function ownCards(view, ctx) {
  const team = view.your_team;
  return el("details", { className: "know-own-cards" },
    el("summary", {}, ctx.t("Your question cards")),
    el("ul", {}, ...team.cards.map((card) => el("li", {},
      el("strong", {}, format(ctx.t("Question %(n)s"), { n: card.number })), ": ", card.text || ctx.t("(blank)"),
      " ", el("span", { className: "muted" }, `(${statusText(card.status, ctx)})`)))));
}

function submitQuestion(view, ctx) {
  const round = view.your_team.this_round;
  const choices = legal(view, "submit_question");
  if (choices.length) {
    const cards = Object.fromEntries(view.your_team.cards.map((card) => [card.number, card]));
    return el("section", { "aria-labelledby": "know-submit-heading" },
      el("h2", { id: "know-submit-heading" }, ctx.t("Submit one question card to the Round Deck")),
      el("ul", { className: "know-choices" }, ...choices.map((action) => el("li", {},
        el("button", {
          type: "button", className: "know-choice", "data-focus-key": `submit-${action.card}`,
          onclick: () => ctx.act({ type: "submit_question", card: action.card }),
        }, format(ctx.t("Submit question %(n)s"), { n: action.card }), ": ", (cards[action.card] || {}).text || "")))));
  }
  if (round && round.question) {
    return el("p", { className: "lead" }, format(ctx.t("You submitted question %(n)s. Waiting for the other teams."), { n: round.question }));
  }
  return el("p", { className: "lead" }, ctx.t("Your team has no question in this round."));
}

function answerPartFor(view, ctx) {
  const round = view.your_team.this_round || { answers: [] };
  const allowed = new Set(legal(view, "submit_answer").map((action) => action.question_number));
  const teamId = view.your_team.team_id;
  return (question) => {
    if (question.yours) return el("p", { className: "muted" }, ctx.t("Your own question: you cannot answer it."));
    const given = round.answers.find((a) => a.question_number === question.number);
    if (given) {
      return el("p", {}, ctx.t("Your answer card:"), " ", el("span", { className: "know-answer" }, given.text));
    }
    if (!allowed.has(question.number)) return null;
    const id = `know-a-${question.number}`;
    return el("form", {
      className: "know-card",
      onsubmit: (event) => {
        event.preventDefault();
        const text = event.target.querySelector("textarea").value;
        event.target.querySelector("textarea").value = "";
        ctx.act({ type: "submit_answer", question_number: question.number, text, team_id: teamId });
      },
    },
    el("label", { for: id }, format(ctx.t("Your answer to question %(n)s"), { n: question.number })),
    el("textarea", { id, rows: 2, maxlength: 500, "data-keep": `a-${question.number}`, "data-focus-key": id }),
    el("button", { type: "submit" }, format(ctx.t("Submit the answer card for question %(n)s"), { n: question.number })));
  };
}

function teamScreen(view, payload, ctx) {
  const team = view.your_team;
  const parts = [];
  if (view.phase === "prep") {
    parts.push(teamIdForm(view, ctx), questionWriting(view, ctx),
      el("p", { className: "counts" }, format(ctx.t("%(n)s of %(t)s teams have a Team ID · %(w)s of %(c)s question cards written"), {
        n: view.prep.teams_with_team_id, t: view.team_count, w: view.prep.cards_written, c: view.prep.cards_total,
      })));
    return parts;
  }
  parts.push(el("p", {}, ctx.t("Your Team ID:"), " ", el("strong", {}, team.team_id || "—"),
    team.score !== null ? ` · ${format(ngettext("%(n)s point", "%(n)s points", team.score), { n: team.score })}` : ""));
  if (view.phase === "questions") parts.push(submitQuestion(view, ctx), roundProgress(view, ctx));
  if (view.phase === "answers") {
    const left = team.this_round ? team.this_round.answers_left : 0;
    parts.push(el("p", { className: "lead" }, format(
      ctx.t("Answer cards left this round: %(n)s. Each card is signed with your Team ID and shown to the others without it."), { n: left })));
    parts.push(roundQuestions(view, ctx, answerPartFor(view, ctx)));
  }
  if (view.phase === "between_rounds") parts.push(el("p", { className: "lead" }, ctx.t("Waiting for the facilitator to start the next round or mark a Round Deck.")));
  const markable = new Set(legal(view, "mark").map((action) => action.question_number));
  if (markable.size) parts.push(el("p", { className: "lead" }, ctx.t("Mark your own questions: tick the best answers against the agreed source.")));
  parts.push(...resolutions(view, ctx, (question) => markable.has(question.number)));
  parts.push(setAside(view, ctx), outcomeText(view, ctx), ownCards(view, ctx));
  return parts;
}

// --- the facilitator ----------------------------------------------------------------------------

function nicknames(payload) {
  return Object.fromEntries((payload.participants || []).filter((p) => p.player).map((p) => [p.player, p.nickname]));
}

function teamsTable(view, payload, ctx) {
  const names = nicknames(payload);
  const facilitator = view.facilitator;
  const prep = view.phase === "prep";
  const header = [el("th", { scope: "col" }, ctx.t("Team device"))];
  if (prep) header.push(el("th", { scope: "col" }, ctx.t("Team ID chosen")), el("th", { scope: "col" }, ctx.t("Questions written")));
  if (facilitator.sees_mapping) header.push(el("th", { scope: "col" }, ctx.t("Team ID")));
  const rows = facilitator.teams.map((team) => {
    const cells = [el("th", { scope: "row" }, team.players.map((p) => names[p] || p).join(", "))];
    if (prep) {
      cells.push(el("td", {}, team.has_team_id ? ctx.t("yes") : ctx.t("not yet")),
        el("td", {}, `${team.cards_written} / ${view.cards_per_team}`));
    }
    if (facilitator.sees_mapping) cells.push(el("td", {}, team.team_id || "—"));
    return el("tr", {}, ...cells);
  });
  const table = el("table", { className: "results" }, el("thead", {}, el("tr", {}, ...header)), el("tbody", {}, ...rows));
  const note = facilitator.sees_mapping ? null
    : el("p", { className: "help" }, ctx.t("You do not see which team chose which Team ID: the game was set up that way."));
  if (prep) return el("section", { "aria-labelledby": "know-teams-heading" }, el("h2", { id: "know-teams-heading" }, ctx.t("Teams")), table, note);
  return el("details", { className: "know-teams" }, el("summary", {}, ctx.t("Teams")), table, note);
}

function button(text, action, ctx, className = "big") {
  return el("button", { type: "button", className, "data-focus-key": `do-${action.type}-${action.round || ""}`, onclick: () => ctx.act(action) }, text);
}

function facilitatorControls(view, ctx) {
  const controls = [];
  if (legal(view, "start_round").length) {
    controls.push(button(view.phase === "prep" ? ctx.t("Start the first Question Round") : ctx.t("Start the next Question Round"), { type: "start_round" }, ctx));
  }
  if (legal(view, "close_submissions").length) {
    controls.push(button(view.phase === "questions" ? ctx.t("Close the question step now") : ctx.t("Close the answers: end this round"), { type: "close_submissions" }, ctx));
  }
  for (const action of legal(view, "resolve")) {
    controls.push(button(format(ctx.t("Resolve round %(n)s now"), { n: action.round }), action, ctx, "secondary"));
  }
  if (legal(view, "close_round").length) {
    controls.push(button(ctx.t("Close the round: the scores count"), { type: "close_round" }, ctx));
  }
  let confirmation = null;
  if (legal(view, "end_game").length) {
    if (confirmingEnd) {
      confirmation = endConfirmation(view, ctx);
    } else {
      controls.push(el("button", {
        type: "button", className: "secondary", "data-focus-key": "end-ask",
        onclick: (event) => { confirmingEnd = true; redraw(event.target, "end-no"); },
      }, ctx.t("End the game…")));
    }
  }
  return [el("div", { className: "row know-controls" }, ...controls), confirmation];
}

// Redraws the board without a new state (the two-step "End the game"), then puts the focus
// on the button that took the place of the one pressed.
function redraw(from, focusKey) {
  const board = from.closest(".know");
  from.dispatchEvent(new CustomEvent("know-redraw", { bubbles: true }));
  const next = board && board.querySelector(`[data-focus-key="${focusKey}"]`);
  if (next) next.focus();
}

// What ending the game now would leave unscored (the engine's facilitator.if_ended_now), said
// before the facilitator confirms: decks put to one side are never marked, and in the deck
// being marked only the questions marked so far count.
function endingText(view, ctx) {
  const left = view.facilitator.if_ended_now;
  const lines = [];
  if (!left) return lines;
  if (left.put_aside_rounds.length) {
    const q = left.put_aside_questions;
    lines.push(format(ngettext(
      "%(q)s question is still waiting to be marked (Round Decks put to one side: %(list)s).",
      "%(q)s questions are still waiting to be marked (Round Decks put to one side: %(list)s).", q,
    ), { q, list: left.put_aside_rounds.join(", ") }));
    lines.push(ngettext(
      "Ending now, it is never marked and its answers earn no points.",
      "Ending now, they are never marked and their answers earn no points.", q,
    ));
  }
  if (left.resolving_round !== null) {
    lines.push(format(ctx.t("Round %(n)s is being marked: its questions marked so far count (%(m)s); those not marked yet earn no points (%(u)s)."), {
      n: left.resolving_round, m: left.resolving_marked, u: left.resolving_unmarked,
    }));
  }
  if (left.open_round !== null) {
    lines.push(format(ctx.t("Round %(n)s is still open: its cards are never marked."), { n: left.open_round }));
  }
  if (left.unplayed_questions) {
    lines.push(format(ctx.t("Questions not played yet, never played now: %(n)s."), { n: left.unplayed_questions }));
  }
  if (!left.put_aside_rounds.length && left.resolving_round === null) lines.push(ctx.t("No round is waiting to be marked."));
  lines.push(ctx.t("The score record as it stands becomes the final score record."));
  return lines;
}

function endConfirmation(view, ctx) {
  return el("section", { className: "know-end-confirm", role: "group", "aria-labelledby": "know-end-heading", "aria-describedby": "know-end-text" },
    el("h2", { id: "know-end-heading" }, ctx.t("End the game now?")),
    el("div", { id: "know-end-text" }, ...endingText(view, ctx).map((line) => el("p", {}, line))),
    el("div", { className: "row" },
      el("button", {
        type: "button", className: "secondary", "data-focus-key": "end-yes",
        onclick: () => { confirmingEnd = false; ctx.act({ type: "end_game" }); },
      }, ctx.t("Yes, end the game now")),
      el("button", {
        type: "button", "data-focus-key": "end-no",
        onclick: (event) => { confirmingEnd = false; redraw(event.target, "end-ask"); },
      }, ctx.t("No, go on playing"))));
}

function facilitatorScreen(view, payload, ctx) {
  const facilitator = view.facilitator;
  const parts = [teamsTable(view, payload, ctx)];
  if (view.phase === "prep") {
    parts.push(el("p", { className: "counts" }, format(ctx.t("%(n)s of %(t)s teams have a Team ID · %(w)s of %(c)s question cards written"), {
      n: view.prep.teams_with_team_id, t: view.team_count, w: view.prep.cards_written, c: view.prep.cards_total,
    })));
    if (facilitator.start_blocked_because) parts.push(el("p", { className: "help" }, ctx.t(facilitator.start_blocked_because)));
  }
  if (view.phase === "questions") parts.push(roundProgress(view, ctx));
  if (view.phase === "answers") {
    parts.push(el("p", { className: "counts" }, format(ctx.t("Answer cards in: %(n)s"), { n: facilitator.answers_submitted })));
  }
  if (view.phase === "between_rounds" && view.put_aside_rounds.length) {
    parts.push(el("p", {}, format(ctx.t("Round Decks put to one side: %(list)s."), { list: view.put_aside_rounds.join(", ") })));
  }
  if (view.phase === "resolution") {
    parts.push(el("p", { className: "help" }, legal(view, "close_round").length
      ? ctx.t("Every question is marked. Settle any dispute by re-marking, then close the round.")
      : ctx.t("Tick the best answers of each question and mark it. Until you close the round you may re-mark any question.")));
  }
  // The buttons before the round's questions: the facilitator reaches them without scrolling.
  parts.push(...facilitatorControls(view, ctx));
  if (view.phase === "answers") parts.push(roundQuestions(view, ctx, null));
  const markable = new Set(legal(view, "mark").map((action) => action.question_number));
  parts.push(...resolutions(view, ctx, (question) => markable.has(question.number)));
  parts.push(setAside(view, ctx), outcomeText(view, ctx));
  return parts;
}

// --- the projector and spectators ------------------------------------------------------------------

function publicScreen(view, ctx) {
  const parts = [];
  if (view.phase === "prep") {
    parts.push(el("p", { className: "counts" }, format(ctx.t("%(n)s of %(t)s teams have a Team ID · %(w)s of %(c)s question cards written"), {
      n: view.prep.teams_with_team_id, t: view.team_count, w: view.prep.cards_written, c: view.prep.cards_total,
    })));
  }
  if (view.phase === "questions") parts.push(roundProgress(view, ctx));
  if (view.phase === "answers") {
    parts.push(el("p", { className: "lead" }, format(ctx.t("Teams write up to %(n)s answer cards each; never to their own question."), { n: view.answer_limit })));
    parts.push(roundQuestions(view, ctx, null));
  }
  if (view.phase === "between_rounds" && view.put_aside_rounds.length) {
    parts.push(el("p", { className: "lead" }, format(ctx.t("Round Decks put to one side, to be marked later: %(list)s."), { list: view.put_aside_rounds.join(", ") })));
  }
  parts.push(...resolutions(view, ctx, () => false));
  parts.push(setAside(view, ctx), outcomeText(view, ctx));
  return parts;
}

// --- the renderer -------------------------------------------------------------------------------

export function render(root, payload, ctx) {
  const view = payload.view;
  if (!view) {
    root.replaceChildren();
    return "";
  }
  const projector = payload.you && payload.you.role === "projector";
  let parts;
  if (!projector && view.role === "player" && view.your_team) parts = teamScreen(view, payload, ctx);
  else if (!projector && view.role === "facilitator" && view.facilitator) parts = facilitatorScreen(view, payload, ctx);
  else parts = publicScreen(view, ctx);
  const ownTeamId = view.your_team ? view.your_team.team_id : null;
  root.classList.add("know");
  if (!root.dataset.knowRedraw) {
    // The facilitator's two-step "End the game" redraws without a new state.
    root.dataset.knowRedraw = "1";
    root.addEventListener("know-redraw", () => render(root, root.knowLast.payload, root.knowLast.ctx));
  }
  root.knowLast = { payload, ctx };
  root.replaceChildren(...[banner(view, ctx), ...parts, scoreRecord(view, ctx, ownTeamId)].filter(Boolean));
  return phaseText(view, ctx);
}

// --- the projector page: polls the public view --------------------------------------------------

const POLL_MS = 1500;

function startProjector() {
  const root = document.getElementById("know-projector");
  if (!root) return;
  const live = JSON.parse(document.getElementById("game-live").textContent);
  let payload = JSON.parse(document.getElementById("game-payload").textContent);
  const board = document.getElementById("board");
  const connection = document.getElementById("connection");
  const announceBox = document.getElementById("announce");
  const joined = document.getElementById("know-joined");
  const ctx = { act: () => {}, t: gettext, picture: () => "" };
  let failures = 0;
  // Says the interval the page really polls at (1.5 s, written "1,5" where that is the custom).
  const seconds = (POLL_MS / 1000).toLocaleString(document.documentElement.lang || undefined);
  const liveText = format(gettext("Live (updated every %(s)s seconds)"), { s: seconds });

  function draw() {
    root.dataset.status = payload.status;
    root.querySelectorAll("[data-when]").forEach((element) => {
      element.hidden = !element.dataset.when.split(" ").includes(payload.status);
    });
    if (joined && typeof payload.players_joined === "number") {
      const n = payload.players_joined;
      const text = window.ngettext ? window.ngettext("%(n)s team device has joined.", "%(n)s team devices have joined.", n)
        : (n === 1 ? "%(n)s team device has joined." : "%(n)s team devices have joined.");
      joined.textContent = format(text, { n });
    }
    const said = render(board, payload, ctx);
    if (said && announceBox.textContent !== said) announceBox.textContent = said;
  }

  async function poll() {
    const url = new URL(live.view, window.location.href);
    if (payload.status !== "lobby") url.searchParams.set("since", String(payload.version));
    try {
      const response = await fetch(url, { credentials: "same-origin", cache: "no-store" });
      if (!response.ok) throw new Error(String(response.status));
      const body = await response.json();
      failures = 0;
      connection.textContent = liveText;
      if (!body.unchanged && body.version >= payload.version) {
        payload = body;
        draw();
      }
    } catch {
      failures += 1;
      if (failures > 1) connection.textContent = gettext("No connection; trying again…");
    }
  }

  draw();
  poll();
  setInterval(poll, POLL_MS);
}

if (typeof document !== "undefined") startProjector();
