// The search page's results as dots on the offline world map: every
// match's location (the router's `places=all`: each located record's
// coordinates, id and name, core search::places), grouped into clusters
// where dense at the current zoom, each cluster labelled with its count.
// A dot is a link to its record; a cluster zooms in when activated, or
// lists its records when they all sit at one place (or the map is zoomed
// in as far as it goes). Loaded on demand by registry-map.js's
// `resultsMap` when the page shows the map view.

import { addSheet, ask, node } from "./registry-draw.js";
import { addMapStyles, loadMap, project } from "./registry-world.js";

/** Clusters are cells of this fraction of the view's width. */
const CELL = 1 / 24;
/** The deepest zoom: this fraction of the world's width (~80 km). */
const MIN_VIEW = 1 / 500;
/** Records listed for one place at most (the rest are counted). */
const LIST_MAX = 100;
/** A cluster's number, in CSS pixels whatever the map's width (legible on a phone too). */
const LABEL_PX = 12;
/** CSS pixels kept between two clusters (or a cluster and a dot). */
const GAP_PX = 2;

const el = node;
const plural = (n) => `${n.toLocaleString("en")} ${n === 1 ? "organization" : "organizations"}`;

/**
 * Groups projected points `pts` ([{x, y, …}]) into cells `size` wide:
 * [{x, y, points}] at the mean position of their points, largest first.
 */
export function cluster(pts, size) {
  const cells = new Map();
  for (const p of pts) {
    const key = `${Math.floor(p.x / size)},${Math.floor(p.y / size)}`;
    let c = cells.get(key);
    if (!c) cells.set(key, (c = { sx: 0, sy: 0, points: [] }));
    c.sx += p.x;
    c.sy += p.y;
    c.points.push(p);
  }
  return [...cells.values()]
    .map((c) => ({ x: c.sx / c.points.length, y: c.sy / c.points.length, points: c.points }))
    .sort((a, b) => b.points.length - a.points.length);
}

/** A cluster's number: its records, "12k" from ten thousand. */
export const countText = (n) => (n >= 10000 ? `${Math.round(n / 1000)}k` : String(n));

/** The radius in CSS pixels of a cluster of `n` records: room for its number in LABEL_PX type, growing a little with `n`. */
export function clusterRadiusPx(n) {
  return Math.max(10 + 2.5 * Math.log10(n), (countText(n).length * 0.62 * LABEL_PX) / 2 + 4);
}

/**
 * Clusters ([{x, y, points}]) that do not cover each other: each is given
 * its radius (`c.r = radius(c)`) and drawn at its points' mean, moved inside
 * `box` ([x, y, w, h]) by its radius (a number at the map's edge was cut
 * off); two that would overlap, or come closer than `gap`, are merged (the
 * smaller into the larger), until none do. Grid cells alone let the means
 * of neighbouring cells lie side by side, and a small cluster drawn later
 * covered a large one's number.
 */
export function separate(clusters, radius, gap, box) {
  const place = (c) => {
    c.x = c.points.reduce((s, p) => s + p.x, 0) / c.points.length;
    c.y = c.points.reduce((s, p) => s + p.y, 0) / c.points.length;
    c.r = radius(c);
    const [bx, by, bw, bh] = box;
    c.x = bw > 2 * c.r ? Math.min(Math.max(c.x, bx + c.r), bx + bw - c.r) : bx + bw / 2;
    c.y = bh > 2 * c.r ? Math.min(Math.max(c.y, by + c.r), by + bh - c.r) : by + bh / 2;
    return c;
  };
  let list = clusters.map((c) => place({ points: [...c.points] }));
  for (let merged = true; merged; ) {
    merged = false;
    list.sort((a, b) => b.points.length - a.points.length);
    const kept = [];
    for (const c of list) {
      const near = kept.find((k) => Math.hypot(k.x - c.x, k.y - c.y) < k.r + c.r + gap);
      if (!near) kept.push(c);
      else {
        near.points.push(...c.points);
        place(near);
        merged = true;
      }
    }
    list = kept;
  }
  return list.sort((a, b) => b.points.length - a.points.length);
}

/**
 * The view ([x, y, w, h], twice as wide as high, as the world's) that a
 * cluster of `points` zooms to: every point inside it with a margin, the
 * box's centre at its centre (the points' mean, where the cluster is drawn,
 * can sit far from a lone outlier: centred there, the outlier fell out of
 * the view), and never narrower than `minWidth`.
 */
