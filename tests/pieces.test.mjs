// The partitioned typeahead index in the browser: `registry-pieces.js`
// fetches the directory and the pieces a query needs, and answers exactly
// as the whole registry does (Worker `suggest`), with and without filters.
//
// Needs the site built by scripts/build-web.sh (SITE_DIR, default target/site).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import http from "node:http";
import { execFileSync } from "node:child_process";
import { chromium } from "playwright-core";
import { serve, watchErrors, pieceOf, CHROMIUM_ARGS } from "./server.mjs";
import { splitSite } from "./ui-helpers.mjs";

const SITE = process.env.SITE_DIR ?? path.resolve("target/site");
const PREFIX = process.env.SITE_PREFIX ?? "/";
let server, browser, page;
const errors = [];

before(async () => {
  server = await serve(SITE, PREFIX);
  browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: CHROMIUM_ARGS });
  page = await (await browser.newContext()).newPage();
  page.setDefaultTimeout(30_000);
  watchErrors(page, errors);
  await page.goto(server.url + "api.html");
});

after(async () => {
  await browser?.close();
  await server?.close();
});

test("pieces answer every keystroke like the whole registry, fetching a few kilobytes", async () => {
  const out = await page.evaluate(async () => {
    const { openPieces } = await import("./registry-pieces.js");
    const { openRegistry } = await import("./registry.js");
    const pieces = await openPieces({ dataUrl: "./data/" });
    const whole = await openRegistry({ dataUrl: new URL("./data/", location.href) });
    const names = [
      "Northfield University",
      "Université de Montclair-sur-Rhône",
      "Kilimani University of Agriculture",
      "東雲工科大学",
      "Hôpital Sainte-Brigitte",
      "O'Brien & Daughters",
      "zzqx",
    ];
    const filters = [[], ["types:education"], ["locations.geo_details.country_code:US"]];
    const view = (hits) => hits.map((h) => [h.summary.id, h.reason, h.matched.value, JSON.stringify(h.ranges16)]);
    let answered = 0, total = 0;
    const mismatches = [];
    let firstBytes = null;
    for (const name of names) {
      for (let n = 1; n <= Math.min(name.length, 12); n++) {
        const q = name.slice(0, n);
        for (const f of filters) {
          total++;
          const got = await pieces.suggest(q, { filters: f, limit: 10 });
          firstBytes ??= pieces.bytes();
          if (got === null) continue;
          answered++;
          const want = await whole.suggest(q, { filters: f, limit: 10 });
          if (JSON.stringify(view(got)) !== JSON.stringify(view(want))) mismatches.push({ q, f, got: view(got), want: view(want) });
        }
      }
    }
    // Synchronous answers once the piece is here; none for a new prefix.
    const now = pieces.suggestNow("Northfield University", { limit: 5 });
    return { answered, total, mismatches, firstBytes, now: now?.[0]?.summary.name, bytes: pieces.bytes() };
  });
  assert.deepEqual(out.mismatches, []);
  assert.ok(out.answered > out.total / 2, `${out.answered} of ${out.total}`);
  assert.equal(out.now, "Northfield University");
  // The first suggestion came from the directory and one piece, not the data.
  assert.ok(out.firstBytes < 20_000, `first suggestion after ${out.firstBytes} bytes`);
  assert.deepEqual(errors, []);
});

