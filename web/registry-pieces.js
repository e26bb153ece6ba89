// Typeahead over the partitioned index (`registry build` writes it under
// data/pieces/): the manifest says which first characters have split
// prefixes; the directory part of the query's first character is fetched
// (a few hundred bytes), then only the piece the query needs, so the first
// suggestion costs a few kilobytes instead of the whole summary + names.
// Answers are exactly the whole registry's (shard::pieces in the core), or
// null where only the whole data can answer (external ids, several short common
// words, e-mail context, a boosted or filtered short prefix).
//
//   import { openPieces } from "./registry-pieces.js";
//   const pieces = await openPieces({ dataUrl: "./data/" });
//   const hits = await pieces.suggest("harv", { limit: 8 }); // null: ask the whole registry
//   pieces.suggestNow("harv", { limit: 8 });                 // sync: null until the piece is here
//
// `startPieces` is the same without waiting: downloads can start (and a
// first character's files be prefetched) while the wasm still loads.
// `TypeaheadClient` puts the pieces in front of a whole registry opened only
// when a query needs it: what the <registry-picker> widget uses.
//
// A newer `suggest` of openPieces does not cancel an older one: callers keep
// their own "latest request" check (TypeaheadClient does). Failed fetches
// reject; a file the build's hash tables do not list means no record lies
// under that prefix. Every file is checked against its hash before use
// (`checkedFiles`).

/** Lower-case hex of a string's UTF-8 bytes: how piece and directory files are named. */
export const hex = (s) => hexOf(new TextEncoder().encode(s));

/** Data built without typeahead pieces: not a failure for a client that can ask the whole registry. */
const noPieces = (message) => Object.assign(new Error(message), { name: "NoPiecesError" });

/**
 * Most bytes a file of each kind may have: far above what `registry build`
 * writes (a manifest of a few KB, directory parts under 2 KB, pieces under
 * 300 KB, the first-keystroke pack ~100 KB at 144k records), so only
 * damaged or hostile data reaches them. A whole-data file's cap is the size
 * its manifest entry states (at most `section`).
 */
export const BYTE_CAPS = { manifest: 1 << 20, part: 256 << 10, piece: 8 << 20, pack: 8 << 20, section: 1 << 30 };

/**
 * The body of `res` as bytes, refused as soon as more than `cap` have
 * arrived (the rest is not downloaded): no response can make the page hold
 * more than a file of its kind can need. Throws naming `what`.
 */
export async function readCapped(res, cap, what = res.url) {
  const tooLarge = () => new Error(`${what}: more than ${cap} bytes, more than such a file holds (damaged or wrong data?)`);
  if (!res.body) {
    const bytes = new Uint8Array(await res.arrayBuffer());
    if (bytes.length > cap) throw tooLarge();
    return bytes;
  }
  const reader = res.body.getReader();
  const chunks = [];
  let total = 0;
  for (let r = await reader.read(); !r.done; r = await reader.read()) {
    total += r.value.length;
    if (total > cap) {
      reader.cancel().catch(() => {});
      throw tooLarge();
    }
    chunks.push(r.value);
  }
  if (chunks.length === 1) return chunks[0];
  const out = new Uint8Array(total);
  chunks.reduce((at, c) => (out.set(c, at), at + c.length), 0);
  return out;
}

/** `readCapped`, parsed as JSON. */
export const readCappedJson = async (res, cap, what) => JSON.parse(new TextDecoder().decode(await readCapped(res, cap, what)));

/** Hex SHA-256 of `bytes` (WebCrypto: a secure context, which localhost counts as). */
export async function sha256Hex(bytes) {
  if (!globalThis.crypto?.subtle) throw new Error("no WebCrypto (plain http from another host?): the data cannot be checked, so it is not used; serve it over https");
  return hexOf(new Uint8Array(await crypto.subtle.digest("SHA-256", bytes)));
}