export function clusterView(points, minWidth) {
  let [x0, y0, x1, y1] = [Infinity, Infinity, -Infinity, -Infinity];
  for (const p of points) [x0, y0, x1, y1] = [Math.min(x0, p.x), Math.min(y0, p.y), Math.max(x1, p.x), Math.max(y1, p.y)];
  const pad = Math.max(Math.max(x1 - x0, y1 - y0) * 0.6, minWidth);
  const w = Math.max(minWidth, x1 - x0 + 2 * pad, 2 * (y1 - y0 + 2 * pad));
  return [(x0 + x1) / 2 - w / 2, (y0 + y1) / 2 - w / 4, w, w / 2];
}

/** Opens a record's page in the app (same document: the app follows the URL), or lets the browser do it. */
function follow(ev, href) {
  if (ev.ctrlKey || ev.metaKey || ev.shiftKey || ev.button > 0) return;
  ev.preventDefault();
  history.pushState("registry-app", "", href); // the app's mark of its own entries (url_state::PUSHED): its Back goes back
  dispatchEvent(new PopStateEvent("popstate"));
  scrollTo(0, 0);
}

const addStyles = () => addSheet("dots", `
.results-map { margin: 0 0 1rem; }
.results-map .world-map { max-width: none; }
.results-map .cluster circle { fill: #a1162b; fill-opacity: .85; stroke: #fff; stroke-width: 1.5; vector-effect: non-scaling-stroke; cursor: pointer; }
.results-map .cluster text { fill: #fff; font-weight: 700; pointer-events: none; }
.results-map .dot circle { fill: #123a66; stroke: #fff; stroke-width: 1.5; vector-effect: non-scaling-stroke; }
.results-map .cluster:focus, .results-map .dot:focus { outline: none; }
.results-map .cluster:focus-visible circle, .results-map .cluster:hover circle, .results-map .dot:focus-visible circle, .results-map .dot:hover circle { stroke: #ffd866; stroke-width: 3.5; }
.results-map .map-tools { display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: center; margin: .35rem 0; }
.results-map .map-status { min-height: 1.5em; margin: .25rem 0 0; font-weight: 600; }
.results-map .place-list { margin: .5rem 0 0; padding-left: 1.25rem; }
@media (prefers-color-scheme: dark) {
  .results-map .cluster circle { fill: #ff7a8a; stroke: #10233a; }
  .results-map .cluster text { fill: #10233a; }
  .results-map .dot circle { fill: #ffd866; stroke: #10233a; }
}
`);

/**
 * Draws the results map into `figure`: asks the registry `client`
 * (registry.js) for `url`, a list request with `places=all`, whose
 * `meta.places` is {version: 1, points: [{id, name, lat, lng}], unlocated}.
 * A failure leaves a sentence in place of the map.
 */
