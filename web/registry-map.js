// Offline world maps of the app: the record page's location map and the
// country facet's map, drawn on the world map of registry-world.js; and the
// trampolines of the maps and charts shown later (the results map, the
// "Established" facet), which load their modules the first time they are
// shown. The widget and a results page without a map load none of it.
//
// Drawing happens here rather than in the UI's wasm, so that a first paint
// carries none of it. The UI's module imports this one: what it draws with
// (registry-world.js, registry-draw.js) is imported when a map is first
// drawn, not with the app, where it would be one more round trip before
// the app starts.

const SVG = "http://www.w3.org/2000/svg";

/**
 * The world map loaded and its colours added, with what draws on it
 * ({map, project, addSheet}); or null with a sentence in `figure` saying
 * why it is missing.
 */
async function mapFor(figure) {
  try {
    // Both at once: registry-world.js imports registry-draw.js.
    const [world, draw] = await Promise.all([import("./registry-world.js"), import("./registry-draw.js")]);
    world.addMapStyles();
    return { map: await world.loadMap(), project: world.project, addSheet: draw.addSheet };
  } catch (e) {
    figure.replaceChildren(Object.assign(document.createElement("p"), { className: "error", textContent: `The map could not be loaded (${e.message}).` }));
    return null;
  }
}

/** Bounding boxes [x0, y0, x1, y1] of each ring of a path written by build-map.mjs (M/m, l, z). */
export function ringBoxes(d) {
  const boxes = [];
  let cmd = "", x = 0, y = 0, sx = 0, sy = 0, box = null, pending = null;
  for (const tok of d.match(/[MmLlZz]|-?(?:\d+\.?\d*|\.\d+)/g) ?? []) {
    if (/[a-z]/i.test(tok)) {
      cmd = tok;
      if (cmd === "z" || cmd === "Z") (x = sx), (y = sy);
      continue;
    }
    if (pending === null) {
      pending = +tok;
      continue;
    }
    const a = pending, b = +tok;
    pending = null;
    if (cmd === "M" || cmd === "m") {
      [x, y] = cmd === "M" ? [a, b] : [x + a, y + b];
      [sx, sy] = [x, y];
      box = [x, y, x, y];
      boxes.push(box);
      cmd = cmd === "M" ? "L" : "l"; // later pairs of a move are lines
    } else {
      [x, y] = cmd === "L" ? [a, b] : [x + a, y + b];
      box[0] = Math.min(box[0], x);
      box[1] = Math.min(box[1], y);
      box[2] = Math.max(box[2], x);
      box[3] = Math.max(box[3], y);
    }
  }
  return boxes;
}

const el = (name, attrs = {}) => {
  const e = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  return e;
};

/** The view box [x, y, w, h] around the points: their country's part that holds them, padded, 2:1. */
export function recordView(map, points, country) {
  const d = map.countries[country];
  let [x0, y0, x1, y1] = [Infinity, Infinity, -Infinity, -Infinity];
  const grow = ([a, b, c, e]) => {
    x0 = Math.min(x0, a);
    y0 = Math.min(y0, b);
    x1 = Math.max(x1, c);
    y1 = Math.max(y1, e);
  };
  for (const [x, y] of points) grow([x, y, x, y]);
  if (d) {
    // The ring holding (or nearest to) each point: France's view is
    // mainland France for Paris, not a box from Guiana to Réunion.
    const boxes = ringBoxes(d);
    const dist = ([a, b, c, e], [x, y]) => Math.hypot(Math.max(a - x, 0, x - c), Math.max(b - y, 0, y - e));
    for (const p of points) {
      const best = boxes.reduce((m, b) => (dist(b, p) < dist(m, p) || (dist(b, p) === dist(m, p) && b[2] - b[0] > m[2] - m[0]) ? b : m), boxes[0]);
      if (best && dist(best, p) < 20) grow(best);
    }
  }
  const [, , W] = map.box;
  // At least ~900 km across (a microstate shows its neighbours), at most
  // a quarter of the world (the US shows the lower 48, not Alaska too).
  let w = Math.min(Math.max((x1 - x0) * 1.3, 24), W / 4), h = Math.max((y1 - y0) * 1.3, w / 2);
  w = Math.max(w, h * 2);
  h = w / 2;
  const cx = (x0 + x1) / 2, cy = (y0 + y1) / 2;
  return [cx - w / 2, cy - h / 2, w, h];
}

