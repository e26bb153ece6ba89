// E2 (`query`, filters, paging, facet counts) from the pieces a query
// needs, before (or instead of) the whole registry: the core's
// pieces::search answers exactly as the whole registry does, or says that
// only the whole registry can (`{whole}`). JS fetches, wasm computes.
//
//   import { startPiecesSearch } from "./registry-search.js";
//   const search = startPiecesSearch({ dataUrl: "./data/" });
//   const page = await search.page({ query: "university of cambridge", page: 1 });
//   // {hits: [{summary, score}], numberOfResults, meta} | {errors} | {whole: why}
//
// Files are fetched at most once each and checked against their hashes
// (registry-pieces.js checkedFiles; a file the build does not list means
// "no record under that prefix"); the pieces folder is immutable.

import { BYTE_CAPS, checkedFiles, fetchPiecesManifest } from "./registry-pieces.js";

/**
 * E2 over the pieces of the data at `dataUrl`: `manifest` (object or
 * promise) and `wasm` (a promise of the initialised full registry-wasm
 * module) are fetched/loaded when absent.
 */
export function startPiecesSearch({ dataUrl = "./data/", manifest = null, wasm = null } = {}) {
  const base = new URL(dataUrl, globalThis.document?.baseURI ?? globalThis.location.href);
  const manifestP = Promise.resolve(manifest ?? fetchPiecesManifest(base));
  const wasmP =
    wasm ??
    import("./pkg/registry_wasm.js").then(async (m) => {
      await m.default({ module_or_path: new URL("./pkg/registry_wasm_bg.wasm", import.meta.url) });
      return m;
    });
  let bytes = 0;
  const files = new Map(); // name → Promise<bytes | undefined>
  const ready = Promise.all([manifestP, wasmP]).then(([m, mod]) => {
    if (!m.pieces?.search?.stats) throw new Error("this data has no E2 pieces: rebuild it with `registry build`");
    const folder = new URL(m.pieces.path, base);
    const search = new mod.PiecesSearch(m.pieces.split_first, m.pieces.id_chars);
    return { folder: checkedFiles(folder, m.pieces.hashes), search };
  });
  ready.catch(() => {});
  const file = (folder, name) => {
    if (!files.has(name)) {
      // Directory parts are JSON arrays of prefixes, the rest piece-like files.
      const p = folder(name, /^d-[0-9a-f]+\.json$/.test(name) ? BYTE_CAPS.part : BYTE_CAPS.piece).then((b) => {
        bytes += b?.length ?? 0;
        return b ?? undefined; // not in this build
      });
      files.set(name, p);
      p.catch(() => files.delete(name)); // a failed fetch may be retried
    }
    return files.get(name);
  };
  // One answer at a time: `add` and `answer` share the wasm client.
  let queue = Promise.resolve();
  return {
    ready,
    /** Data bytes received so far. */
    bytes: () => bytes,
    /**
     * `{query, filter, allStatus, page, version, typed}` → the page,
     * `{errors}` or `{whole}`. `items(hits)`: a promise of each hit's
     * record as its API answer's JSON text; then the page also has `body`,
     * the API's answer (the whole registry's `{items, meta, …}`).
     */
    page(params, { items = null } = {}) {
      const run = async () => {
        const { folder, search } = await ready;
        const started = performance.now();
        for (let round = 0; round < 16; round++) {
          const a = search.answer(params);
          if (a.hits && items) a.body = search.response(await items(a.hits), performance.now() - started);
          if (!a.need) return a;
          const got = await Promise.all(a.need.map((name) => file(folder, name)));
          a.need.forEach((name, i) => search.add(name, got[i]));
        }
        throw new Error(`pieces: '${params.query}' is still unanswered after 16 rounds`);
      };
      const p = queue.then(run);
      queue = p.catch(() => {});
      return p;
    },
  };
}
