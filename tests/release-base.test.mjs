// Files that outlive a release (pieces version 10), end to end in headless
// Chromium: release A is built, then the next release (`registry synth
// --next-release` of A's dump) twice — B with `registry site --previous A`,
// which keeps A's packs as its base and writes a changed file as a delta
// from it, and B' without (a fresh build of the same dump). On B:
// * the app's typeahead and Enter, a shared `?id=` link of a changed
//   record, the pieces' API answers and the widget give B's answers (B''s
//   where it is cheap to compare, the whole registry's for the API);
// * at least one piece is read by its delta, and the files B has from A
//   are read at the very URLs (and ranges) A read them by, so the caches
//   of A's visitors and CDNs still answer them;
// * a delta damaged on the host is refused (reported, read once more, not
//   used) and the whole registry answers right;
// * the service worker, before its offline copy is complete, answers an API
//   URL from B's pieces, deltas applied by its own wasm.
// Apart from that last test no service worker runs: the pages read the
// pieces themselves.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { chromium } from "playwright-core";
import { serve, watchErrors, pieceOf, CHROMIUM_ARGS } from "./server.mjs";
import { api, bare, display } from "./ui-helpers.mjs";
import { releaseFolder, manifestOf } from "./release-sites.mjs";
import { hex, nameKey } from "../web/registry-pieces.js";

const PREFIX = process.env.SITE_PREFIX ?? "/";
const DEMO_DUMP = path.resolve("data/demo/registry-demo.json");
const WHOLE = /^data\/[^/]+\.shard$/; // the whole registry's files (not pieces)

let folder, server, fresh, browser;
let a, b, bFresh; // the sites
let changes; // what the next release did: {aliased: [record, alias], added: record}

before(async () => {
  folder = releaseFolder("registry-base-");
  const next = folder.nextRelease("next", DEMO_DUMP);
  a = folder.site("a", DEMO_DUMP, "base-a");
  b = folder.site("b", next, "base-b", { previous: a });
  bFresh = folder.site("b-fresh", next, "base-b");
  changes = changesOf(JSON.parse(fs.readFileSync(DEMO_DUMP, "utf8")), JSON.parse(fs.readFileSync(next, "utf8")));
  changes.widgetWord = deltaWord(b, display(changes.added));
  server = await serve(folder.live, PREFIX);
  fresh = await serve(bFresh, PREFIX);
  browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: CHROMIUM_ARGS });
});

after(async () => {
  await browser?.close();
  await server?.close();
  await fresh?.close();
  folder?.remove();
});

/** A record with an alias the next release added (and that alias), and a record it added. */
function changesOf(before, after) {
  const old = new Map(before.map((r) => [r.id, r]));
  const aliased = after
    .map((r) => [r, r.names.find((n) => old.has(r.id) && !old.get(r.id).names.some((o) => o.value === n.value))?.value])
    .find(([, alias]) => alias);
  const added = after.find((r) => !old.has(r.id));
  assert.ok(aliased && added, "the next release adds an alias and a record");
  return { aliased, added };
}

/**
 * A word of `name` whose typeahead piece (the leaf of its first character:
 * the demo's are not split) site `dir` lists with a delta: what makes the
 * widget's typeahead-only wasm apply one.
 */
function deltaWord(dir, name) {
  const keys = new Set(deltasOf(dir).map((d) => d.key));
  const word = name
    .toLowerCase()
    .split(/\s+/)
    .find((w) => keys.has(nameKey(`${hex(w[0])}.shard`)));
  assert.ok(word, `a word of '${name}' has its typeahead piece by a delta`);
  return word;
}

/** A fresh profile without a service worker (the page reads pieces itself), its errors collected. */
async function freshPage() {
  const context = await browser.newContext({ viewport: { width: 1100, height: 850 }, serviceWorkers: "block" });
  const page = await context.newPage();
  page.setDefaultTimeout(20_000);
  const errors = [];
  watchErrors(page, errors);
  return { context, page, errors };
}

/**
 * The options a combobox lists for `text` (maybe none) once its list is for
 * that text and has settled: a first paint may list the first hits it can
 * prove (or none yet) before the rest arrive, and the two sites compared
 * must be read at the same point, the final answer.
 */
