// The registry as a promise API for plain HTML pages (no bundler):
//
//   import { openRegistry } from "./registry.js";
//   const registry = await openRegistry({ dataUrl: "./data/" });
//   const hits = await registry.suggest("univ of tok", { limit: 8 });
//   const { status, body } = await registry.request("/v2/organizations?query=oxford");
//
// Context from the form (all optional, see README): `suggest(text, {filters,
// limit, preferCountries, preferTypes, emailDomain, remembered, lang})`.
// With an e-mail domain or remembered ids, empty text is a real query: it
// returns what to offer on focus, before anything is typed.
//
// Everything runs in a Web Worker. `suggest` has stale-response protection:
// a newer call supersedes an older one, whose promise rejects with an
// AbortError (check `e.name === "AbortError"` and ignore it).
//
// Typeahead on the main thread (option `suggestOnMainThread: true`): a Worker
// round trip costs about a frame, so the answer to a keystroke would paint a
// frame late. With this option `suggestNow(text, options)` answers
// synchronously (inside the input handler, so the suggestions paint in the
// next frame) and `suggest` resolves from it, from the data's typeahead
// pieces (registry-pieces.js, `client.pieces`): a query's piece is fetched on
// its first keystroke (a few kilobytes; the Worker answers that one), the
// next keystrokes under it are answered at once. Queries only the whole data
// answers exactly (external ids, e-mail domains, …) go to the Worker. Data
// built without pieces: once the page is idle, a second registry instance
// (summary + names) is built on the main thread instead, in idle slices.
// `await client.suggestOnMainThread` → `{buildMs, memoryBytes, …}` once ready
// (null if unavailable); `suggestReady()` is the same for the page's first
// client with the option, e.g. for tests.

export class StaleError extends Error {
  constructor() {
    super("superseded by a newer request");
    this.name = "AbortError";
  }
}

/**
 * Resolves after an idle period (or `timeout` ms), to keep long tasks out of
 * the way of input, to the milliseconds that idle period has left (8 without
 * requestIdleCallback).
 */
function idle(timeout) {
  return new Promise((resolve) =>
    typeof requestIdleCallback === "function"
      ? requestIdleCallback((d) => resolve(d.timeRemaining()), { timeout })
      : setTimeout(() => resolve(8), 50),
  );
}

// One registry wasm instance per page for main-thread suggestions.
let mainModule = null;
function mainWasm(wasmUrl) {
  return (mainModule ??= import("./pkg/registry_wasm.js").then(async (m) => {
    const exports = await m.default({ module_or_path: wasmUrl ?? new URL("./pkg/registry_wasm_bg.wasm", import.meta.url) });
    return { module: m, RegistryBuilder: m.RegistryBuilder, memory: exports.memory };
  }));
}
let firstReady = null;
let firstReadySet = null;
/** `{buildMs, cpuMs, longestTaskMs, …}` once some client of this page answers suggestions on the main thread. */
export function suggestReady() {
  firstReady ??= new Promise((r) => (firstReadySet = r));
  return firstReady;
}

/**
 * The options `suggest` understands, copied: a page's object may hold
 * anything (functions cannot be posted to the Worker), and an array the page
 * mutates later must not change a query already on its way.
 */
export function suggestOptions({ filters = [], limit = 10, preferCountries, preferTypes, emailDomain, remembered, lang } = {}) {
  const o = { filters: [...filters], limit };
  if (preferCountries?.length) o.preferCountries = [...preferCountries];
  if (preferTypes?.length) o.preferTypes = [...preferTypes];
  if (emailDomain) o.emailDomain = String(emailDomain);
  if (remembered?.length) o.remembered = [...remembered];
  if (lang) o.lang = String(lang);
  return o;
}

let firstDomains = null;
let firstDomainsSet = null;
/** Resolves once some client of this page has the e-mail domains on the main thread (for tests). */
export function domainsReady() {
  firstDomains ??= new Promise((r) => (firstDomainsSet = r));
  return firstDomains;
}

export class RegistryClient {
  #worker;
  #next = 1;
  #pending = new Map();
  #latest = new Map(); // channel → newest call id
  #main = null; // the main-thread Registry (summary + names), once built (data without pieces)
  /** The typeahead pieces answering on the main thread (registry-pieces.js), once ready. */
  pieces = null;
  #lastSuggest = -Infinity;
  #closed = false;
  info = null;
  /** Promise of `{buildMs, cpuMs, longestTaskMs, …}` (null if unavailable) when started with `suggestOnMainThread`. */
  suggestOnMainThread = null;

