// Slots that list a file twice (pieces version 10: a file kept from the last
// release and its delta, registry_core::shard::packed) as registry-pieces.js
// reads them, without a browser: slots built here byte by byte, the packs
// served by a stand-in `fetch` that logs each range asked, and a stand-in
// `patch` for the wasm's applyDelta (tests/release-base.test.mjs runs the
// real one on a site built with `registry site --previous`).
import { test, beforeEach, afterEach } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { provenSlot, packedFiles, checkedPieces, nameKey, PIECES_VERSION } from "../web/registry-pieces.js";

const FOLDER = new URL("https://registry.test/data/pieces/");
const sha = (bytes) => createHash("sha256").update(bytes).digest("hex");
const bytesOf = (s) => new TextEncoder().encode(s);

/** One slot entry: name key, 12 bytes of the SHA-256 of `body`, pack, offset, length. */
function entry(key, body, pack, offset) {
  const e = new Uint8Array(30);
  const view = new DataView(e.buffer);
  view.setBigUint64(0, key, true);
  e.set(Buffer.from(sha(body).slice(0, 24), "hex"), 8);
  view.setUint16(20, pack, true);
  view.setUint32(22, offset, true);
  view.setUint32(26, body.length, true);
  return e;
}

/** A folder of one bucket (no proof: its root is the slot's own hash) listing `entries` in that order. */
function folderOf(entries, slotBytes = 2 + 30 * 4) {
  const slot = new Uint8Array(slotBytes);
  new DataView(slot.buffer).setUint16(0, entries.length, true);
  entries.forEach((e, i) => slot.set(e, 2 + 30 * i));
  return { slot, packed: { buckets: 1, slot_bytes: slotBytes, slots_per_file: 1, root: sha(slot), tables: ["t-0.bin"], packs: ["p-old.bin", "p-new.bin"], json_gzip: true } };
}

// The packs: the last release's (the file's base) and this one's (its delta).
const BASE = bytesOf("the base: a piece kept from the last release");
const DELTA = bytesOf("its delta");
const OTHER = bytesOf("a piece written whole");
const PACKS = { "p-old.bin": BASE, "p-new.bin": new Uint8Array([...DELTA, ...OTHER]) };

let asked;
let realFetch;
beforeEach(() => {
  asked = [];
  realFetch = globalThis.fetch;
  globalThis.fetch = async (url, init = {}) => {
    const u = new URL(url);
    const [, a, b] = /^bytes=(\d+)-(\d+)$/.exec(init.headers?.Range ?? "") ?? [];
    asked.push({ url: u.pathname.split("/").pop() + u.search, reload: init.cache === "reload" });
    const file = u.pathname.endsWith("t-0.bin") ? served.slot : PACKS[u.pathname.split("/").pop()];
    return new Response(file.slice(Number(a), Number(b) + 1), { status: 206 });
  };
});
afterEach(() => (globalThis.fetch = realFetch));

let served;
/** packedFiles over `entries`, its slot served by the stand-in fetch. */
function files(entries, patch) {
  served = folderOf(entries);
  return packedFiles(FOLDER, served.packed, null, patch);
}

const K = nameKey("61.shard");
const withDelta = [entry(K, BASE, 0, 0), entry(K, DELTA, 1, 0)];

test("a key listed twice is a base with its delta; three times, or keys out of order, is a damaged slot", async () => {
  const [lo, hi] = [nameKey("a.shard"), nameKey("b.shard")].sort((x, y) => (x < y ? -1 : 1));
  const proven = (entries) => {
    const { slot, packed } = folderOf(entries);
    return provenSlot(slot, 0, packed);
  };
  const two = await proven([entry(lo, BASE, 0, 0), entry(lo, DELTA, 1, 0), entry(hi, OTHER, 1, DELTA.length)]);
  assert.deepEqual([...two.keys()], [lo, hi]);
  assert.equal(two.get(lo).length, BASE.length);
  assert.deepEqual(two.get(lo).delta, { hash: sha(DELTA).slice(0, 24), pack: 1, offset: 0, length: DELTA.length });
  assert.equal(two.get(hi).delta, undefined, "a key listed once has no delta (version 9's slots read as before)");
  assert.equal(await proven([entry(lo, BASE, 0, 0), entry(lo, DELTA, 1, 0), entry(lo, DELTA, 1, 0)]), null, "three entries of one key");
  assert.equal(await proven([entry(hi, OTHER, 1, 0), entry(lo, BASE, 0, 0)]), null, "keys out of order");
  assert.equal(await proven([entry(lo, BASE, 0, 0), entry(hi, OTHER, 1, 0), entry(lo, DELTA, 1, 0)]), null, "a delta not next to its base");
});