test("a keystroke waiting for a piece asks the wasm once per piece added, and callers get their own arrays", async () => {
  const out = await page.evaluate(async () => {
    const { startPieces } = await import("./registry-pieces.js");
    const real = await import("./pkg/registry_wasm.js");
    await real.default({ module_or_path: new URL("./pkg/registry_wasm_bg.wasm", location.href) });
    // The real wasm Pieces, its suggest calls and additions counted.
    let calls = 0;
    let adds = 0;
    const counted = new Set(["add", "addMissing", "addId", "addMissingId", "addDirectory"]);
    const Pieces = function (...args) {
      const p = new real.Pieces(...args);
      return new Proxy(p, {
        get(t, k) {
          const v = t[k];
          if (typeof v !== "function") return v;
          if (k === "suggest") return (...x) => (calls++, v.apply(t, x));
          if (counted.has(k)) return (...x) => (adds++, v.apply(t, x));
          return v.bind(t);
        },
      });
    };
    const pieces = startPieces({ dataUrl: "./data/", wasm: Promise.resolve({ ...real, Pieces }) });
    await pieces.ready;
    const q = "Kilimani Univ";
    const o = { limit: 5 };
    const now = pieces.suggestNow(q, o);
    const partial = pieces.partialNow(q, o);
    const asked = calls;
    const hits = await pieces.suggest(q, o);
    const fetched = { calls: calls - asked, adds };
    const first = hits[0].summary.name;
    hits.length = 0; // the caller's own array
    const again = pieces.suggestNow(q, o);
    return { now, partial, asked, fetched, first, again: again?.[0]?.summary.name, calls };
  });
  assert.equal(out.now, null);
  assert.equal(out.partial, null);
  assert.equal(out.asked, 1, "suggestNow and partialNow share one answer");
  assert.ok(out.fetched.adds >= 1, "the query needed a piece");
  // suggest's first round reuses that answer; each later one follows an addition.
  assert.equal(out.fetched.calls, out.fetched.adds);
  assert.equal(out.first, "Kilimani University of Agriculture");
  assert.equal(out.again, out.first);
  assert.equal(out.calls, 1 + out.fetched.calls, "the complete answer is kept too");
  assert.deepEqual(errors, []);
});

/** A new page of `context` with its errors collected. */
async function watchedPage(context) {
  const p = await context.newPage();
  p.setDefaultTimeout(30_000);
  const errs = [];
  watchErrors(p, errs);
  return { p, errs };
}

test("a loaded head shows the first hits it proves while a longer prefix's piece is on its way", async () => {
  const split = await splitSite();
  const context = await browser.newContext();
  try {
    const { p, errs } = await watchedPage(context);
    // Leaves are held back (heads end in .h.shard, id pieces start with i-).
    let release;
    const held = new Promise((r) => (release = r));
    const leaves = [];
    await p.route((u) => /^[0-9a-f]+\.shard$/.test(pieceOf(u) ?? ""), async (route) => {
      leaves.push(pieceOf(route.request().url()));
      await held;
      await route.continue();
    });
    await p.goto(split.url + "widget-demo.html");
    const input = p.locator("#affiliation-picker-input");
    await input.focus();
    const options = () => p.locator("#affiliation-picker-list [role=option]").allTextContents();
    await p.keyboard.type("a");
    await p.waitForSelector("#affiliation-picker-list [role=option]");
    await p.keyboard.type("e");
    await p.waitForFunction(() => [...document.querySelectorAll("#affiliation-picker-list [role=option]")].some((o) => /Aegean/.test(o.textContent)));
    const proven = await options();
    // Its slot is read first: the leaf's own request may follow the proven hits.
    for (let end = Date.now() + 10_000; Date.now() < end && !leaves.includes("6165.shard"); ) await p.waitForTimeout(50);
    assert.ok(leaves.includes("6165.shard"), `the leaf "ae" was asked for: ${leaves}`);
    // Not announced as the answer (the count comes with the complete one).
    await p.waitForTimeout(1_300);
    assert.doesNotMatch(await p.locator("#affiliation-picker-live").textContent(), /available/);
    // The option the user moves to stays active when the rest arrives.
    await p.keyboard.press("ArrowDown");
    const active = await input.getAttribute("aria-activedescendant");
    assert.ok(active, "an option is active");
    release();
    await p.waitForFunction(() => /available/.test(document.getElementById("affiliation-picker-live")?.textContent ?? ""));
    assert.equal(await input.getAttribute("aria-activedescendant"), active);
    const complete = await options();
    assert.ok(proven.length >= 1 && proven.length <= complete.length, `${proven.length} of ${complete.length}`);
    assert.deepEqual(complete.slice(0, proven.length), proven, "the proven hits are the answer's first ones");
    // The answer is the whole registry's (its Worker, over the same data).
    const whole = await p.evaluate(async () => {
      const { openRegistry } = await import("./registry.js");
      const r = await openRegistry({ dataUrl: new URL("./data/", location.href) });
      return (await r.suggest("ae", { limit: 8 })).map((h) => h.summary.name);
    });
    assert.equal(complete.length, whole.length);
    complete.forEach((text, i) => assert.ok(text.includes(whole[i]), `${i}: ${text} vs ${whole[i]}`));
    assert.deepEqual(errs, []);
  } finally {
    await context.close();
    await split.close();
  }
});