/** Lower-case hex of bytes. */
const hexOf = (bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");

/** A check of bytes (see `checkedRead`): they are returned when their SHA-256 starts with `want`. */
const hashIs = (want) => async (bytes) => ((await sha256Hex(bytes)).startsWith(want) ? bytes : null);

/** `url`'s body (null for a 404), refused past `cap` bytes; `attempt` > 0: past the HTTP cache. */
async function fetchFile(url, name, cap, attempt) {
  const res = await fetch(url, attempt ? { cache: "reload" } : {});
  if (res.status === 404) return null;
  if (!res.ok) throw new Error(`${name}: HTTP ${res.status}`);
  return readCapped(res, cap, name);
}

/**
 * The one rule for a file that must match its hash: `read(attempt)` gives
 * its bytes (or null), `check(bytes)` what to return (null: they do not
 * match). A mismatch is reported and read once more (attempt 1, past the
 * HTTP cache); a second one throws, and `what` is then refused for good
 * (`refused`: what → why). `missing`: what a read of nothing means.
 * `moved()`: a promise of the ReleaseChangedError to throw instead when
 * the folder now holds another release (then nothing is damaged: the
 * file is of a release that was replaced), or of null.
 */
async function checkedRead(refused, what, read, check, missing, moved, mismatch = () => "its bytes do not match their hash") {
  if (refused.has(what)) throw new Error(refused.get(what));
  for (let attempt = 0; ; attempt++) {
    const bytes = await read(attempt);
    const good = bytes && (await check(bytes));
    if (good) return good;
    const gone = attempt === 0 && (await moved?.());
    if (gone) throw gone;
    const why = `${what}: ${bytes ? mismatch() : missing} (damaged or altered)`;
    if (attempt) throw new Error(refused.set(what, `${why}, again: not used`).get(what));
    console.error(`registry: ${why}; fetching it once more`);
  }
}

/**
 * `checkedFiles` of the pieces folder of manifest `m` (of the data folder
 * at `base`), checked with the hash tree when the build wrote one (since
 * 2026-11-27: ~7× fewer bytes a request at ×4 records), else with the
 * two-level tables (registry_contract::Pieces::tree, ::hashes). `patch(base,
 * delta, cap)` → the file a delta makes of its base (the caller's wasm's
 * `applyDelta`): see `packedFiles`. Pieces this reader cannot read (see
 * `piecesUnusable`: a newer version's slots could list what it would
 * misread) give a NoPiecesError for every file, whoever asks.
 */
export function checkedPieces(m, base, patch = null) {
  const why = piecesUnusable(m);
  if (why) {
    const refuse = async () => {
      throw noPieces(why);
    };
    return Object.assign(refuse, { listed: refuse });
  }
  return noticingRelease(
    m.pieces.packed
      ? packedFiles(new URL(m.pieces.path, base), m.pieces.packed, () => newerRelease(m, base), patch)
      : checkedFiles(new URL(m.pieces.path, base), m.pieces.tree ?? m.pieces.hashes, () => newerRelease(m, base)),
    m,
    base,
  );
}

/**
 * The `patch` of `checkedPieces` with the registry-wasm module `wasm` (a
 * promise of it, or a function returning one; any build: each has
 * `applyDelta`), asked for only when a file has a delta.
 */
export const patchWith = (wasm) => async (base, delta, cap) => {
  const mod = await (typeof wasm === "function" ? wasm() : wasm);
  if (typeof mod?.applyDelta !== "function") throw noPieces("this wasm cannot apply a delta (built before pieces version 10)");
  return mod.applyDelta(base, delta, cap);
};

/** What tells two builds of a data folder apart: its build id and its files' hashes. */
export const buildOf = (m) => `${m?.build_id ?? m?.build_time}:${(m?.files ?? []).map((f) => f.sha256).join(",")}`;

/**
 * The error of a read that failed because the data folder now holds
 * another release (a deploy while the page was open): the old release's
 * files are gone, which is neither damage nor "no such record".
 * `manifest`: the folder's manifest now. Consumers treat it like a
 * NoPiecesError: the whole registry, which loads the new release, answers.
 */
export const releaseChanged = (from, to) =>
  Object.assign(new Error(`the data folder now holds release '${to.release}' (this page started on '${from.release}'): its files are read from now on`), {
    name: "ReleaseChangedError",
    manifest: to,
  });

// Per data folder: the promise of the newer manifest found there (null: none), so that the
// hundred reads a deploy fails at once cost one manifest request.
const releaseChecks = new Map();

/**
 * Whether `base` now holds another build than `m`: a ReleaseChangedError
 * (announced once a page: the console and the window's `registry-release`
 * event, detail `{from, to}` releases, `manifest`), or null. Asked after a
 * read of `m`'s files failed.
 */
export function newerRelease(m, base) {
  const key = `${base}|${buildOf(m)}`;
  if (!releaseChecks.has(key)) {
    const check = fetchManifest(base)
      .then((now) => {
        if (buildOf(now) === buildOf(m)) return null;
        announceRelease(m.release, now);
        return releaseChanged(m, now);
      })
      .catch(() => null); // unreachable or unreadable: the read's own error stands
    releaseChecks.set(key, check);
    // A folder that still holds `m` may be redeployed later: ask again next time.
    check.then((e) => e || releaseChecks.delete(key));
  }
  return releaseChecks.get(key);
}

/**
 * Tells the page, once per build, that the data folder holds a new
 * release (`manifest`) since it started on release `from`: in the console
 * and by the window's `registry-release` event (detail `{from, to,
 * manifest}`), on which the app says so beside the release it names.
 */
export function announceRelease(from, manifest) {
  // A Worker tells its page instead (registry-worker.js's `release` message).
  if (!globalThis.document) return;
  const told = (globalThis.__registryReleaseTold ??= new Set());
  if (told.has(buildOf(manifest))) return;
  told.add(buildOf(manifest));
  console.info(`registry: a new data release is available: '${manifest.release}' (this page started on '${from}'); answers come from it now`);
  globalThis.dispatchEvent?.(new CustomEvent("registry-release", { detail: { from, to: manifest.release, manifest } }));
}

/**
 * `get` (of `checkedPieces`) that, when a read fails or a file its table
 * lists is missing, first asks whether the folder holds a newer release:
 * then every read of `m` throws that ReleaseChangedError (once the old
 * files are gone, none of them can be trusted to be there).
 */
function noticingRelease(get, m, base) {
  let gone = null;
  const checked = async (name, cap, want) => {
    if (gone) throw gone;
    try {
      return await get(name, cap, want);
    } catch (e) {
      if (e?.name === "NoPiecesError") throw e;
      gone = await newerRelease(m, base);
      throw gone ?? e;
    }
  };
  checked.listed = async (name) => {
    if (gone) throw gone;
    return get.listed(name);
  };
  return checked;
}

/** Whether `e` sends a reader to the whole registry without a warning (it was said already, or is expected). */
export const quietFallback = (e) => e?.name === "NoPiecesError" || e?.name === "ReleaseChangedError";

/** FNV-1a (32 bits) of a string's UTF-8 (registry_contract::bucket, ::slot). */
function fnv32(s) {
  let h = 0x811c9dc5;
  for (const b of new TextEncoder().encode(s)) h = Math.imul(h ^ b, 0x01000193) >>> 0;
  return h;
}

/**
 * What a file of a packed folder is slotted by (registry_contract::slot_key):
 * an E2 file of one common term or pair of them (`g-`, `c-`, `t-`, `x-`,
 * `k-…-<n>`) by the term(s), so that one slot read locates the files its
 * later rounds ask for; a record's card and piece by `r-<key>`; any other
 * file by its name.
 */
export function slotKey(name) {
  // A record's card and piece share one: the page that paints the card reads the piece next.
  const r = /^(r-[0-9a-z]+)\.(?:json|shard)$/.exec(name);
  if (r) return r[1];
  const m = /^([a-z]+)-([0-9a-f-]+)\.shard$/.exec(name);
  if (!m) return name;
  const parts = m[2].split("-");
  if (["g", "c", "t", "x"].includes(m[1]) && parts.length <= 2) return m[2];
  if (m[1] === "k" && (parts.length === 2 || parts.length === 3)) return parts.slice(0, -1).join("-");
  return name;
}

/** FNV-1a (64 bits) of a string's UTF-8: the key a slot lists a file by (registry_contract::name_key). */
export function nameKey(name) {
  let h = 0xcbf29ce484222325n;
  for (const b of new TextEncoder().encode(name)) h = BigInt.asUintN(64, (h ^ BigInt(b)) * 0x100000001b3n);
  return h;
}

const HASH_BYTES = 12;
const ENTRY_BYTES = 30;

/**
 * Slot `i` of a packed folder (registry_core::shard::packed): its files as
 * a Map from name key to `{hash, pack, offset, length}` when its bytes
 * have the layout and its proof leads to `packed.root`, else null. A key
 * listed twice, one entry after the other (pieces version 10), is a file
 * kept from an earlier release and its delta: the first entry, with the
 * second as its `.delta`. Keys out of order, or one listed three times,
 * make the slot damaged (null), as the core's `decode_slot` says.
 */
export async function provenSlot(bytes, i, packed) {
  const levels = Math.log2(packed.buckets);
  const bodyLength = packed.slot_bytes - levels * HASH_BYTES;
  if (bytes.length !== packed.slot_bytes || bodyLength < 2) return null;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
  const count = view.getUint16(0, true);
  if (2 + count * ENTRY_BYTES > bodyLength) return null;
  let node = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes.subarray(0, bodyLength)));
  for (let l = 0; l < levels; l++) {
    const sibling = bytes.subarray(bodyLength + l * HASH_BYTES, bodyLength + (l + 1) * HASH_BYTES);
    const mine = node.subarray(0, HASH_BYTES);
    const pair = new Uint8Array(2 * HASH_BYTES);
    pair.set(Math.floor(i / 2 ** l) % 2 ? sibling : mine, 0);
    pair.set(Math.floor(i / 2 ** l) % 2 ? mine : sibling, HASH_BYTES);
    node = new Uint8Array(await crypto.subtle.digest("SHA-256", pair));
  }
  if (hexOf(node) !== packed.root) return null;
  const files = new Map();
  let last = -1n;
  for (let at = 2; at < 2 + count * ENTRY_BYTES; at += ENTRY_BYTES) {
    const key = view.getBigUint64(at, true);
    const entry = {
      hash: hexOf(bytes.subarray(at + 8, at + 20)),
      pack: view.getUint16(at + 20, true),
      offset: view.getUint32(at + 22, true),
      length: view.getUint32(at + 26, true),
    };
    if (key < last) return null;
    if (key > last) files.set(key, entry);
    else if (files.get(key).delta) return null; // a third entry: no file has two deltas
    else files.get(key).delta = entry;
    last = key;
  }
  return files;
}

