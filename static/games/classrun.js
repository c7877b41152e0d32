// The class lobby: the projector lists every duel of the round, live; a student waits here
// between rounds (their page follows them into their own duel, see live.js).
//
// Only names of people and card counts arrive here (games.selectors.class_info): never a card.
import { el, format } from "./dom.js";

function duelRow(duel, ctx) {
  const players = duel.players.map((player) => {
    const count = player.cards_in_hand === null ? "–" : String(player.cards_in_hand);
    // An unknown count ("–") takes the plural form: "–: 1 card" would claim a number.
    const words = ctx.nt("%(who)s: %(n)s card in hand", "%(who)s: %(n)s cards in hand", player.cards_in_hand ?? 0);
    const text = format(words, { who: player.nickname, n: count });
    return el("li", { className: player.winner ? "winner" : null },
      text, player.winner ? el("strong", {}, ` · ${ctx.t("wins")}`) : null);
  });
  let status = ctx.t("playing");
  if (duel.status === "finished") {
    status = duel.players.some((p) => p.winner) ? ctx.t("over") : ctx.t("ended by the teacher");
  }
  return el("li", { className: `duel ${duel.status}` },
    el("h3", {}, el("a", { href: duel.url }, players.length === 2
      ? `${duel.players[0].nickname} – ${duel.players[1].nickname}` : ctx.t("Duel"))),
    el("p", { className: "muted" }, duel.card_set
      ? format(ctx.t("Card set %(set)s · %(status)s"), { set: duel.card_set, status })
      : status),
    el("ul", { className: "counts" }, ...players));
}

export function render(root, payload, ctx) {
  const info = payload.class;
  if (!info) return "";
  const parts = [];
  let news = "";
  if (payload.you.role === "facilitator") {
    if (!info.round) {
      parts.push(el("p", { className: "lead" }, format(ctx.nt("%(n)s student is in.", "%(n)s students are in.", info.players), { n: info.players })));
    } else {
      const finished = info.duels.filter((d) => d.status === "finished").length;
      parts.push(el("h2", {}, format(ctx.t("Round %(n)s"), { n: info.round })));
      parts.push(el("p", { className: "status-line", role: "status" },
        format(ctx.t("%(done)s of %(all)s duels over."), { done: finished, all: info.duels.length })));
      parts.push(el("ul", { className: "duels" }, ...info.duels.map((duel) => duelRow(duel, ctx))));
      if (info.bye) {
        parts.push(el("p", {}, format(ctx.t("%(who)s sits this round out and plays in the next one."), { who: info.bye })));
      }
      if (info.duels.length && finished === info.duels.length) news = ctx.t("Every duel of the round is over.");
    }
  } else if (info.bye) {
    news = ctx.t("You sit this round out: you play in the next one.");
    parts.push(el("p", { className: "lead" }, news));
  } else if (info.round) {
    news = ctx.t("Your duel is over. Wait for the next round: it opens here by itself.");
    parts.push(el("p", { className: "lead" }, news));
  }
  root.replaceChildren(...parts);
  return news;
}