test("the widget asks for the typed word's own piece while its wasm is still on its way", async () => {
  const split = await splitSite();
  const context = await browser.newContext();
  let release;
  const held = new Promise((r) => (release = r));
  try {
    const { p, errs } = await watchedPage(context);
    await p.route(/\.wasm$/, async (route) => {
      await held;
      await route.continue();
    });
    const pieces = [];
    p.on("request", (r) => pieceOf(r.url()) && pieces.push(pieceOf(r.url())));
    await p.goto(split.url + "widget-demo.html");
    // The element's plain input, before any wasm: "ae" is a leaf under the split "a".
    await p.locator("registry-picker input").first().pressSequentially("ae", { delay: 80 });
    await p.waitForFunction(() => performance.getEntriesByType("resource").some((e) => /[/=]6165\.shard$/.test(e.name)));
    assert.ok(pieces.includes("d-61.json") && pieces.includes("61.h.shard"), pieces.join(" "));
    release();
    await p.waitForFunction(() => [...document.querySelectorAll("#affiliation-picker-list [role=option]")].some((o) => /Aegean/.test(o.textContent)));
    assert.equal(pieces.filter((n) => n === "6165.shard").length, 1, "the prefetched leaf is the one the answer uses");
    assert.deepEqual(errs, []);
  } finally {
    release();
    await context.close();
    await split.close();
  }
});

