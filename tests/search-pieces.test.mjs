// E2 over pieces in the browser (web/registry-search.js + the wasm's
// PiecesSearch): on the demo split like a large registry, every page the
// pieces answer equals the whole registry's answer (registry.js's Worker
// over the same data), and a first page costs a few small files.
//
// Needs the site built by scripts/build-web.sh (target/site).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { chromium } from "playwright-core";
import { watchErrors, pieceOf, CHROMIUM_ARGS } from "./server.mjs";
import { splitSite } from "./ui-helpers.mjs";

let browser, split;

before(async () => {
  browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: CHROMIUM_ARGS });
  split = await splitSite();
});

after(async () => {
  await browser?.close();
  await split?.close();
});

const REQUESTS = [
  { query: "northfield" },
  { query: "university of agriculture", filter: "types:education" },
  { query: "university", page: 2 },
  { query: "of", allStatus: true },
  { query: "institute -technology" },
  { query: "\"university of\"" },
  { query: "\"university of\"", filter: "types:education" },
  { query: "\"institute\"", page: 2 },
  { query: "university research", filter: "types:education", page: 2 },
  { query: "for institute university of the" },
  { query: "kilimani university", filter: "country.country_code:KE" },
  { query: "polar", version: 1 },
  { query: "0bsd6jb11" },
  { query: "((" },
];

test("pages from pieces equal the whole registry's, and cost a few small files", async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  const errors = [];
  // 400s asked for above are intended.
  watchErrors(page, errors);
  const fetched = [];
  page.on("request", (r) => pieceOf(r.url()) && fetched.push(pieceOf(r.url())));
  await page.goto(split.url + "widget-demo.html");
  const out = await page.evaluate(async (requests) => {
    const { startPiecesSearch } = await import("./registry-search.js");
    const { openRegistry } = await import("./registry.js");
    const pieces = startPiecesSearch({ dataUrl: new URL("./data/", location.href) });
    const results = [];
    for (const r of requests) results.push({ r, pieces: await pieces.page(r), bytes: pieces.bytes() });
    const whole = await openRegistry({ dataUrl: new URL("./data/", location.href) });
    for (const x of results) {
      const r = x.r;
      let url = `/v${r.version ?? 2}/organizations?query=${encodeURIComponent(r.query)}&page=${r.page ?? 1}`;
      if (r.filter) url += `&filter=${encodeURIComponent(r.filter)}`;
      if (r.allStatus) url += "&all_status";
      const { status, body } = await whole.request(url);
      x.whole = { status, body: JSON.parse(body) };
    }
    return results;
  }, REQUESTS);
  let answered = 0;
  for (const { r, pieces, whole } of out) {
    if (pieces.whole) continue;
    answered++;
    if (pieces.errors) {
      assert.equal(whole.status, 400, JSON.stringify(r));
      assert.deepEqual(pieces.errors, whole.body.errors, JSON.stringify(r));
      continue;
    }
    assert.equal(whole.status, 200, JSON.stringify(r));
    assert.deepEqual(pieces.hits.map((h) => h.summary.id), whole.body.items.map((i) => i.id), JSON.stringify(r));
    assert.equal(pieces.numberOfResults, whole.body.number_of_results, JSON.stringify(r));
    assert.deepEqual(pieces.meta, whole.body.meta, JSON.stringify(r));
  }
  assert.ok(answered >= REQUESTS.length - 2, `${answered} of ${REQUESTS.length} answered from pieces`);
  // (Pieces version 7: a type's rank chunks, a quoted pair's rank chunks and group file.)
  assert.ok(fetched.some((f) => /^kt-/.test(f)), `a type's rank chunks were fetched: ${fetched}`);
  assert.ok(fetched.some((f) => /^pk-/.test(f)) && fetched.some((f) => /^pg-/.test(f)), `a phrase's rank chunks and group file were fetched: ${fetched}`);
  assert.ok(fetched.includes("search.stats"), "the statistics file was fetched");
  // (Pieces version 8: the common terms are in statistics parts by first character.)
  assert.ok(fetched.some((f) => /^s-[0-9a-f]+\.shard$/.test(f)), `statistics parts were fetched: ${fetched}`);
  // (Counted from its group file, or from its member file for three common words or more.)
  assert.ok(fetched.some((f) => /^[cg]-/.test(f)), `a common term's groups or members were fetched: ${fetched}`);
  const own = fetched.filter((f) => /^(search\.stats|[cgkts]-)/.test(f));
  assert.equal(new Set(own).size, own.length, `each file is fetched once: ${own}`);
  assert.deepEqual(errors.filter((e) => !/status of 400/.test(e)), []);
  await context.close();
});