/**
 * Hosts that answered a range request with the whole file: by origin, the
 * error every later read gets at once. One map a page, shared by every copy
 * of this module (the first paint's content-hashed one too), so the console
 * says it once.
 */
const rangeIgnored = (globalThis.__registryRangeIgnored ??= new Map());

/** The gzip `bytes` of file `name` decompressed, refused past `cap` bytes (DecompressionStream). */
async function gunzip(bytes, cap, name) {
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
  return readCapped(new Response(stream), cap, name);
}

/**
 * The bytes `[start, start + length)` of `url` by one HTTP range request
 * (`bytes=a-b`, the one form a browser sends cross-origin without a
 * preflight). A host that answers with the whole file (HTTP 200, e.g.
 * `python3 -m http.server`) is told once in the console, the download is
 * stopped, and this read and every later one to that host throw a
 * NoPiecesError: the whole registry answers instead.
 */
export async function fetchRange(url, start, length, attempt = 0) {
  const origin = new URL(url).origin;
  if (rangeIgnored.has(origin)) throw rangeIgnored.get(origin);
  const res = await fetch(url, { headers: { Range: `bytes=${start}-${start + length - 1}` }, ...(attempt ? { cache: "reload" } : {}) });
  if (res.status === 200) {
    res.body?.cancel().catch(() => {});
    if (!rangeIgnored.has(origin)) {
      console.warn(
        `registry: ${origin} answered a range request for ${new URL(url).pathname} with the whole file (HTTP 200): ` +
          "this host ignores HTTP Range requests, so the data's pieces cannot be read and the whole registry answers instead (a slower first visit). See HOSTING.md.",
      );
      rangeIgnored.set(origin, noPieces(`${origin} ignores HTTP Range requests`));
    }
    throw rangeIgnored.get(origin);
  }
  if (res.status !== 206) throw new Error(`${new URL(url).pathname}: HTTP ${res.status} to a range request`);
  // More bytes than asked: refused as soon as they pass the length (a host that sends other ranges is not read).
  return readCapped(res, length, new URL(url).pathname);
}

/**
 * `checkedFiles` of a packed folder (pieces version 9,
 * registry_contract::Packed): a file's slot is read by range from the
 * slot tables (its place found by arithmetic) and checked by its proof up
 * to the manifest's root; the slot gives the file's pack, offset, length
 * and hash; the file is read by range and checked. A name its slot lacks
 * is not part of the build (null). As in `checkedFiles`, a mismatch is
 * reported and read once more past the HTTP cache, and a second one
 * throws. `get(name, cap, sha256)`: a file stored on its own (the
 * first-keystroke pack), checked by the hash given. `moved`: see
 * `checkedRead` (`checkedPieces` gives it).
 *
 * A file listed with a delta (pieces version 10, a folder built with
 * `registry site --previous`) is its base, kept from the earlier release
 * at the URL that release read it by (so a returning visitor's HTTP cache
 * and the CDN's still hold it), and its delta, read beside it by their own
 * URL (`&delta`); both are checked by their hashes, then `patch(base,
 * delta, cap)` (the wasm's `applyDelta`) gives the file's stored image. A
 * delta that does not apply is a damaged file: reported, both read once
 * more past the HTTP cache, then refused. Without `patch` such a file is a
 * NoPiecesError: the whole registry answers. A folder without deltas never
 * calls `patch`, so no read waits for the wasm.
 */
export function packedFiles(folder, packed, moved = null, patch = null) {
  const refused = new Map(); // what was wrong twice: not asked again
  const slots = new Map(); // slot index → Promise<Map>
  const checked = (what, read, check) => checkedRead(refused, what, read, check, "missing, or not the bytes asked for", moved);
  function slot(i) {
    if (!slots.has(i)) {
      const per = packed.slots_per_file;
      // Each slot is its own URL (`?s=`), as each file of a pack is (`?f=`):
      // the browser's HTTP cache lets one request of a URL at a time through
      // (measured: ten slots of one URL asked at once arrived one after
      // another, 165 ms apart on a 150 ms link), and caches it by URL.
      const file = new URL(`${packed.tables[Math.floor(i / per)]}?s=${i}`, folder);
      const p = checked(`slot ${i}`, (attempt) => fetchRange(file, (i % per) * packed.slot_bytes, packed.slot_bytes, attempt), (bytes) => provenSlot(bytes, i, packed));
      slots.set(i, p);
      p.catch(() => slots.delete(i)); // a failed read may be retried
    }
    return slots.get(i);
  }
  const entry = async (name) => (await slot(fnv32(slotKey(name)) % packed.buckets)).get(nameKey(name));
  async function get(name, cap, want) {
    if (want !== undefined) {
      const url = new URL(name, folder);
      return checked(name, (attempt) => fetchFile(url, name, cap, attempt), hashIs(await want));
    }
    const at = await entry(name);
    if (!at) return null; // not part of this build
    for (const e of [at, at.delta ?? at])
      if (e.length > cap || e.pack >= packed.packs.length) throw new Error(`${name}: its slot says ${e.length} bytes in pack ${e.pack}, more than such a file holds (damaged?)`);
    if (at.delta) return patched(name, at, cap);
    const stored = await checked(name, (attempt) => fetchRange(rangeUrl(name, at), at.offset, at.length, attempt), hashIs(at.hash));
    // JSON is stored compressed (a range is served as stored); checked before it is opened.
    return packed.json_gzip && name.endsWith(".json") ? gunzip(stored, cap, name) : stored;
  }
  // The name rides along as a query: the network log, caches and tests see which file a range is,
  // and two files of one pack are two URLs, which the HTTP cache does not make wait for each other.
  // A base keeps the URL of the release that wrote it (version 9's): what caches hold it by.
  const rangeUrl = (name, e, delta = false) => new URL(`${packed.packs[e.pack]}?f=${encodeURIComponent(name)}${delta ? "&delta" : ""}`, folder);
  /**
   * File `name` from its base and its delta (`at`, `at.delta`): both read
   * at once, each checked by its hash (its own retry rule on the first
   * round), then applied. A delta the wasm refuses makes the file damaged:
   * one more round, both past the HTTP cache, then it is refused.
   */
  async function patched(name, at, cap) {
    if (!patch) throw noPieces(`${name}: the build lists it as a delta on an earlier release's file, and this reader was given no wasm to apply it`);
    const part = (what, e, delta, attempt) => {
      const read = (a) => fetchRange(rangeUrl(name, e, delta), e.offset, e.length, a);
      // The second round (the wasm refused a pair whose hashes held) reads both past the HTTP
      // cache; a hash that fails then refuses the file, with no third read.
      return attempt ? read(attempt).then(hashIs(e.hash)) : checked(what, read, hashIs(e.hash));
    };
    const both = async (attempt) => {
      const [base, delta] = await Promise.all([part(name, at, false, attempt), part(`${name} (its delta)`, at.delta, true, attempt)]);
      return base && delta && { base, delta };
    };
    let refusal = "";
    const apply = async ({ base, delta }) => {
      try {
        return await patch(base, delta, cap);
      } catch (e) {
        if (e?.name === "NoPiecesError") throw e;
        refusal = e?.message ?? String(e);
        return null;
      }
    };
    return checkedRead(refused, name, both, apply, "missing, or not the bytes asked for", moved, () => `its delta does not apply to its base (${refusal})`);
  }
  /** Whether the build has a file `name`, from its slot alone (no read of the file). */
  get.listed = async (name) => Boolean(await entry(name));
  return get;
}