/**
 * Draws the record page's map into `figure`: `places` is a JSON array of
 * {lat, lng, city, country_code, country_name}. Resolves when drawn;
 * a failure leaves a sentence in place of the map.
 */
export async function recordMap(figure, places) {
  const list = (typeof places === "string" ? JSON.parse(places) : places).filter((p) => Number.isFinite(p.lat) && Number.isFinite(p.lng));
  if (!list.length) return;
  const world = await mapFor(figure);
  if (!world) return;
  const { map, project } = world;
  const first = list[0];
  const where = [first.city, first.country_name].filter(Boolean).join(", ");
  const pts = list.map((p) => project(p.lng, p.lat, map.scale));
  const [vx, vy, vw, vh] = recordView(map, pts, first.country_code);
  const svg = el("svg", { class: "world-map", viewBox: `${vx} ${vy} ${vw} ${vh}`, role: "img", "aria-label": `Map: ${where || "the record's location"}` });
  svg.dataset.scale = map.scale;
  const codes = new Set(list.map((p) => p.country_code));
  for (const [code, d] of Object.entries(map.countries)) {
    const path = el("path", { d, class: codes.has(code) ? "land here" : "land" });
    path.dataset.code = code;
    svg.append(path);
  }
  // The record's country above its neighbours, so its outline is not hidden under theirs.
  for (const p of svg.querySelectorAll("path.here")) svg.append(p);
  const r = vw * 0.011;
  list.forEach((p, i) => {
    const [x, y] = pts[i];
    const dot = el("circle", { class: "dot", cx: x, cy: y, r });
    dot.dataset.lat = p.lat;
    dot.dataset.lng = p.lng;
    svg.append(dot);
    if (p.city) {
      const label = el("text", { class: "label", x: x + r * 1.6, y: y + r * 0.6, "font-size": vw * 0.028 });
      label.textContent = p.city;
      svg.append(label);
    }
  });
  const caption = document.createElement("figcaption");
  list.forEach((p, i) => {
    if (i) caption.append(" · ");
    const a = document.createElement("a");
    a.href = `https://www.openstreetmap.org/?mlat=${p.lat}&mlon=${p.lng}#map=12/${p.lat}/${p.lng}`;
    a.rel = "noopener noreferrer";
    a.target = "_blank";
    a.className = "osm";
    a.textContent = `${[p.city, p.country_name].filter(Boolean).join(", ") || `${p.lat}, ${p.lng}`} in OpenStreetMap`;
    caption.append(a);
  });
  figure.replaceChildren(svg, caption);
  figure.dataset.ready = "true";
}

/**
 * The legend's steps: upper bounds from 1 to `max`, at most `n`, on a
 * square-root scale (a few large countries do not wash out the rest);
 * every count up to `n` its own step when `max` is that small.
 */
export function scaleSteps(max, n = 5) {
  if (max <= n) return Array.from({ length: Math.max(1, max) }, (_, i) => i + 1);
  const steps = [];
  for (let i = 1; i <= n; i++) {
    const v = i === n ? max : Math.max(1, Math.round(((Math.sqrt(max) * i) / n) ** 2));
    if (v > (steps.at(-1) ?? 0)) steps.push(v);
  }
  return steps;
}

// Shades of the scale, light to dark (light scheme) — the dark scheme
// reverses the lightness in CSS, so only the class is set here.
const SHADES = 5;

