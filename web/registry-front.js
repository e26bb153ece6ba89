// The search page's front door on a first visit (`index.html` without a
// query): its search box works before the app's code is in.
//
// On a phone's first visit the app's UI wasm and the registry wasm (~400 KB
// brotli together) take seconds; a page asking a remote API has its box
// from the first paint. So index.html's own markup holds the search box
// (usable from the first paint), and this module makes it answer with what
// the widget's loader (registry-picker.js) uses before its UI: suggestions
// from the typeahead pieces computed on the main thread, in a list of the
// combobox's look under the box; and Enter shows the results as a shared
// results link's first paint does (registry-first.js), the URL becoming
// `?q=…` as in the app. Both come from the first-paint wasm (registry-wasm
// with features `search` and `typeahead`, ~160 KB brotli: the widget's
// suggest-only wasm and a search-only one were 235 KB together, and the
// second one decided when Enter's results came). The app's own code is
// fetched once this has nothing on the wire (`quiet`), so that it never
// shares the link's bandwidth with what the person waits for; index.html
// then mounts the app and hands it the box's text, caret and focus (`stop`).
//
// Markup and behaviour follow crates/ui combobox.rs and search_page.rs: the
// same elements and classes, arrows / Enter / Escape as there; a pick is a
// page load of the record's page (the app's own navigation comes with it).

import { startPieces, fetchPiecesManifest } from "./registry-pieces.js";
import { firstPaint } from "./registry-first.js";

/** The app's number of suggestions (search_page.rs: `limit=8`). */
const LIMIT = 8;
/** How long after the last keystroke the app's code may start downloading. */
const QUIET_MS = 500;
/** How long the typing pauses, its suggestions shown, before its results' files are fetched. */
const PLAN_MS = 150;
const STATUS = { active: "Active", inactive: "Inactive", withdrawn: "Withdrawn" }; // lib.rs Strings
const titleCase = (s) => (s ? s[0].toUpperCase() + s.slice(1) : s);
const bare = (id) => id.split("/").pop();

