// Typeahead over the partitioned index (`registry build` writes it under
// data/pieces/): the manifest says which first characters have split
// prefixes; the directory part of the query's first character is fetched
// (a few hundred bytes), then only the piece the query needs, so the first suggestion costs a few kilobytes
// instead of the whole summary + names. Answers are exactly the whole
// registry's (shard::pieces in the core).
//
//   import { openPieces } from "./registry-pieces.js";
//   const pieces = await openPieces({ dataUrl: "./data/" });
//   const hits = await pieces.suggest("harv", { limit: 8 }); // null: ask the whole registry
//   pieces.suggestNow("harv", { limit: 8 });                 // sync: null until the piece is here
//
// A newer `suggest` does not cancel an older one: callers keep their own
// "latest request" check (the widget does). Failed fetches reject; a 404
// means no record lies under that prefix.
import init, { Pieces } from "./pkg/registry_wasm.js";

const hex = (s) => Array.from(new TextEncoder().encode(s), (b) => b.toString(16).padStart(2, "0")).join("");

async function fetchOk(url, init) {
  const res = await fetch(url, init);
  if (!res.ok && res.status !== 404) throw new Error(`${url}: HTTP ${res.status}`);
  return res;
}

export async function openPieces({ dataUrl = "./data/", manifest = null, wasmUrl } = {}) {
  const base = new URL(dataUrl, globalThis.document?.baseURI ?? globalThis.location.href);
  const [m] = await Promise.all([
    manifest ?? fetchOk(new URL("manifest.json", base), { cache: "no-cache" }).then((r) => r.json()),
    init({ module_or_path: wasmUrl ?? new URL("./pkg/registry_wasm_bg.wasm", import.meta.url) }),
  ]);
  if (!m.pieces?.split_first) throw new Error("this data has no typeahead pieces: rebuild it with `registry build`");
  const root = new URL(m.pieces.path, base);
  const pieces = new Pieces(m.pieces.split_first);
  const loading = new Map(); // piece key or "d:" + first character → Promise while it downloads
  let bytes = 0;

  // One download per file at a time; a failed one may be retried by the
  // next keystroke.
  function once(id, url, add) {
    if (!loading.has(id)) {
      loading.set(id, fetchOk(url).then(add));
      loading.get(id).catch(() => loading.delete(id));
    }
    return loading.get(id);
  }

  const loadPart = (first) =>
    once("d:" + first, new URL(`d-${hex(first)}.json`, root), async (res) => {
      if (!res.ok) throw new Error(`directory part of '${first}' is missing (HTTP ${res.status})`);
      const text = await res.text();
      bytes += text.length;
      pieces.addDirectory(first, JSON.parse(text));
    });

  const load = (key, head) =>
    once(key, new URL(`${hex(key)}${head ? ".h" : ""}.shard`, root), async (res) => {
      if (res.status === 404) return pieces.addMissing(key);
      const body = new Uint8Array(await res.arrayBuffer());
      bytes += body.length;
      pieces.add(key, body);
    });

  return {
    release: m.release,
    /** Data bytes received so far (directory + pieces). */
    bytes: () => bytes,
    /** Hits if the pieces at hand answer `text`, else null (nothing is fetched). */
    suggestNow(text, options) {
      return pieces.suggest(text, options).hits ?? null;
    },
    /** Hits, fetching the piece `text` needs; null when only the whole typeahead data can answer. */
    async suggest(text, options) {
      for (;;) {
        const a = pieces.suggest(text, options);
        if (a.hits) return a.hits;
        if (a.whole) return null;
        if (a.needDirectory !== undefined) await loadPart(a.needDirectory);
        else await load(a.need, a.head);
      }
    },
    /** Starts fetching what `text` will need (e.g. on focus), without waiting. */
    prefetch(text) {
      const a = pieces.suggest(text, {});
      if (a.needDirectory !== undefined) loadPart(a.needDirectory).then(() => this.prefetch(text), () => {});
      else if (a.need) load(a.need, a.head).catch(() => {});
    },
  };
}