/**
 * The country facet as a world map, drawn into `figure`: `data` is JSON
 * {entries: [{id, title, count}], selected: [id], complete} (`complete`:
 * every country with a match, not only the list's ten). A country with a count
 * is a button: click, Enter or Space ticks its checkbox in the facet list
 * (`#f-country-<id>`), so the URL changes exactly as when the list is used.
 */
export async function facetMap(figure, data) {
  const { entries, selected, complete } = typeof data === "string" ? JSON.parse(data) : data;
  const world = await mapFor(figure);
  if (!world) return;
  const { map } = world;
  // After the map's sheet, whose rules it overrides (`.facet-map` over `.world-map`).
  world.addSheet("facet", FACET_CSS);
  const max = Math.max(1, ...entries.map((e) => e.count));
  const steps = scaleSteps(max, SHADES);
  // Fewer steps than shades: spread over the whole range, lightest to darkest.
  const cls = (i) => (steps.length === 1 ? SHADES - 1 : Math.round((i * (SHADES - 1)) / (steps.length - 1)));
  const shade = (count) => cls(Math.max(0, steps.findIndex((s) => count <= s)));
  const byCode = new Map(entries.map((e) => [e.id.toUpperCase(), e]));
  const chosen = new Set(selected.map((s) => s.toUpperCase()));
  const [bx, by, bw, bh] = map.box;
  const svg = el("svg", { class: "world-map facet-map", viewBox: `${bx} ${by} ${bw} ${bh}`, role: "group", "aria-label": "Countries of the matches on a world map" });
  const status = Object.assign(document.createElement("p"), { className: "map-status" });
  status.setAttribute("aria-live", "polite");
  const say = (e) => (status.textContent = e ? `${e.title}: ${e.count} ${e.count === 1 ? "match" : "matches"}${chosen.has(e.id.toUpperCase()) ? " (selected)" : ""}` : "");
  const pick = (e) => {
    refocus = e.id.toUpperCase();
    document.getElementById(`f-country-${e.id}`)?.click();
  };
  const counted = [];
  for (const [code, d] of Object.entries(map.countries)) {
    const e = byCode.get(code);
    const path = el("path", { d, class: e ? `land counted s${shade(e.count)}` : "land" });
    path.dataset.code = code;
    if (e) counted.push([path, e]);
    svg.append(path);
  }
  for (const [code, [x, y]] of Object.entries(map.markers ?? {})) {
    const e = byCode.get(code);
    if (!e) continue;
    const dot = el("circle", { cx: x, cy: y, r: 3, class: `land counted s${shade(e.count)}` });
    dot.dataset.code = code;
    counted.push([dot, e]);
    svg.append(dot);
  }
  // Larger counts first in keyboard order, like the list.
  counted.sort((a, b) => b[1].count - a[1].count);
  for (const [node, e] of counted) {
    node.setAttribute("tabindex", "0");
    node.setAttribute("role", "button");
    node.setAttribute("aria-pressed", String(chosen.has(e.id.toUpperCase())));
    node.setAttribute("aria-label", `${e.title}: ${e.count} ${e.count === 1 ? "match" : "matches"}. Filter by this country`);
    const title = el("title");
    title.textContent = `${e.title}: ${e.count}`;
    node.append(title);
    node.addEventListener("mouseenter", () => say(e));
    node.addEventListener("focus", () => say(e));
    node.addEventListener("click", () => pick(e));
    node.addEventListener("keydown", (ev) => {
      if (ev.key === "Enter" || ev.key === " ") {
        ev.preventDefault();
        pick(e);
      }
    });
    svg.append(node); // keyboard order = document order
  }
  const legend = document.createElement("div");
  legend.className = "map-legend";
  legend.append(Object.assign(document.createElement("span"), { textContent: "Matches: " }));
  steps.forEach((s, i) => {
    const key = document.createElement("span");
    key.className = "key";
    const swatch = document.createElement("span");
    swatch.className = `swatch s${cls(i)}`;
    swatch.setAttribute("aria-hidden", "true");
    key.append(swatch, ` ≤ ${s}`);
    legend.append(key);
  });
  const note = Object.assign(document.createElement("p"), {
    className: "hint",
    textContent: complete
      ? `Every country with a match (${entries.length}), shaded by its count over all matches.`
      : `The ${entries.length} countries the list shows, shaded by their count over all matches.`,
  });
  figure.replaceChildren(svg, legend, status, note);
  figure.dataset.ready = "true";
  // A country picked on the map keeps the focus on the redrawn map (the
  // list gives its checkbox focus back in an animation frame: after it).
  const back = refocus && counted.find(([, e]) => e.id.toUpperCase() === refocus);
  refocus = null;
  if (back) requestAnimationFrame(() => requestAnimationFrame(() => back[0].focus()));
}

