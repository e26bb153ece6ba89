// The first paint of a results link (`index.html?q=…`): its rows and facet
// counts from the pieces, before the app's code arrives.
//
// A shared link is opened once, often on a phone. The app needs its UI wasm
// and the full registry wasm (~210 KB brotli each) before it can show
// anything; on a 1.6 Mbit/s link that alone is ~2 s. This module needs only
// the first-paint wasm (registry-wasm with feature `search`: E2 and the
// search page's reading over pieces, no router; ~135 KB) and the few pieces
// the query asks for. index.html starts the app's own code after this paint
// (so that both do not share the link's bandwidth), and the app then shows
// the same page at once (`window.registryEarlyResults`, read by
// crates/ui search_page.rs) until its own answer — the API's, with the full
// records — replaces it. What the app would answer differently (filters,
// advanced queries, a query the pieces cannot answer exactly) is not painted
// here: the app answers it.
//
// The markup is the app's (search_page.rs, facets.rs): same elements and
// classes, so nothing moves when the app takes over. The page's frame —
// header, search box, footer — is index.html's own markup, from the first
// paint (registry-front.js makes its search box work before the app); this
// module paints what goes under the search box, in the placeholder
// `#early-body`. Links are plain links (a click before the app is in is a
// page load); facet boxes are disabled until the app is in.

import { startPiecesSearch } from "./registry-search.js";

/** The search box's escaping of the characters the keyword syntax reserves (search_page.rs `escape_query`). */
export function escapeQuery(q) {
  return q.replace(/[+\-=&|><!(){}[\]^~*?:\\/]/g, "\\$&");
}

/** The app's facets, in its order: URL key, heading, `meta` key (url_state.rs FACETS). */
const FACETS = [
  ["country", "Country", "countries"],
  ["type", "Type", "types"],
  ["status", "Status", "statuses"],
  ["continent", "Continent", "continents"],
];
const PER_PAGE = 20;
const MAX_PAGE = 500;

const titleCase = (s) => (s ? s[0].toUpperCase() + s.slice(1) : s);
const bare = (id) => id.split("/").pop();

function el(tag, props = {}, ...children) {
  const e = Object.assign(document.createElement(tag), props);
  e.append(...children.filter((c) => c !== null && c !== undefined && c !== false));
  return e;
}

function row(s) {
  const status = s.status || "active";
  const place = [s.city, s.country_name].filter(Boolean).join(", ");
  const meta = [s.acronyms.join(", "), place, s.types.map(titleCase).join(", ")].filter(Boolean).join(" · ");
  const li = el(
    "li",
    { className: "result" },
    el(
      "h3",
      {},
      el("a", { href: `?id=${encodeURIComponent(bare(s.id))}`, textContent: s.name }),
      " ",
      status !== "active" ? el("span", { className: "badge", textContent: titleCase(status) }) : null,
    ),
    el("p", { className: "meta", textContent: meta }),
    el("p", { className: "rid", textContent: s.id }),
    status !== "active" && s.successors.length
      ? el("p", { className: "succ" }, "Successor: ", ...s.successors.map((i) => el("span", {}, el("a", { href: `?id=${encodeURIComponent(bare(i))}`, textContent: i }))))
      : null,
  );
  li.dataset.status = status;
  li.dataset.id = bare(s.id);
  li.querySelector(".badge")?.setAttribute("data-status", status);
  return li;
}

function facets(meta, statusMeta) {
  const groups = FACETS.map(([key, title, metaKey]) => {
    const entries = (key === "status" ? statusMeta : meta)?.[metaKey] ?? [];
    const fieldset = el(
      "fieldset",
      { className: "facet" },
      el("legend", { textContent: title }),
      key === "status" ? el("p", { className: "hint", textContent: "Without a status filter only active organizations are listed." }) : null,
      key === "country" ? el("button", { type: "button", className: "link map-toggle", textContent: "Show on a world map", disabled: true }) : null,
      el(
        "ul",
        {},
        ...entries.map((e) => {
          const id = `f-${key}-${e.id}`;
          return el(
            "li",
            {},
            el("input", { type: "checkbox", id, value: e.id, disabled: true }),
            el("label", { htmlFor: id }, el("span", { className: "facet-title", textContent: titleCase(e.title) }), " ", el("span", { className: "count", textContent: e.count.toLocaleString("en") })),
          );
        }),
      ),
    );
    fieldset.dataset.facet = key;
    return fieldset;
  });
  const done = el("button", { type: "button", className: "facets-done", textContent: "Show the results", disabled: true });
  const panel = el("aside", { id: "facets-panel", className: "facets" }, el("div", { className: "facets-head" }, el("h2", { id: "facets-h", textContent: "Filters" })), ...groups, done);
  panel.setAttribute("aria-labelledby", "facets-h");
  panel.dataset.open = "false";
  const bar = el("div", { className: "filter-bar" }, el("button", { type: "button", className: "facets-toggle", textContent: "Filters", disabled: true }));
  return [bar, panel];
}

/** What the count of several words means, and the words as a phrase (search_page.rs any_word_note). */
function anyWordNote(q) {
  const words = q.split(/\s+/).filter(Boolean);
  if (words.length < 2 || q.includes('"')) return null;
  const phrase = words.join(" ");
  return el(
    "p",
    { className: "results-note" },
    "Any of these words matches; the best matches come first. ",
    el("a", { href: `?q=${encodeURIComponent(`"${phrase}"`)}`, textContent: `Only the phrase “${phrase}”` }),
  );
}