async function typed(page, input, list, text) {
  await page.locator(input).fill(text);
  await page.waitForFunction(({ list, text }) => document.querySelector(list)?.dataset.for === text, { list, text });
  const read = () => page.locator(`${list} [role=option]:not(.cb-succ) .cb-name`).allInnerTexts();
  let last = await read();
  for (let i = 0; i < 12; i++) {
    await page.waitForTimeout(250);
    const now = await read();
    if (now.length && JSON.stringify(now) === JSON.stringify(last)) return now;
    last = now;
  }
  return last;
}

/**
 * What two visitors of the site at `url` (served by `server`) see, each
 * with an empty cache: in the app, the suggestions for the new alias and
 * the added record's name, Enter's results and the changed record's page;
 * in the widget (its typeahead-only wasm), the suggestions for the alias
 * and for `changes.widgetWord`. `{seen, errors, widgetReads}`: the
 * widget's reads of packed files apart.
 */
async function visit(server) {
  const [record, alias] = changes.aliased;
  const app = await freshPage();
  const widget = await freshPage();
  try {
    const seen = {};
    const { page } = app;
    await page.goto(server.url);
    seen.alias = await typed(page, "#q-input", "#q-list", alias);
    seen.added = await typed(page, "#q-input", "#q-list", display(changes.added));
    await page.locator("#q-input").press("Enter");
    await page.waitForSelector(".result a");
    await page.waitForFunction(() => !document.querySelector(".loading"));
    seen.results = await page.locator(".result a").evaluateAll((as) => as.map((a) => new URL(a.href).searchParams.get("id") ?? a.href));
    await page.goto(`${server.url}?id=${bare(record.id)}`);
    await page.waitForFunction((n) => document.getElementById("record-title")?.textContent.includes(n), display(record));
    await page.waitForFunction(() => !document.querySelector(".loading"));
    seen.record = await page.locator("main").innerText();
    const from = server.requests.length;
    await widget.page.goto(`${server.url}widget-demo.html`);
    await widget.page.waitForSelector("#affiliation-picker-input"); // the picker mounted (not its early list)
    seen.widget = [];
    for (const text of [alias, changes.widgetWord]) seen.widget.push(await typed(widget.page, "#affiliation-picker-input", "#affiliation-picker-list", text));
    return { seen, errors: [...app.errors, ...widget.errors], widgetReads: packReads(server.requests.slice(from)) };
  } finally {
    await app.context.close();
    await widget.context.close();
  }
}

/**
 * The pieces' answers to the changed record's URL and a results URL of its
 * alias, beside the whole registry's (registry.js) in the same page.
 */
function apiAnswers(page) {
  const [record, alias] = changes.aliased;
  const urls = [`/v2/organizations/${bare(record.id)}`, `/v2/organizations?query=${encodeURIComponent(alias)}`];
  return page.evaluate(async (urls) => {
    const { openPieces } = await import(new URL("registry-pieces.js", document.baseURI).href);
    const { openRegistry } = await import(new URL("registry.js", document.baseURI).href);
    const searchModule = () => import(new URL("registry-search.js", document.baseURI).href);
    const pieces = await openPieces({ dataUrl: new URL("data/", document.baseURI), searchModule });
    const whole = await openRegistry({ dataUrl: new URL("data/", document.baseURI) });
    const out = [];
    for (const u of urls) out.push({ u, pieces: (await pieces.record(u)) ?? (await pieces.list(u)), whole: await whole.request(u) });
    whole.close();
    return out;
  }, urls);
}

/** The reads of packed files among `requests` (server.mjs lines): `{pack, name, delta, line}`. */
const packReads = (requests) =>
  requests
    .map((line) => {
      const url = new URL(line.split(" ")[1], "http://host");
      const name = pieceOf(url.href);
      return name && { pack: url.pathname.split("/").pop(), name, delta: url.searchParams.has("delta"), line };
    })
    .filter(Boolean);

