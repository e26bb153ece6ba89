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

import { BYTE_CAPS, checkedPieces, fetchPiecesManifest, hex, patchWith, roughFold } from "./registry-pieces.js";

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
  // Files are fetched as soon as the manifest is here (not after the wasm):
  // the first files a query needs can be on their way while it compiles.
  const folderP = manifestP.then((m) => {
    if (!m.pieces?.search?.stats) throw new Error("this data has no E2 pieces: rebuild it with `registry build`");
    return checkedPieces(m, base, patchWith(wasmP));
  });
  folderP.catch(() => {});
  const ready = Promise.all([manifestP, wasmP, folderP]).then(([m, mod]) => ({ search: new mod.PiecesSearch(m.pieces.split_first, m.pieces.id_chars) }));
  ready.catch(() => {});
  const file = (name) => {
    if (!files.has(name)) {
      // Directory parts are JSON arrays of prefixes, the rest piece-like files.
      // Files the wasm asks for that the build may not have written (a
      // phrase piece or a phrase's rank chunks and group file, a country's or a
      // type's rank chunk, an external id piece, a pair's group file (a
      // pair sharing few records is in its rarer term's), a triple's group
      // file and rank chunk, a statistics part: version 8, none for a first
      // character no common word has) are asked only once their hash table
      // lists them: no 404 in the console.
      const maybe = /^(?:p|pk|pg|kc|kt|e|s)-|^(?:g(?:-[0-9a-f]+){2,3}|k(?:-[0-9a-f]+){3}-\d+)\.shard$/.test(name);
      const p = folderP
        .then(async (folder) =>
          maybe && !(await folder.listed(name)) ? null : folder(name, /^d-[0-9a-f]+\.json$/.test(name) ? BYTE_CAPS.part : BYTE_CAPS.piece),
        )
        .then((b) => {
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
     * Starts fetching, before the wasm is in, the files an answer to
     * `query` will ask for (`typed`: read as the search page does): the
     * E2 statistics (and their parts) and each word's own files (`planAhead`;
     * `words: false`: the statistics only). Resolves (never rejects) once
     * they are in or failed.
     */
    prefetch(query, { typed = false, words = true } = {}) {
      return Promise.allSettled([file("search.stats"), planAhead({ manifestP, folderP, file }, query, typed, words)]);
    },
    /**
     * `{query, filter, allStatus, page, version, typed}` → the page,
     * `{errors}` or `{whole}`. `items(hits)`: a promise of each hit's
     * record as its API answer's JSON text; then the page also has `body`,
     * the API's answer (the whole registry's `{items, meta, …}`).
     */
    page(params, { items = null } = {}) {
      const run = async () => answerInRounds((await ready).search, params, items, file);
      const p = queue.then(run);
      queue = p.catch(() => {});
      return p;
    },
  };
}

const quiet = (p) => p.catch(() => {});

/** The prefixes the directory part of first character `first` lists as split. */
async function partKeys(file, first) {
  const b = await file(`d-${hex(first)}.json`);
  return new Set(b ? JSON.parse(new TextDecoder().decode(b)) : []);
}

/**
 * The files the query's words will need, guessed from the directory
 * parts and the hash tables while the wasm downloads (core's
 * pieces::search asks for the same once it runs): a common word's
 * group file (it has one) and the group file of a pair of them, or the
 * first rank chunk of the only one; any other word's leaf — its first
 * prefix the directory does not list as split — or, when every prefix
 * is split, its term piece; the last word's extension piece in the
 * search page's reading. Words come from a rough folding; a group or
 * extension file is fetched only when the build lists it (`listed`: its
 * hash table), so a wrong guess costs a table or a directory part, never
 * a wrong answer: the wasm still names what it needs.
 * (`file` fetches one file of the folder once, `folderP` its hash tables.)
 */
async function planAhead({ manifestP, folderP, file }, query, typed, wordsToo = true) {
  const m = await manifestP;
  const folder = await folderP;
  const split = new Set(m.pieces.split_first ?? []);
  const words = [...new Set(roughFold(query).split(/[^\p{L}\p{N}]+/u).filter(Boolean))];
  const fetchListed = async (name) => {
    if (await folder.listed(name)) await file(name);
  };
  // The statistics parts of the words' first characters (version 8),
  // which the wasm asks with the statistics file.
  const parts = [...new Set(words.map((w) => [...w][0]))].map((c) => fetchListed(`s-${hex(c)}.shard`));
  parts.forEach(quiet);
  if (!wordsToo) return Promise.allSettled(parts);
  const groups = words.map((w) => `g-${hex(w)}.shard`);
  const isCommon = groups.map((g) => folder.listed(g));
  await Promise.all([
    ...words.map(async (w, k) => {
      const chars = [...w];
      if (typed && k === words.length - 1) quiet(fetchListed(`x-${hex(w)}.shard`));
      // The directory part comes beside the group file's table (a
      // common word needs none: ~1 KB lost, against a round trip).
      const keys = split.has(chars[0]) ? partKeys(file, chars[0]) : Promise.resolve(new Set());
      keys.catch(() => {});
      if (await isCommon[k]) return file(groups[k]);
      const splitKeys = await keys;
      const n = chars.findIndex((_, i) => !splitKeys.has(chars.slice(0, i + 1).join("")));
      // Asked as the wasm would ask it (its table beside it; a 404 when
      // no record has a word under the prefix, as for the wasm).
      await file(n < 0 ? `t-${hex(w)}.shard` : `${hex(chars.slice(0, n + 1).join(""))}.shard`);
    }),
    // A pair of common words (named in byte order, which hex keeps). One
    // common word: its first rank chunk, which the wasm's first answer
    // asks for (pieces::search first_chunk_ahead) unless a required
    // word or a quoted phrase may leave it out; with two, the rarer one's,
    // which only the statistics tell.
    Promise.all(isCommon).then((flags) => {
      const common = words.filter((_, k) => flags[k]).map(hex);
      if (common.length === 2) return fetchListed(`g-${common.sort().join("-")}.shard`);
      if (common.length === 1 && !/["+]/.test(query)) return fetchListed(`k-${common[0]}-0.shard`);
    }),
  ]);
}

/** A rank chunk's file name: what it ranks (a term, a pair or a triple of
 * terms, a term over a country or a type, a phrase: `k-<hex>`, `k-<hex>-<hex>`,
 * `kc-<hex>-<hex>`, `kt-<hex>-<hex>`, `pk-<hex>-<hex>`) and its number. */
const RANK = /^((?:k[ct]?|pk)-[0-9a-f-]+)-(\d+)\.shard$/;

/**
 * The answer of the wasm's `search` to `params`, handing it the files it
 * names as they come (`file`). Each file is handed over as soon as it is
 * here, and the wasm asked again: what it needs next (a leaf named by a
 * directory part, say) is then on its way beside files still downloading,
 * instead of one round after the slowest of them. With `items`, the page
 * also has its API answer (`body`).
 */
async function answerInRounds(search, params, items, file) {
  const started = performance.now();
  const coming = new Map(); // name → promise of [name, bytes]
  for (let step = 0; step < 64; step++) {
    const a = search.answer(params);
    if (a.hits && items) a.body = search.response(await items(a.hits), performance.now() - started);
    if (!a.need) return a;
    // The core reads a rank chunk ahead of those it has, not of
    // those on their way: a chunk after one still coming from an
    // earlier round waits for it (the page may need no more).
    const before = [...coming.keys()].map((n) => RANK.exec(n)).filter(Boolean);
    for (const name of a.need) {
      const r = RANK.exec(name);
      if (coming.has(name) || (r && before.some((b) => b[1] === r[1] && Number(b[2]) < Number(r[2])))) continue;
      coming.set(name, file(name).then((b) => [name, b]));
    }
    const [name, bytes] = await Promise.race(coming.values());
    coming.delete(name);
    search.add(name, bytes);
  }
  throw new Error(`pieces: '${params.query}' is still unanswered after 64 files`);
}
