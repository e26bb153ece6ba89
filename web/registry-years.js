// The "Established" facet of the search page: the matches' established
// years as a small histogram, a range picked on it (mouse, or keyboard on
// the bars) or typed into two year boxes, and the same counts as a table
// for screen readers. Loaded on demand by registry-map.js's `yearsFacet`
// when a results page shows the facet, so a first paint carries none of it.
//
// The counts are the router's `histogram=established` answer (exact, every
// year of every match; core search::years); the range is handed back as
// E3's range syntax (`[1900 TO 1950]`, `*` for an open end), which the page
// puts in its URL and sends as `established=`.

import { addSheet, ask, node } from "./registry-draw.js";

const W = 240, H = 72, GAP = 1;
/** At most this many bars: a facet's width. */
export const MAX_BARS = 24;
const WIDTHS = [1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000];

/**
 * Bars over `years` ([{year, count}], in year order): equal spans of a round
 * width, at most MAX_BARS (fewer for few matches), from the year where the
 * first 5 % of the matches is reached (10 % under a hundred matches) (older ones share one "before" bar, so a few medieval
 * foundations do not squeeze the rest). Each bar: {from, to, count}; the
 * "before" bar's `from` is null (an open end).
 */
export function bins(years) {
  if (!years.length) return [];
  const total = years.reduce((s, y) => s + y.count, 0);
  // Few matches, few bars: ten matches over five centuries are not twenty empty bars.
  const most = Math.max(6, Math.min(MAX_BARS, Math.ceil(2 * Math.sqrt(total))));
  const last = years.at(-1).year;
  let seen = 0, start = years[0].year;
  for (const y of years) {
    seen += y.count;
    if (seen >= total * (total >= 100 ? 0.05 : 0.1)) {
      start = y.year;
      break;
    }
  }
  // A "before" bar only when it saves room.
  const first = years[0].year;
  if (last - first < 100 || start - first < (last - first) / 4) start = first;
  const width = WIDTHS.find((w) => Math.floor(last / w) - Math.floor(start / w) + 1 <= most - (start > first ? 1 : 0)) ?? WIDTHS.at(-1);
  const from = Math.floor(start / width) * width;
  const out = [];
  if (first < from) out.push({ from: null, to: from - 1, count: 0 });
  for (let y = from; y <= last; y += width) out.push({ from: y, to: y + width - 1, count: 0 });
  for (const { year, count } of years) {
    const i = year < from ? 0 : Math.floor((year - from) / width) + (first < from ? 1 : 0);
    out[i].count += count;
  }
  out.at(-1).to = Math.max(out.at(-1).to, last);
  return out;
}

/** E3's range syntax for [from, to] (null = open end). */
export function rangeText(from, to) {
  return `[${from ?? "*"} TO ${to ?? "*"}]`;
}

/** [from, to] of an inclusive range written as rangeText writes it, or null. */
export function parseRange(text) {
  const m = /^\[\s*(\*|-?\d+)\s+TO\s+(\*|-?\d+)\s*\]$/.exec(text ?? "");
  if (!m) return null;
  const end = (s) => (s === "*" ? null : Number(s));
  return [end(m[1]), end(m[2])];
}

const label = (b) => (b.from === null ? `before ${b.to + 1}` : b.from === b.to ? `${b.from}` : `${b.from}–${b.to}`);
const plural = (n) => `${n.toLocaleString("en")} ${n === 1 ? "organization" : "organizations"}`;
const inRange = (b, r) => r && (r[0] === null || (b.from !== null && b.from >= r[0])) && (r[1] === null || b.to <= r[1]);
const overlaps = (b, r) => r && (r[0] === null || b.to >= r[0]) && (r[1] === null || b.from === null || b.from <= r[1]);

const el = node;

const addStyles = () => addSheet("years", `
.years-chart { display: block; width: 100%; height: auto; background: #fff; border: 1px solid #b9c4d0; border-radius: 6px; }
.years-chart .bar { fill: #6f95bf; cursor: pointer; }
.years-chart .bar.on { fill: #123a66; }
.years-chart .bar.part { fill: #3f6794; }
.years-chart .hit { fill: transparent; cursor: pointer; }
.years-chart .hit:focus { outline: none; }
.years-chart .hit:focus-visible, .years-chart .hit:hover { fill: rgba(161, 22, 43, .14); stroke: #a1162b; stroke-width: 1.5; }
.years-axis { display: flex; justify-content: space-between; gap: .5rem; margin: .1rem 1px 0; font-size: .8rem; line-height: 1.2; }
.years-status { min-height: 1.5em; margin: .2rem 0; font-size: .9rem; }
.years-form { display: flex; flex-wrap: wrap; align-items: end; gap: .35rem; margin: .25rem 0; }
.years-form label { display: flex; flex-direction: column; font-size: .85rem; }
.years-form input { width: 5.2rem; font: inherit; padding: .2rem .3rem; }
.years-form .error { flex-basis: 100%; margin: 0; color: #a1162b; font-size: .85rem; }
.years-table { font-size: .85rem; }
.years-table table { border-collapse: collapse; margin-top: .25rem; }
.years-table th, .years-table td { padding: .05rem .5rem; text-align: right; border-bottom: 1px solid #ddd; white-space: nowrap; }
.years-table th:first-child, .years-table td:first-child { text-align: left; }
@media (prefers-color-scheme: dark) {
  .years-chart { background: #10233a; border-color: #3d4f66; }
  .years-chart .bar { fill: #5f8fc4; }
  .years-chart .bar.on { fill: #ffd866; }
  .years-chart .bar.part { fill: #c7a94f; }
  .years-chart .hit:focus-visible, .years-chart .hit:hover { fill: rgba(255, 216, 102, .16); stroke: #ffd866; }
}
`);

