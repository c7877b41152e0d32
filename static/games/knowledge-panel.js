// The Knowledge? panel's projector switch: large board and text for the back row.
const game = document.getElementById("game");
const button = document.querySelector("[data-knowledge-projector]");
if (game && button) {
  const apply = (on) => {
    game.classList.toggle("projector", on);
    button.setAttribute("aria-pressed", on ? "true" : "false");
  };
  apply(button.getAttribute("aria-pressed") === "true" || game.classList.contains("projector"));
  button.addEventListener("click", () => apply(button.getAttribute("aria-pressed") !== "true"));
}