test("a file with a delta is its base (at the URL the last release read it by) and its delta, given to patch", async () => {
  const calls = [];
  const get = files(withDelta, async (base, delta, cap) => {
    calls.push([new TextDecoder().decode(base), new TextDecoder().decode(delta), cap]);
    return bytesOf("the new file");
  });
  assert.equal(new TextDecoder().decode(await get("61.shard", 1000)), "the new file");
  assert.deepEqual(calls, [[new TextDecoder().decode(BASE), new TextDecoder().decode(DELTA), 1000]]);
  assert.deepEqual(asked.map((a) => a.url).sort(), ["p-new.bin?f=61.shard&delta", "p-old.bin?f=61.shard", "t-0.bin?s=0"]);
});

test("a file without a delta is read as in version 9: patch is never asked", async () => {
  const get = files([entry(nameKey("62.shard"), OTHER, 1, DELTA.length)], () => assert.fail("patch called for a file without a delta"));
  assert.deepEqual(await get("62.shard", 1000), OTHER);
  assert.deepEqual(asked.map((a) => a.url), ["t-0.bin?s=0", "p-new.bin?f=62.shard"]);
});

test("a delta the wasm refuses is reported, read once more past the cache, then refused for good", async (t) => {
  const errors = t.mock.method(console, "error", () => {});
  let calls = 0;
  const get = files(withDelta, () => {
    calls++;
    throw new Error("the delta was made from another source file");
  });
  await assert.rejects(get("61.shard", 1000), /61\.shard: its delta does not apply to its base \(the delta was made from another source file\).*again: not used/);
  assert.equal(calls, 2);
  assert.equal(errors.mock.callCount(), 1);
  assert.match(errors.mock.calls[0].arguments[0], /its delta does not apply.*fetching it once more/);
  const reloads = asked.filter((a) => a.reload).map((a) => a.url).sort();
  assert.deepEqual(reloads, ["p-new.bin?f=61.shard&delta", "p-old.bin?f=61.shard"]);
  const before = asked.length;
  await assert.rejects(get("61.shard", 1000), /again: not used/);
  assert.equal(asked.length, before, "a refused file is not asked again");
});

test("a delta that fails its hash is never applied", async (t) => {
  t.mock.method(console, "error", () => {});
  const get = files([entry(K, BASE, 0, 0), entry(K, bytesOf("other bytes"), 1, 0)], () => assert.fail("a delta that fails its hash was applied"));
  await assert.rejects(get("61.shard", 1000), /61\.shard \(its delta\): its bytes do not match their hash/);
});

test("without patch, a file with a delta sends the reader quietly to the whole registry", async () => {
  const get = files(withDelta, null);
  await assert.rejects(get("61.shard", 1000), (e) => e.name === "NoPiecesError" && /no wasm to apply it/.test(e.message));
  assert.ok(!asked.some((a) => a.url.startsWith("p-")), "neither part is downloaded");
});

test("pieces of a newer version than this reader are refused by checkedPieces, whoever asks, and nothing is fetched", async () => {
  const { packed } = folderOf(withDelta);
  const manifest = (version) => ({ release: "r", pieces: { version, path: "pieces/", split_first: [], id_chars: 3, packed } });
  const newer = checkedPieces(manifest(PIECES_VERSION + 1), new URL("https://registry.test/data/"));
  for (const read of [newer("61.shard", 1000), newer.listed("61.shard")]) await assert.rejects(read, (e) => e.name === "NoPiecesError" && /newer than this reader/.test(e.message));
  assert.deepEqual(asked, []);
  served = folderOf(withDelta);
  assert.equal(await checkedPieces(manifest(PIECES_VERSION), new URL("https://registry.test/data/")).listed("61.shard"), true, "this version's are read");
});