// The last counts asked for: a new range alone only redraws.
let last = { url: null, counts: null };
const drawn = new WeakMap(); // root → the newest call's number

/**
 * Draws the facet into `root`: asks the registry `client` (registry.js)
 * for `url`, a list request with `histogram=established`, whose
 * `meta.established` is {version, years, unknown}; `selected` is the
 * page's range ("" for none); `pick(range)` is called with the range
 * chosen, in E3's syntax, or "" to clear it. Only the newest call on a
 * root draws. An empty `url` (results with nothing to count: an error)
 * empties the facet, and a drawing of earlier results still on its way
 * does not fill it again.
 */
export async function yearsFacet(root, client, url, selected, pick) {
  const mine = (drawn.get(root) ?? 0) + 1;
  drawn.set(root, mine);
  if (!url) {
    root.replaceChildren();
    root.dataset.ready = "none";
    return;
  }
  if (last.url !== url) {
    const counts = ask(client, url).then((v) => v.meta?.established, (e) => ({ error: e.message }));
    last = { url, counts };
    counts.then((c) => c.error && last.counts === counts && (last = { url: null, counts: null }));
  }
  const d = (await last.counts) ?? { error: "no counts in the answer" };
  if (drawn.get(root) !== mine) return;
  draw(root, d, selected, pick);
}