/** The entries of a site's slot tables that are deltas: `{key, pack, offset, length}` (registry_core::shard::packed). */
function deltasOf(site) {
  const { packed } = manifestOf(site).pieces;
  const levels = Math.log2(packed.buckets);
  const out = [];
  for (const [t, table] of packed.tables.entries()) {
    const bytes = fs.readFileSync(path.join(site, "data", manifestOf(site).pieces.path, table));
    for (let s = 0; s < packed.slots_per_file && t * packed.slots_per_file + s < packed.buckets; s++) {
      const slot = bytes.subarray(s * packed.slot_bytes, (s + 1) * packed.slot_bytes - levels * 12);
      const count = slot.readUInt16LE(0);
      for (let i = 1; i < count; i++) {
        const [prev, e] = [2 + (i - 1) * 30, 2 + i * 30];
        if (slot.readBigUInt64LE(prev) === slot.readBigUInt64LE(e))
          out.push({ key: slot.readBigUInt64LE(e), pack: packed.packs[slot.readUInt16LE(e + 20)], offset: slot.readUInt32LE(e + 22), length: slot.readUInt32LE(e + 26) });
      }
    }
  }
  return out;
}

const strip = (body) => ({ ...JSON.parse(body), time_taken: 0 });

test("B built on A's packs answers as a fresh build of B, reads changed pieces by their deltas and unchanged ones at A's URLs", async () => {
  const [mA, mB] = [manifestOf(a), manifestOf(b)];
  const base = mB.pieces.packed.base;
  assert.equal(mB.pieces.version, 10);
  assert.ok(base > 0, "B keeps A's packs as its base");
  assert.deepEqual(mB.pieces.packed.packs.slice(0, base), mA.pieces.packed.packs.slice(0, base), "B's base packs are A's, by name");
  for (const p of mB.pieces.packed.packs.slice(0, base))
    assert.ok(fs.readFileSync(path.join(b, "data", mB.pieces.path, p)).equals(fs.readFileSync(path.join(a, "data", mA.pieces.path, p))), `${p}: A's bytes`);
  assert.equal(manifestOf(bFresh).pieces.packed.base ?? 0, 0, "B' is a fresh build");

  // Visitors of A, then of B and of B' (empty caches: what B reads, not what a cache answers).
  folder.deploy(a);
  const fromA = server.requests.length;
  const onA = await visit(server);
  const readOnA = packReads(server.requests.slice(fromA));
  assert.deepEqual(onA.errors, []);
  folder.deploy(b);
  const fromB = server.requests.length;
  const onB = await visit(server);
  const readOnB = packReads(server.requests.slice(fromB));
  const onFresh = await visit(fresh);
  assert.deepEqual(onB.seen, onFresh.seen, "B answers as B' does");
  const [record] = changes.aliased;
  assert.ok(onB.seen.alias.includes(display(record)), `the new alias finds its record: ${onB.seen.alias}`);
  assert.ok(onB.seen.added.includes(display(changes.added)), `the added record is suggested: ${onB.seen.added}`);
  assert.ok(onB.seen.widget[0].includes(display(record)), `the widget finds the alias: ${onB.seen.widget}`);
  assert.ok(!onA.seen.alias.includes(display(record)), "A does not know the alias (the visit tells the releases apart)");
  assert.deepEqual([onB.errors, onFresh.errors], [[], []]);

  const byDelta = readOnB.filter((r) => r.delta);
  assert.ok(byDelta.length > 0, `a piece was read by its delta:\n${readOnB.map((r) => r.line).join("\n")}`);
  assert.ok(onB.widgetReads.some((r) => r.delta), "the widget (its typeahead-only wasm) applied a delta");
  for (const d of byDelta)
    assert.ok(
      readOnB.some((r) => !r.delta && r.name === d.name && mA.pieces.packed.packs.includes(r.pack)),
      `${d.name}: its base was read from A's packs beside its delta`,
    );
  // A file B has from A (its bytes, or the base of its delta) is read at A's URL and range.
  const kept = readOnB.filter((r) => !r.delta && mA.pieces.packed.packs.includes(r.pack));
  const alsoOnA = kept.filter((r) => readOnA.some((x) => x.name === r.name));
  assert.ok(alsoOnA.length > 0, "B read files A's visitors read too");
  for (const r of alsoOnA)
    assert.ok(
      readOnA.some((x) => x.line === r.line),
      `${r.name}: read at A's URL and range (${r.line}; A: ${readOnA.filter((x) => x.name === r.name).map((x) => x.line)})`,
    );

  // The API's answers from B's pieces are B's whole registry's.
  const api = await freshPage();
  try {
    await api.page.goto(server.url);
    for (const { u, pieces, whole } of await apiAnswers(api.page)) {
      assert.ok(pieces, `${u}: answered from B's pieces`);
      assert.equal(pieces.status, whole.status, u);
      assert.deepEqual(strip(pieces.body), strip(whole.body), u);
    }
    assert.deepEqual(api.errors, []);
  } finally {
    await api.context.close();
  }
});

