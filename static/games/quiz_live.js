// The live quiz, until its own drawing: the participant's view, as data.
export { render } from "./generic.js";
