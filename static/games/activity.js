// Games without a play page of their own yet: the participant's view, as data.
export function render(root, payload, ctx) {
  const pre = document.createElement("pre");
  pre.className = "view-data";
  pre.textContent = JSON.stringify(payload.view, null, 2);
  root.replaceChildren(pre);
  return payload.view && payload.view.terminal ? ctx.t("The game is over.") : "";
}