export async function resultsMap(figure, client, url) {
  addMapStyles();
  addStyles();
  let places;
  try {
    places = (await ask(client, url)).meta?.places;
    if (places?.version !== 1) throw new Error(`places version ${places?.version}, this page reads version 1`);
  } catch (e) {
    figure.replaceChildren(el("p", { class: "error" }, `The results could not be placed on the map (${e.message}).`));
    return;
  }
  let map;
  try {
    map = await loadMap();
  } catch (e) {
    figure.replaceChildren(el("p", { class: "error" }, `The map could not be loaded (${e.message}).`));
    return;
  }
  const pts = places.points.map((p) => {
    const [x, y] = project(p.lng, p.lat, map.scale);
    return { x, y, ...p };
  });
  const records = new Set(places.points.map((p) => p.id)).size;
  const world = map.box;
  let view = [...world];
  const svg = el("svg:svg", { class: "world-map", role: "group", "aria-label": "The matches on a world map" });
  const land = el("svg:g", { "aria-hidden": "true" });
  for (const [code, d] of Object.entries(map.countries)) land.append(el("svg:path", { d, class: "land", "data-code": code }));
  const marks = el("svg:g");
  svg.append(land, marks);
  const status = el("p", { class: "map-status", "aria-live": "polite" });
  const tools = el("div", { class: "map-tools" });
  const out = el("button", { type: "button", class: "link zoom-out" }, "Zoom out");
  const whole = el("button", { type: "button", class: "link zoom-world" }, "Whole world");
  const note = el("p", { class: "hint" },
    `${plural(records)} with coordinates${places.unlocated ? ` (${plural(places.unlocated)} without)` : ""}; a number is a cluster: activate it to zoom in or to list its records.`);
  tools.append(out, whole);
  const list = el("div", { class: "place" });
  const say = (t) => (status.textContent = t);

  const zoomTo = (v) => {
    view = v;
    draw();
  };
  out.addEventListener("click", () => {
    const [x, y, w, h] = view;
    const nw = Math.min(world[2], w * 3), nh = nw / 2;
    zoomTo([x + w / 2 - nw / 2, y + h / 2 - nh / 2, nw, nh]);
    out.focus();
  });
  whole.addEventListener("click", () => zoomTo([...world]));

  const showList = (c) => {
    const records = [...new Map(c.points.map((p) => [p.id, p])).values()];
    const items = records.slice(0, LIST_MAX);
    const ol = el("ul", { class: "place-list" });
    for (const p of items) {
      const li = el("li");
      const a = el("a", { href: `?id=${p.id}` }, p.name);
      a.addEventListener("click", (ev) => follow(ev, a.getAttribute("href")));
      li.append(a);
      ol.append(li);
    }
    const h = el("h3", { tabindex: "-1", class: "place-h" }, `${plural(records.length)} here`);
    list.replaceChildren(h, ol);
    if (records.length > LIST_MAX) list.append(el("p", { class: "hint" }, `The first ${LIST_MAX} are listed; filters narrow the results.`));
    h.focus();
  };

  function draw() {
    const [vx, vy, vw, vh] = view;
    svg.setAttribute("viewBox", `${vx} ${vy} ${vw} ${vh}`);
    const inView = pts.filter((p) => p.x >= vx && p.x <= vx + vw && p.y >= vy && p.y <= vy + vh);
    // Sizes in CSS pixels (the map's drawn width), turned into map units.
    const unit = vw / (figure.getBoundingClientRect().width || 700);
    const r0 = Math.max(vw * 0.008, 4 * unit);
    const distinct = (c) => new Set(c.points.map((p) => p.id)).size;
    const clusters = separate(cluster(inView, vw * CELL), (c) => (c.points.length === 1 ? r0 : clusterRadiusPx(distinct(c)) * unit), GAP_PX * unit, view);
    const nodes = [];
    for (const c of clusters) {
      if (c.points.length === 1) {
        const p = c.points[0];
        const a = el("svg:a", { href: `?id=${p.id}`, class: "dot", "aria-label": `${p.name} (record)` });
        a.append(el("svg:circle", { cx: p.x, cy: p.y, r: r0 }), el("svg:title", {}, p.name));
        a.addEventListener("click", (ev) => follow(ev, `?id=${p.id}`));
        a.addEventListener("focus", () => say(p.name));
        a.addEventListener("mouseenter", () => say(p.name));
        nodes.push(a);
        continue;
      }
      let [x0, y0, x1, y1] = [Infinity, Infinity, -Infinity, -Infinity];
      for (const p of c.points) [x0, y0, x1, y1] = [Math.min(x0, p.x), Math.min(y0, p.y), Math.max(x1, p.x), Math.max(y1, p.y)];
      const spread = Math.max(x1 - x0, y1 - y0);
      // A record with several places in one cluster counts once.
      const n = new Set(c.points.map((p) => p.id)).size;
      const onePlace = spread < world[2] * 1e-5 || vw <= world[2] * MIN_VIEW * 1.01;
      const g = el("svg:g", { class: "cluster", role: "button", tabindex: "0",
        "aria-label": `${plural(n)}. ${onePlace ? "List them" : "Zoom in"}` });
      g.dataset.count = n;
      g.dataset.points = c.points.length;
      // Its radius leaves room for its number (`separate`), which is LABEL_PX tall on screen.
      const font = LABEL_PX * unit;
      g.append(el("svg:circle", { cx: c.x, cy: c.y, r: c.r }), el("svg:text", { x: c.x, y: c.y + font * 0.35, "text-anchor": "middle", "font-size": font }, countText(n)));
      const act = () => {
        if (onePlace) return showList(c);
        zoomTo(clusterView(c.points, world[2] * MIN_VIEW));
        // Keep the keyboard on the map: the largest cluster or dot of the new view.
        marks.firstElementChild?.focus();
      };
      g.addEventListener("click", act);
      g.addEventListener("keydown", (ev) => {
        if (ev.key === "Enter" || ev.key === " ") {
          ev.preventDefault();
          act();
        }
      });
      g.addEventListener("focus", () => say(`${plural(n)} here`));
      g.addEventListener("mouseenter", () => say(`${plural(n)} here`));
      nodes.push(g);
    }
    marks.replaceChildren(...nodes);
    const zoomed = vw < world[2] * 0.999;
    out.hidden = whole.hidden = !zoomed;
    figure.dataset.clusters = clusters.length;
    figure.dataset.shown = inView.length;
  }
  // In the page first: the drawing's sizes follow the map's width on screen.
  figure.replaceChildren(svg, tools, status, note, list);
  draw();
  // A new width (a phone turned, a window resized) draws the clusters again.
  let drawnWidth = figure.getBoundingClientRect().width;
  new ResizeObserver(() => {
    const w = figure.getBoundingClientRect().width;
    if (w && Math.abs(w - drawnWidth) > 1) (drawnWidth = w), draw();
  }).observe(figure);
  figure.dataset.ready = "true";
}