test("a link's words' files are fetched while the wasm downloads: each one the answer needs (directory parts aside), all it needs but rank chunks", async () => {
  const QUERIES = ["university of agriculture", "universidad de northfield", "kilimani university", "polar"];
  // The files (names) a page's answer fetches, in a fresh context; with
  // `ahead`, prefetch first and note what it fetched before the wasm is let in.
  const run = async (query, ahead) => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const errors = [];
    watchErrors(page, errors);
    await page.goto(split.url + "widget-demo.html");
    const out = await page.evaluate(async ({ query, ahead }) => {
      const { startPiecesSearch } = await import("./registry-search.js");
      // (A 404 is a file the build does not have: a pair of common words
      // without a group file of its own, asked before its table was in.)
      const names = () =>
        performance
          .getEntriesByType("resource")
          .filter((e) => e.responseStatus !== 404)
          .map((e) => new URL(e.name))
          // A file of a pack is named by its URL's `f`; a slot read from the slot tables is "slot".
          .map((u) => (/\/packs\/pieces\.[0-9a-f]{16}\.pack$/.test(u.pathname) ? u.searchParams.get("f") : /\/packs\/tables\./.test(u.pathname) ? "slot" : /\/pieces\//.test(u.pathname) ? u.pathname.split("/").pop() : null))
          .filter(Boolean);
      let letIn;
      const held = new Promise((r) => (letIn = r));
      const wasm = held.then(async () => {
        const m = await import("./pkg/registry_wasm.js");
        await m.default({ module_or_path: new URL("./pkg/registry_wasm_bg.wasm", location.href) });
        return m;
      });
      const search = startPiecesSearch({ dataUrl: new URL("./data/", location.href), wasm });
      let before = [];
      if (ahead) {
        search.prefetch(query, { typed: true });
        // Until no file has come in for 500 ms.
        for (let n = -1, quiet = 0; quiet < 5; await new Promise((r) => setTimeout(r, 100))) {
          quiet = names().length === n ? quiet + 1 : 0;
          n = names().length;
        }
        before = names();
      }
      letIn();
      const a = await search.page({ query, typed: true, version: 2, page: 1 });
      return { before, all: names(), answered: Boolean(a.hits) };
    }, { query, ahead });
    await context.close();
    assert.deepEqual(errors, [], query);
    return out;
  };
  let guessed = 0;
  let chunks = 0;
  for (const query of QUERIES) {
    const cold = await run(query, false);
    const warm = await run(query, true);
    const files = (names) => names.filter((n) => n !== "slot"); // slots aside
    const needed = new Set(files(cold.all));
    const early = files(warm.before);
    // Found and checked through the slots; nothing read as a loose file of a pieces folder.
    assert.ok(cold.all.includes("slot"), `${query}: slots read`);
    assert.deepEqual(cold.all.filter((n) => /\.json$/.test(n) && /^(ht?-\d+|hashes)\.json$/.test(n)), [], `${query}: no hash table read`);
    assert.ok(cold.answered && warm.answered, `${query}: answered from pieces`);
    // (A directory part is asked beside a word's group file's table: a
    // common word's is not needed, a kilobyte against a round trip.)
    for (const f of early.filter((f) => !/^d-/.test(f))) assert.ok(needed.has(f), `${query}: ${f} was fetched ahead but the answer does not need it (needs ${[...needed]})`);
    const late = [...needed].filter((f) => !early.includes(f));
    assert.deepEqual(late.filter((f) => !/^k-/.test(f)), [], `${query}: asked only once the wasm ran (ahead: ${early})`);
    const all = files(warm.all).filter((f) => needed.has(f) || !/^d-/.test(f));
    assert.deepEqual(all.sort(), [...needed].sort(), `${query}: the same files in all, each once`);
    guessed += early.filter((f) => !/^(d-|search\.stats)/.test(f)).length;
    chunks += early.filter((f) => /^k-/.test(f)).length;
  }
  assert.ok(guessed >= QUERIES.length, `leaves and group files were guessed ahead (${guessed})`);
  assert.ok(chunks > 0, "the only common word's first rank chunk was fetched ahead");
});