/**
 * The one check of every file of the pieces folder: `get(name, cap,
 * want?)` → its bytes once they match their hash (`want`, or a promise of
 * it), or null when the build has no such file. `hashes`: the manifest's
 * `pieces.tree` or `pieces.hashes` (`checkedPieces` picks). A file is checked by
 * the table of its bucket, fetched beside it, and the table by its proof
 * up to the root the manifest holds (the tree: `ht-<i>.json`), or by the
 * root table `hashes.json` (two levels: `h-<i>.json`):
 * registry_contract::PieceHashes. A
 * mismatch is reported and fetched once more past the HTTP cache; a second
 * one throws (the caller asks the whole registry), and the file is not
 * asked again. `get.listed(name)`: whether the build has the file (its
 * table only).
 */
export function checkedFiles(folder, hashes, moved = null) {
  const json = async (p) => JSON.parse(new TextDecoder().decode(await p));
  const once = new Map();
  const refused = new Map(); // name → why: a file wrong twice is not asked again
  const tables = new Map(); // bucket → its table, once checked
  const memo = (key, make) => {
    if (!once.has(key)) {
      const p = make();
      once.set(key, p);
      p.catch(() => once.delete(key)); // a failed fetch may be retried
    }
    return once.get(key);
  };
  const fetched = (name, cap, attempt) => fetchFile(new URL(name, folder), name, cap, attempt);
  // A statistics part is in the statistics file's table (registry_contract::bucket_key).
  const bucket = (name) => fnv32(/^s-.*\.shard$/.test(name) ? "search.stats" : name) % hashes.buckets;
  // Bucket `i`'s table, once checked.
  async function table(i) {
    const name = `${hashes.proofs ? "ht" : "h"}-${i}.json`;
    tables.set(
      i,
      await memo(i, () =>
        hashes.proofs
          ? get(name, BYTE_CAPS.part, (bytes) => provenTable(bytes, i, hashes)).then((files) => JSON.parse(new TextDecoder().decode(files)))
          : json(get(name, BYTE_CAPS.part, memo("root", () => json(get("hashes.json", BYTE_CAPS.part, hashes.root))).then((r) => r[i]))),
      ),
    );
    return tables.get(i);
  }
  // `want`: the hash the bytes start with (or a promise of it), or a check
  // of the bytes giving what `get` returns (null: they do not check).
  async function get(name, cap, want) {
    if (!hashes?.root) throw noPieces("these pieces have no hashes and cannot be checked; rebuild them with `registry build`");
    if (refused.has(name)) throw new Error(refused.get(name));
    const i = bucket(name);
    // A name its table (once here) lacks is not part of this build: not asked.
    if (want === undefined && tables.has(i) && !(want = tables.get(i)[name])) return null;
    const body = fetched(name, cap, 0);
    body.catch(() => {}); // awaited below, after its hash
    if (want === undefined) {
      want = (await table(i))[name];
      if (want === undefined) return null; // not part of this build
    } else want = await want;
    const check = typeof want === "function" ? want : hashIs(want);
    // The first read is the one already on its way, beside the table.
    const read = (attempt) => (attempt ? fetched(name, cap, attempt) : body);
    return checkedRead(refused, name, read, check, "missing, though its table lists it", moved);
  }
  /**
   * Whether the build has a file `name`, from its hash table alone (no
   * request for the file itself): what a guess at a file asks first, so
   * that a wrong guess costs no 404.
   */
  get.listed = async (name) => Boolean(hashes?.root && (await table(bucket(name)))[name]);
  return get;
}

/**
 * Tree table `i` (`[proof, files]`), checked: the SHA-256
 * of its `files` bytes, hashed with each hash of `proof` up the tree
 * (registry_contract::PieceHashes), gives the manifest's root. Its `files`
 * bytes, or null when it does not check.
 */
export async function provenTable(bytes, i, hashes) {
  const close = bytes.indexOf(0x5d); // the first "]" closes the proof: a hash holds none
  if (bytes[0] !== 0x5b || close < 0 || bytes[close + 1] !== 0x2c || bytes[bytes.length - 1] !== 0x5d) return null;
  let proof;
  try {
    proof = JSON.parse(new TextDecoder().decode(bytes.subarray(1, close + 1)));
  } catch {
    return null;
  }
  if (!Array.isArray(proof) || 2 ** proof.length !== hashes.buckets || proof.some((h) => typeof h !== "string")) return null;
  const files = bytes.subarray(close + 2, bytes.length - 1);
  let node = await sha256Hex(files);
  for (const [l, sibling] of proof.entries()) {
    const mine = node.slice(0, hashes.digits);
    node = await sha256Hex(new TextEncoder().encode(Math.floor(i / 2 ** l) % 2 ? sibling + mine : mine + sibling));
  }
  return node === hashes.root ? files : null;
}

/**
 * The record piece key of an API path naming one record
 * (`/v2/organizations/<id>`, `/v1/…`, `/organizations/…`; the id in any form
 * the router accepts: bare, URL, upper case, `www.`), or null for any other
 * path (the whole registry answers those). Only the key is guessed here: the
 * router, over the piece, still parses the id and answers exactly.
 */
