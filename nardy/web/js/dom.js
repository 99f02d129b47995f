// Tiny DOM helpers: build elements without a framework.

/** Escape text for use inside HTML or SVG markup. */
export function esc(value) {
  return String(value).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
}

/**
 * h("button", {class: "x", onclick: fn, disabled: true}, "text", child, [more])
 * Props: class, on<event> functions, dataset, boolean and string attributes,
 * and the properties value/checked (set after the children, so a <select> keeps its value).
 */
export function h(tag, props, ...children) {
  const el = document.createElement(tag);
  const late = {};
  for (const [key, value] of Object.entries(props || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") el.className = value;
    else if (key === "dataset") Object.assign(el.dataset, value);
    else if (key.startsWith("on") && typeof value === "function") el.addEventListener(key.slice(2), value);
    else if (key === "value" || key === "checked" || key === "selected") late[key] = value;
    else el.setAttribute(key, value === true ? "" : String(value));
  }
  append(el, children);
  Object.assign(el, late);
  return el;
}

function append(el, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Replace the children of el. */
export function fill(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

/** A table that scrolls sideways inside its card when wider than the screen, rather than widening the page. */
export function scrollable(table) {
  return h("div", { class: "table-scroll" }, table);
}
