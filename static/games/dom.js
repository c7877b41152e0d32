// The helpers every game's script builds its page with (imported as "./dom.js").

const SVG_NS = "http://www.w3.org/2000/svg";

function appendChildren(element, children) {
  element.append(...children.filter((child) => child !== null && child !== undefined && child !== false));
}

/** An HTML element: attributes (false, null and undefined are left out; true is an empty
 *  attribute; className, value and checked set the property; onX adds a listener), then
 *  its children (nodes or text; null, undefined and false are skipped). */
export function el(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === false || value === null || value === undefined) continue;
    if (name === "className") element.className = value;
    else if (name === "value") element.value = value;
    else if (name === "checked") element.checked = Boolean(value);
    else if (name.startsWith("on")) element.addEventListener(name.slice(2), value);
    else element.setAttribute(name, value === true ? "" : value);
  }
  appendChildren(element, children);
  return element;
}

/** An SVG element: its attributes (null and undefined are left out), then its children. */
export function svg(tag, attributes = {}, ...children) {
  const element = document.createElementNS(SVG_NS, tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value !== null && value !== undefined) element.setAttribute(name, value);
  }
  appendChildren(element, children);
  return element;
}

/** A translated text with its %(name)s placeholders filled from ``values``. */
export function format(text, values) {
  return text.replace(/%\((\w+)\)s/g, (_, key) => String(values[key] ?? ""));
}