export function recordKey(pathAndQuery, chars = 4) {
  const m = /^\/?(?:v[12]\/)?organizations\/([^?#]+)$/.exec(pathAndQuery);
  if (!m) return null;
  let id;
  try {
    id = decodeURIComponent(m[1]);
  } catch {
    return null;
  }
  const bare = id.trim().split("/").filter(Boolean).pop()?.toLowerCase() ?? "";
  // A mistyped id (check digits wrong) is no record: no piece is asked for
  // it (a 404 in the console), and the whole registry says what it should be.
  return /^0[0-9a-hjkmnp-tv-z]{6}[0-9]{2}$/.test(bare) && checkDigitsHold(bare) ? bare.slice(0, chars) : null;
}

/** Whether a bare id's last two digits are those of its base-32 number (registry_core::id::checksum). */
function checkDigitsHold(bare) {
  let n = 0;
  for (const c of bare.slice(1, 7)) n = n * 32 + "0123456789abcdefghjkmnpqrstvwxyz".indexOf(c);
  return 98 - ((n * 100) % 97) === Number(bare.slice(7));
}

/** Whether every percent-escape of a query string decodes to UTF-8 (URLSearchParams keeps a bad one as text). */
function escapesDecode(qs) {
  try {
    decodeURIComponent(qs);
    return true;
  } catch {
    return false;
  }
}

/**
 * The parameters of a results page the pieces may answer
 * (`/v2/organizations?query=…` or v1's, with only `query`, `filter`,
 * `all_status`, `page` and `mode=typed`, each written plainly), as
 * registry-search.js's `page` takes them; null for anything else (advanced
 * queries, affiliation, listings without `query`, unusual spellings of a
 * parameter): the whole registry answers, and reports what is wrong.
 */
export function listQuery(pathAndQuery) {
  const m = /^\/?(v[12])\/organizations\?(.*)$/s.exec(pathAndQuery);
  if (!m || !escapesDecode(m[2])) return null; // the router's 400 names the bad escape
  const params = new URLSearchParams(m[2]);
  const keys = [...params.keys()];
  const known = ["query", "filter", "all_status", "page", "mode"];
  if (new Set(keys).size !== keys.length || keys.some((k) => !known.includes(k)) || !params.has("query")) return null;
  const q = { query: params.get("query"), version: m[1] === "v1" ? 1 : 2, page: 1, allStatus: false, typed: false };
  if (params.has("filter")) q.filter = params.get("filter");
  if (params.has("all_status")) {
    const v = params.get("all_status").toLowerCase();
    if (v !== "" && v !== "true" && v !== "false") return null;
    q.allStatus = v !== "false";
  }
  if (params.has("page")) {
    const p = params.get("page");
    if (!/^[1-9][0-9]{0,2}$/.test(p) || Number(p) > 500) return null;
    q.page = Number(p);
  }
  if (params.has("mode")) {
    if (params.get("mode") !== "typed") return null;
    q.typed = true;
  }
  return q;
}

/**
 * `{status, body}` of a results page from pieces, exactly the whole
 * registry's, or null when only the whole registry answers it: `search`,
 * (a promise of) a registry-search.js client; `records`, a RecordPieces for
 * the hits' records. Shared by the app and the service worker.
 */
export async function listAnswer(pathAndQuery, search, records) {
  const q = listQuery(pathAndQuery);
  if (!q) return null;
  const prefix = q.version === 1 ? "/v1/organizations/" : "/v2/organizations/";
  const items = (hits) =>
    Promise.all(
      hits.map(async ({ summary }) => {
        const r = await records.answer(prefix + summary.id.split("/").pop());
        if (r?.status !== 200) throw new Error(`record ${summary.id}: ${r ? `HTTP ${r.status}` : "no record piece"}`);
        return r.body;
      }),
    );
  const a = await (await search).page(q, { items });
  if (a.errors) return { status: 400, body: JSON.stringify({ errors: a.errors }) };
  return a.body ? { status: 200, body: a.body } : null;
}

/**
 * Answers the API paths that name one record from its *record piece*
 * (`pieces/<build id>/r-<key>.shard`: every record whose id starts with
 * `key`, a few kilobytes) with the full registry wasm's router, so the
 * answer is the whole registry's. `answer(path)` → `{status, body}`, or null
 * when the piece cannot answer (another path, data without record pieces,
 * no piece under that key): then ask the whole registry. Shared by the app
 * (through `startPieces`) and the service worker.
 */
export class RecordPieces {
  #base;
  #manifest;
  #wasm;
  #get;
  #loaded = new Map(); // key → Promise<Registry | null>
  /** Data bytes fetched so far. */
  bytes = 0;

  /**
   * `manifest`: (a promise of) the data's manifest; `wasm()`: a promise of
   * the initialised full registry-wasm module, asked for on the first
   * record.
   */
  constructor(base, manifest, wasm) {
    this.#base = base;
    this.#manifest = Promise.resolve(manifest);
    this.#wasm = wasm;
    this.#get = this.#manifest.then((m) => checkedPieces(m, base, patchWith(wasm)));
    this.#get.catch(() => {});
  }

  #registry(key) {
    if (!this.#loaded.has(key)) {
      const p = this.#get.then(async (get) => {
        const [body, mod] = await Promise.all([get(`r-${key}.shard`, BYTE_CAPS.piece), this.#wasm()]);
        if (body === null) return null;
        this.bytes += body.length;
        return new mod.Registry(body);
      });
      this.#loaded.set(key, p);
      p.catch(() => this.#loaded.delete(key)); // a later call may retry
    }
    return this.#loaded.get(key);
  }

  /** `{status, body}` from the record's piece, or null (ask the whole registry). */
  async answer(pathAndQuery) {
    const m = await this.#manifest;
    const chars = !piecesUnusable(m) && m.pieces.record_chars;
    const key = chars ? recordKey(pathAndQuery, chars) : null;
    if (key === null) return null;
    const registry = await this.#registry(key);
    if (!registry) return null;
    const path = pathAndQuery.startsWith("/") ? pathAndQuery : "/" + pathAndQuery;
    return registry.request(path);
  }
}

/** The pieces version this reader understands (the Rust side's `registry_contract::PIECES_VERSION`). */
export const PIECES_VERSION = 10;

/** Why the manifest's pieces cannot be used by this reader (absent, or of a newer version), or null. */
function piecesUnusable(m) {
  if (!m?.pieces?.split_first) return "this data has no typeahead pieces; rebuild it with `registry build`";
  const v = m.pieces.version ?? 1;
  if (v > PIECES_VERSION) return `its pieces are version ${v}, newer than this reader (${PIECES_VERSION}): the whole registry answers`;
  return m.pieces.packed?.root || m.pieces.hashes?.root ? null : "its pieces have no hashes (built before version 3), so they cannot be checked: the whole registry answers";
}

/**
 * Fetches and checks `manifest.json` of the data folder `dataUrl`
 * (revalidated: the one mutable file of a data folder). The one manifest
 * reader of the browser runtime (registry-data.js re-exports it for the
 * Worker and the service worker). `pieces: true`: data without typeahead
 * pieces is a `NoPiecesError` (a client that can ask the whole registry
 * treats it as such, not as a failure).
 */
export async function fetchManifest(dataUrl, { pieces = false, response = null } = {}) {
  const url = new URL("manifest.json", dataUrl);
  // `response`: (a promise of) the answer to that same request, made
  // earlier by a caller that could start it before this module was in.
  const res = await (response ?? fetch(url, { cache: "no-cache" }));
  if (!res.ok) throw new Error(`cannot load ${url}: HTTP ${res.status}`);
  const m = await readCappedJson(res, BYTE_CAPS.manifest, url);
  if (m?.format !== "registry-shard" || !Array.isArray(m.files)) throw new Error(`${url} is not a registry shard manifest`);
  const why = pieces && piecesUnusable(m);
  if (why) throw noPieces(`${url}: ${why}`);
  return m;
}

/** `fetchManifest` of data with typeahead pieces (`response`: see fetchManifest). */
export const fetchPiecesManifest = (base, response = null) => fetchManifest(base, { pieces: true, response });

/**
 * Lower case without accents: good enough to guess, before the wasm (which
 * folds exactly) is there, which files a query needs.
 */
export const roughFold = (text) => text.normalize("NFD").replace(/\p{M}/gu, "").toLowerCase();

// The characters of a query's first word, roughly folded.
const roughWord = (text) => {
  const chars = [...(roughFold(text.trim()).split(/\s+/)[0] ?? "")];
  const end = chars.findIndex((c) => !/[\p{L}\p{N}]/u.test(c));
  return end === -1 ? chars : chars.slice(0, end);
};

/**
 * The files in a first-keystroke pack (shard::pieces::pack: `RPK1`, entry
 * count u32, then per entry kind byte, key length u16, key, body length
 * u32, body), as [file name, body] pairs; every length is checked against
 * the bytes there, and nothing is returned from a damaged pack.
 */
export function readPack(buf, what) {
  const damaged = (why) => new Error(`${what}: not a first-keystroke pack (${why})`);
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  const need = (at, n) => {
    if (at + n > buf.length) throw damaged(`an entry runs past its ${buf.length} bytes`);
  };
  need(0, 8);
  if (new TextDecoder().decode(buf.subarray(0, 4)) !== "RPK1") throw damaged("wrong magic");
  const count = view.getUint32(4, true);
  if (count > (buf.length - 8) / 7) throw damaged(`${count} entries cannot fit in ${buf.length} bytes`);
  const out = [];
  let at = 8;
  for (let n = 0; n < count; n++) {
    need(at, 3);
    const kind = String.fromCharCode(buf[at]);
    const klen = view.getUint16(at + 1, true);
    need(at + 3, klen + 4);
    const key = new TextDecoder().decode(buf.subarray(at + 3, at + 3 + klen));
    const blen = view.getUint32(at + 3 + klen, true);
    need(at + 7 + klen, blen);
    const body = buf.slice(at + 7 + klen, at + 7 + klen + blen);
    at += 7 + klen + blen;
    if (kind === "d") out.push([`d-${hex(key)}.json`, JSON.parse(new TextDecoder().decode(body))]);
    else if (kind === "h") out.push([`${hex(key)}.h.shard`, body]);
    else throw damaged(`unknown entry kind '${kind}'`);
  }
  if (at !== buf.length) throw damaged(`${buf.length - at} bytes after its entries`);
  return out;
}

/**
 * Pieces for the data at `dataUrl`, at once: `manifest` (object or promise;
 * fetched when absent) and `wasm` (a promise of the initialised
 * registry-wasm module, full or suggest-only; the full one when absent);
 * `fullWasm` (a promise of the full one, for record pages, when `wasm` is
 * suggest-only); `searchModule` (→ a promise of registry-search.js's
 * module: results pages, `list` and `rows`, answer from the E2 pieces
 * only with it).
 */
export function startPieces(options = {}) {
  return new FolderPieces(options);
}

/** The registry-wasm module with its full registry, initialised. */
function loadFullWasm() {
  return import("./pkg/registry_wasm.js").then(async (m) => {
    await m.default({ module_or_path: new URL("./pkg/registry_wasm_bg.wasm", import.meta.url) });
    return m;
  });
}

/**
 * What `startPieces` returns: the pieces of one release's folder, each
 * file fetched once and shared by the typeahead, the record pages and the
 * results pages. Its steps are the private methods below; its public ones
 * are what registry.js's clients call.
 */
class FolderPieces {
  /** Resolves to the manifest once the pieces can answer (rejects if they never can). */
  ready;
  #base;
  #manifestP;
  #wasmP;
  #fullWasm;
  #searchModule;
  /** The wasm Pieces, once manifest and wasm are here. */
  #pieces = null;
  /** Data bytes received (directory parts, pieces, the pack). */
  #bytes = 0;
  /** → `get(name, cap, sha256)`, the checked download of one file. */
  #getP;
  /** File name → Promise<body | null (not in this build)>. */
  #files = new Map();
  /**
   * The manifest of the release the folder holds now, once a read found
   * this one's files gone (a deploy while the page is open): see `restart`.
   */
  #movedTo = null;
  #warming = null;
  /** `{ text, opts, answer }` of the pieces as they are (see `#answer`). */
  #last = null;
  /** Directory parts and pieces handed to the wasm. */
  #added = new Set();
  #records;
  #search = null;

  constructor({ dataUrl = "./data/", manifest = null, wasm = null, fullWasm = null, searchModule = null } = {}) {
    const base = new URL(dataUrl, globalThis.document?.baseURI ?? globalThis.location.href);
    if (!base.pathname.endsWith("/")) base.pathname += "/"; // a folder, with or without its slash
    this.#base = base;
    this.#manifestP = Promise.resolve(manifest ?? fetchPiecesManifest(base));
    this.#wasmP = wasm ?? loadFullWasm();
    this.#fullWasm = fullWasm;
    this.#searchModule = searchModule;
    this.ready = this.#open();
    // Downloads need only the manifest, so they start before the wasm is in;
    // one per file at a time; a failed one may be retried later.
    this.#getP = this.#manifestP.then((m) => checkedPieces(m, base, patchWith(this.#wasmP)));
    this.#getP.catch(() => {});
    this.#records = this.#recordPieces();
  }

  /**
   * The wasm's Pieces once the manifest and the wasm are here; refused
   * (`noPieces`) when the manifest's pieces cannot serve (see
   * `piecesUnusable`), so the caller asks the whole registry instead.
   */
  #open() {
    const ready = Promise.all([this.#manifestP, this.#wasmP]).then(([m, mod]) => {
      const why = piecesUnusable(m);
      if (why) throw noPieces(why);
      this.#pieces = new mod.Pieces(m.pieces.split_first, m.pieces.id_chars);
      return m;
    });
    ready.catch(() => {}); // reported by whoever awaits it
    return ready;
  }

  /**
   * Record pages (an API path naming one record) from record pieces, with
   * the full registry wasm (`fullWasm`, else `wasm` when it is the full
   * one): the suggest-only wasm cannot build a record's answer.
   */
  #recordPieces() {
    return new RecordPieces(this.#base, this.#manifestP, () =>
      Promise.resolve(this.#fullWasm ?? this.#wasmP).then((mod) => {
        if (!mod.Registry) throw noPieces("record pages need the full registry wasm");
        return mod;
      }),
    );
  }

  /** Keeps the new release's manifest when `e` says the folder moved on under this one. */
  #noteMove(e) {
    if (e?.name === "ReleaseChangedError") this.#movedTo ??= e.manifest;
  }

  /**
   * File `name` (at most `cap` bytes), parsed: fetched once, shared by
   * every question that needs it; a failed fetch is forgotten so that a
   * later question may retry it.
   */
  #file(name, cap, parse = (b) => b) {
    if (!this.#files.has(name)) {
      const p = this.#getP
        .then((get) => get(name, cap))
        .then((body) => {
          this.#bytes += body?.length ?? 0;
          return body && parse(body);
        });
      this.#files.set(name, p);
      p.catch((e) => {
        this.#files.delete(name);
        this.#noteMove(e);
      });
    }
    return this.#files.get(name);
  }

  /** The directory part of first character `first`: the split prefixes under it. */
  #partFile(first) {
    return this.#file(`d-${hex(first)}.json`, BYTE_CAPS.part, (b) => JSON.parse(new TextDecoder().decode(b)));
  }

  /** A piece: leaves and heads are named by the hex of their prefix, id pieces by the id's first characters. */
  #pieceFile(key, kind) {
    const name = kind === "i" ? `i-${key}.shard` : `${hex(key)}${kind === "h" ? ".h" : ""}.shard`;
    return this.#file(name, BYTE_CAPS.piece);
  }

  /**
   * A keystroke that needs a piece asks the same question up to three
   * times (suggestNow, partialNow, suggest's first round): the last answer
   * is kept until a piece or directory part is added.
   */
  #answer(text, options) {
    const opts = JSON.stringify(options ?? {});
    if (this.#last?.text !== text || this.#last.opts !== opts) this.#last = { text, opts, answer: this.#pieces.suggest(text, options) };
    return this.#last.answer;
  }

  /** Hands the directory part of `first` to the wasm (once). */
  async #loadPart(first) {
    const keys = await this.#partFile(first);
    if (keys === null) throw new Error(`the directory part of '${first}' is missing (HTTP 404)`);
    await this.ready;
    if (this.#added.has("d:" + first)) return;
    this.#last = null;
    this.#pieces.addDirectory(first, keys);
    this.#added.add("d:" + first);
  }

  /** Hands a piece to the wasm (once), or that the build has none of that name. */
  async #loadPiece(key, kind) {
    const body = await this.#pieceFile(key, kind);
    await this.ready;
    const id = kind === "i" ? "i:" + key : key;
    if (this.#added.has(id)) return;
    this.#last = null;
    if (kind === "i") body === null ? this.#pieces.addMissingId(key) : this.#pieces.addId(key, body);
    else body === null ? this.#pieces.addMissing(key) : this.#pieces.add(key, body);
    this.#added.add(id);
  }

  /**
   * Results pages (E2, and the search page's `mode=typed`) from the E2
   * pieces (registry-search.js, which the caller loads: it builds on this
   * module), their records from record pieces.
   */
  #listSearch() {
    if (!this.#searchModule) return Promise.reject(noPieces("results pages were not asked of these pieces"));
    return (this.#search ??= this.#searchModule().then(({ startPiecesSearch }) =>
      startPiecesSearch({ dataUrl: this.#base, manifest: this.#manifestP, wasm: Promise.resolve(this.#fullWasm ?? this.#wasmP) }),
    ));
  }

  /**
   * A results URL from the pieces (`answer(its listQuery)`), or null when
   * only the whole registry answers it (`list` and `rows`): a URL the
   * pieces do not read, data built without E2 pieces, or a failure (told
   * unless it is one the page expects, see `quietFallback`).
   */
  async #fromList(pathAndQuery, answer) {
    const q = listQuery(pathAndQuery);
    if (!q || !(await this.#manifestP.catch(() => null))?.pieces?.search?.stats) return null;
    try {
      return await answer(q);
    } catch (e) {
      this.#noteMove(e);
      if (!quietFallback(e)) console.warn("registry: results from pieces failed, asking the whole registry:", e);
      return null;
    }
  }

  /** The manifest of the folder's new release once a read found this one's files gone, else null. */
  movedTo() {
    return this.#movedTo;
  }

  /** The same pieces of the folder's release `manifest` (the wasm already in is reused). */
  restart(manifest) {
    return startPieces({ dataUrl: this.#base, manifest, wasm: this.#wasmP, fullWasm: this.#fullWasm, searchModule: this.#searchModule });
  }

  /**
   * Fetches the first-keystroke pack (once): afterwards a first keystroke of
   * a common first character is answered without a round trip. The pack
   * (shard::pieces::pack) holds the heads and directory parts of the
   * commonest first characters in one file; its entries fill the same
   * cache. Decoded here rather than by the core's decoder through the wasm:
   * it needs no wasm (it can run before the wasm is in), and a binding
   * returning the entries to JS measured +1.5 KB brotli on the widget's
   * suggest-only wasm, whose code budget (220 KB) has less than that left.
   * The layout is four fields; the browser tests answer from the pack and
   * compare with the whole registry.
   */
  warm() {
    this.#warming ??= this.#manifestP
      .then(async (m) => {
        const pack = m.pieces.first_pack;
        if (!pack?.first?.length) return; // no split first character: nothing to warm
        if (!pack.sha256) throw new Error(`${pack.name}: no hash in the manifest, so it cannot be checked`);
        const buf = await (await this.#getP)(pack.name, BYTE_CAPS.pack, pack.sha256);
        if (!buf) throw new Error(`${pack.name}: HTTP 404`);
        this.#bytes += buf.length;
        for (const [name, body] of readPack(buf, pack.name)) if (!this.#files.has(name)) this.#files.set(name, Promise.resolve(body));
      })
      .catch((e) => {
        this.#warming = null;
        this.#noteMove(e);
        if (!quietFallback(e)) console.warn("registry: the first-keystroke pack failed:", e);
      });
    return this.#warming;
  }

  /** Data bytes received so far (directory parts + pieces). */
  bytes() {
    return this.#bytes + this.#records.bytes;
  }

  /**
   * `{status, body}` of an API path naming one record, from its record
   * piece, exactly the whole registry's answer; null when only the whole
   * registry answers it (another path, data without record pieces).
   */
  async record(pathAndQuery) {
    try {
      return await this.#records.answer(pathAndQuery);
    } catch (e) {
      this.#noteMove(e);
      if (!quietFallback(e)) console.warn("registry: record piece failed, asking the whole registry:", e);
      return null;
    }
  }

  /**
   * `{status, body}` of a results page (`/v2/organizations?query=…`, v1
   * too; filters, paging, `all_status`, `mode=typed`) from the pieces,
   * exactly the whole registry's answer; null when only the whole
   * registry answers it (see `listQuery`, and core's pieces::search).
   */
  list(pathAndQuery) {
    return this.#fromList(pathAndQuery, () => listAnswer(pathAndQuery, this.#listSearch(), this.#records));
  }

  /**
   * What a results list shows of a results page (`list`'s URLs), without
   * the records: `{status: 200, body}` with body the JSON of
   * `{number_of_results, meta, hits: [summary]}` (the same page, counts
   * and facets as the API's answer), `{status: 400, body: {errors}}`,
   * or null when only the whole registry answers it. No record piece is
   * fetched: a list shows the summaries.
   */
  rows(pathAndQuery) {
    return this.#fromList(pathAndQuery, async (q) => {
      const a = await (await this.#listSearch()).page(q);
      if (a.errors) return { status: 400, body: JSON.stringify({ errors: a.errors }) };
      if (!a.hits) return null;
      return { status: 200, body: JSON.stringify({ number_of_results: a.numberOfResults, meta: a.meta, hits: a.hits.map((h) => h.summary) }) };
    });
  }

  /** Hits if the pieces at hand answer `text`, else null (nothing is fetched). */
  suggestNow(text, options) {
    const a = this.#pieces && this.#answer(text, options);
    return a && !a.partial ? (a.hits?.slice() ?? null) : null;
  }

  /**
   * The first hits of `text`'s answer when the pieces at hand prove them
   * but not all of them (a shorter prefix's head), else null: to show
   * while `suggest` fetches the rest.
   */
  partialNow(text, options) {
    const a = this.#pieces && this.#answer(text, options);
    return a?.partial ? a.hits.slice() : null;
  }

  /** Hits, fetching what `text` needs; null when only the whole typeahead data can answer. */
  async suggest(text, options) {
    if (!this.#pieces) this.prefetch(text); // the query's piece on its way while the wasm compiles
    await this.ready;
    // A route needs at most an id piece, a directory part, then one piece.
    for (let step = 0; step < 5; step++) {
      const a = this.#answer(text, options);
      if (a.hits && !a.partial) return a.hits.slice(); // the kept answer stays as it was
      if (a.whole) return null;
      if (a.needDirectory !== undefined) await this.#loadPart(a.needDirectory);
      else await this.#loadPiece(a.need, a.kind);
    }
    throw new Error(`pieces: '${text}' is still unanswered after loading what it asked for`);
  }

  /**
   * Starts fetching what `text` will need, without waiting: what the wasm
   * routes it to, or before the wasm is in, a guess (`#guessPieces`).
   */
  prefetch(text) {
    const quiet = (p) => p.catch(() => {});
    if (this.#pieces) {
      const a = this.#answer(text, {});
      if (a.needDirectory !== undefined) quiet(this.#loadPart(a.needDirectory).then(() => this.prefetch(text)));
      else if (a.need !== undefined) quiet(this.#loadPiece(a.need, a.kind));
      return;
    }
    const word = roughWord(text);
    if (word.length) quiet(this.#guessPieces(word));
  }

  /**
   * Before the wasm is in, `word` (the text's first word, roughly folded)
   * as a one-word query routes: its first character's head and directory
   * part, then from that part the word's own piece — the leaf of its
   * shortest prefix that is not split, or its head when the whole word is
   * split — so that the piece is on its way while the code compiles.
   */
  async #guessPieces(word) {
    const m = await this.#manifestP;
    const first = word[0];
    if (!m.pieces.split_first.includes(first)) return this.#pieceFile(first, "l");
    this.#pieceFile(first, "h");
    const split = new Set((await this.#partFile(first)) ?? []);
    let n = 1; // word[..n] is split
    while (n < word.length && split.has(word.slice(0, n + 1).join(""))) n++;
    if (n === 1 && word.length === 1) return; // the head above
    return n === word.length ? this.#pieceFile(word.join(""), "h") : this.#pieceFile(word.slice(0, n + 1).join(""), "l");
  }
}

/** `startPieces`, resolved once it can answer. */
export async function openPieces(options = {}) {
  const pieces = startPieces(options);
  await pieces.ready;
  return pieces;
}

/** Whether the browser says it is online (an unknown state counts as online). */
const online = () => globalThis.navigator?.onLine !== false;

const stale = () => Object.assign(new Error("superseded by a newer request"), { name: "AbortError" });

/**
 * The typeahead a widget needs, from the pieces first: `openWhole()` (→ a
 * promise of a `registry.js` client) is called only when a query needs the
 * whole data (ids, e-mail context, a record by id, …), once. The methods are
 * those of registry.js's RegistryClient that the UI calls.
 */
export class TypeaheadClient {
  #pieces;
  #openWhole;
  #whole = null;
  #latest = 0;

  constructor(pieces, openWhole) {
    this.#pieces = pieces;
    this.#openWhole = openWhole;
  }

  /** The whole registry (opened on first use). */
  whole() {
    this.#whole ??= this.#openWhole();
    this.#whole.catch(() => (this.#whole = null)); // a later call may retry
    return this.#whole;
  }

  /** Whether the whole registry has been asked for (for tests and benchmarks). */
  get wholeOpened() {
    return this.#whole !== null;
  }

  /**
   * The pieces of the folder's release: after a deploy while the page is
   * open (a read found the old release's files gone), those of the new one,
   * which answer from then on without the whole registry.
   */
  #current() {
    const to = this.#pieces.movedTo?.();
    if (to) this.#pieces = this.#pieces.restart(to);
    return this.#pieces;
  }

  /** `f(pieces)`, once more on the new release's pieces when the release moved under it. */
  async #fromPieces(f) {
    const p = this.#current();
    try {
      const r = await f(p);
      if (r != null || p === this.#current()) return r;
    } catch (e) {
      if (p === this.#current()) throw e;
    }
    return f(this.#current());
  }

  /** Synchronous hits from the pieces at hand, or null (then call `suggest`). Throws on invalid filters. */
  suggestNow(text, options = {}) {
    const hits = this.#current().suggestNow(text, options);
    if (hits) this.#latest++; // what `suggest` still has on its way is stale now
    return hits;
  }

  /** The first hits of the answer `suggest` is getting, or null (see startPieces' `partialNow`). */
  suggestPartialNow(text, options = {}) {
    try {
      return this.#current().partialNow(text, options);
    } catch {
      return null; // invalid filters: `suggest` reports them
    }
  }

  /** Hits; a newer call makes this one reject with an AbortError. */
  async suggest(text, options = {}) {
    const n = ++this.#latest;
    let hits = null;
    try {
      // Offline, the whole registry's copy (the service worker's cache)
      // answers: a piece not yet fetched could only fail.
      hits = online() ? await this.#fromPieces((p) => p.suggest(text, options)) : this.#current().suggestNow(text, options);
    } catch (e) {
      // A piece that cannot be fetched or read: the whole data answers (and
      // reports invalid filters the same way).
      if (!quietFallback(e)) console.warn("registry: typeahead pieces failed, asking the whole registry:", e);
    }
    if (n !== this.#latest) throw stale();
    if (hits === null) hits = await (await this.whole()).call("suggest", [text, { ...options }], "suggest");
    if (n !== this.#latest) throw stale();
    return hits;
  }

  /**
   * Any method of the whole registry; `call("suggest", [text, options])`
   * (e.g. one record by id: a successor's summary) is answered by the
   * pieces when they can, outside `suggest`'s latest-wins channel.
   */
  async call(method, args = []) {
    if (method === "suggest" && online()) {
      const hits = await this.#fromPieces((p) => p.suggest(args[0], args[1] ?? {})).catch(() => null);
      if (hits) return hits;
    }
    return (await this.whole()).call(method, args);
  }

  /** The API router: a record from its record piece, a results page from the pieces, anything else from the whole registry. */
  async request(pathAndQuery) {
    // Offline, the whole registry's copy (the service worker's cache) answers.
    const fromPiece = online() ? await this.#fromPieces(async (p) => (await p.record?.(pathAndQuery)) ?? (await p.list?.(pathAndQuery))) : null;
    return fromPiece ?? (await this.whole()).request(pathAndQuery);
  }

  /**
   * A results page's rows (summaries), total and facet counts from the
   * pieces (`{status, body}`, see startPieces' `rows`), or null: then ask
   * `request` for the API's answer. Offline, null (the offline copy answers).
   */
  async rows(pathAndQuery) {
    return online() ? ((await this.#fromPieces((p) => p.rows?.(pathAndQuery))) ?? null) : null;
  }

  /** Starts fetching what `text` will need. */
  prefetch(text) {
    if (online()) this.#current().prefetch(text);
  }
}