function results(link, main) {
  const total = main.numberOfResults;
  const heading = el("h2", { id: "results-h", className: "results-h", textContent: total === 0 ? "No organizations found" : total === 1 ? "1 organization" : `${total.toLocaleString("en")} organizations` });
  heading.dataset.total = String(total);
  const list = el("ol", { className: "results" }, ...main.hits.map((h) => row(h.summary)));
  list.setAttribute("aria-labelledby", "results-h");
  const pages = Math.min(Math.max(Math.ceil(total / PER_PAGE), 1), MAX_PAGE);
  const href = (p) => `?q=${encodeURIComponent(link.q)}${p > 1 ? `&page=${p}` : ""}`;
  const pager = el(
    "nav",
    { className: "pager", hidden: pages <= 1 },
    link.page > 1 ? el("a", { href: href(link.page - 1), rel: "prev", textContent: "← Previous" }) : null,
    el("span", { className: "page-no", textContent: `Page ${link.page} of ${pages}` }),
    link.page < pages ? el("a", { href: href(link.page + 1), rel: "next", textContent: "Next →" }) : null,
  );
  pager.setAttribute("aria-label", "Pages");
  // List | Map (dots.rs ViewToggle): the list is shown; the map comes with the app.
  const view = (map, text) => {
    const b = el("button", { type: "button", className: "view-button", textContent: text, disabled: true });
    b.setAttribute("aria-pressed", String(!map));
    b.dataset.view = map ? "map" : "list";
    return b;
  };
  const toggle = total > 0 ? el("div", { className: "view-toggle" }, view(false, "List"), view(true, "Map")) : null;
  toggle?.setAttribute("role", "group");
  toggle?.setAttribute("aria-label", "Show the results as");
  const col = el("section", { className: "results-col" }, heading, total > 0 ? anyWordNote(link.q) : null, toggle, list, pager);
  col.setAttribute("aria-live", "off");
  col.dataset.for = link.q;
  return col;
}

/**
 * The first paint's E2 over pieces, started once (the first-paint wasm
 * from `firstJs`/`firstWasm`, or `wasm`, a promise of that module already
 * initialised; `manifest`, an object or a promise): its
 * `paint(app, link)` may be called for several queries in turn (the front
 * door's Enter: registry-front.js), each reading the files the earlier
 * ones fetched. `prefetch(q)` starts fetching what `q` will need.
 */
export function firstPaint({ dataUrl, manifest, firstJs, firstWasm, wasm = null }) {
  let search = null;
  const started = () =>
    (search ??= startPiecesSearch({
      dataUrl,
      manifest,
      wasm:
        wasm ??
        import(firstJs).then(async (m) => {
          await m.default({ module_or_path: firstWasm });
          return m;
        }),
    }));
  return {
    /** Starts downloading the first-paint wasm (and the E2 statistics' manifest reads). */
    start: () => void started(),
    /** Resolves once the first-paint wasm is in (rejects if it cannot be). */
    ready: () => started().ready,
    /** Starts fetching what `q`'s results will need (`words: false`: its statistics only); resolves once that is in (or failed). */
    prefetch: (q, { words = true } = {}) => started().prefetch(q, { typed: true, words }),
    /**
     * Paints the results of `link` (`{q, page}`) into `app`'s `#early-body`
     * when the pieces answer it exactly, and leaves
     * `window.registryEarlyResults` for the app. `current()`: whether this
     * paint is still wanted (a newer query, the app mounted). Resolves to
     * whether it painted; never throws (the app answers anyway).
     */
    async paint(app, link, current = () => true) {
      try {
        const search = started();
        search.prefetch(link.q, { typed: true });
        // What the app asks (search_page.rs load): the page, and the status
        // facet over all statuses.
        const query = { query: escapeQuery(link.q.trim()), typed: true, version: 2 };
        const main = await search.page({ ...query, page: Math.min(link.page, MAX_PAGE), allStatus: false });
        if (!main.hits) return false; // the whole registry answers (or reports the error)
        const status = await search.page({ ...query, page: 1, allStatus: true });
        if (!status.hits) return false;
        // Past the last page the app explains; it is not painted here.
        if (link.page > 1 && link.page > Math.ceil(main.numberOfResults / PER_PAGE)) return false;
        // The app is already showing something (its mount removes the early page).
        const body = app.isConnected && app.querySelector("#early-body");
        if (!body || !current()) return false;
        window.registryEarlyResults = JSON.stringify({ q: link.q, page: link.page, total: main.numberOfResults, hits: main.hits.map((h) => h.summary), meta: main.meta, statusMeta: status.meta });
        const layout = el("div", { className: "layout", id: "early-body" }, ...facets(main.meta, status.meta), results(link, main));
        body.replaceWith(layout);
        document.title = `${link.q.trim()} – Organization registry`;
        return true;
      } catch (e) {
        if (e?.name !== "NoPiecesError") console.warn("registry: the first paint from pieces failed; the app answers:", e);
        return false;
      }
    },
  };
}

/**
 * Paints the results of `link` (`{q, page}`: index.html's head script
 * decides which links are painted) under `app`'s search box when the
 * pieces answer it exactly (see `firstPaint`). Resolves to whether it
 * painted; never throws. `firstJs`/`firstWasm`: URLs of the first-paint
 * wasm's module and binary.
 */
export function paintResultsLink({ app, link, dataUrl, manifest, firstJs, firstWasm }) {
  return firstPaint({ dataUrl, manifest, firstJs, firstWasm }).paint(app, link);
}
