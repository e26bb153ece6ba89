// What the app's drawings share: the world maps (registry-map.js), the
// results map (registry-dots.js) and the "Established" facet
// (registry-years.js) make their elements, add their colours and ask the
// router the same way. Below all three, so that none imports another for
// these: registry-map.js loads the other two on demand, and they used to
// import these helpers back from it (a circle).

const SVG = "http://www.w3.org/2000/svg";

/** An element `name` ("svg:rect" for SVG) with attributes and text. */
export function node(name, attrs = {}, text) {
  const e = name.startsWith("svg:") ? document.createElementNS(SVG, name.slice(4)) : document.createElement(name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

// Colours for light and dark schemes, in constructed sheets added once
// each (no inline style attributes: a strict CSP may forbid them).
const added = new Set();
/** Adds the constructed style sheet `css` once under `name` (the map modules' colours). */
export function addSheet(name, css) {
  if (added.has(name) || !("adoptedStyleSheets" in document)) return;
  added.add(name);
  const sheet = new CSSStyleSheet();
  sheet.replaceSync(css);
  document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
}

/**
 * The JSON answer of the app's registry `client` (registry.js) to `url`;
 * a registry error (HTTP 4xx/5xx with `errors`) is thrown with its message.
 */
export async function ask(client, url) {
  const { status, body } = await client.request(url);
  const v = JSON.parse(body);
  if (status >= 400) throw new Error(v.errors?.join("; ") ?? `HTTP ${status}`);
  return v;
}