/** Percent-encodes as the app's url_state.rs `encode` does (all but unreserved characters). */
export function encodeQuery(s) {
  return encodeURIComponent(s).replace(/[!'()*]/g, (c) => "%" + c.charCodeAt(0).toString(16).toUpperCase());
}

/** The page's title for a query (search_page.rs show_title). */
const titleOf = (q) => (q.trim() ? `${q.trim()} – Organization registry` : "Organization registry");

function span(className, ...children) {
  const s = Object.assign(document.createElement("span"), { className });
  s.append(...children);
  return s;
}

/** `text` with the UTF-8 byte `ranges` wrapped in <mark> (lib.rs highlight), as text nodes only. */
function highlight(text, ranges) {
  const bytes = new TextEncoder().encode(text);
  const dec = new TextDecoder("utf-8", { fatal: true });
  const out = [];
  let pos = 0;
  try {
    for (const [a, b] of ranges ?? []) {
      if (a < pos || a >= b || b > bytes.length) continue;
      if (a > pos) out.push(dec.decode(bytes.subarray(pos, a)));
      out.push(Object.assign(document.createElement("mark"), { textContent: dec.decode(bytes.subarray(a, b)) }));
      pos = b;
    }
    if (pos < bytes.length) out.push(dec.decode(bytes.subarray(pos)));
    return out;
  } catch {
    return [text]; // a range inside a character: the text unmarked
  }
}

/** One option of the list, as combobox.rs renders a record. */
function option(hit, i, listId) {
  const s = hit.summary;
  const status = s.status || "active";
  const m = hit.matched ?? { value: s.name, types: [] };
  const lit = (v) => (m.value === v ? highlight(v, hit.ranges) : [v]);
  const badge = span("badge", STATUS[status] ?? status);
  badge.dataset.status = status;
  const li = document.createElement("li");
  Object.assign(li, { id: `${listId}-${i}`, className: "cb-opt" });
  li.setAttribute("role", "option");
  li.setAttribute("aria-selected", "false");
  li.dataset.status = status;
  li.append(span("cb-line", span("cb-name", ...lit(s.name)), span("cb-tags", badge)));
  if (m.value !== s.name) {
    const kind = (m.types ?? []).includes("acronym") ? "Acronym" : "Also known as";
    li.append(span("cb-matched", `${kind}: `, ...highlight(m.value, hit.ranges), m.lang ? ` (${m.lang})` : ""));
  }
  const place = [s.city, s.country_name].filter(Boolean).join(", ");
  const types = (s.types ?? []).map(titleCase).join(", ");
  li.append(span("cb-meta", [place, types].filter(Boolean).join(" · ")));
  li.addEventListener("mousedown", (e) => e.preventDefault()); // the input keeps the focus
  return li;
}

/**
 * Makes `input` (index.html's `#q-input`, in `app`) the search box before
 * the app: `dataUrl`, `manifest` (a promise of the manifest or null),
 * `firstJs`/`firstWasm` (the first-paint wasm, with the typeahead). Returns
 * `{quiet, stop}`: `quiet` resolves when the app's code may be fetched (the
 * wasm settled, no answer or file on its way, no keystroke for QUIET_MS);
 * `stop()` detaches everything (the app is mounting), and nothing is
 * painted after it.
 */
export function frontDoor({ app, input, dataUrl, manifest, firstJs, firstWasm }) {
  const base = new URL(dataUrl, document.baseURI);
  const manifestP = Promise.resolve(manifest).then((m) => m ?? fetchPiecesManifest(base));
  // One wasm instance for the suggestions (`Pieces`) and the results (`PiecesSearch`).
  const wasm = import(firstJs).then(async (m) => {
    await m.default({ module_or_path: firstWasm });
    return m;
  });
  const pieces = startPieces({ dataUrl: base, manifest: manifestP, wasm });
  const first = firstPaint({ dataUrl: base, manifest: manifestP, wasm });
  first.start();
  const firstReady = first.ready().catch(() => {});
  const door = new FrontDoor(app, input, pieces, first);
  door.attach();
  const quiet = door.quiet(wasm, firstReady);
  return { quiet, stop: () => door.stop() };
}

/** The front door's box, list and results slot; its steps are the methods. */
class FrontDoor {
  #app;
  #input;
  #pieces;
  #first;
  #listId;
  #list;
  #hits = [];
  #active = -1;
  /** The newest question (keystroke or Enter); older answers are dropped. */
  #seq = 0;
  #stopped = false;
  /** Answers and files on their way: the app's code waits for them (see `quiet`). */
  #busy = 0;
  #lastKey = performance.now();
  #wake = () => {};
  /** The text whose results' files were fetched (see `#planResults`). */
  #planned = null;
  /** Whether the first keystroke's files were asked for (see `#onInput`). */
  #started = false;

  constructor(app, input, pieces, first) {
    this.#app = app;
    this.#input = input;
    this.#pieces = pieces;
    this.#first = first;
    this.#listId = input.getAttribute("aria-controls") || "q-list";
    this.#list = document.getElementById(this.#listId);
  }

  /** Highlights option `i` (-1: none, the input itself) as combobox.rs does. */
  #setActive(i) {
    this.#active = i;
    [...this.#list.children].forEach((li, n) => {
      li.classList.toggle("cb-active", n === i);
      li.setAttribute("aria-selected", String(n === i));
    });
    if (i < 0) this.#input.removeAttribute("aria-activedescendant");
    else {
      this.#input.setAttribute("aria-activedescendant", `${this.#listId}-${i}`);
      this.#list.children[i]?.scrollIntoView({ block: "nearest" });
    }
  }

  /** Lists `found`, the suggestions for `text` (none: the list hides). */
  #show(found, text) {
    this.#hits = found;
    this.#list.dataset.for = text;
    this.#list.replaceChildren(
      ...found.map((h, i) => {
        const li = option(h, i, this.#listId);
        li.addEventListener("click", () => this.#pick(i));
        return li;
      }),
    );
    this.#list.hidden = found.length === 0;
    this.#input.setAttribute("aria-expanded", String(!this.#list.hidden));
    this.#setActive(-1);
  }

  #hide = () => this.#show([], "");

  /** Counts `p` as on its way until it settles: the app's code waits (see `quiet`). */
  #track(p) {
    this.#busy++;
    p.finally(() => {
      this.#busy--;
      this.#wake();
    });
    return p;
  }

  /** A pick opens the record's page (a page load: the record link's first paint). */
  #pick(i) {
    const h = this.#hits[i];
    if (!h) return;
    this.#seq++;
    this.#input.value = h.summary.name;
    this.#hide();
    location.assign(`?id=${encodeURIComponent(bare(h.summary.id))}`);
  }

  /**
   * Once the suggestions for a text are shown and the typing pauses, the
   * files its results will need (an Enter, or a pick, is likely next): an
   * Enter then waits for the wasm's work only (on the mobile link it waited
   * for three more round trips, beside the app's code, which now waits).
   * (The pause counts as work on its way: the app's code waits for it too.)
   */
  #planResults(text) {
    this.#busy++;
    setTimeout(() => {
      this.#busy--;
      if (!this.#stopped && this.#input.value === text && this.#planned !== text && text.trim()) {
        this.#planned = text;
        this.#track(this.#first.prefetch(text));
      }
      this.#wake();
    }, PLAN_MS);
  }

  /**
   * A keystroke: the suggestions from the pieces at hand when they answer
   * (else their first hits, then the rest once fetched). At the first
   * keystroke, what any query's results need and its first character's:
   * the E2 statistics and their part, each behind its slot read (two round
   * trips that an Enter would otherwise wait for; ~6 KB, not the words'
   * files, which would share the link with the wasm).
   */
  #onInput = () => {
    this.#lastKey = performance.now();
    const text = this.#input.value;
    const n = ++this.#seq;
    if (!text.trim()) return this.#hide();
    if (!this.#started) {
      this.#started = true;
      this.#track(this.#first.prefetch(text, { words: false }));
    }
    const options = { filters: [], limit: LIMIT };
    try {
      const now = this.#pieces.suggestNow(text, options);
      if (now) return (this.#show(now, text), this.#planResults(text));
      const partial = this.#pieces.partialNow(text, options);
      if (partial) this.#show(partial, text);
    } catch {}
    this.#track(
      this.#pieces.suggest(text, options).then(
        (found) => {
          // null: only the whole registry answers (the app will).
          if (this.#stopped || n !== this.#seq) return;
          if (found) (this.#show(found, text), this.#planResults(text));
          else this.#hide();
        },
        () => {}, // the app answers
      ),
    );
  };

  #body() {
    return this.#app.querySelector("#early-body");
  }

  /** Shows `q`'s results under the box (the first paint of a results link). */
  #results(q) {
    const n = ++this.#seq;
    const slot = this.#body();
    if (slot) {
      const wait = Object.assign(document.createElement("p"), { className: "loading", id: "early-body", textContent: "Loading…" });
      wait.setAttribute("role", "status");
      slot.replaceWith(wait);
    }
    document.title = titleOf(q);
    return this.#track(this.#first.paint(this.#app, { q, page: 1 }, () => !this.#stopped && n === this.#seq));
  }

  /** The page for the address bar's query (Back/Forward before the app). */
  #fromUrl = () => {
    const q = new URLSearchParams(location.search).get("q") ?? "";
    this.#input.value = q;
    this.#hide();
    if (q.trim()) return this.#results(q);
    this.#seq++;
    this.#body()?.replaceWith(Object.assign(document.createElement("div"), { id: "early-body" }));
    document.title = titleOf("");
  };

  /** The keys of combobox.rs: arrows, Enter (a pick, or the results), Escape, Tab. */
  #onKey = (e) => {
    if (e.isComposing || e.keyCode === 229) return; // the IME owns the keys while composing
    const n = this.#hits.length;
    if (e.key === "ArrowDown" || e.key === "ArrowUp") {
      e.preventDefault();
      if (this.#list.hidden) return n ? this.#show(this.#hits, this.#list.dataset.for ?? "") : this.#onInput();
      // As combobox.rs: past either end, back to the input.
      if (e.key === "ArrowDown") this.#setActive(this.#active + 1 < n ? this.#active + 1 : -1);
      else this.#setActive(this.#active < 0 ? n - 1 : this.#active - 1);
    } else if (e.key === "Enter") {
      e.preventDefault();
      if (!this.#list.hidden && this.#active >= 0) return this.#pick(this.#active);
      this.#hide();
      const q = this.#input.value;
      if (!q.trim()) return;
      // The URL is the state (search_page.rs: Enter after typing makes one history entry).
      const url = `?q=${encodeQuery(q)}`;
      if (location.search !== url) history.pushState(null, "", url);
      this.#results(q);
    } else if (e.key === "Escape" && !this.#list.hidden) {
      e.preventDefault();
      this.#hide();
    } else if (e.key === "Tab") this.#hide();
  };

  /** The first character's pieces as soon as something is typed, while the code still loads. */
  #prefetch = () => this.#pieces.prefetch(this.#input.value);

  /** Listens to the box and to Back/Forward; answers text typed before this module ran. */
  attach() {
    const input = this.#input;
    input.addEventListener("input", this.#onInput);
    input.addEventListener("keydown", this.#onKey);
    input.addEventListener("blur", this.#hide);
    addEventListener("popstate", this.#fromUrl);
    input.addEventListener("input", this.#prefetch);
    if (input.value) {
      this.#prefetch();
      this.#onInput(); // typed before this module ran
    }
  }

  /**
   * Resolves when the app's code may be fetched: `wasm`, the pieces and
   * `firstReady` settled, nothing on its way, no keystroke for QUIET_MS.
   */
  async quiet(wasm, firstReady) {
    await Promise.allSettled([wasm, this.#pieces.ready, firstReady]);
    for (;;) {
      if (this.#stopped) return;
      const wait = this.#lastKey + QUIET_MS - performance.now();
      if (this.#busy === 0 && wait <= 0) return;
      await new Promise((r) => {
        this.#wake = r;
        if (this.#busy === 0) setTimeout(r, Math.max(wait, 0));
      });
    }
  }

  /** Detaches everything (the app is mounting): nothing is painted after it. */
  stop() {
    this.#stopped = true;
    this.#seq++;
    const input = this.#input;
    input.removeEventListener("input", this.#onInput);
    input.removeEventListener("input", this.#prefetch);
    input.removeEventListener("keydown", this.#onKey);
    input.removeEventListener("blur", this.#hide);
    removeEventListener("popstate", this.#fromUrl);
    this.#hide();
    this.#wake();
  }
}
