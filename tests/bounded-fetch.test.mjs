// Reading fetched bytes trusts no size (registry-pieces.js, also used by
// registry-data.js): a response is refused as soon as it passes its file
// kind's cap, without reading the rest, and the first-keystroke pack's
// decoder checks every count and length against the bytes it has.
// Plain Node (no browser): the module's reading and decoding are standard JS.
import { test } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { pathToFileURL } from "node:url";

const SITE = process.env.SITE_DIR ?? path.resolve("target/site");
const { readCapped, readPack, BYTE_CAPS } = await import(pathToFileURL(path.join(SITE, "registry-pieces.js")).href);

/** A response streaming `chunks` chunks of `size` bytes; `pulled()` counts the chunks read. */
function streamed(chunks, size) {
  let pulled = 0;
  let cancelled = false;
  const body = new ReadableStream({
    pull(controller) {
      if (pulled === chunks) return controller.close();
      pulled++;
      controller.enqueue(new Uint8Array(size).fill(pulled % 256));
    },
    cancel() {
      cancelled = true;
    },
  });
  return { res: new Response(body), pulled: () => pulled, cancelled: () => cancelled };
}

test("a body within its cap is read whole, chunk by chunk", async () => {
  const s = streamed(5, 1000);
  const bytes = await readCapped(s.res, 5000, "piece");
  assert.equal(bytes.length, 5000);
  assert.deepEqual([bytes[0], bytes[999], bytes[1000], bytes[4999]], [1, 1, 2, 5]);
  assert.equal((await readCapped(new Response(null, { status: 204 }), 10)).length, 0);
});

test("a body over its cap is refused when the cap is passed, and the rest is not read", async () => {
  const s = streamed(10_000, 64 << 10); // 640 MB if read to the end
  await assert.rejects(readCapped(s.res, 1 << 20, "d-61.json"), /d-61\.json: more than 1048576 bytes/);
  assert.ok(s.pulled() <= 17 + 2, `${s.pulled()} chunks read`);
  assert.ok(s.cancelled(), "the download is cancelled");
  // The caps are generous for what `registry build` writes, small for a page.
  assert.ok(BYTE_CAPS.piece >= 1 << 20 && BYTE_CAPS.piece <= 16 << 20);
  assert.ok(BYTE_CAPS.part < BYTE_CAPS.piece && BYTE_CAPS.manifest <= 1 << 20);
});

/** A pack (shard::pieces::pack layout) of [kind, key, body] entries. */
function pack(entries) {
  const enc = new TextEncoder();
  const parts = [enc.encode("RPK1"), u32(entries.length)];
  for (const [kind, key, body] of entries) {
    const k = enc.encode(key);
    const b = typeof body === "string" ? enc.encode(body) : body;
    parts.push(Uint8Array.of(kind.charCodeAt(0)), Uint8Array.of(k.length & 255, k.length >> 8), k, u32(b.length), b);
  }
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  parts.reduce((at, p) => (out.set(p, at), at + p.length), 0);
  return out;
}
const u32 = (n) => {
  const b = new Uint8Array(4);
  new DataView(b.buffer).setUint32(0, n, true);
  return b;
};

test("a pack's files are read by their stated lengths", () => {
  const head = Uint8Array.of(0x89, 1, 2, 3);
  const files = readPack(pack([["h", "a", head], ["d", "a", '["ab","ac"]'], ["d", "é", "[]"]]), "first.pack");
  assert.deepEqual(files, [
    ["61.h.shard", head],
    ["d-61.json", ["ab", "ac"]],
    ["d-c3a9.json", []],
  ]);
});

test("a damaged pack is refused whole: counts and lengths are checked against its bytes", () => {
  const good = pack([["h", "a", Uint8Array.of(1, 2, 3)], ["d", "a", "[]"]]);
  const damaged = (bytes, why) => assert.throws(() => readPack(bytes, "first.pack"), why);
  // Every cut: an entry runs past the end (before: a shorter body was kept).
  for (let cut = 8; cut < good.length; cut++) damaged(good.subarray(0, cut), /first\.pack: not a first-keystroke pack/);
  damaged(good.subarray(0, 5), /runs past/);
  // A count of 2^32 - 1 entries in a few bytes.
  const lying = good.slice();
  new DataView(lying.buffer).setUint32(4, 0xffffffff, true);
  damaged(lying, /4294967295 entries cannot fit/);
  // A body length beyond the end.
  const long = good.slice();
  new DataView(long.buffer).setUint32(4 + 4 + 1 + 2 + 1, 1 << 30, true);
  damaged(long, /runs past/);
  damaged(Uint8Array.from([...good, 0]), /1 bytes after its entries/);
  damaged(pack([["x", "a", "[]"]]), /unknown entry kind 'x'/);
  damaged(pack([["d", "a", "[not json"]]), SyntaxError);
  damaged(new TextEncoder().encode("<!doctype html>"), /wrong magic/);
});