test("a delta damaged on the host is refused, and the whole registry answers right", async () => {
  const damaged = path.join(folder.tmp, "b-damaged");
  fs.cpSync(b, damaged, { recursive: true });
  const deltas = deltasOf(damaged);
  assert.ok(deltas.length > 0, "B lists deltas");
  // Every delta with one byte flipped: whichever the visit reads fails its hash.
  for (const d of deltas) {
    const file = path.join(damaged, "data", manifestOf(damaged).pieces.path, d.pack);
    const bytes = fs.readFileSync(file);
    bytes[d.offset + Math.floor(d.length / 2)] ^= 0xff;
    fs.writeFileSync(file, bytes);
  }
  folder.deploy(damaged);
  const from = server.requests.length;
  const onDamaged = await visit(server);
  assert.deepEqual(onDamaged.seen, (await visit(fresh)).seen, "the whole registry answers as B' does");
  const reads = packReads(server.requests.slice(from)).filter((r) => r.delta);
  assert.ok(reads.length > 0, "a delta was read");
  for (const name of new Set(reads.map((r) => r.name)))
    assert.ok(reads.filter((r) => r.name === name).length >= 2, `${name}: its delta was read once more before it was refused`);
  // The console says which file was damaged, and nothing else went wrong.
  assert.ok(onDamaged.errors.length > 0, "the damage is reported");
  for (const e of onDamaged.errors) assert.match(e, /\(its delta\): its bytes do not match their hash \(damaged or altered\)/);
});

test("the service worker answers from B's pieces, applying their deltas with its wasm, while its offline copy is not complete", async () => {
  let release;
  const held = new Promise((r) => (release = r));
  // The whole registry's files are held: the worker's offline copy cannot complete, so the pieces answer.
  const slow = await serve(b, PREFIX, { hold: (rel) => (WHOLE.test(rel) ? held : null) });
  const context = await browser.newContext({ viewport: { width: 1100, height: 850 } });
  const page = await context.newPage();
  page.setDefaultTimeout(20_000);
  const errors = [];
  watchErrors(page, errors);
  const onFresh = await freshPage();
  try {
    const u = `v2/organizations?query=${encodeURIComponent(display(changes.added))}`;
    await onFresh.page.goto(fresh.url);
    const want = await api(onFresh.page, `/${u}`);
    // Not the app's page: it installs the worker once it has answered, from the whole registry held here.
    await page.goto(`${slow.url}widget-demo.html`);
    await page.evaluate(async () => (await import(new URL("sw-control.js", document.baseURI).href)).serviceWorkerControl());
    const from = slow.requests.length;
    const got = await page.evaluate(async (u) => {
      const res = await fetch(new URL(u, document.baseURI));
      return { status: res.status, release: res.headers.get("x-registry-release"), body: await res.json() };
    }, u);
    assert.deepEqual([got.status, got.release], [want.status, "base-b"]);
    assert.deepEqual({ ...got.body, time_taken: 0 }, { ...want.body, time_taken: 0 });
    assert.ok(got.body.items.some((r) => r.id === changes.added.id), "the added record is found");
    assert.ok(packReads(slow.requests.slice(from)).some((r) => r.delta), "the worker read a piece by its delta");
    assert.deepEqual([errors, onFresh.errors], [[], []]);
  } finally {
    release();
    await context.close();
    await onFresh.context.close();
    await slow.close();
  }
});