function draw(root, d, selected, pick) {
  addStyles();
  // A redraw keeps the keyboard where it was.
  const focused = root.contains(document.activeElement) ? document.activeElement.dataset.focus : null;
  if (d.error || d.version !== 1) {
    root.replaceChildren(el("p", { class: "error" }, `The years could not be counted (${d.error ?? `histogram version ${d.version}`}).`));
    root.dataset.ready = "error";
    return;
  }
  const bars = bins(d.years);
  const range = parseRange(selected);
  const known = d.years.reduce((s, y) => s + y.count, 0);
  const parts = [];
  if (!bars.length) {
    parts.push(el("p", { class: "hint" }, "No match has an established year."));
  } else {
    const max = Math.max(...bars.map((b) => b.count));
    const bw = W / bars.length;
    const svg = el("svg:svg", { class: "years-chart", viewBox: `0 0 ${W} ${H}`, role: "group", "aria-label": "Matches by established year: pick a bar to filter by its years" });
    const status = el("p", { class: "years-status", "aria-live": "polite" });
    const say = (b) => (status.textContent = `${label(b)}: ${plural(b.count)}`);
    let anchor = null;
    const hits = [];
    bars.forEach((b, i) => {
      const h = b.count ? Math.max(1.5, (b.count / max) * H) : 0;
      // A bar wholly in the range is dark, one the range cuts is half so.
      svg.append(el("svg:rect", { class: inRange(b, range) ? "bar on" : overlaps(b, range) ? "bar part" : "bar", x: i * bw + GAP / 2, y: H - h, width: bw - GAP, height: h }));
      const hit = el("svg:rect", { class: "hit", x: i * bw, y: 0, width: bw, height: H, tabindex: "-1", role: "button", "aria-pressed": String(!!inRange(b, range)), "aria-label": `${label(b)}: ${plural(b.count)}` });
      hit.dataset.focus = `bar-${i}`;
      hit.dataset.from = b.from ?? "*";
      hit.dataset.to = b.to;
      hit.append(el("svg:title", {}, `${label(b)}: ${b.count}`));
      hits.push(hit);
      const choose = (extend) => {
        const [a, z] = extend && anchor !== null ? [Math.min(anchor, i), Math.max(anchor, i)] : [i, i];
        anchor = extend && anchor !== null ? anchor : i;
        pick(rangeText(bars[a].from, bars[z].to));
      };
      hit.addEventListener("mouseenter", () => say(b));
      hit.addEventListener("focus", () => say(b));
      hit.addEventListener("click", (ev) => choose(ev.shiftKey));
      hit.addEventListener("keydown", (ev) => {
        const to = { ArrowLeft: i - 1, ArrowRight: i + 1, Home: 0, End: bars.length - 1 }[ev.key];
        if (to !== undefined) {
          ev.preventDefault();
          const t = hits[Math.max(0, Math.min(bars.length - 1, to))];
          hits.forEach((x) => x.setAttribute("tabindex", x === t ? "0" : "-1"));
          t.focus();
        } else if (ev.key === "Enter" || ev.key === " ") {
          ev.preventDefault();
          choose(ev.shiftKey);
        }
      });
    });
    // One tab stop: the first selected bar, or the first bar.
    const first = Math.max(0, bars.findIndex((b) => overlaps(b, range)));
    hits[first].setAttribute("tabindex", "0");
    if (range) anchor = first;
    for (const h of hits) svg.append(h);
    // The first and last years under the chart, in the page's type (as SVG
    // text they shrank with the chart: ~7 px tall in the facets' column).
    const axis = el("div", { class: "years-axis" });
    axis.append(el("span", {}, bars[0].from === null ? label(bars[0]) : String(bars[0].from)),
      el("span", {}, String(d.years.at(-1).year))); // the last year with a match, not the bar's end
    parts.push(svg, axis, status);
  }
  // Two year boxes: the way to type a range (or to give it exactly).
  const form = el("form", { class: "years-form", "aria-label": "Filter by established years" });
  const box = (id, text, value) => {
    const l = el("label", { for: id }, text);
    const input = el("input", { id, type: "number", inputmode: "numeric", step: "1", placeholder: "any" });
    if (value !== null && value !== undefined) input.value = value;
    l.append(input);
    return [l, input];
  };
  const [lf, from] = box("years-from", "From", range?.[0]);
  const [lt, to] = box("years-to", "To", range?.[1]);
  const apply = el("button", { type: "submit" }, "Filter");
  const error = el("p", { class: "error", role: "alert", id: "years-error" });
  from.setAttribute("aria-describedby", "years-error");
  to.setAttribute("aria-describedby", "years-error");
  form.append(lf, lt, apply);
  if (selected) {
    const clear = el("button", { type: "button", class: "link" }, "Clear");
    clear.dataset.focus = "clear";
    clear.addEventListener("click", () => pick(""));
    form.append(clear);
  }
  form.append(error);
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    const year = (input) => (input.value.trim() === "" ? null : Number(input.value));
    const [a, z] = [year(from), year(to)];
    if ((a !== null && !Number.isInteger(a)) || (z !== null && !Number.isInteger(z))) {
      error.textContent = "Years are whole numbers, e.g. 1900.";
    } else if (a === null && z === null) {
      error.textContent = "";
      if (selected) pick("");
    } else if (a !== null && z !== null && a > z) {
      error.textContent = `“From” (${a}) is after “To” (${z}).`;
    } else {
      error.textContent = "";
      pick(rangeText(a, z));
    }
  });
  from.dataset.focus = "from";
  to.dataset.focus = "to";
  apply.dataset.focus = "apply";
  parts.push(form);
  // What the selection holds, counted from the same exact counts.
  const summary = el("p", { class: "hint years-summary" });
  if (range) {
    const n = d.years.filter((y) => (range[0] === null || y.year >= range[0]) && (range[1] === null || y.year <= range[1])).reduce((s, y) => s + y.count, 0);
    summary.textContent = `${plural(n)} established ${range[0] === null ? `up to ${range[1]}` : range[1] === null ? `from ${range[0]}` : `${range[0]}–${range[1]}`}.`;
  } else if (selected) {
    summary.textContent = `Filtered by established ${selected}.`;
  } else {
    summary.textContent = `${plural(known)} with a year${d.unknown ? `, ${plural(d.unknown)} without` : ""}.`;
  }
  parts.push(summary);
  // The counts as a table, for reading and for screen readers.
  if (bars.length) {
    const details = el("details", { class: "years-table" });
    details.append(el("summary", {}, "Counts as a table"));
    const table = el("table");
    table.append(el("caption", {}, "Matches by established year"));
    const head = el("tr");
    head.append(el("th", { scope: "col" }, "Years"), el("th", { scope: "col" }, "Organizations"));
    table.append(head);
    for (const b of bars) {
      const tr = el("tr");
      tr.append(el("th", { scope: "row" }, label(b)), el("td", {}, b.count.toLocaleString("en")));
      table.append(tr);
    }
    if (d.unknown) {
      const tr = el("tr");
      tr.append(el("th", { scope: "row" }, "unknown"), el("td", {}, d.unknown.toLocaleString("en")));
      table.append(tr);
    }
    details.append(table);
    // Keep it open across redraws once opened.
    details.open = root.querySelector(".years-table")?.open ?? false;
    parts.push(details);
  }
  root.replaceChildren(...parts);
  root.dataset.ready = "true";
  const back = focused && root.querySelector(`[data-focus="${focused}"]`);
  if (back?.classList.contains("hit")) root.querySelectorAll(".hit").forEach((x) => x.setAttribute("tabindex", x === back ? "0" : "-1"));
  back?.focus();
}