test("pieces of a newer version than this reader are not used: the whole registry answers", async () => {
  const context = await browser.newContext({ serviceWorkers: "block" });
  try {
    const { p, errs } = await watchedPage(context);
    await p.route(/\/data\/manifest\.json$/, async (route) => {
      const res = await route.fetch();
      const m = await res.json();
      m.pieces.version = 99;
      await route.fulfill({ response: res, json: m });
    });
    await p.goto(server.url + "api.html");
    const got = await p.evaluate(async () => {
      const { startPieces, TypeaheadClient } = await import("./registry-pieces.js");
      const { openRegistry } = await import("./registry.js");
      const pieces = startPieces({ dataUrl: new URL("./data/", location.href) });
      const refused = await pieces.ready.then(() => null, (e) => ({ name: e.name, message: e.message }));
      const client = new TypeaheadClient(pieces, () => openRegistry({ dataUrl: new URL("./data/", location.href), mode: "typeahead" }));
      const hits = await client.suggest("northfield", { limit: 3 });
      return { refused, names: hits.map((h) => h.summary.name), whole: client.wholeOpened, fetched: performance.getEntriesByType("resource").filter((e) => /\/pieces\//.test(e.name)).length };
    });
    assert.equal(got.refused?.name, "NoPiecesError");
    assert.match(got.refused.message, /version 99, newer than this reader \(\d+\)/);
    assert.ok(got.whole && got.names.length === 3 && got.names.every((n) => /Northfield/.test(n)), JSON.stringify(got));
    assert.equal(got.fetched, 0, "no piece is fetched");
    assert.deepEqual(errs, []);
  } finally {
    await context.close();
  }
});

test("the app's search box suggests from the pieces while its whole data is on its way", async () => {
  // Held back by the server: the Worker's whole data (the section files),
  // and the pieces client until something is typed, so that the first
  // query is asked before the page has its registry client.
  let release, typed;
  const held = new Promise((r) => (release = r));
  const piecesHeld = new Promise((r) => (typed = r));
  const asked = [];
  const slow = await serve(SITE, PREFIX, {
    hold: (rel) =>
      rel === "registry-pieces.js" ? piecesHeld
      : /^data\/(summary|names|records|registry)\.[0-9a-f]+\.shard$/.test(rel) ? (asked.push(rel), held)
      : null,
  });
  const context = await browser.newContext();
  try {
    const { p, errs } = await watchedPage(context);
    await p.goto(slow.url + "index.html");
    await p.locator("#q-input").fill("Kilimani");
    await p.waitForTimeout(200); // the keystroke's query runs
    typed();
    await p.waitForFunction(() => [...document.querySelectorAll("#q-list [role=option]")].some((o) => /Kilimani University of Agriculture/.test(o.textContent)));
    // (The whole data is held: the suggestions came without it. They may
    // come before the Worker has even asked for it. The header's release
    // facts come from the manifest, once the app has taken over from the
    // page's own box.)
    await p.waitForFunction(() => /data: demo, 63 records/.test(document.getElementById("release")?.textContent ?? ""));
    while (asked.length === 0) await new Promise((r) => setTimeout(r, 50));
    release();
    // Then the rest of the app works as before: Enter lists the results.
    await p.keyboard.press("Escape");
    await p.locator("#q-input").press("Enter");
    await p.waitForFunction(() => /Kilimani University of Agriculture/.test(document.querySelector(".results-col")?.textContent ?? ""));
    assert.deepEqual(errs, []);
  } finally {
    typed();
    release();
    await context.close();
    await slow.close();
  }
});

test("a piece response longer than a piece can be is refused before it is read whole; the whole registry answers instead", async () => {
  const site = await serve(SITE, PREFIX);
  const target = new URL(site.url);
  // Every leaf and head is an endless stream of bytes (64 MiB at most, so a
  // reader that reads it all still ends); everything else is the site. Each
  // stream records whether the reader hung up on it before its end: several
  // pieces are asked at once, and how much each socket buffers depends on the
  // machine's load, so bytes are only reported, not the sum asserted.
  const streams = [];
  const hostile = http.createServer((req, res) => {
    if (/^[0-9a-f]+(\.h)?\.shard$/.test(pieceOf(`http://x${req.url}`) ?? "")) {
      const stream = { sent: 0, finished: false };
      stream.done = new Promise((r) => res.once("close", () => r()));
      streams.push(stream);
      // A range answered with more than it asked for (a pack read by range answers 206).
      res.writeHead(206, { "content-type": "application/octet-stream", "content-range": "bytes 0-67108863/67108864" });
      const chunk = Buffer.alloc(64 << 10, 7);
      const pump = () => {
        while (!res.destroyed && stream.sent < 64 << 20) {
          stream.sent += chunk.length;
          if (!res.write(chunk)) return res.once("drain", pump);
        }
        if (!res.destroyed) {
          stream.finished = true;
          res.end();
        }
      };
      return pump();
    }
    http.get({ host: target.hostname, port: target.port, path: req.url, headers: req.headers.range ? { range: req.headers.range } : {} }, (up) => {
      res.writeHead(up.statusCode, up.headers);
      up.pipe(res);
    });
  });
  await new Promise((r) => hostile.listen(0, "127.0.0.1", r));
  const context = await browser.newContext();
  try {
    const { p, errs } = await watchedPage(context);
    await p.goto(`http://127.0.0.1:${hostile.address().port}${PREFIX}api.html`);
    const out = await p.evaluate(async () => {
      const { openPieces, TypeaheadClient } = await import("./registry-pieces.js");
      const { openRegistry } = await import("./registry.js");
      const pieces = await openPieces({ dataUrl: "./data/" });
      const refused = await pieces.suggest("northfield", { limit: 5 }).then(() => "read", (e) => e.message);
      const client = new TypeaheadClient(pieces, () => openRegistry({ dataUrl: new URL("./data/", location.href), mode: "typeahead" }));
      const hits = await client.suggest("northfield", { limit: 5 });
      return { refused, first: hits[0]?.summary.name, whole: client.wholeOpened };
    });
    assert.match(out.refused, /more than \d+ bytes/);
    // The reader hung up on every endless piece: none was read to its end.
    assert.ok(streams.length > 0, "a piece was asked");
    const hung = await Promise.race([
      Promise.all(streams.map((s) => s.done)).then(() => false),
      new Promise((r) => setTimeout(() => r(true), 30_000)),
    ]);
    assert.ok(!hung, "a piece stream was neither read nor closed within 30 s");
    const sent = streams.map((s) => s.sent);
    assert.ok(streams.every((s) => !s.finished), `a piece stream was read to its end (bytes sent per stream: ${sent})`);
    assert.equal(out.first, "Northfield University");
    assert.ok(out.whole, "the whole registry answered");
    assert.deepEqual(errs, []);
  } finally {
    await context.close();
    await new Promise((r) => hostile.close(r));
    await site.close();
  }
});

/**
 * Serves every leaf and head of the site with wrong bytes of the right
 * length (`times` times per file; then the true file); returns how often
 * each was asked. Its page's context blocks service workers: a request the
 * service worker makes (api.html installs one) is not routed, so a
 * refetch through it would be neither damaged nor counted.
 */
async function damagePieces(p, times) {
  const asked = new Map();
  await p.route((u) => /^[0-9a-f]+(\.h)?\.shard$/.test(pieceOf(u) ?? ""), async (route) => {
    const url = route.request().url();
    asked.set(url, (asked.get(url) ?? 0) + 1);
    const res = await route.fetch();
    if (asked.get(url) > times) return route.fulfill({ response: res });
    const body = await res.body();
    for (let i = 8; i < body.length; i += 7) body[i] ^= 0x5a; // same length, other bytes
    await route.fulfill({ response: res, body });
  });
  return asked;
}

const SUGGEST_NORTHFIELD = async () => {
  const { openPieces, TypeaheadClient } = await import("./registry-pieces.js");
  const { openRegistry } = await import("./registry.js");
  const pieces = await openPieces({ dataUrl: "./data/" });
  const fromPieces = await pieces.suggest("northfield", { limit: 5 }).then(
    (hits) => hits?.map((h) => h.summary.name) ?? "whole",
    (e) => "refused: " + e.message,
  );
  const client = new TypeaheadClient(pieces, () => openRegistry({ dataUrl: new URL("./data/", location.href), mode: "typeahead" }));
  const hits = await client.suggest("northfield", { limit: 5 });
  const whole = await openRegistry({ dataUrl: new URL("./data/", location.href), mode: "typeahead" });
  const want = (await whole.suggest("northfield", { limit: 5 })).map((h) => h.summary.name);
  return { fromPieces, names: hits.map((h) => h.summary.name), want };
};

test("a piece served with wrong bytes is refused, reported and fetched once more; the answer is the whole registry's", async () => {
  const context = await browser.newContext({ serviceWorkers: "block" });
  try {
    const { p, errs } = await watchedPage(context);
    const asked = await damagePieces(p, 1);
    await p.goto(server.url + "api.html");
    const out = await p.evaluate(SUGGEST_NORTHFIELD);
    // A piece prefetched without being awaited may still be on its second fetch.
    for (let end = Date.now() + 10_000; Date.now() < end && [...asked.values()].some((n) => n < 2); ) await p.waitForTimeout(100);
    assert.ok(asked.size > 0, "a piece was asked");
    for (const [url, n] of asked) assert.equal(n, 2, `${url} fetched ${n} times`);
    assert.deepEqual(out.fromPieces, out.want, "the refetched piece answers");
    assert.deepEqual(out.names, out.want);
    // The one expected report per damaged piece, nothing else.
    assert.equal(errs.length, asked.size, errs.join("\n"));
    for (const e of errs) assert.match(e, /registry: .*\.shard: its bytes do not match their hash .*fetching it once more/);
  } finally {
    await context.close();
  }
});

test("a slot whose proof does not lead to the manifest's root is never used: its pieces are refused, the whole registry answers", async () => {
  const context = await browser.newContext({ serviceWorkers: "block" });
  try {
    const { p, errs } = await watchedPage(context);
    const asked = new Map();
    // The last byte of each slot read (its proof's top sibling) altered, every time.
    await p.route(/\/packs\/tables\.[0-9a-f]{16}\.pack\?s=\d+$/, async (route) => {
      const range = route.request().headers().range;
      asked.set(range, (asked.get(range) ?? 0) + 1);
      const res = await route.fetch();
      assert.equal(res.status(), 206, "a slot is read by range");
      const body = await res.body();
      body[body.length - 1] ^= 0x01;
      await route.fulfill({ response: res, body });
    });
    await p.goto(server.url + "api.html");
    const out = await p.evaluate(SUGGEST_NORTHFIELD);
    for (let end = Date.now() + 10_000; Date.now() < end && [...asked.values()].some((n) => n < 2); ) await p.waitForTimeout(100);
    assert.ok(asked.size > 0, "a slot was asked");
    for (const [range, n] of asked) assert.equal(n, 2, `${range} fetched ${n} times`);
    assert.match(String(out.fromPieces), /refused: slot \d+: its bytes do not match their hash .*again: not used/);
    assert.equal(out.names[0], "Northfield University");
    assert.deepEqual(out.names, out.want);
    assert.ok(errs.length > 0 && errs.every((e) => /slot \d+: its bytes do not match their hash/.test(e)), errs.join("\n"));
  } finally {
    await context.close();
  }
});

test("a piece that is wrong twice is never used: the whole registry answers", async () => {
  const context = await browser.newContext({ serviceWorkers: "block" });
  try {
    const { p, errs } = await watchedPage(context);
    const asked = await damagePieces(p, Infinity);
    await p.goto(server.url + "api.html");
    const out = await p.evaluate(SUGGEST_NORTHFIELD);
    for (let end = Date.now() + 10_000; Date.now() < end && [...asked.values()].some((n) => n < 2); ) await p.waitForTimeout(100);
    await p.waitForTimeout(300); // a third fetch, were there one, would show now
    assert.ok(asked.size > 0, "a piece was asked");
    for (const [url, n] of asked) assert.equal(n, 2, `${url} fetched ${n} times`);
    assert.match(String(out.fromPieces), /refused: .*do not match their hash .*again: not used/);
    assert.equal(out.names[0], "Northfield University");
    assert.deepEqual(out.names, out.want);
    assert.ok(errs.every((e) => /do not match their hash/.test(e)), errs.join("\n"));
  } finally {
    await context.close();
  }
});

test("two-level hash tables (builds before the hash tree, the pieces-3 fixture) still check: listed files are read, unlisted ones are absent, altered ones refused", async () => {
  const fixture = path.resolve("crates/core/tests/compat/pieces-3");
  const fs = await import("node:fs/promises");
  const manifest = JSON.parse(await fs.readFile(path.join(fixture, "manifest.json"), "utf8"));
  const context = await browser.newContext({ serviceWorkers: "block" });
  try {
    const { p, errs } = await watchedPage(context);
    await p.goto(server.url + "api.html");
    // The fixture's folder, served under a path of its own; one file altered.
    await p.route(/\/compat-3\/([^/]+)$/, async (route) => {
      const name = new URL(route.request().url()).pathname.split("/").pop();
      const body = await fs.readFile(path.join(fixture, name)).catch(() => null);
      if (!body) return route.fulfill({ status: 404, body: "" });
      if (name === "6165.shard") body[20] ^= 0x5a;
      await route.fulfill({ status: 200, body, contentType: "application/octet-stream" });
    });
    const out = await p.evaluate(async (hashes) => {
      const { checkedFiles } = await import("./registry-pieces.js");
      const get = checkedFiles(new URL("./compat-3/", location.href), hashes);
      const size = (b) => b?.length ?? null;
      return {
        head: size(await get("61.h.shard", 1 << 20)),
        part: size(await get("d-61.json", 1 << 20)),
        listed: await get.listed("61.h.shard"),
        unlisted: await get.listed("6164.shard"), // in a table the fixture keeps
        altered: await get("6165.shard", 1 << 20).then(size, (e) => e.message),
      };
    }, manifest.pieces.hashes);
    assert.equal(manifest.pieces.hashes.proofs, undefined, "the fixture has two-level tables");
    assert.ok(out.head > 0 && out.part > 0, JSON.stringify(out));
    assert.equal(out.listed, true);
    assert.equal(out.unlisted, false);
    assert.match(String(out.altered), /6165\.shard: its bytes do not match their hash .*again: not used/);
    assert.ok(errs.every((e) => /6165\.shard/.test(e)), errs.join("\n"));
  } finally {
    await context.close();
  }
});
