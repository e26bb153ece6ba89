// The registry as a promise API for plain HTML pages (no bundler):
//
//   import { openRegistry } from "./registry.js";
//   const registry = await openRegistry({ dataUrl: "./data/" });
//   const hits = await registry.suggest("univ of tok", { limit: 8 });
//   const { status, body } = await registry.request("/v2/organizations?query=oxford");
//
// Everything runs in a Web Worker. `suggest` has stale-response protection:
// a newer call supersedes an older one, whose promise rejects with an
// AbortError (check `e.name === "AbortError"` and ignore it).

export class StaleError extends Error {
  constructor() {
    super("superseded by a newer request");
    this.name = "AbortError";
  }
}

export class RegistryClient {
  #worker;
  #next = 1;
  #pending = new Map();
  #latest = new Map(); // channel → newest call id
  info = null;

  constructor(worker) {
    this.#worker = worker;
    worker.onmessage = ({ data }) => {
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

  /** Typeahead suggestions; a newer call supersedes older ones. */
  suggest(text, { filters = [], limit = 10 } = {}) {
    return this.call("suggest", [text, { filters, limit }], "suggest");
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
  }
}

/**
 * Starts the worker and loads the data named by `dataUrl`/manifest.json.
 * mode "full" loads one file; "typeahead" loads summary+names first and the
 * records only when a method needs them.
 */
export async function openRegistry({ dataUrl = new URL("./data/", document.baseURI), mode = "full", wasmUrl } = {}) {
  const worker = new Worker(new URL("./registry-worker.js", import.meta.url), { type: "module" });
  const client = new RegistryClient(worker);
  client.info = await client.call("open", [{ dataUrl: String(dataUrl), mode, wasmUrl: wasmUrl && String(wasmUrl) }]);
  return client;
}
