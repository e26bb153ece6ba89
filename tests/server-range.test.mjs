// The browser tests' static server (server.mjs) answers Range as static
// hosts do (one range → 206, past the end → 416, Accept-Ranges), and with
// `noRange` ignores it as `python3 -m http.server` does (200, whole file).
// Plain Node (no browser) over a temporary folder.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { serve } from "./server.mjs";

const FILE = Buffer.from(Array.from({ length: 1000 }, (_, i) => i % 251));
let root;

before(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), "server-range-"));
  await fs.writeFile(path.join(root, "a.pack"), FILE);
});

after(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

async function get(url, range, method = "GET") {
  const res = await fetch(url, { method, headers: range ? { range } : {} });
  return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
}

test("one range: 206 with its bytes, Content-Range and Accept-Ranges", async () => {
  const server = await serve(root, "/", { cors: true });
  try {
    const url = server.url + "a.pack";
    for (const [range, start, end] of [
      ["bytes=10-19", 10, 19],
      ["bytes=990-5000", 990, 999],
      ["bytes=500-", 500, 999],
      ["bytes=-100", 900, 999],
      ["bytes=-5000", 0, 999],
    ]) {
      const r = await get(url, range);
      assert.equal(r.status, 206, range);
      assert.deepEqual(r.body, FILE.subarray(start, end + 1), range);
      assert.equal(r.headers.get("content-range"), `bytes ${start}-${end}/1000`, range);
      assert.equal(r.headers.get("content-length"), String(end - start + 1), range);
      assert.equal(r.headers.get("accept-ranges"), "bytes", range);
      assert.equal(r.headers.get("access-control-allow-origin"), "*", range);
    }
    const whole = await get(url);
    assert.equal(whole.status, 200);
    assert.deepEqual(whole.body, FILE);
    assert.equal(whole.headers.get("accept-ranges"), "bytes");
    assert.equal(whole.headers.get("content-length"), "1000");
    const head = await get(url, "bytes=0-9", "HEAD");
    assert.equal(head.status, 206);
    assert.equal(head.body.length, 0);
    assert.equal(head.headers.get("content-length"), "10");
  } finally {
    await server.close();
  }
});

test("past the end: 416 with Content-Range: bytes */size; other ranges: the whole file", async () => {
  const server = await serve(root, "/");
  try {
    const url = server.url + "a.pack";
    for (const range of ["bytes=1000-", "bytes=1000-2000", "bytes=-0"]) {
      const r = await get(url, range);
      assert.equal(r.status, 416, range);
      assert.equal(r.headers.get("content-range"), "bytes */1000", range);
    }
    for (const range of ["bytes=0-1,5-6", "bytes=5-2", "items=0-1", "bytes=-"]) {
      const r = await get(url, range);
      assert.equal(r.status, 200, range);
      assert.deepEqual(r.body, FILE, range);
      assert.equal(r.headers.get("content-range"), null, range);
    }
  } finally {
    await server.close();
  }
});

test("noRange: Range is ignored, 200 with the whole file and no Accept-Ranges", async () => {
  const server = await serve(root, "/", { noRange: true });
  try {
    const url = server.url + "a.pack";
    for (const range of ["bytes=10-19", "bytes=-100", "bytes=1000-"]) {
      const r = await get(url, range);
      assert.equal(r.status, 200, range);
      assert.deepEqual(r.body, FILE, range);
      assert.equal(r.headers.get("content-range"), null, range);
      assert.equal(r.headers.get("accept-ranges"), null, range);
    }
  } finally {
    await server.close();
  }
});