let refocus = null;

// The country facet's colours (light and dark schemes).
const FACET_CSS = `
.country-map { flex-basis: 100%; margin: 0 0 .75rem; }
.facet-map { max-width: none; }
.facet-map .counted { cursor: pointer; stroke: #123a66; }
.facet-map .counted:hover, .facet-map .counted:focus { stroke: #a1162b; stroke-width: 2.5; outline: none; }
.facet-map [aria-pressed=true] { stroke: #a1162b; stroke-width: 2; }
.facet-map .s0, .map-legend .s0 { fill: #c6dbef; background: #c6dbef; }
.facet-map .s1, .map-legend .s1 { fill: #9ecae1; background: #9ecae1; }
.facet-map .s2, .map-legend .s2 { fill: #6baed6; background: #6baed6; }
.facet-map .s3, .map-legend .s3 { fill: #3182bd; background: #3182bd; }
.facet-map .s4, .map-legend .s4 { fill: #08519c; background: #08519c; }
.map-legend { display: flex; flex-wrap: wrap; gap: .25rem .75rem; align-items: center; font-size: .9rem; margin-top: .35rem; }
.map-legend .swatch { display: inline-block; width: 1rem; height: .8rem; border: 1px solid #6b6b6b; vertical-align: middle; margin-right: .2rem; }
.map-status { min-height: 1.5em; margin: .25rem 0 0; font-weight: 600; }
@media (prefers-color-scheme: dark) {
  .facet-map .counted { stroke: #ffd866; }
  .facet-map .s0, .map-legend .s0 { fill: #1f3b57; background: #1f3b57; }
  .facet-map .s1, .map-legend .s1 { fill: #2c5d8a; background: #2c5d8a; }
  .facet-map .s2, .map-legend .s2 { fill: #3f7fbf; background: #3f7fbf; }
  .facet-map .s3, .map-legend .s3 { fill: #6aa8e0; background: #6aa8e0; }
  .facet-map .s4, .map-legend .s4 { fill: #a9d2f5; background: #a9d2f5; }
}
`;

/**
 * The search page's "Established" facet, drawn by registry-years.js: loaded
 * the first time the facet is shown (never by the widget or a first paint).
 */
export async function yearsFacet(root, client, url, selected, pick) {
  // What it imports (registry-draw.js) asked for beside it rather than once
  // it is read: one round trip, as when its helpers were in this module.
  const [m] = await Promise.all([import("./registry-years.js"), import("./registry-draw.js")]);
  await m.yearsFacet(root, client, url, selected, pick);
}

/**
 * The search page's results as dots on the map, drawn by registry-dots.js:
 * loaded the first time the map view is shown.
 */
export async function resultsMap(figure, client, url) {
  // What it imports asked for beside it rather than once it is read: one
  // round trip, as when its helpers were in this module.
  const [m] = await Promise.all([import("./registry-dots.js"), import("./registry-world.js"), import("./registry-draw.js")]);
  await m.resultsMap(figure, client, url);
}