  constructor(worker) {
    this.#worker = worker;
    worker.onmessage = ({ data }) => {
      if (data.event === "release") {
        // The Worker moved to the folder's new release (a deploy while the page was open).
        this.info = data.info;
        import("./registry-pieces.js").then(({ announceRelease }) => announceRelease(data.from, data.info.manifest));
        return;
      }
      const p = this.#pending.get(data.id);
      if (!p) return;
      this.#pending.delete(data.id);
      if (p.channel && this.#latest.get(p.channel) !== data.id) return p.reject(new StaleError());
      if (data.ok) p.resolve(data.value);
      else p.reject(Object.assign(new Error(data.error.message), { name: data.error.name }));
    };
    worker.onerror = (e) => {
      for (const p of this.#pending.values()) p.reject(new Error(`registry worker failed: ${e.message}`));
      this.#pending.clear();
    };
  }

  /** Calls a method of the wasm Registry in the worker. `channel` makes newer calls supersede older ones. */
  call(method, args = [], channel = null) {
    const id = this.#next++;
    if (channel) this.#latest.set(channel, id);
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject, channel });
      this.#worker.postMessage({ id, method, args });
    });
  }

  /**
   * Typeahead suggestions; a newer call supersedes older ones. Answered on the
   * main thread when `suggestNow` can, else by the Worker.
   */
  suggest(text, options = {}) {
    const o = suggestOptions(options);
    let now;
    try {
      now = this.suggestNow(text, o);
    } catch (e) {
      return Promise.reject(e);
    }
    if (!now) return this.call("suggest", [text, o], "suggest");
    this.#latest.set("suggest", this.#next++); // older Worker answers are stale now
    return Promise.resolve(now);
  }

  /** The first hits of the answer `suggest` is getting, when the typeahead pieces at hand prove them; else null. */
  suggestPartialNow(text, options = {}) {
    try {
      return this.pieces?.partialNow(text, suggestOptions(options)) ?? null;
    } catch {
      return null; // invalid filters: `suggest` reports them
    }
  }

  /**
   * Typeahead suggestions computed synchronously on the main thread, or null
   * when that instance is not built yet (or `text` needs the records: an
   * external id), in which case ask `suggest`. Throws on invalid filters.
   */
  suggestNow(text, options = {}) {
    this.#lastSuggest = performance.now();
    if (this.pieces) {
      // From the typeahead pieces: null until the query's piece is here
      // (fetched now, for the next keystroke) or where only the whole
      // data answers exactly (the Worker does).
      const o = suggestOptions(options);
      const hits = this.pieces.suggestNow(text, o);
      // Offline, the Worker's copy (the service worker's cache) answers.
      if (!hits && navigator.onLine !== false) this.pieces.prefetch(text);
      return hits;
    }
    const r = this.#main;
    if (!r || r.suggestNeedsRecords(text)) return null;
    const o = suggestOptions(options);
    // The domains file is loaded on the first e-mail context (typeahead
    // files do not hold it); meanwhile the Worker answers.
    if (o.emailDomain && !r.hasDomains()) {
      this.loadDomains();
      return null;
    }
    return r.suggest(text, o);
  }

  #source = null; // {dataUrl, manifest} of the main-thread instance
  #domainsLoading = null;
  /**
   * Loads the domains file into the main-thread instance once it is built
   * (an e-mail context needs it; the typeahead files do not hold it). Called
   * by the first `suggestNow` with an `emailDomain`, or early by a page that
   * knows it will ask (the widget, when a picker has `email-domain` or
   * `domain-from`). Resolves when done (or when there is no such instance).
   */
  loadDomains() {
    this.#domainsLoading ??= (async () => {
      await this.suggestOnMainThread;
      if (!this.#main || this.#main.hasDomains() || !this.#source) return;
      const { loadShardFiles } = await import("./registry-data.js");
      const { files } = await loadShardFiles(this.#source.dataUrl, ["domains"], this.#source.manifest);
      this.#main?.addDomains(files[0]);
      domainsReady(); // so that a later domainsReady() finds it resolved
      firstDomainsSet?.();
      firstDomainsSet = null;
    })().catch((e) => console.warn("registry: e-mail domains stay in the Worker:", e));
    return this.#domainsLoading;
  }

  /**
   * Main-thread suggestions: from the typeahead pieces when the data has
   * them (at once: a few kilobytes per query, `client.pieces`), else by
   * building a suggest-only instance from the files the Worker loaded, when
   * the page is idle.
   */
  startMainThreadSuggest({ dataUrl, manifest, wasmUrl, pieces = null }) {
    if (this.suggestOnMainThread) return this.suggestOnMainThread;
    this.#source = { dataUrl, manifest };
    const wasm = () => mainWasm(wasmUrl);
    const ready = manifest?.pieces?.split_first
      ? this.#openPieces(dataUrl, manifest, wasm, pieces)
      : this.#buildInstance(dataUrl, manifest, wasm);
    this.suggestOnMainThread = ready
      .then((ready) => {
        if (ready) {
          suggestReady(); // so that a later suggestReady() finds it resolved
          firstReadySet?.(ready);
          firstReadySet = null;
        }
        return ready;
      })
      .catch((e) => {
        console.warn("registry: suggestions stay in the Worker:", e);
        return null;
      });
    return this.suggestOnMainThread;
  }

  /** Main-thread suggestions from the typeahead pieces (`started`: a promise of ones already on their way): ready as soon as the pieces client is. */
  async #openPieces(dataUrl, manifest, wasm, started = null) {
    const t0 = performance.now();
    const { startPieces } = await import("./registry-pieces.js");
    const pieces = (await started) ?? startPieces({ dataUrl, manifest, wasm: wasm().then((w) => w.module) });
    await pieces.ready;
    if (this.#closed) return null;
    this.pieces = pieces;
    idle(3000).then(() => navigator.onLine !== false && pieces.warm());
    const { memory } = await wasm();
    return { pieces: true, buildMs: performance.now() - t0, cpuMs: 0, longestTaskMs: 0, slices: 0, memoryBytes: memory.buffer.byteLength, bytes: 0 };
  }

  /** Data without pieces: a suggest-only instance built from the Worker's files in idle slices. */
  async #buildInstance(dataUrl, manifest, wasm) {
    await idle(3000);
    const [{ RegistryBuilder, memory }, { loadShardFiles }] = await Promise.all([wasm(), import("./registry-data.js")]);
    // The same release as the Worker's (its manifest), from the HTTP or
    // service-worker cache: the Worker has just fetched these files.
    const { files } = await loadShardFiles(dataUrl, ["summary", "names"], manifest);
    // Start in an idle period that does not follow a keystroke closely.
    const since = performance.now();
    do await idle(1000);
    while (performance.now() - this.#lastSuggest < 1000 && performance.now() - since < 30_000);
    if (this.#closed) return null;
    // Then in slices, one per idle period, so that no task holds up a
    // keystroke for long: steps of at most ~8 ms, except the pieces that
    // cannot be cut (decompressing the names file is the longest).
    const started = performance.now();
    let cpuMs = 0;
    let longestTaskMs = 0;
    const timed = (f) => {
      const t = performance.now();
      const v = f();
      const ms = performance.now() - t;
      cpuMs += ms;
      longestTaskMs = Math.max(longestTaskMs, ms);
      return v;
    };
    const builder = timed(() => new RegistryBuilder(files));
    let slices = 1;
    for (let left = await idle(100); !timed(() => builder.step(Math.min(8, Math.max(1, left - 1)))); left = await idle(100)) {
      if (this.#closed) return builder.free(), null;
      slices++;
    }
    this.#main = timed(() => builder.finish());
    builder.free();
    // memoryBytes: this instance's whole wasm memory (a high-water mark, decode peak included).
    return {
      buildMs: performance.now() - started,
      cpuMs,
      longestTaskMs,
      slices,
      memoryBytes: memory.buffer.byteLength,
      bytes: files.reduce((n, f) => n + f.length, 0),
    };
  }

  /** The router: any spec URL (`/v2/organizations?...`) → `{status, body}`. */
  request(pathAndQuery) {
    return this.call("request", [pathAndQuery]);
  }
  get(id, { version = 2 } = {}) {
    return this.call("get", [id, version]);
  }
  search(params) {
    return this.call("search", [params], params?.channel ?? null);
  }
  advanced(params) {
    return this.call("advanced", [params]);
  }
  affiliation(params) {
    return this.call("affiliation", [params]);
  }
  facets(params) {
    return this.call("facets", [params], "facets");
  }
  close() {
    this.#worker.terminate();
    this.#closed = true;
    this.#main?.free();
    this.#main = null;
  }
}

/**
 * A module Worker running `url`. Browsers start Workers only from the page's
 * origin: from another one (a CDN with CORS), a same-origin Blob module that
 * imports the script (its own imports and fetches stay relative to its real
 * URL; a CSP then needs `worker-src blob:`).
 */
function startWorker(url) {
  if (url.origin === globalThis.location.origin) return new Worker(url, { type: "module" });
  const blob = new Blob([`import ${JSON.stringify(url.href)};\n`], { type: "text/javascript" });
  return new Worker(URL.createObjectURL(blob), { type: "module" });
}

/**
 * Starts the worker and loads the data named by `dataUrl`/manifest.json.
 * mode "full" loads one file; "typeahead" loads summary+names first and the
 * records only when a method needs them. `suggestOnMainThread: true`: see the
 * top of this file (everything works through the Worker until it is ready);
 * `pieces`: (a promise of) a registry-pieces.js client already started, for
 * those suggestions (`openRegistryEarly`).
 */
export async function openRegistry({ dataUrl = new URL("./data/", document.baseURI), mode = "full", wasmUrl, suggestOnMainThread = false, pieces = null } = {}) {
  dataUrl = new URL(dataUrl, document.baseURI);
  if (!dataUrl.pathname.endsWith("/")) dataUrl.pathname += "/"; // a folder, with or without its slash
  const worker = startWorker(new URL("./registry-worker.js", import.meta.url));
  const client = new RegistryClient(worker);
  try {
    client.info = await client.call("open", [{ dataUrl: String(dataUrl), mode, wasmUrl: wasmUrl && String(wasmUrl) }]);
  } catch (e) {
    worker.terminate(); // a retry starts a new one
    throw e;
  }
  if (suggestOnMainThread) client.startMainThreadSuggest({ dataUrl: String(dataUrl), manifest: client.info.manifest, wasmUrl, pieces });
  return client;
}

let answeredOnce = false;
/**
 * Tells the page's registry code that the page has shown its answer (a
 * record, results, or an empty search page): what waits for that — the
 * whole registry of `openRegistryEarly({deferWhole: true})`, the offline
 * copy — starts once the browser is then idle. Fires the window event
 * `registry-answered` once.
 */
export function answered() {
  if (answeredOnce) return;
  answeredOnce = true;
  globalThis.dispatchEvent?.(new Event("registry-answered"));
}

/** Resolves once `answered()` has been called (at once if it has). */
export function whenAnswered() {
  if (answeredOnce) return Promise.resolve();
  return new Promise((resolve) => globalThis.addEventListener("registry-answered", () => resolve(), { once: true }));
}

/**
 * `openRegistry` for a page that wants to answer before the whole data is
 * in (its first visit on a slow network: the app). Resolves, once the
 * pieces' module is in, to `{typeahead, whole, info}`: `typeahead` (a registry-pieces.js
 * TypeaheadClient) answers suggestions and record pages (`request` of
 * `/v2/organizations/<id>`) from the data's pieces, a few kilobytes each,
 * and asks `whole` for the rest; `whole` is the promise of the
 * `openRegistry` client, with main-thread suggestions from the same pieces;
 * `info`, the promise of `{release, recordCount}` from the manifest.
 * `deferWhole: true`: the whole data is downloaded only once something
 * needs it or the page has `answered()` and is idle, so that it never
 * competes with the answer's bytes. Data without pieces: `whole` starts at
 * once and answers everything.
 */
export async function openRegistryEarly({ dataUrl = new URL("./data/", document.baseURI), mode = "full", wasmUrl, deferWhole = false } = {}) {
  const piecesJs = import("./registry-pieces.js");
  // The page may have asked for the manifest already (index.html: `window.registryManifest`).
  const early = globalThis.registryManifest;
  const started = piecesJs.then(({ startPieces, fetchPiecesManifest }) => {
    const manifest = early && Promise.resolve(early).then((m) => m ?? fetchPiecesManifest(new URL(dataUrl, document.baseURI)));
    return startPieces({
      dataUrl: String(dataUrl),
      manifest,
      wasm: mainWasm(wasmUrl).then((w) => w.module),
      // Results pages from the E2 pieces (`list`, `rows`).
      searchModule: () => import("./registry-search.js"),
    });
  });
  let start;
  const whole = new Promise((resolve, reject) => {
    let opened = false;
    start = () => {
      if (!opened) {
        opened = true;
        openRegistry({ dataUrl, mode, wasmUrl, suggestOnMainThread: true, pieces: started }).then(resolve, reject);
      }
      return whole;
    };
  });
  whole.catch(() => {}); // reported by whoever awaits it
  const ready = started.then((p) => p.ready);
  // Data without pieces (or pieces that cannot load): only the whole data answers.
  // (`start` returns `whole`, whose failure is reported by whoever awaits it.)
  const quiet = () => void start().catch(() => {});
  if (!deferWhole) quiet();
  else {
    ready.catch(quiet);
    whenAnswered().then(() => idle(2000)).then(quiet);
  }
  const info = ready.then(
    (m) => ({ release: m.release, recordCount: m.record_count }),
    () => whole.then((c) => c.info),
  );
  const { TypeaheadClient } = await piecesJs;
  return { typeahead: new TypeaheadClient(await started, start), whole, info };
}
